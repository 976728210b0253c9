/** The protocol trace in the prscope output channel as soon as `prscope.trace.server` asks for it.
 *
 * vscode-languageclient traces only while its trace channel's log level is Trace, and writes the trace
 * at that level, so the setting alone showed nothing until the user also raised the channel's level by
 * hand. The client gets a view of the channel instead: it reports Trace while the setting asks for a
 * trace (and the channel's own level otherwise), and its trace lines are written to the channel as
 * ordinary lines. */

import * as vscode from "vscode";

export type TraceSetting = "off" | "messages" | "verbose";

export function readTraceSetting(value: unknown): TraceSetting {
  return value === "messages" || value === "verbose" ? value : "off";
}

/** The level the client should see: Trace while the setting asks for a trace, else the channel's own. */
export function clientTraceLevel(setting: TraceSetting, channelLevel: vscode.LogLevel, traceLevel: vscode.LogLevel): vscode.LogLevel {
  return setting === "off" ? channelLevel : traceLevel;
}

export function traceChannel(log: vscode.LogOutputChannel, section: string): vscode.LogOutputChannel & vscode.Disposable {
  const setting = (): TraceSetting => readTraceSetting(vscode.workspace.getConfiguration(section).get("trace.server"));
  const level = (): vscode.LogLevel => clientTraceLevel(setting(), log.logLevel, vscode.LogLevel.Trace);
  const changed = new vscode.EventEmitter<vscode.LogLevel>();
  const listeners = [
    log.onDidChangeLogLevel(() => changed.fire(level())),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${section}.trace.server`)) {
        changed.fire(level());
      }
    }),
  ];
  const traceLine = (message: string, ...args: unknown[]): void => {
    if (setting() === "off") {
      log.trace(message, ...args);
    } else {
      log.info(message, ...args);
    }
  };
  return {
    get name() {
      return log.name;
    },
    get logLevel() {
      return level();
    },
    onDidChangeLogLevel: changed.event,
    trace: traceLine,
    debug: (message, ...args) => log.debug(message, ...args),
    info: (message, ...args) => log.info(message, ...args),
    warn: (message, ...args) => log.warn(message, ...args),
    error: (error, ...args) => log.error(error, ...args),
    append: (value) => log.append(value),
    appendLine: (value) => log.appendLine(value),
    replace: (value) => log.replace(value),
    clear: () => log.clear(),
    show: (...args: unknown[]) => (log.show as (...a: unknown[]) => void)(...args),
    hide: () => log.hide(),
    dispose: () => {
      for (const listener of listeners) {
        listener.dispose();
      }
      changed.dispose();
    },
  };
}
