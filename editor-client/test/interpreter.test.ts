import { describe, expect, test } from "vitest";
import { interpretProbe, judge, mayInstallInto, pipInstallArgs, probeInterpreter, resolveServerCommand } from "../src/interpreter";

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

const INFO = {
  python: "3.11.2",
  pythonOk: true,
  virtualEnv: false,
  externallyManaged: true,
  prscope: null as string | null,
  importable: false,
};

describe("interpretProbe", () => {
  test("what the interpreter is, from the probe's JSON line", () => {
    expect(interpretProbe(0, `${JSON.stringify(INFO)}\n`, "")).toEqual({ ok: true, info: INFO });
  });

  test("the last line of stderr says why not", () => {
    expect(interpretProbe(1, "", "Traceback...\nSyntaxError: invalid syntax\n")).toEqual({ ok: false, reason: "SyntaxError: invalid syntax" });
  });

  test("an interpreter that cannot run, or says nothing", () => {
    expect(interpretProbe(null, "", "", "cannot run python9: ENOENT")).toEqual({ ok: false, reason: "cannot run python9: ENOENT" });
    expect(interpretProbe(2, "", "")).toEqual({ ok: false, reason: "the check exited with code 2" });
    expect(interpretProbe(0, "not json\n", "")).toEqual({ ok: false, reason: "the check exited with code 0" });
  });
});

describe("judge", () => {
  const probe = (changes: Partial<typeof INFO>) => ({ ok: true as const, info: { ...INFO, ...changes } });

  test("ready when prscope imports in a version this extension works with", () => {
    expect(judge(probe({ prscope: "0.1.0", importable: true }), "/p", ">=0.1.0 <0.2.0")).toEqual({ kind: "ready", version: "0.1.0" });
  });

  test("missing, unsupported or unusable, each with one line saying why", () => {
    expect(judge(probe({}), "/p")).toEqual({ kind: "missing", reason: "prscope is not installed in this interpreter" });
    expect(judge(probe({ prscope: "0.0.1", importable: false }), "/p")).toMatchObject({ kind: "missing" });
    expect(judge(probe({ prscope: "0.0.9", importable: true }), "/p", ">=0.1.0 <0.2.0")).toEqual({
      kind: "unsupported",
      version: "0.0.9",
      reason: "prscope 0.0.9 in /p is older than this extension works with (>=0.1.0 <0.2.0)",
    });
    expect(judge(probe({ python: "3.9.2", pythonOk: false }), "/p")).toEqual({
      kind: "unusable",
      reason: "prscope needs Python 3.11 or newer; this is Python 3.9.2",
    });
    expect(judge({ ok: false, reason: "cannot run /p: ENOENT" }, "/p")).toEqual({ kind: "unusable", reason: "cannot run /p: ENOENT" });
  });
});

describe("installing", () => {
  test("pip installs only into a virtual environment, never an externally managed interpreter", () => {
    expect(mayInstallInto({ ...INFO, externallyManaged: true })).toBe(false);
    expect(mayInstallInto({ ...INFO, externallyManaged: false, virtualEnv: false })).toBe(false);
    expect(mayInstallInto({ ...INFO, externallyManaged: false, virtualEnv: true })).toBe(true);
  });

  test("pip installs or upgrades the given source", () => {
    expect(pipInstallArgs("/src/prscope")).toEqual(["-m", "pip", "install", "--upgrade", "/src/prscope"]);
  });
});

describe("the probe script", () => {
  test("runs on a real Python and says what it is", async () => {
    const python = process.env.PRSCOPE_PYTHON;
    if (python === undefined) {
      return; // run by scripts/test.sh, which sets it
    }
    const result = await probeInterpreter(python, process.cwd());
    expect(result.ok && result.info.virtualEnv && result.info.importable).toBe(true);
  });
});
