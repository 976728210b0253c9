/** The extension's own virtual environment for the server, in its global storage: made with the chosen
 * interpreter when that one has no usable prscope (and pip must not, or cannot, install there), with
 * prscope installed from the wheel packaged in the extension (else from `prscope.installSource`). Once
 * made, it is used whenever the chosen interpreter has no usable prscope. */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { errorLine } from "./log";

const STATE_KEY = "prscope.privateEnvironment";
const FOLDER = "server-env";
/** Where the packaging step puts the wheel inside the extension (scripts/package-wheel.sh). */
export const BUNDLED_WHEEL_DIR = join("dist", "python");

export function venvPython(dir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? join(dir, "Scripts", "python.exe") : join(dir, "bin", "python");
}

/** The prscope wheel among `files` (the newest version when there are several), or undefined. */
export function bundledWheel(files: readonly string[]): string | undefined {
  const wheels = files.filter((name) => /^prscope-[^-]+-.+\.whl$/.test(name));
  return wheels.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).pop();
}

export type Created = { ok: true; python: string; source: string } | { ok: false; reason: string };

export class PrivateEnvironment {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get folder(): string {
    return join(this.context.globalStorageUri.fsPath, FOLDER);
  }

  /** The environment's interpreter, when one was set up and is still there. */
  python(): string | undefined {
    const recorded = this.context.globalState.get<string>(STATE_KEY);
    return recorded !== undefined && existsSync(recorded) ? recorded : undefined;
  }

  /** What pip installs: the packaged wheel, else the configured source. */
  source(configured: string): string {
    const dir = join(this.context.extensionPath, BUNDLED_WHEEL_DIR);
    const wheel = existsSync(dir) ? bundledWheel(readdirSync(dir)) : undefined;
    return wheel !== undefined ? join(dir, wheel) : configured;
  }

  /** Makes the environment anew with `basePython` and installs prscope into it, under a progress
   * notification; pip's output goes to the log. */
  async create(basePython: string, configuredSource: string): Promise<Created> {
    const folder = this.folder;
    const python = venvPython(folder);
    const source = this.source(configuredSource);
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "prscope: setting up a private environment", cancellable: false },
      async (progress) => {
        mkdirSync(this.context.globalStorageUri.fsPath, { recursive: true });
        progress.report({ message: `creating a virtual environment with ${basePython}` });
        this.log.info(`creating the private environment ${folder} with ${basePython}`);
        const made = await this.run(basePython, ["-m", "venv", "--clear", folder]);
        if (made !== "") {
          return { ok: false, reason: `${basePython} could not create a virtual environment (${made})` };
        }
        progress.report({ message: `installing ${source.split(/[\\/]/).pop() ?? source}` });
        this.log.info(`installing ${source} into the private environment`);
        const installed = await this.run(python, ["-m", "pip", "install", "--upgrade", source]);
        if (installed !== "") {
          return { ok: false, reason: `pip could not install ${source} (${installed})` };
        }
        await this.context.globalState.update(STATE_KEY, python);
        return { ok: true, python, source };
      },
    );
  }

  /** Runs a command, its output into the log; "" when it succeeded, else its last line of output. */
  private run(command: string, args: string[]): Promise<string> {
    const env: NodeJS.ProcessEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", PYTHONUNBUFFERED: "1" };
    for (const name of ["PYTHONHOME", "PYTHONPATH", "VIRTUAL_ENV", "PIP_USER", "PIP_TARGET", "PIP_PREFIX"]) {
      delete env[name];
    }
    return new Promise((resolve) => {
      let last = "";
      const child = spawn(command, args, { cwd: this.context.globalStorageUri.fsPath, env, windowsHide: true });
      const onOutput = (chunk: Buffer): void => {
        for (const line of chunk.toString("utf8").split(/\r?\n/)) {
          if (line.trim() !== "") {
            this.log.info(`  ${line}`);
            last = line.trim();
          }
        }
      };
      child.stdout.on("data", onOutput);
      child.stderr.on("data", onOutput);
      child.on("error", (error) => resolve(errorLine(error)));
      child.on("close", (code) => resolve(code === 0 ? "" : last || `exit code ${String(code)}`));
    });
  }
}
