import { defineConfig } from "vitest/config";

// Unit tests of the pure modules; they never import `vscode`.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
