/** What to offer when the chosen interpreter cannot run the server: the one message and its buttons.
 * Pure: no `vscode` (serverSetup.ts shows them). */

import { mayInstallInto, type ProbeResult, type Verdict } from "./interpreter";

export const PRIVATE_ACTION = "Install in a Private Environment";
export const HERE_ACTION = "Install in This Environment";
export const SETTINGS_ACTION = "Open Settings";

/** The buttons of the one message for an interpreter that cannot run the server. */
export function setupActions(probe: ProbeResult, verdict: Verdict): string[] {
  if (!probe.ok || !probe.info.pythonOk) {
    return [SETTINGS_ACTION];
  }
  const here = verdict.kind === "missing" || verdict.kind === "unsupported" ? mayInstallInto(probe.info) : false;
  return [PRIVATE_ACTION, ...(here ? [HERE_ACTION] : []), SETTINGS_ACTION];
}

/** The one message's text. */
export function setupMessage(python: string, probe: ProbeResult, verdict: Verdict): string {
  const reason = verdict.kind === "ready" ? "" : verdict.reason;
  const start = verdict.kind === "unsupported" ? `prscope cannot start: ${reason}.` : `prscope cannot start with ${python}: ${reason}.`;
  if (!probe.ok || !probe.info.pythonOk) {
    return `${start} Choose another interpreter in the prscope settings.`;
  }
  const managed = probe.info.externallyManaged ? " It is externally managed, so pip does not install into it." : "";
  return `${start}${managed} Install prscope in a private environment of the extension's (made with this Python)?`;
}
