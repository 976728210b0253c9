import { defineConfig } from "vitest/config";

// The end-to-end test: one scenario after the other (each has its own code-server and browser), with
// waits long enough for a loaded 2-core machine.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    environment: "node",
    pool: "forks",
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
    reporters: ["verbose"],
  },
});
