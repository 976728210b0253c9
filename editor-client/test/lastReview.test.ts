import { describe, expect, test } from "vitest";
import { LastReview, NEXT_REVIEW_BRINGS_THEM_BACK, parseRestored, restoredText } from "../src/lastReview";
import type { ReviewResult } from "../src/reviewSummary";

function result(changes: Partial<ReviewResult> = {}): ReviewResult {
  return {
    run_id: "run-1",
    status: "offline",
    status_reason: "",
    counts: { error: 1, warning: 0, note: 0 },
    errors: [],
    published: true,
    stored_run_id: "20261126-101010-abcdef",
    ...changes,
  };
}

describe("the review a restarted server shows again", () => {
  test("is the last finished review the run store recorded", () => {
    const last = new LastReview();
    expect(last.option).toBeUndefined();
    last.remember(result(), "file:///repo");
    expect(last.option).toEqual({ runId: "20261126-101010-abcdef", uri: "file:///repo" });
  });

  test("not a stopped or unrecorded one, and not after Clear Findings", () => {
    const last = new LastReview();
    last.remember(result(), "file:///repo");
    last.remember(result({ stopped: "cancelled", stored_run_id: null }), "file:///repo");
    expect(last.option).toBeUndefined();
    last.remember(result(), "file:///repo");
    last.forget();
    expect(last.option).toBeUndefined();
  });
});

describe("prscope/restored", () => {
  test("findings shown again: a log line, no message", () => {
    const restored = parseRestored({ run_id: "r", shown: 2, not_shown: 1, error: "" });
    expect(restored).toEqual({ run_id: "r", shown: 2, not_shown: 1, error: "" });
    const said = restoredText(restored as NonNullable<typeof restored>);
    expect(said.message).toBeUndefined();
    expect(said.log).toContain("shown again: 2 (run r); 1 not shown");
  });

  test("nothing shown again: the user hears that the next review brings them back", () => {
    const restored = parseRestored({ run_id: "r", error: "the run store holds no run r" });
    expect(restoredText(restored as NonNullable<typeof restored>).message).toBe(NEXT_REVIEW_BRINGS_THEM_BACK);
    expect(parseRestored({ shown: 1 })).toBeUndefined();
  });
});
