/** Which command starts the server, and what the chosen interpreter is: its Python version, whether
 * prscope is importable there and which version, whether it is a virtual environment, and whether it
 * is externally managed (PEP 668: pip must not install into it). The interpreter comes from the
 * settings, else from the Python extension's selection, else python3. */

import { execFile } from "node:child_process";
import { satisfies, versionMismatch } from "./serverVersion";

export interface ServerCommand {
  command: string;
  args: string[];
  /** The interpreter, when the server runs as `python -m prscope.server` (and so can be checked and installed). */
  python: string | undefined;
}

export interface InterpreterInfo {
  /** "3.11.2" */
  python: string;
  /** Python 3.11 or newer: can run prscope (and make its private environment). */
  pythonOk: boolean;
  /** A virtual environment (sys.prefix differs from sys.base_prefix): pip may install into it. */
  virtualEnv: boolean;
  /** PEP 668's EXTERNALLY-MANAGED marker in the standard library's directory, outside a virtual environment. */
  externallyManaged: boolean;
  /** The installed distribution's version, or null. */
  prscope: string | null;
  /** `prscope.server` can be imported (an install of another layout, or a broken one, cannot run). */
  importable: boolean;
}

export type ProbeResult = { ok: true; info: InterpreterInfo } | { ok: false; reason: string };

/** What the interpreter can do for the server. */
export type Verdict =
  | { kind: "ready"; version: string }
  | { kind: "missing"; reason: string }
  | { kind: "unsupported"; version: string; reason: string }
  | { kind: "unusable"; reason: string };

/** The server module runs with `-P`: the current directory (a repository with a `prscope/` folder of its
 * own, say) never shadows the installed package. */
export const SERVER_MODULE_ARGS = ["-P", "-m", "prscope.server"];

/** Prints what InterpreterInfo holds, as JSON on one line; runs on any Python 3. */
export const PROBE_SCRIPT = [
  "import json, os, sys, sysconfig",
  "import importlib.util",
  "venv = sys.prefix != getattr(sys, 'base_prefix', sys.prefix)",
  "marker = os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')",
  "info = {'python': sys.version.split()[0], 'pythonOk': sys.version_info >= (3, 11), 'virtualEnv': venv,",
  "        'externallyManaged': os.path.isfile(marker) and not venv, 'prscope': None, 'importable': False}",
  "try:",
  "    import importlib.metadata as metadata",
  "    info['prscope'] = metadata.version('prscope')",
  "    info['importable'] = importlib.util.find_spec('prscope.server') is not None",
  "except Exception:",
  "    pass",
  "print(json.dumps(info))",
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

/** The same command, with the server run by another interpreter (the private environment's). */
export function withInterpreter(command: ServerCommand, python: string): ServerCommand {
  return { command: python, args: [...SERVER_MODULE_ARGS], python };
}

/** The outcome of running PROBE_SCRIPT: what the interpreter is, else the most telling line. */
export function interpretProbe(exitCode: number | null, stdout: string, stderr: string, spawnError?: string): ProbeResult {
  if (spawnError !== undefined) {
    return { ok: false, reason: spawnError };
  }
  const last = stdout.trim().split(/\r?\n/).pop() ?? "";
  if (exitCode === 0 && last.startsWith("{")) {
    try {
      const raw = JSON.parse(last) as Record<string, unknown>;
      return {
        ok: true,
        info: {
          python: typeof raw.python === "string" ? raw.python : "?",
          pythonOk: raw.pythonOk === true,
          virtualEnv: raw.virtualEnv === true,
          externallyManaged: raw.externallyManaged === true,
          prscope: typeof raw.prscope === "string" ? raw.prscope : null,
          importable: raw.importable === true,
        },
      };
    } catch {
      // fall through: not the probe's output
    }
  }
  const lines = stderr.trim().split(/\r?\n/).filter((line) => line.trim() !== "");
  return { ok: false, reason: lines.pop() ?? `the check exited with code ${String(exitCode)}` };
}

/** Whether the server can run from this interpreter, and if not, why (one line for the user). */
export function judge(probe: ProbeResult, python: string, range?: string): Verdict {
  if (!probe.ok) {
    return { kind: "unusable", reason: probe.reason };
  }
  const { info } = probe;
  if (!info.pythonOk) {
    return { kind: "unusable", reason: `prscope needs Python 3.11 or newer; this is Python ${info.python}` };
  }
  if (info.prscope === null || !info.importable) {
    const reason = info.prscope === null ? "prscope is not installed in this interpreter" : `prscope ${info.prscope} there cannot be imported`;
    return { kind: "missing", reason };
  }
  if (!satisfies(info.prscope, range)) {
    return { kind: "unsupported", version: info.prscope, reason: versionMismatch(info.prscope, python, range) };
  }
  return { kind: "ready", version: info.prscope };
}

/** Whether pip may install into the interpreter itself: only into a virtual environment, never into
 * an externally managed one (Debian's or Homebrew's system Python) or a system installation. */
export function mayInstallInto(info: InterpreterInfo): boolean {
  return info.pythonOk && info.virtualEnv && !info.externallyManaged;
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

/** The arguments of `python -m pip install ...`. */
export function pipInstallArgs(source: string): string[] {
  return ["-m", "pip", "install", "--upgrade", source];
}
