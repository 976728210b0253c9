/** Which command starts the server, and whether prscope is installed in the chosen interpreter.
 * The interpreter comes from the settings, else from the Python extension's selection, else python3. */

import { execFile } from "node:child_process";

export interface ServerCommand {
  command: string;
  args: string[];
  /** The interpreter, when the server runs as `python -m prscope.server` (and so can be checked and installed). */
  python: string | undefined;
}

export type ProbeResult = { ok: true; version: string } | { ok: false; reason: string };

/** The server module runs with `-P`: the current directory (a repository with a `prscope/` folder of its
 * own, say) never shadows the installed package. */
export const SERVER_MODULE_ARGS = ["-P", "-m", "prscope.server"];

/** Prints prscope's installed version, or exits non-zero with one line saying why it cannot run. */
export const PROBE_SCRIPT = [
  "import sys",
  "if sys.version_info < (3, 11): sys.exit('prscope needs Python 3.11 or newer; this is Python ' + sys.version.split()[0])",
  "import importlib.metadata as m",
  "try: print(m.version('prscope'))",
  "except m.PackageNotFoundError: sys.exit('prscope is not installed in this interpreter')",
].join("\n");

export function resolveServerCommand(
  settings: { interpreter: string | undefined; serverCommand: string[] },
  selectedPython: string | undefined,
): ServerCommand {
  const [command, ...args] = settings.serverCommand;
  if (command !== undefined) {
    return { command, args, python: undefined };
  }
  const python = settings.interpreter ?? selectedPython ?? "python3";
  return { command: python, args: [...SERVER_MODULE_ARGS], python };
}

/** The outcome of running PROBE_SCRIPT: the version on success, else the most telling line. */
export function interpretProbe(
  exitCode: number | null,
  stdout: string,
  stderr: string,
  spawnError?: string,
): ProbeResult {
  if (spawnError !== undefined) {
    return { ok: false, reason: spawnError };
  }
  const version = stdout.trim().split(/\r?\n/).pop() ?? "";
  if (exitCode === 0 && version !== "") {
    return { ok: true, version };
  }
  const lines = stderr.trim().split(/\r?\n/).filter((line) => line.trim() !== "");
  return { ok: false, reason: lines.pop() ?? `the check exited with code ${String(exitCode)}` };
}

export function probeInterpreter(python: string, cwd: string, timeoutMs = 30_000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(python, ["-c", PROBE_SCRIPT], { cwd, timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      const spawnError =
        error !== null && typeof error.code === "string" ? `cannot run ${python}: ${error.code}` : undefined;
      resolve(interpretProbe(code, stdout, stderr, spawnError));
    });
  });
}

/** The arguments of `python -m pip install ...` for the "Install prscope" action. */
export function pipInstallArgs(source: string): string[] {
  return ["-m", "pip", "install", "--upgrade", source];
}
