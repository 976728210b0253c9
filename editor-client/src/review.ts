/** Running a review or a quick analysis: the cancellable `prscope/review` (`prscope/quickAnalysis`)
 * request under a progress notification whose Cancel button cancels the request's token, the server's
 * progress messages shown in it, and one message at the end. */

import * as vscode from "vscode";
import { type LanguageClient, ResponseError, WorkDoneProgress } from "vscode-languageclient/node";
import type { RunsModel } from "./agentsView";
import { type Branch, branchChoices, obviousBase } from "./baseBranch";
import { Commands, CONFIG_SECTION, ServerProtocol, Views } from "./constants";
import { repositoryBranches } from "./git";
import type { LastReview } from "./lastReview";
import { errorLine } from "./log";
import { cancelledMessage, describeTarget, type ReviewMode, type ReviewResult, reviewMessage } from "./reviewSummary";
import { runProgress } from "./runFormat";
import type { ServerController } from "./serverController";
import { readSettings } from "./settings";
import type { ReviewStatus } from "./statusBar";

const REQUEST_CANCELLED = -32800;
/** LSP's RequestFailed: the server has already shown its one-line reason (window/showMessage). */
const REQUEST_FAILED = -32803;

type Outcome<T> =
  | { kind: "done"; value: T }
  | { kind: "cancelled"; progressEnd: string | undefined }
  | { kind: "failed"; message: string; shownByServer: boolean };

export class Reviewer {
  constructor(
    private readonly server: ServerController,
    private readonly runs: RunsModel,
    private readonly status: ReviewStatus,
    private readonly log: vscode.LogOutputChannel,
    private readonly lastReview: LastReview,
  ) {}

  /** `noCache`: review afresh even when the run store holds a model review of this very change. */
  async review(mode: ReviewMode, options: { noCache?: boolean } = {}): Promise<void> {
    const folder = activeFolder();
    if (folder === undefined) {
      void vscode.window.showErrorMessage("prscope: open a folder of a git repository to review it.");
      return;
    }
    const client = await this.server.ensureStarted();
    if (client === undefined) {
      return;
    }
    const base = mode === "branch" ? await chooseBase(folder) : undefined;
    if (base === null) {
      return;
    }
    const params = { mode, base, uri: folder.uri.toString(), ...(options.noCache ? { noCache: true } : {}) };
    const outcome = await this.request<ReviewResult>(client, ServerProtocol.reviewRequest, params, {
      title: `prscope: reviewing the ${describeTarget(mode, base)}`,
    });
    if (outcome.kind === "done") {
      this.lastReview.remember(outcome.value, folder.uri.toString());
    }
    this.report(outcome);
  }

  async analyzeSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.selection.isEmpty) {
      void vscode.window.showErrorMessage("prscope: select the lines to analyze first.");
      return;
    }
    const client = await this.server.ensureStarted();
    if (client === undefined) {
      return;
    }
    const { start, end } = editor.selection;
    const params = {
      uri: editor.document.uri.toString(),
      range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    };
    const outcome = await this.request<{ run_id: string }>(client, ServerProtocol.quickAnalysisRequest, params, {
      title: `prscope: analyzing lines ${start.line + 1}-${end.line + 1}`,
    });
    if (outcome.kind === "done") {
      // The server says what it found (window/showMessage); only the run needs closing here.
      this.runs.settle(outcome.value.run_id, "the analysis ended without reporting this agent's end");
    } else {
      this.reportUnfinished(outcome, "analysis");
    }
  }

  private async request<T>(
    client: LanguageClient,
    method: string,
    params: Record<string, unknown>,
    options: { title: string },
  ): Promise<Outcome<T>> {
    const shown = this.status.begin(options.title);
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: options.title, cancellable: true },
        (progress, token) =>
          sendWithProgress<T>(client, method, params, token, this.runs, (message) => {
            progress.report({ message });
            shown.report(message);
          }),
      );
    } finally {
      shown.end();
    }
  }

  private report(outcome: Outcome<ReviewResult>): void {
    if (outcome.kind !== "done") {
      this.reportUnfinished(outcome);
      return;
    }
    const result = outcome.value;
    this.runs.settle(result.run_id, "the review ended without reporting this agent's end");
    const message = reviewMessage(result);
    this.log.info(message.text);
    const show = message.level === "warning" ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const offlineByChoice = readSettings((key) => vscode.workspace.getConfiguration(CONFIG_SECTION).get(key)).offline;
    const actions = result.status === "offline" && !offlineByChoice ? ["Show Findings", "Set API Key"] : ["Show Findings"];
    void show(message.text, ...actions).then((choice) => {
      if (choice === "Show Findings") {
        void vscode.commands.executeCommand(`${Views.findings}.focus`);
      } else if (choice === "Set API Key") {
        void vscode.commands.executeCommand(Commands.setApiKey);
      }
    });
  }

  private reportUnfinished(outcome: Outcome<unknown>, what = "review"): void {
    if (outcome.kind === "cancelled") {
      const message = cancelledMessage(outcome.progressEnd, what);
      this.log.info(message);
      void vscode.window.showInformationMessage(message);
    } else if (outcome.kind === "failed") {
      this.log.error(outcome.message);
      if (outcome.shownByServer) {
        return;
      }
      void vscode.window.showErrorMessage(outcome.message, "Show Log").then((choice) => {
        if (choice === "Show Log") {
          this.log.show();
        }
      });
    }
  }
}

