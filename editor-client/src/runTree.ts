/** The run tree behind the Agents view, built from `prscope/runEvent` notifications alone.
 *
 * Each event carries one agent's whole state (server/events.py). The tree holds up against what a
 * stream of them can do: a child may arrive before its parent (the parent is a placeholder until its
 * own event comes), the same event may come twice (nothing changes), an event may come late (an end
 * state is final; an agent never goes back to pending once it ran), and a background subagent keeps
 * showing as background, never completed, until its own end state arrives, whatever its parent does.
 */

export const AGENT_STATES = [
  "pending",
  "running",
  "background",
  "completed",
  "error",
  "interrupted",
  "cancelled",
  "timed_out",
] as const;
export type AgentState = (typeof AGENT_STATES)[number];

const END_STATES: ReadonlySet<AgentState> = new Set(["completed", "error", "interrupted", "cancelled", "timed_out"]);

/** The server's id for the review itself: the root of its run (server/events.py ROOT_AGENT). */
export const ROOT_AGENT = "review";
const KEPT_RUNS = 10;

export interface RunEvent {
  run_id: string;
  agent_id: string;
  parent_id: string | null;
  label: string;
  status: AgentState;
  tool: string | null;
  tokens_used: number;
  tokens_max: number | null;
  tool_calls: number;
  detail: string;
  /** The agent's tool calls in flight, one name per call (null from a server that does not say). */
  running_tools: string[] | null;
  /** On the run's own events: the work-done token of the request the run serves. */
  work_done_token: string | null;
}

export interface ToolCall {
  name: string;
  done: boolean;
}

export interface AgentNode {
  readonly id: string;
  readonly runId: string;
  parentId: string | null;
  label: string;
  status: AgentState;
  /** Started in background mode: shown as background while active, whatever its events say. */
  background: boolean;
  toolCalls: number;
  tokensUsed: number;
  tokensMax: number | null;
  currentTool: string | null;
  lastTool: string | null;
  calls: ToolCall[];
  detail: string;
  /** Known only as some agent's parent so far. */
  placeholder: boolean;
  children: string[];
}

export interface Run {
  readonly id: string;
  readonly agents: Map<string, AgentNode>;
  /** Order of first sight: the newest run has the highest. */
  readonly seen: number;
  /** The work-done token of the request the run serves, once its own event said so. */
  workDoneToken?: string;
}

export function isEndState(state: AgentState): boolean {
  return END_STATES.has(state);
}

export function isActive(node: AgentNode): boolean {
  return !isEndState(node.status);
}

/** A run event from an untyped notification, or undefined when it is not one. */
export function parseRunEvent(raw: unknown): RunEvent | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const value = raw as Record<string, unknown>;
  const status = AGENT_STATES.find((state) => state === value.status);
  if (typeof value.run_id !== "string" || typeof value.agent_id !== "string" || status === undefined) {
    return undefined;
  }
  return {
    run_id: value.run_id,
    agent_id: value.agent_id,
    parent_id: typeof value.parent_id === "string" ? value.parent_id : null,
    label: typeof value.label === "string" ? value.label : value.agent_id,
    status,
    tool: typeof value.tool === "string" && value.tool !== "" ? value.tool : null,
    tokens_used: count(value.tokens_used),
    tokens_max: typeof value.tokens_max === "number" && value.tokens_max > 0 ? value.tokens_max : null,
    tool_calls: count(value.tool_calls),
    detail: typeof value.detail === "string" ? value.detail : "",
    running_tools: Array.isArray(value.running_tools)
      ? value.running_tools.filter((name): name is string => typeof name === "string" && name !== "")
      : null,
    work_done_token:
      typeof value.work_done_token === "string" || typeof value.work_done_token === "number" ? String(value.work_done_token) : null,
  };
}

/** How many tool calls the agent has made: finished ones and those in flight. */
export function callCount(node: AgentNode): number {
  return Math.max(node.toolCalls, node.calls.length);
}

export class RunTree {
  private readonly runs = new Map<string, Run>();
  private counter = 0;

  /** Applies one event; true when anything a view shows changed. */
  apply(event: RunEvent): boolean {
    const run = this.runFor(event.run_id);
    if (event.agent_id === ROOT_AGENT && event.work_done_token !== null) {
      run.workDoneToken = event.work_done_token;
    }
    const parentId = this.parentOf(event);
    const existing = run.agents.get(event.agent_id);
    const node = existing ?? this.newNode(run, event, parentId);
    const before = snapshot(node);
    if (node.placeholder) {
      node.placeholder = false;
      node.label = event.label;
    }
    this.adopt(run, node, parentId);
    if (existing === undefined || !isEndState(node.status)) {
      updateActive(node, event);
    } else if (node.status === event.status) {
      refreshEnded(node, event);
    }
    const changed = existing === undefined || before !== snapshot(node);
    if (existing === undefined) {
      this.trim();
    }
    return changed;
  }

