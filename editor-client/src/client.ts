/** Creating the language client for one server process. What to start and with which environment is
 * decided by serverController.ts; this module only turns it into a LanguageClient. */

import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  type ErrorHandler,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  RevealOutputChannelOn,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { CLIENT_ID, CLIENT_NAME } from "./constants";
import type { ServerCommand } from "./interpreter";

export interface ClientSpec {
  command: ServerCommand;
  env: Record<string, string>;
  /** Where the server process starts: not a workspace folder, whose files could shadow prscope's. */
  cwd: string;
  initializationOptions: Record<string, unknown>;
  log: vscode.LogOutputChannel;
  /** Where the protocol trace goes (traceChannel.ts: the log, as `prscope.trace.server` asks). */
  trace: vscode.LogOutputChannel;
  middleware: Middleware;
  /** Called when the server process ends without being asked to (not on `stop`). */
  onUnexpectedExit: () => void;
}

export function createClient(spec: ClientSpec): LanguageClient {
  const serverOptions: ServerOptions = {
    command: spec.command.command,
    args: spec.command.args,
    transport: TransportKind.stdio,
    options: { cwd: spec.cwd, env: spec.env },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "python" }],
    outputChannel: spec.log,
    traceOutputChannel: spec.trace,
    initializationOptions: spec.initializationOptions,
    middleware: spec.middleware,
    errorHandler: reportingErrorHandler(spec.onUnexpectedExit),
    // The server's own messages (window/showMessage) are enough; the client's popups would repeat them.
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  };
  return new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
}

/** A crash is reported by the caller (with "Show Log"), never restarted behind the user's back: a
 * server that dies at start would otherwise loop. */
function reportingErrorHandler(onUnexpectedExit: () => void): ErrorHandler {
  return {
    error: () => ({ action: ErrorAction.Continue, handled: true }),
    closed: () => {
      onUnexpectedExit();
      return { action: CloseAction.DoNotRestart, handled: true };
    },
  };
}
