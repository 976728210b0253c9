/** The output channel: the server's log (its stderr and window/logMessage) and the extension's own. */

import * as vscode from "vscode";
import { CLIENT_NAME } from "./constants";

export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
}

/** The one-line form of an error for messages and the log. */
export function errorLine(error: unknown): string {
  if (error instanceof Error) {
    return error.message.split("\n")[0] ?? error.name;
  }
  return String(error);
}
