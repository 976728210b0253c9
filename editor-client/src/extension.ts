/** Wiring only: create the parts, connect them to commands, views and events. */

import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { AgentsTree, RunsModel } from "./agentsView";
import { isApiKeySecret, promptForApiKey } from "./apiKey";
import { Commands, CONFIG_SECTION, Views } from "./constants";
import type { Finding } from "./findings";
import { FindingsStore, FindingsTree, findingsBadge, revealFinding } from "./findingsView";
import { LastReview, NEXT_REVIEW_BRINGS_THEM_BACK, parseRestored, restoredText } from "./lastReview";
import { createLog } from "./log";
import { onInterpreterChanged } from "./pythonExtension";
import { Reviewer } from "./review";
import { ServerController } from "./serverController";
import { needsRestart, readSettings } from "./settings";
import { ReviewStatus } from "./statusBar";

let server: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = createLog();
  const findings = new FindingsStore();
  const runs = new RunsModel(log);
  const status = new ReviewStatus();
  const lastReview = new LastReview();
  const middleware: Middleware = {
    handleDiagnostics: (uri, diagnostics, next) => {
      findings.update(uri, diagnostics);
      next(uri, diagnostics);
    },
  };
  const onRestored = (raw: unknown): void => {
    const restored = parseRestored(raw);
    if (restored === undefined) {
      return;
    }
    const said = restoredText(restored);
    log.info(said.log);
    if (said.message !== undefined) {
      offerReview(said.message);
    }
  };
  server = new ServerController(context, log, {
    middleware,
    onRunEvent: (raw) => runs.receive(raw),
    onRestored,
    restoreOption: () => lastReview.option,
  });
  const reviewer = new Reviewer(server, runs, status, log, lastReview);

  const findingsTree = new FindingsTree(findings);
  const findingsView = vscode.window.createTreeView(Views.findings, { treeDataProvider: findingsTree, showCollapseAll: true });
  const agentsTree = new AgentsTree(runs);
  const agentsView = vscode.window.createTreeView(Views.agents, { treeDataProvider: agentsTree, showCollapseAll: true });
  findings.onDidChange(() => {
    findingsTree.refresh();
    findingsView.badge = findingsBadge(findings.all());
  });
  runs.onDidChange(() => agentsTree.refresh());
  // A stopped or crashed server's diagnostics are gone from the editor: so are its findings.
  server.onDidChangeClient((client) => client === undefined && findings.clear());

  // A restart empties Problems and Findings; the new server shows the last review's findings again
  // (server/restore.py), or, when the review cannot be read back from the run store, the user is told.
  const restart = (reason: string): void => {
    if (findings.all().length > 0 && lastReview.option === undefined) {
      offerReview(NEXT_REVIEW_BRINGS_THEM_BACK);
    }
    void server?.restart(reason);
  };
  const currentProvider = () => readSettings((key) => vscode.workspace.getConfiguration(CONFIG_SECTION).get(key)).provider;

  context.subscriptions.push(
    log,
    findings,
    runs,
    status,
    server,
    findingsView,
    agentsView,
    vscode.commands.registerCommand(Commands.reviewPullRequest, () => reviewer.review("branch")),
    vscode.commands.registerCommand(Commands.reviewPullRequestNoCache, () => reviewer.review("branch", { noCache: true })),
    vscode.commands.registerCommand(Commands.reviewStaged, () => reviewer.review("staged")),
    vscode.commands.registerCommand(Commands.reviewUncommitted, () => reviewer.review("uncommitted")),
    vscode.commands.registerCommand(Commands.analyzeSelection, () => reviewer.analyzeSelection()),
    vscode.commands.registerCommand(Commands.clearFindings, () => {
      server?.current?.diagnostics?.clear();
      findings.clear();
      lastReview.forget();
    }),
    vscode.commands.registerCommand(Commands.setApiKey, () => promptForApiKey(context.secrets, currentProvider())),
    vscode.commands.registerCommand(Commands.showLog, () => log.show()),
    vscode.commands.registerCommand(Commands.restartServer, () => restart("asked for")),
    vscode.commands.registerCommand(Commands.setUpPrivateEnvironment, () => server?.setUpPrivateEnvironment()),
    vscode.commands.registerCommand(Commands.clearRuns, () => runs.clearFinished()),
    vscode.commands.registerCommand(Commands.revealFinding, (finding: Finding) => revealFinding(finding)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (needsRestart((section) => event.affectsConfiguration(section))) {
        restart("settings changed");
      }
    }),
    context.secrets.onDidChange((event) => {
      if (isApiKeySecret(event.key)) {
        restart("API key changed");
      }
    }),
    await onInterpreterChanged(() => {
      const settings = readSettings((key) => vscode.workspace.getConfiguration(CONFIG_SECTION).get(key));
      if (settings.interpreter === undefined && settings.serverCommand.length === 0) {
        restart("the Python interpreter changed");
      }
    }),
  );
  void server.ensureStarted();
}

function offerReview(message: string): void {
  const review = "Review Pull Request";
  void vscode.window.showInformationMessage(message, review).then((choice) => {
    if (choice === review) {
      void vscode.commands.executeCommand(Commands.reviewPullRequest);
    }
  });
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