  /** Ends whatever in the run is still active (the run is over and no end state came for it); true
   * when anything changed. Never marks an agent completed: only its own event can. */
  settle(runId: string, detail: string): boolean {
    const run = this.runs.get(runId);
    if (run === undefined) {
      return false;
    }
    let changed = false;
    for (const node of run.agents.values()) {
      if (isActive(node)) {
        node.status = "interrupted";
        node.detail = detail;
        node.currentTool = null;
        finishCalls(node, node.calls.length);
        changed = true;
      }
    }
    return changed;
  }

  /** Drops runs whose every agent has ended. */
  clearFinished(): void {
    for (const run of [...this.runs.values()]) {
      if (![...run.agents.values()].some(isActive)) {
        this.runs.delete(run.id);
      }
    }
  }

  /** Runs, newest first. */
  allRuns(): Run[] {
    return [...this.runs.values()].sort((a, b) => b.seen - a.seen);
  }

  run(runId: string): Run | undefined {
    return this.runs.get(runId);
  }

  /** The run serving the request sent with this work-done token. */
  runForToken(token: string): Run | undefined {
    return [...this.runs.values()].find((run) => run.workDoneToken === token);
  }

  /** The node shown for the run itself: its root agent, or a placeholder while none has arrived. */
  rootOf(run: Run): AgentNode | undefined {
    return run.agents.get(ROOT_AGENT) ?? [...run.agents.values()].find((node) => node.parentId === null);
  }

  children(run: Run, node: AgentNode): AgentNode[] {
    return node.children.map((id) => run.agents.get(id)).filter((child): child is AgentNode => child !== undefined);
  }

  /** Every agent of the run below its root, depth first. */
  descendants(run: Run): AgentNode[] {
    const root = this.rootOf(run);
    const found: AgentNode[] = [];
    const visit = (node: AgentNode): void => {
      for (const child of this.children(run, node)) {
        found.push(child);
        visit(child);
      }
    };
    if (root !== undefined) {
      visit(root);
    }
    return found;
  }

  private runFor(runId: string): Run {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = { id: runId, agents: new Map(), seen: ++this.counter };
      this.runs.set(runId, run);
    }
    return run;
  }

  /** The main reviewer has no parent on the wire; in the tree it sits under the review it serves. */
  private parentOf(event: RunEvent): string | null {
    if (event.agent_id === ROOT_AGENT) {
      return null;
    }
    return event.parent_id ?? ROOT_AGENT;
  }

  private newNode(run: Run, event: RunEvent, parentId: string | null): AgentNode {
    const node = blankNode(run.id, event.agent_id, event.label, parentId);
    node.placeholder = false;
    run.agents.set(node.id, node);
    return node;
  }

  /** Links `node` under `parentId`, making a placeholder parent when it has not been seen yet. */
  private adopt(run: Run, node: AgentNode, parentId: string | null): void {
    if (parentId === null || parentId === node.id) {
      return;
    }
    if (node.parentId !== parentId) {
      const old = node.parentId === null ? undefined : run.agents.get(node.parentId);
      if (old !== undefined) {
        old.children = old.children.filter((id) => id !== node.id);
      }
      node.parentId = parentId;
    }
    let parent = run.agents.get(parentId);
    if (parent === undefined) {
      parent = blankNode(run.id, parentId, parentId, parentId === ROOT_AGENT ? null : ROOT_AGENT);
      // A child is under way, so its parent is too.
      parent.status = "running";
      run.agents.set(parentId, parent);
      if (parentId !== ROOT_AGENT) {
        this.adopt(run, parent, ROOT_AGENT);
      }
    }
    if (!parent.children.includes(node.id)) {
      parent.children.push(node.id);
    }
  }

  private trim(): void {
    const finished = this.allRuns().filter((run) => ![...run.agents.values()].some(isActive));
    const excess = this.runs.size - KEPT_RUNS;
    for (const run of finished.reverse().slice(0, Math.max(excess, 0))) {
      this.runs.delete(run.id);
    }
  }
}

