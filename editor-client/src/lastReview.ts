/** The review whose findings the editor shows, as the run store recorded it, so that a restarted server
 * can show them again (server/restore.py); and what to say when it cannot. Pure: no `vscode`. */

import type { ReviewResult } from "./reviewSummary";

export interface RestoreOption {
  runId: string;
  uri: string;
}

/** The `prscope/restored` notification. */
export interface Restored {
  run_id: string;
  shown: number;
  not_shown: number;
  error: string;
}

export class LastReview {
  private current: RestoreOption | undefined;

  /** A finished review: its findings are what the editor shows now. A stopped or unrecorded review
   * cannot be read back from the store. */
  remember(result: ReviewResult, folderUri: string): void {
    this.current = result.stored_run_id && !result.stopped ? { runId: result.stored_run_id, uri: folderUri } : undefined;
  }

  forget(): void {
    this.current = undefined;
  }

  get option(): RestoreOption | undefined {
    return this.current;
  }
}

export function parseRestored(raw: unknown): Restored | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const value = raw as Record<string, unknown>;
  if (typeof value.run_id !== "string") {
    return undefined;
  }
  const count = (item: unknown): number => (typeof item === "number" && item >= 0 ? item : 0);
  return {
    run_id: value.run_id,
    shown: count(value.shown),
    not_shown: count(value.not_shown),
    error: typeof value.error === "string" ? value.error : "",
  };
}

/** The log line for a restore, and the message for the user when the findings did not come back. */
export function restoredText(restored: Restored): { log: string; message: string | undefined } {
  if (restored.error !== "") {
    return {
      log: `the last review's findings were not shown again: ${restored.error}`,
      message: NEXT_REVIEW_BRINGS_THEM_BACK,
    };
  }
  const left = restored.not_shown > 0 ? `; ${restored.not_shown} not shown: their lines changed since` : "";
  return { log: `the last review's findings are shown again: ${restored.shown} (run ${restored.run_id})${left}`, message: undefined };
}

export const NEXT_REVIEW_BRINGS_THEM_BACK =
  "prscope: the server restarted and could not show the last review's findings again; the next review brings them back.";
