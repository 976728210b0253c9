import { describe, expect, test } from "vitest";
import { cancelledMessage, describeTarget, type ReviewResult, reviewMessage } from "../src/reviewSummary";

function result(overrides: Partial<ReviewResult> = {}): ReviewResult {
  return {
    run_id: "run-1",
    status: "complete",
    status_reason: "deterministic checks and a model review with anthropic model m",
    counts: { error: 1, warning: 1, note: 0 },
    errors: [],
    published: true,
    ...overrides,
  };
}

describe("reviewMessage", () => {
  test("status, counts by severity and the reason", () => {
    expect(reviewMessage(result())).toEqual({
      level: "info",
      text: "prscope review complete: 2 findings (1 error, 1 warning). Deterministic checks and a model review with anthropic model m.",
    });
  });

  test("offline says why", () => {
    const message = reviewMessage(result({ status: "offline", status_reason: "no API key: deterministic checks only", counts: { error: 0, warning: 0, note: 0 } }));
    expect(message.text).toBe("prscope review offline: no findings. No API key: deterministic checks only.");
  });

  test("dismissed findings are counted apart, as the text report counts them", () => {
    const message = reviewMessage(result({ counts: { error: 0, warning: 1, note: 0 }, dismissed: 1 }));
    expect(message.text).toMatch(/^prscope review complete: 1 finding \(1 warning\), 1 dismissed\. /);
    expect(reviewMessage(result({ counts: { error: 0, warning: 0, note: 0 }, dismissed: 2 })).text).toMatch(/: no findings, 2 dismissed\./);
  });

  test("partial reviews and errors are warnings, with the first problem", () => {
    const message = reviewMessage(result({ status: "partial", errors: ["model API: 529 overloaded", "x"] }));
    expect(message.level).toBe("warning");
    expect(message.text).toContain("2 problems: model API: 529 overloaded");
  });
});

test("describeTarget", () => {
  expect(describeTarget("branch", "main")).toBe("pull request against main");
  expect(describeTarget("branch", undefined)).toBe("pull request");
  expect(describeTarget("staged", "main")).toBe("staged changes");
  expect(describeTarget("uncommitted", undefined)).toBe("uncommitted changes");
});

describe("stopped reviews", () => {
  test("a stopped review says why and what it kept, in the server's words", () => {
    const reason = "cancelled with prscope.cancelReview; no finding had been shown yet";
    const cancelled = reviewMessage(result({ status: "partial", stopped: "cancelled", published: false, status_reason: reason }));
    expect(cancelled).toEqual({ level: "info", text: `prscope: ${reason}.` });
    const superseded = reviewMessage(
      result({ status: "partial", stopped: "superseded", status_reason: "superseded by a newer review; the 2 findings already shown are kept" }),
    );
    expect(superseded.text).toBe("prscope: superseded by a newer review; the 2 findings already shown are kept.");
  });

  test("a review cancelled from the notification says what the server kept", () => {
    expect(cancelledMessage("cancelled: kept 1 finding")).toBe("prscope: you cancelled the review; the finding it had shown stays.");
    expect(cancelledMessage("cancelled: kept 3 findings")).toBe("prscope: you cancelled the review; the 3 findings it had shown stay.");
    expect(cancelledMessage("cancelled")).toBe("prscope: you cancelled the review.");
    expect(cancelledMessage(undefined, "analysis")).toBe("prscope: you cancelled the analysis.");
    expect(cancelledMessage("superseded")).toBe("prscope: superseded.");
  });
});
