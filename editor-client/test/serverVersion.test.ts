import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { releaseOf, SUPPORTED_SERVER_VERSIONS, satisfies, versionMismatch } from "../src/serverVersion";

describe("the supported server versions", () => {
  test("come from package.json, the one place tests/test_packaging.py checks too", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { prscopeServer: { versions: string } };
    expect(SUPPORTED_SERVER_VERSIONS).toBe(manifest.prscopeServer.versions);
    expect(satisfies("0.1.0")).toBe(true);
  });

  test("a range is every comparator at once", () => {
    expect(satisfies("0.1.0", ">=0.1.0 <0.2.0")).toBe(true);
    expect(satisfies("0.1.9", ">=0.1.0 <0.2.0")).toBe(true);
    expect(satisfies("0.2.0", ">=0.1.0 <0.2.0")).toBe(false);
    expect(satisfies("0.0.9", ">=0.1.0 <0.2.0")).toBe(false);
    expect(satisfies("1.0", "==1.0.0")).toBe(true);
    expect(satisfies("0.2.0rc1", ">=0.2")).toBe(true);
    expect(satisfies("unknown", ">=0.1.0")).toBe(false);
    expect(satisfies("0.1.0", ">=0.1.0 ~bad")).toBe(false);
    expect(releaseOf("v1.2.3")).toEqual([1, 2, 3]);
  });

  test("one message says which side of the range the server is on", () => {
    expect(versionMismatch("0.0.9", "/usr/bin/python3", ">=0.1.0 <0.2.0")).toBe(
      "prscope 0.0.9 in /usr/bin/python3 is older than this extension works with (>=0.1.0 <0.2.0)",
    );
    expect(versionMismatch("0.3.0", "prscope-server", ">=0.1.0 <0.2.0")).toBe(
      "prscope 0.3.0 in prscope-server is newer than this extension works with (>=0.1.0 <0.2.0)",
    );
  });
});
