/** The server's lifecycle: decide what to start (settings, interpreter, key), make sure prscope can run
 * there (serverSetup.ts: else the private environment, or one message offering it), start, restart on
 * demand, and report a crash. */

import * as vscode from "vscode";
import type { LanguageClient, Middleware } from "vscode-languageclient/node";
import { readApiKey } from "./apiKey";
import { createClient } from "./client";
import { Commands, CONFIG_SECTION, EDITOR_COMMANDS, ServerProtocol } from "./constants";
import { resolveServerCommand, type ServerCommand, withInterpreter } from "./interpreter";
import type { RestoreOption } from "./lastReview";
import { errorLine } from "./log";
import { PrivateEnvironment } from "./privateEnvironment";
import { selectedInterpreter } from "./pythonExtension";
import { ServerSetup } from "./serverSetup";
import { satisfies, versionMismatch } from "./serverVersion";
import { initializationOptions, type PrscopeSettings, readSettings, serverEnvironment } from "./settings";
import { traceChannel } from "./traceChannel";

export interface ServerHooks {
  middleware: Middleware;
  onRunEvent: (raw: unknown) => void;
  /** The `prscope/restored` notification: how showing the last review's findings again went. */
  onRestored: (raw: unknown) => void;
  /** The review whose findings a new server should show again, when there is one. */
  restoreOption: () => RestoreOption | undefined;
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private readonly changed = new vscode.EventEmitter<LanguageClient | undefined>();
  /** Fires with the new client after a start, and with undefined when the server stops or crashes. */
  readonly onDidChangeClient = this.changed.event;

  private readonly setup: ServerSetup;
  private readonly trace: vscode.LogOutputChannel & vscode.Disposable;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly hooks: ServerHooks,
  ) {
    const environment = new PrivateEnvironment(context, log);
    this.setup = new ServerSetup(context.extensionPath, log, environment, (reason) => void this.restart(reason));
    this.trace = traceChannel(log, CONFIG_SECTION);
  }

  /** Sets up (again) the private environment with the interpreter the settings choose, and starts the
   * server from it (the "Set Up Private Environment" command). */
  async setUpPrivateEnvironment(): Promise<void> {
    const settings = readSettings((key) => vscode.workspace.getConfiguration(CONFIG_SECTION).get(key));
    const command = await this.serverCommand(settings);
    await this.stop();
    await this.setup.setUpPrivate(command.python ?? "python3", settings.installSource);
  }

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
    this.trace.dispose();
  }

  private async start(): Promise<LanguageClient | undefined> {
    const settings = readSettings((key) => vscode.workspace.getConfiguration(CONFIG_SECTION).get(key));
    let command = await this.serverCommand(settings);
    if (command.python !== undefined) {
      const python = await this.setup.interpreterFor(command.python, settings.installSource);
      if (python === undefined) {
        return undefined;
      }
      command = withInterpreter(command, python);
    }
    const apiKey = await readApiKey(this.context.secrets, settings.provider);
    const restore = this.hooks.restoreOption();
    const client = createClient({
      command,
      env: serverEnvironment(process.env, settings, apiKey),
      cwd: this.context.extensionPath,
      initializationOptions: { ...initializationOptions(settings), commands: EDITOR_COMMANDS, ...(restore ? { restore } : {}) },
      log: this.log,
      trace: this.trace,
      middleware: this.hooks.middleware,
      onUnexpectedExit: () => this.reportCrash(client),
    });
    client.onNotification(ServerProtocol.runEvent, (params: unknown) => this.hooks.onRunEvent(params));
    client.onNotification(ServerProtocol.restored, (params: unknown) => this.hooks.onRestored(params));
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
    if (command.python === undefined && info?.version !== undefined && !satisfies(info.version)) {
      // A configured command was not probed before it started: its version is checked here, once.
      const message = versionMismatch(info.version, [command.command, ...command.args].join(" "));
      this.log.warn(message);
      void vscode.window.showWarningMessage(`${message}; set prscope.serverCommand to one that is, or clear it.`, "Open Settings").then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "prscope.serverCommand");
        }
      });
    }
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
