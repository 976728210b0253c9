import { describe, expect, test } from "vitest";
import { interpretProbe, pipInstallArgs, resolveServerCommand } from "../src/interpreter";

describe("resolveServerCommand", () => {
  test("a configured command wins", () => {
    expect(resolveServerCommand({ interpreter: "/venv/bin/python", serverCommand: ["prscope-server", "--x"] }, "/sel")).toEqual({
      command: "prscope-server",
      args: ["--x"],
      python: undefined,
    });
  });

  test("then the configured interpreter, then the Python extension's, then python3", () => {
    const run = ["-P", "-m", "prscope.server"];
    expect(resolveServerCommand({ interpreter: "/venv/bin/python", serverCommand: [] }, "/sel/python")).toEqual({
      command: "/venv/bin/python",
      args: run,
      python: "/venv/bin/python",
    });
    expect(resolveServerCommand({ interpreter: undefined, serverCommand: [] }, "/sel/python").python).toBe("/sel/python");
    expect(resolveServerCommand({ interpreter: undefined, serverCommand: [] }, undefined).python).toBe("python3");
  });
});

describe("interpretProbe", () => {
  test("the version on success", () => {
    expect(interpretProbe(0, "0.1.0\n", "")).toEqual({ ok: true, version: "0.1.0" });
  });

  test("the last line of stderr says why not", () => {
    expect(interpretProbe(1, "", "Traceback...\nprscope is not installed in this interpreter\n")).toEqual({
      ok: false,
      reason: "prscope is not installed in this interpreter",
    });
  });

  test("an interpreter that cannot run, or says nothing", () => {
    expect(interpretProbe(null, "", "", "cannot run python9: ENOENT")).toEqual({ ok: false, reason: "cannot run python9: ENOENT" });
    expect(interpretProbe(2, "", "")).toEqual({ ok: false, reason: "the check exited with code 2" });
  });
});

test("pip installs or upgrades the configured source", () => {
  expect(pipInstallArgs("/src/prscope")).toEqual(["-m", "pip", "install", "--upgrade", "/src/prscope"]);
});