/** How long a cancelled request waits for the server's last progress message (what it kept). */
const PROGRESS_END_WAIT_MS = 1000;

/** Sends the request with a work-done token of our own, so that the server's progress lands in our
 * notification, and with the notification's cancellation token, so that Cancel sends $/cancelRequest.
 * While agents run, the notification reads the run tree the Agents view draws (the run whose own event
 * names our token), so that both say the same; otherwise it shows the server's progress message.
 * A cancelled request's outcome carries the server's last progress message, which says what was kept. */
async function sendWithProgress<T>(
  client: LanguageClient,
  method: string,
  params: Record<string, unknown>,
  token: vscode.CancellationToken,
  runs: RunsModel,
  onMessage: (message: string) => void,
): Promise<Outcome<T>> {
  const workDoneToken = `prscope-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  let progressEnd: string | undefined;
  let ended = false;
  let onEnd: (() => void) | undefined;
  let serverMessage = "";
  let shown = "";
  const show = (): void => {
    const run = runs.tree.runForToken(workDoneToken);
    const message = (run !== undefined ? runProgress(runs.tree, run) : undefined) ?? serverMessage;
    if (message !== "" && message !== shown) {
      shown = message;
      onMessage(message);
    }
  };
  const treeListener = runs.onDidChange(() => {
    if (!ended) {
      show();
    }
  });
  const listener = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
    if (value.kind === "end") {
      progressEnd = value.message;
      ended = true;
      onEnd?.();
    } else if (value.message) {
      serverMessage = value.message;
      show();
    }
  });
  const cancelled = async (): Promise<Outcome<T>> => {
    if (!ended) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, PROGRESS_END_WAIT_MS);
        onEnd = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return { kind: "cancelled", progressEnd };
  };
  try {
    const value = await client.sendRequest<T>(method, { ...params, workDoneToken }, token);
    return token.isCancellationRequested && value == null ? await cancelled() : { kind: "done", value };
  } catch (error) {
    if (token.isCancellationRequested || isCancellation(error)) {
      return await cancelled();
    }
    const shownByServer = error instanceof ResponseError && error.code === REQUEST_FAILED;
    return { kind: "failed", message: `prscope: ${errorLine(error)}`, shownByServer };
  } finally {
    listener.dispose();
    treeListener.dispose();
  }
}

function isCancellation(error: unknown): boolean {
  return (error instanceof ResponseError && error.code === REQUEST_CANCELLED) || error instanceof vscode.CancellationError;
}

function activeFolder(): vscode.WorkspaceFolder | undefined {
  const document = vscode.window.activeTextEditor?.document.uri;
  const owning = document === undefined ? undefined : vscode.workspace.getWorkspaceFolder(document);
  return owning ?? vscode.workspace.workspaceFolders?.[0];
}

/** The base branch: configured, else obvious, else picked by the user; undefined lets the server
 * decide (no Git extension), null means the user dismissed the pick. */
async function chooseBase(folder: vscode.WorkspaceFolder): Promise<string | undefined | null> {
  const settings = readSettings((key) => vscode.workspace.getConfiguration(CONFIG_SECTION, folder.uri).get(key));
  if (settings.baseBranch !== undefined) {
    return settings.baseBranch;
  }
  let known: { branches: Branch[]; current: string | undefined } | undefined;
  try {
    known = await repositoryBranches(folder.uri);
  } catch {
    known = undefined;
  }
  if (known === undefined) {
    return undefined;
  }
  const obvious = obviousBase(known.branches, known.current);
  if (obvious !== undefined) {
    return obvious;
  }
  const choices = branchChoices(known.branches, known.current);
  if (choices.length === 0) {
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(choices, {
    title: "prscope: review the pull request against which branch?",
    placeHolder: "No main or master branch found: pick the base branch",
  });
  return picked === undefined ? null : picked.label;
}
