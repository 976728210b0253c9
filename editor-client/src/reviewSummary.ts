/** The one message a finished review leaves: status, counts, and why it was partial or offline. */

import { plural } from "./findings";

export type ReviewMode = "branch" | "staged" | "uncommitted";

/** The answer of `prscope/review` (server/reviewing.py summary). */
export interface ReviewResult {
  run_id: string;
  status: "complete" | "partial" | "offline";
  status_reason: string;
  counts: { error: number; warning: number; note: number };
  errors: string[];
  published: boolean;
  base?: string | null;
  /** Why the review ended before its end (server/reviewing.py stopped_summary); its reason says what was kept. */
  stopped?: "cancelled" | "superseded" | null;
  /** The run's id in the repository's run store (null when it was not recorded). */
  stored_run_id?: string | null;
  /** How many of the report's findings were dismissed (left out of `counts`, as of every output). */
  dismissed?: number;
}

export type MessageLevel = "info" | "warning" | "error";

export interface ReviewMessage {
  level: MessageLevel;
  text: string;
}

export function describeTarget(mode: ReviewMode, base: string | undefined): string {
  if (mode === "staged") {
    return "staged changes";
  }
  if (mode === "uncommitted") {
    return "uncommitted changes";
  }
  return base === undefined ? "pull request" : `pull request against ${base}`;
}

export function reviewMessage(result: ReviewResult): ReviewMessage {
  if (result.stopped) {
    return { level: "info", text: `prscope: ${withStop(result.status_reason.trim() || result.stopped)}` };
  }
  const { error, warning, note } = result.counts;
  const total = error + warning + note;
  const counts =
    total === 0
      ? "no findings"
      : `${plural(total, "finding")} (${[
          error > 0 ? plural(error, "error") : "",
          warning > 0 ? plural(warning, "warning") : "",
          note > 0 ? plural(note, "note") : "",
        ]
          .filter((part) => part !== "")
          .join(", ")})`;
  const dismissed = result.dismissed ?? 0;
  const counted = dismissed > 0 ? `${counts}, ${dismissed} dismissed` : counts;
  const reason = result.status_reason.trim() === "" ? "" : ` ${sentence(result.status_reason)}`;
  const errors = result.errors.length > 0 ? ` ${plural(result.errors.length, "problem")}: ${result.errors[0]}` : "";
  const text = `prscope review ${result.status}: ${counted}.${reason}${errors}`;
  return { level: result.status === "partial" || result.errors.length > 0 ? "warning" : "info", text };
}

/** What a review cancelled from the progress notification leaves, from the server's last progress
 * message ("cancelled", "cancelled: kept 2 findings"), which says whether the findings it had shown are
 * kept: "prscope: you cancelled the review; the 2 findings it had shown stay." */
export function cancelledMessage(progressEnd: string | undefined, what = "review"): string {
  const said = progressEnd?.trim() ?? "";
  const kept = /^cancelled: kept (\d+) findings?$/.exec(said);
  if (kept !== null) {
    const count = Number(kept[1]);
    const shown = count === 1 ? "the finding it had shown stays" : `the ${count} findings it had shown stay`;
    return `prscope: you cancelled the ${what}; ${shown}.`;
  }
  if (said === "" || said === "cancelled") {
    return `prscope: you cancelled the ${what}.`;
  }
  return `prscope: ${withStop(said)}`;
}

function withStop(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
