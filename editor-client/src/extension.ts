/** Wiring only: create the parts, connect them to commands, views and events. */

import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { AgentsTree, RunsModel } from "./agentsView";
import { isApiKeySecret, promptForApiKey } from "./apiKey";
import { Commands, CONFIG_SECTION, Views } from "./constants";
import type { Finding } from "./findings";
import { FindingsStore, FindingsTree, findingsBadge, revealFinding } from "./findingsView";
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
  const middleware: Middleware = {
    handleDiagnostics: (uri, diagnostics, next) => {
      findings.update(uri, diagnostics);
      next(uri, diagnostics);
    },
  };
  server = new ServerController(context, log, { middleware, onRunEvent: (raw) => runs.receive(raw) });
  const reviewer = new Reviewer(server, runs, status, log);

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

  const restart = (reason: string): void => void server?.restart(reason);
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
    }),
    vscode.commands.registerCommand(Commands.setApiKey, () => promptForApiKey(context.secrets, currentProvider())),
    vscode.commands.registerCommand(Commands.showLog, () => log.show()),
    vscode.commands.registerCommand(Commands.restartServer, () => restart("asked for")),
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

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
