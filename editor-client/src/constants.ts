/** Ids shared by the extension's modules. The extension's command ids differ from the server's
 * (`prscope.review`, `prscope.cancelReview`, `prscope.quickAnalysis`), which the language client
 * registers as commands of their own. */

export const CLIENT_ID = "prscope";
export const CLIENT_NAME = "prscope";
export const CONFIG_SECTION = "prscope";
export const DIAGNOSTIC_SOURCE = "prscope";

export const Commands = {
  reviewPullRequest: "prscope.reviewPullRequest",
  reviewPullRequestNoCache: "prscope.reviewPullRequestNoCache",
  reviewStaged: "prscope.reviewStaged",
  reviewUncommitted: "prscope.reviewUncommitted",
  analyzeSelection: "prscope.analyzeSelection",
  clearFindings: "prscope.clearFindings",
  setApiKey: "prscope.setApiKey",
  showLog: "prscope.showLog",
  restartServer: "prscope.restartServer",
  setUpPrivateEnvironment: "prscope.setUpPrivateEnvironment",
  clearRuns: "prscope.clearRuns",
  revealFinding: "prscope.revealFinding",
} as const;

export const Views = {
  findings: "prscope.findings",
  agents: "prscope.agents",
} as const;

/** The server's side of the protocol (server/app.py, server/events.py). */
export const ServerProtocol = {
  reviewRequest: "prscope/review",
  quickAnalysisRequest: "prscope/quickAnalysis",
  runEvent: "prscope/runEvent",
  restored: "prscope/restored",
  cancelCommand: "prscope.cancelReview",
} as const;

/** The titles of the extension's commands that the server's messages may name (server/wording.py),
 * sent in the initialization options. */
export const EDITOR_COMMANDS = {
  storeKey: "prscope: Set API Key",
  reviewAfresh: "prscope: Review Pull Request (No Cache)",
} as const;
