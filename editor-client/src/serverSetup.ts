/** Which interpreter runs the server: the chosen one when prscope (in a version this extension works
 * with) is installed there, else the extension's private environment when it has been set up; else one
 * message saying why not, offering to set up the private environment (and, for a virtual environment
 * only, to install into it). pip never installs into an externally managed interpreter. */

import * as vscode from "vscode";
import { judge, pipInstallArgs, type ProbeResult, probeInterpreter, type Verdict } from "./interpreter";
import type { PrivateEnvironment } from "./privateEnvironment";
import { HERE_ACTION, PRIVATE_ACTION, SETTINGS_ACTION, setupActions, setupMessage } from "./setupAdvice";

export class ServerSetup {
  constructor(
    private readonly extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly environment: PrivateEnvironment,
    private readonly restart: (reason: string) => void,
  ) {}

  /** The interpreter to run the server with, or undefined when it cannot start (the user has been told,
   * and offered a way, without waiting for the answer). */
  async interpreterFor(python: string, installSource: string): Promise<string | undefined> {
    const probe = await probeInterpreter(python, this.extensionPath);
    const verdict = judge(probe, python);
    if (verdict.kind === "ready") {
      this.log.info(`prscope ${verdict.version} found in ${python}`);
      return python;
    }
    const own = this.environment.python();
    if (own !== undefined && own !== python) {
      const ownVerdict = judge(await probeInterpreter(own, this.extensionPath), own);
      if (ownVerdict.kind === "ready") {
        this.log.info(`${python}: ${verdict.reason}; the server runs from the private environment (prscope ${ownVerdict.version} in ${own})`);
        return own;
      }
      this.log.warn(`the private environment cannot run the server: ${ownVerdict.reason}`);
    }
    this.log.error(`cannot run the server with ${python}: ${verdict.reason}`);
    void this.offer(python, installSource, probe, verdict);
    return undefined;
  }

  /** Sets up the private environment with `basePython`, then restarts the server from it. */
  async setUpPrivate(basePython: string, installSource: string): Promise<void> {
    const created = await this.environment.create(basePython, installSource);
    if (!created.ok) {
      this.log.error(`the private environment was not set up: ${created.reason}`);
      const choice = await vscode.window.showErrorMessage(`prscope: the private environment was not set up: ${created.reason}.`, "Show Log");
      if (choice === "Show Log") {
        this.log.show();
      }
      return;
    }
    const version = judge(await probeInterpreter(created.python, this.extensionPath), created.python);
    const what = version.kind === "ready" ? `prscope ${version.version}` : "prscope";
    this.log.info(`installed ${what} in the private environment ${this.environment.folder}`);
    void vscode.window.showInformationMessage(
      `prscope: installed ${what} in a private environment (${this.environment.folder}); the server runs from it from now on.`,
    );
    this.restart("prscope was installed in the private environment");
  }

  private async offer(python: string, installSource: string, probe: ProbeResult, verdict: Verdict): Promise<void> {
    const choice = await vscode.window.showErrorMessage(setupMessage(python, probe, verdict), ...setupActions(probe, verdict));
    if (choice === PRIVATE_ACTION) {
      await this.setUpPrivate(python, installSource);
    } else if (choice === HERE_ACTION) {
      await this.installHere(python, installSource);
    } else if (choice === SETTINGS_ACTION) {
      await vscode.commands.executeCommand("workbench.action.openSettings", "prscope.interpreter");
    }
  }

  /** pip in the interpreter itself (a virtual environment), in a terminal the user can watch. */
  private async installHere(python: string, source: string): Promise<void> {
    const task = new vscode.Task(
      { type: "process", task: "install-prscope" },
      vscode.TaskScope.Workspace,
      "Install prscope",
      "prscope",
      new vscode.ProcessExecution(python, pipInstallArgs(source)),
    );
    task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, panel: vscode.TaskPanelKind.Dedicated };
    const execution = await vscode.tasks.executeTask(task);
    const ended = vscode.tasks.onDidEndTaskProcess((event) => {
      if (event.execution !== execution) {
        return;
      }
      ended.dispose();
      if (event.exitCode === 0) {
        void vscode.window.showInformationMessage("prscope: installed; starting the server.");
        this.restart("prscope was installed");
      } else {
        void vscode.window.showErrorMessage(`prscope: pip install ended with exit code ${String(event.exitCode)}; see the terminal.`);
      }
    });
  }
}