function blankNode(runId: string, id: string, label: string, parentId: string | null): AgentNode {
  return {
    id,
    runId,
    parentId,
    label,
    status: "pending",
    background: false,
    toolCalls: 0,
    tokensUsed: 0,
    tokensMax: null,
    currentTool: null,
    lastTool: null,
    calls: [],
    detail: "",
    placeholder: true,
    children: [],
  };
}

/** An active agent takes the event's state, except that it never goes back to pending, and a
 * background agent stays background until it ends. */
function updateActive(node: AgentNode, event: RunEvent): void {
  if (event.status === "background") {
    node.background = true;
  }
  const regress = event.status === "pending" && node.status !== "pending";
  if (!regress) {
    node.status = node.background && !isEndState(event.status) ? "background" : event.status;
  }
  node.label = event.label;
  node.tokensUsed = event.tokens_used;
  node.tokensMax = event.tokens_max ?? node.tokensMax;
  node.detail = event.detail || node.detail;
  trackTools(node, event);
  if (isEndState(node.status)) {
    node.currentTool = null;
    finishCalls(node, node.calls.length);
  }
}

/** A repeated end state may bring final counters; a different, later end state is ignored. */
function refreshEnded(node: AgentNode, event: RunEvent): void {
  node.toolCalls = Math.max(node.toolCalls, event.tool_calls);
  if (event.tokens_used > 0) {
    node.tokensUsed = event.tokens_used;
  }
  node.detail = node.detail || event.detail;
}

/** Tool calls from the current tool and the finished-call counter: a new tool name starts a call, a
 * higher counter finishes the oldest calls still open (parallel calls finish in any order). */
function trackTools(node: AgentNode, event: RunEvent): void {
  if (event.running_tools !== null) {
    trackRunningTools(node, event, event.running_tools);
    return;
  }
  if (event.tool !== null && event.tool !== node.currentTool) {
    node.calls.push({ name: event.tool, done: false });
    node.lastTool = event.tool;
  }
  node.currentTool = event.tool;
  if (event.tool_calls > node.toolCalls) {
    const finished = event.tool_calls - node.toolCalls;
    const open = node.calls.filter((call) => !call.done).length;
    // Parallel calls of one tool look like one call on the wire (the same tool name twice): the
    // counter says how many there were.
    for (let extra = open; extra < finished; extra += 1) {
      node.calls.push({ name: node.lastTool ?? "tool", done: false });
    }
    finishCalls(node, finished);
    node.toolCalls = event.tool_calls;
  }
}

/** Tool calls from the calls in flight the server names: an open call whose name is no longer among
 * them has finished, each name beyond the open calls is a new call (two `run_subagent` at once are two
 * calls), and the finished-call counter fills in calls that started and ended between two events. */
function trackRunningTools(node: AgentNode, event: RunEvent, running: string[]): void {
  const left = new Map<string, number>();
  for (const name of running) {
    left.set(name, (left.get(name) ?? 0) + 1);
  }
  // The newest open calls of a name are the ones still in flight: of parallel calls of one tool, the
  // oldest are taken to have finished first.
  for (const call of [...node.calls].reverse()) {
    if (call.done) {
      continue;
    }
    const open = left.get(call.name) ?? 0;
    if (open > 0) {
      left.set(call.name, open - 1);
    } else {
      call.done = true;
    }
  }
  for (const name of running) {
    const extra = left.get(name) ?? 0;
    if (extra > 0) {
      node.calls.push({ name, done: false });
      left.set(name, extra - 1);
    }
  }
  const finished = node.calls.filter((call) => call.done).length;
  const firstOpen = node.calls.findIndex((call) => !call.done);
  for (let missing = finished; missing < event.tool_calls; missing += 1) {
    const at = firstOpen < 0 ? node.calls.length : firstOpen;
    node.calls.splice(at, 0, { name: event.tool ?? node.lastTool ?? "tool", done: true });
  }
  node.toolCalls = Math.max(node.toolCalls, event.tool_calls);
  node.currentTool = running.length > 0 ? (running[running.length - 1] ?? null) : null;
  if (node.currentTool !== null) {
    node.lastTool = node.currentTool;
  }
}

function finishCalls(node: AgentNode, howMany: number): void {
  let left = howMany;
  for (const call of node.calls) {
    if (left === 0) {
      return;
    }
    if (!call.done && call.name !== node.currentTool) {
      call.done = true;
      left -= 1;
    }
  }
  for (const call of node.calls) {
    if (left === 0) {
      return;
    }
    if (!call.done) {
      call.done = true;
      left -= 1;
    }
  }
}

function snapshot(node: AgentNode): string {
  return JSON.stringify(node);
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
