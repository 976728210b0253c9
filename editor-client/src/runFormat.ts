/** How an agent of the run tree reads in the Agents view: words, icon and colour per state. Pure, so
 * that the view and the tests agree on every string. */

import { type AgentNode, type AgentState, callCount, isActive, type Run, type RunTree } from "./runTree";

const MAIN_AGENT = "main";

export interface StateLook {
  /** A codicon id. */
  icon: string;
  /** A theme colour id. */
  color: string;
  words: string;
}

export const STATE_LOOKS: Readonly<Record<AgentState, StateLook>> = {
  pending: { icon: "clock", color: "disabledForeground", words: "pending" },
  running: { icon: "sync~spin", color: "charts.blue", words: "running" },
  background: { icon: "sync~spin", color: "charts.purple", words: "running in background" },
  completed: { icon: "pass", color: "testing.iconPassed", words: "completed" },
  error: { icon: "error", color: "errorForeground", words: "failed" },
  interrupted: { icon: "debug-disconnect", color: "charts.yellow", words: "interrupted" },
  cancelled: { icon: "circle-slash", color: "disabledForeground", words: "cancelled" },
  timed_out: { icon: "watch", color: "charts.orange", words: "timed out" },
};

/** 12345 -> "12k", 950 -> "950", 1500000 -> "1.5M". */
export function shortCount(value: number): string {
  if (value < 1000) {
    return String(value);
  }
  if (value < 1_000_000) {
    return `${trimZero(value / 1000)}k`;
  }
  return `${trimZero(value / 1_000_000)}M`;
}

function trimZero(value: number): string {
  const rounded = value >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
  return String(rounded);
}

/** "12k / 200k", or "12k" with no known maximum, or "" before any token was used. */
export function tokenUse(used: number, max: number | null): string {
  if (used === 0 && max === null) {
    return "";
  }
  return max === null ? shortCount(used) : `${shortCount(used)} / ${shortCount(max)}`;
}

export function toolCallCount(calls: number): string {
  return `${calls} tool call${calls === 1 ? "" : "s"}`;
}

/** The engine calls its main reviewer "main"; under the run's own "prscope review (...)" its label
 * ("review") would read like the run itself. */
export function agentLabel(node: AgentNode): string {
  return node.id === MAIN_AGENT ? "main reviewer" : node.label;
}

/** The line beside the agent's label: state, tool calls, tokens, the tool it runs (or ran last). The
 * run itself (the root) calls no tools: its line is its state and how it ended. */
export function agentDescription(node: AgentNode): string {
  if (node.parentId === null) {
    return [STATE_LOOKS[node.status].words, shortDetail(node.detail)].filter((part) => part !== "").join(" · ");
  }
  const parts = [STATE_LOOKS[node.status].words, toolCallCount(callCount(node))];
  const tokens = tokenUse(node.tokensUsed, node.tokensMax);
  if (tokens !== "") {
    parts.push(`${tokens} tokens`);
  }
  if (node.currentTool !== null) {
    parts.push(`→ ${node.currentTool}`);
  } else if (node.lastTool !== null) {
    parts.push(`last: ${node.lastTool}`);
  }
  if (FAILED_STATES.has(node.status) && node.detail !== "") {
    parts.push(shortDetail(node.detail));
  }
  return parts.join(" · ");
}

/** End states whose reason the user needs at a glance. */
const FAILED_STATES: ReadonlySet<AgentState> = new Set(["error", "interrupted", "timed_out"]);

function shortDetail(detail: string): string {
  const line = detail.split("\n")[0]?.trim() ?? "";
  return line.length <= 80 ? line : `${line.slice(0, 79)}…`;
}

/** What a screen reader says, and what the end-to-end test looks for: "label: state, ...". */
export function agentAccessibleLabel(node: AgentNode): string {
  return `${agentLabel(node)}: ${agentDescription(node).replaceAll(" · ", ", ")}`;
}

export function agentTooltip(node: AgentNode): string {
  const lines = [`${agentLabel(node)} (${node.id}): ${STATE_LOOKS[node.status].words}`];
  if (node.detail) {
    lines.push(node.detail);
  }
  lines.push(toolCallCount(callCount(node)));
  const tokens = tokenUse(node.tokensUsed, node.tokensMax);
  if (tokens !== "") {
    lines.push(`${tokens} tokens`);
  }
  return lines.join("\n");
}

/** The progress notification's line for a run, from the same run tree as the Agents view and in its
 * words: each active agent below the run with its state and the tools it runs ("main reviewer: running
 * → run_subagent ×2 · callers of fetch: running → find_usages"); undefined while no agent is active
 * (the checks run, or the run is over: the server's own progress message says what happens then). */
export function runProgress(tree: RunTree, run: Run, limit = 4): string | undefined {
  const active = tree.descendants(run).filter(isActive);
  if (active.length === 0) {
    return undefined;
  }
  const parts = active.slice(0, limit).map((node) => {
    const running = node.calls.filter((call) => !call.done).map((call) => call.name);
    const tools = [...new Set(running)].map((name) => {
      const times = running.filter((item) => item === name).length;
      return times > 1 ? `${name} ×${times}` : name;
    });
    const doing = tools.length > 0 ? ` → ${tools.join(", ")}` : "";
    return `${agentLabel(node)}: ${STATE_LOOKS[node.status].words}${doing}`;
  });
  if (active.length > limit) {
    parts.push(`${active.length - limit} more`);
  }
  return parts.join(" · ");
}
