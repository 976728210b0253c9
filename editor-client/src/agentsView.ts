/** The Agents view: each run as a tree (the review, its main reviewer, subagents and nested ones), each
 * agent with its state's icon and colour, tool calls, token use and last tool; expandable to its tool
 * calls. The state lives in runTree.ts; this module only draws it. */

import * as vscode from "vscode";
import { agentAccessibleLabel, agentDescription, agentLabel, agentTooltip, STATE_LOOKS } from "./runFormat";
import { type AgentNode, isActive, isEndState, parseRunEvent, type Run, RunTree, ROOT_AGENT } from "./runTree";

/** How long an agent may stay active after its run ended before it is shown as interrupted. */
const SETTLE_GRACE_MS = 30_000;

type Node =
  | { kind: "agent"; run: Run; agent: AgentNode }
  | { kind: "call"; run: Run; agent: AgentNode; index: number };

export class RunsModel implements vscode.Disposable {
  readonly tree = new RunTree();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** A `prscope/runEvent` notification. */
  receive(raw: unknown): void {
    const event = parseRunEvent(raw);
    if (event === undefined) {
      this.log.warn(`ignored a malformed run event: ${JSON.stringify(raw)}`);
      return;
    }
    if (this.tree.apply(event)) {
      this.changed.fire();
    }
    if (event.agent_id === ROOT_AGENT && isEndState(event.status)) {
      this.settleLater(event.run_id);
    }
  }

  /** The run's request has been answered: nothing more will come for agents still active. */
  settle(runId: string, detail: string): void {
    if (this.tree.settle(runId, detail)) {
      this.changed.fire();
    }
  }

  clearFinished(): void {
    this.tree.clearFinished();
    this.changed.fire();
  }

  dispose(): void {
    for (const timer of this.timers.values()) {
      clearTimeout(timer);
    }
    this.changed.dispose();
  }

  /** A cancelled run's subagents wind down on their own and report their end; if one never does, it
   * is shown as interrupted rather than spinning forever. */
  private settleLater(runId: string): void {
    clearTimeout(this.timers.get(runId));
    this.timers.set(
      runId,
      setTimeout(() => {
        this.timers.delete(runId);
        this.settle(runId, "no end state was reported after the run ended");
      }, SETTLE_GRACE_MS),
    );
  }
}

export class AgentsTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: RunsModel) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    const tree = this.model.tree;
    if (node === undefined) {
      return tree
        .allRuns()
        .map((run) => ({ run, agent: tree.rootOf(run) }))
        .filter((entry): entry is { run: Run; agent: AgentNode } => entry.agent !== undefined)
        .map(({ run, agent }) => ({ kind: "agent", run, agent }));
    }
    if (node.kind === "call") {
      return [];
    }
    const agents: Node[] = tree.children(node.run, node.agent).map((agent) => ({ kind: "agent", run: node.run, agent }));
    const calls: Node[] = node.agent.calls.map((_, index) => ({ kind: "call", run: node.run, agent: node.agent, index }));
    return [...agents, ...calls];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    return node.kind === "agent" ? agentItem(node.run, node.agent) : callItem(node.run, node.agent, node.index);
  }
}

function agentItem(run: Run, agent: AgentNode): vscode.TreeItem {
  const look = STATE_LOOKS[agent.status];
  const item = new vscode.TreeItem(agentLabel(agent), collapsibleState(agent));
  item.id = agentItemId(run, agent);
  item.description = agentDescription(agent);
  item.tooltip = agentTooltip(agent);
  item.iconPath = new vscode.ThemeIcon(look.icon, new vscode.ThemeColor(look.color));
  item.contextValue = `agent.${agent.status}`;
  item.accessibilityInformation = { label: agentAccessibleLabel(agent) };
  return item;
}

/** The tree keeps an item's expansion from when it was first drawn: an agent drawn as a leaf would stay
 * closed once its subagents start. Its id changes when it gets its first subagent, so that it is drawn
 * anew, open. */
function agentItemId(run: Run, agent: AgentNode): string {
  return `${run.id}/${agent.id}${agent.children.length > 0 ? "/with-subagents" : ""}`;
}

/** Agents with subagents open up, so that a run's agents are visible as they start; an agent with only
 * tool calls stays closed. */
function collapsibleState(agent: AgentNode): vscode.TreeItemCollapsibleState {
  if (agent.children.length > 0) {
    return vscode.TreeItemCollapsibleState.Expanded;
  }
  return agent.calls.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
}

function callItem(run: Run, agent: AgentNode, index: number): vscode.TreeItem {
  const call = agent.calls[index];
  const name = call?.name ?? "tool";
  const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
  item.id = `${agentItemId(run, agent)}/call/${index}`;
  const running = call !== undefined && !call.done && isActive(agent);
  item.description = running ? "running" : `#${index + 1}`;
  item.iconPath = new vscode.ThemeIcon(running ? "loading~spin" : "tools");
  item.accessibilityInformation = { label: `tool call ${index + 1}: ${name}${running ? ", running" : ""}` };
  return item;
}
