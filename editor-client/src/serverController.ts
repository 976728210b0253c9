/** The server's lifecycle: decide what to start (settings, interpreter, key), check that prscope is
 * installed there (else offer to install it), start, restart on demand, and report a crash. */

import * as vscode from "vscode";
import type { LanguageClient, Middleware } from "vscode-languageclient/node";
import { readApiKey } from "./apiKey";
import { createClient } from "./client";
import { Commands, CONFIG_SECTION, ServerProtocol } from "./constants";
import { pipInstallArgs, probeInterpreter, resolveServerCommand, type ServerCommand } from "./interpreter";
import { errorLine } from "./log";
import { selectedInterpreter } from "./pythonExtension";
import { initializationOptions, type PrscopeSettings, readSettings, serverEnvironment } from "./settings";

export interface ServerHooks {
  middleware: Middleware;
  onRunEvent: (raw: unknown) => void;
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private readonly changed = new vscode.EventEmitter<LanguageClient | undefined>();
  /** Fires with the new client after a start, and with undefined when the server stops or crashes. */
  readonly onDidChangeClient = this.changed.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly hooks: ServerHooks,
  ) {}

  get current(): LanguageClient | undefined {
    return this.client;
  }

  /** The running client, starting the server first when needed (or waiting for a restart under way);
   * undefined when it cannot start (the user has been told why). */
  ensureStarted(): Promise<LanguageClient | undefined> {
    if (this.starting !== undefined) {
      return this.starting;
    }
    if (this.client !== undefined) {
      return Promise.resolve(this.client);
    }
    return this.track(this.start());
  }

  /** Stops the server and starts it again; requests made meanwhile wait for the new one. */
  restart(reason: string): Promise<LanguageClient | undefined> {
    this.log.info(`restarting the server (${reason})`);
    const previous = this.starting ?? Promise.resolve(undefined);
    return this.track(
      previous.then(async () => {
        await this.stop();
        return this.start();
      }),
    );
  }

  private track(starting: Promise<LanguageClient | undefined>): Promise<LanguageClient | undefined> {
    const tracked = starting.finally(() => {
      if (this.starting === tracked) {
        this.starting = undefined;
      }
    });
    this.starting = tracked;
    return tracked;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      return;
    }
    this.changed.fire(undefined);
    try {
      await client.stop(5000);
    } catch (error) {
      this.log.warn(`stopping the server: ${errorLine(error)}`);
    }
  }

  dispose(): void {
    void this.stop();
    this.changed.dispose();
  }

  private async start(): Promise<LanguageClient | undefined> {
    const settings = readSettings((key) => vscode.workspace.getConfiguration(CONFIG_SECTION).get(key));
    const command = await this.serverCommand(settings);
    if (command.python !== undefined && !(await this.checkInstalled(command.python, settings))) {
      return undefined;
    }
    const apiKey = await readApiKey(this.context.secrets, settings.provider);
    const client = createClient({
      command,
      env: serverEnvironment(process.env, settings, apiKey),
      cwd: this.context.extensionPath,
      initializationOptions: initializationOptions(settings),
      log: this.log,
      middleware: this.hooks.middleware,
      onUnexpectedExit: () => this.reportCrash(client),
    });
    client.onNotification(ServerProtocol.runEvent, (params: unknown) => this.hooks.onRunEvent(params));
    this.log.info(`starting ${[command.command, ...command.args].join(" ")}`);
    try {
      await client.start();
    } catch (error) {
      this.log.error(`the server did not start: ${errorLine(error)}`);
      void this.offerLog(`prscope: the language server did not start: ${errorLine(error)}`);
      return undefined;
    }
    const info = client.initializeResult?.serverInfo;
    this.log.info(`server started: ${info?.name ?? "prscope"} ${info?.version ?? ""}`.trim());
    this.client = client;
    this.changed.fire(client);
    return client;
  }

  private async serverCommand(settings: PrscopeSettings): Promise<ServerCommand> {
    const needsSelection = settings.interpreter === undefined && settings.serverCommand.length === 0;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const selected = needsSelection ? await selectedInterpreter(folder) : undefined;
    return resolveServerCommand(settings, selected);
  }

  private async checkInstalled(python: string, settings: PrscopeSettings): Promise<boolean> {
    const probe = await probeInterpreter(python, this.context.extensionPath);
    if (probe.ok) {
      this.log.info(`prscope ${probe.version} found in ${python}`);
      return true;
    }
    this.log.error(`cannot run the server with ${python}: ${probe.reason}`);
    // Not awaited: a start (or the restart after a settings change) must not wait for the user.
    void this.offerInstall(python, settings.installSource, probe.reason);
    return false;
  }

  private async offerInstall(python: string, source: string, reason: string): Promise<void> {
    const install = "Install prscope";
    const choice = await vscode.window.showErrorMessage(
      `prscope cannot start with ${python}: ${reason}.`,
      install,
      "Open Settings",
    );
    if (choice === install) {
      await this.install(python, source);
    } else if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "prscope.interpreter");
    }
  }

  /** Runs pip in the interpreter, in a terminal the user can watch; restarts the server when it worked. */
  private async install(python: string, source: string): Promise<void> {
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
        void this.restart("prscope was installed");
      } else {
        void vscode.window.showErrorMessage(
          `prscope: pip install ended with exit code ${String(event.exitCode)}; see the terminal.`,
        );
      }
    });
    this.context.subscriptions.push(ended);
  }

  private reportCrash(client: LanguageClient): void {
    if (this.client !== client) {
      return;
    }
    this.client = undefined;
    this.changed.fire(undefined);
    this.log.error("the language server stopped unexpectedly");
    void this.offerLog("prscope: the language server stopped unexpectedly.", true);
  }

  private async offerLog(message: string, offerRestart = false): Promise<void> {
    const actions = offerRestart ? ["Show Log", "Restart Server"] : ["Show Log"];
    const choice = await vscode.window.showErrorMessage(message, ...actions);
    if (choice === "Show Log") {
      this.log.show();
    } else if (choice === "Restart Server") {
      void vscode.commands.executeCommand(Commands.restartServer);
    }
  }
}
