import { describe, expect, test } from "vitest";
import { agentAccessibleLabel, agentDescription, runProgress } from "../src/runFormat";
import { type AgentNode, type AgentState, parseRunEvent, ROOT_AGENT, type RunEvent, RunTree } from "../src/runTree";

function event(agent: string, status: AgentState, extra: Partial<RunEvent> = {}): RunEvent {
  return {
    run_id: "run-1",
    agent_id: agent,
    parent_id: agent === ROOT_AGENT || agent === "main" ? null : "main",
    label: agent,
    status,
    tool: null,
    tokens_used: 0,
    tokens_max: null,
    tool_calls: 0,
    detail: "",
    running_tools: null,
    work_done_token: null,
    ...extra,
  };
}

function agent(tree: RunTree, id: string, runId = "run-1"): AgentNode {
  const node = tree.run(runId)?.agents.get(id);
  if (node === undefined) {
    throw new Error(`no agent ${id}`);
  }
  return node;
}

function applyAll(tree: RunTree, events: RunEvent[]): void {
  for (const item of events) {
    tree.apply(item);
  }
}

describe("lifecycle", () => {
  test("a review with a main reviewer and a subagent goes from running to completed", () => {
    const tree = new RunTree();
    applyAll(tree, [
      event(ROOT_AGENT, "running", { label: "prscope review (branch)" }),
      event("main", "running", { tokens_max: 200_000 }),
      event("sub-1", "pending", { label: "callers of fetch" }),
      event("sub-1", "running", { tokens_max: 200_000 }),
      event("sub-1", "completed", { tool_calls: 2, tokens_used: 12_300, tokens_max: 200_000 }),
      event("main", "completed", { tokens_used: 40_000, tokens_max: 200_000 }),
      event(ROOT_AGENT, "completed"),
    ]);
    const run = tree.allRuns()[0];
    expect(run).toBeDefined();
    const root = tree.rootOf(run!);
    expect(root?.status).toBe("completed");
    expect(tree.children(run!, root!).map((node) => node.id)).toEqual(["main"]);
    expect(tree.children(run!, agent(tree, "main")).map((node) => node.id)).toEqual(["sub-1"]);
    expect(agent(tree, "sub-1")).toMatchObject({ status: "completed", toolCalls: 2, tokensUsed: 12_300 });
    expect(agentDescription(agent(tree, "sub-1"))).toBe("completed · 2 tool calls · 12.3k / 200k tokens");
  });

  test.each<AgentState>(["error", "interrupted", "cancelled", "timed_out"])("%s is an end state like completed", (end) => {
    const tree = new RunTree();
    applyAll(tree, [event("main", "running"), event("main", end, { detail: "why" }), event("main", "running")]);
    expect(agent(tree, "main")).toMatchObject({ status: end, detail: "why" });
  });

  test("the run's own line says how it ended; a failed agent says why", () => {
    const tree = new RunTree();
    applyAll(tree, [
      event(ROOT_AGENT, "completed", { label: "prscope review (branch)", detail: "No API key: deterministic checks only" }),
      event("sub-1", "timed_out", { label: "callers", detail: "its 60 s time limit was reached\nmore" }),
    ]);
    expect(agentAccessibleLabel(agent(tree, ROOT_AGENT))).toBe(
      "prscope review (branch): completed, No API key: deterministic checks only",
    );
    expect(agentDescription(agent(tree, "sub-1"))).toBe("timed out · 0 tool calls · its 60 s time limit was reached");
  });

  test("pending then running then completed, each shown", () => {
    const tree = new RunTree();
    const states: string[] = [];
    for (const status of ["pending", "running", "completed"] as const) {
      tree.apply(event("sub-1", status));
      states.push(agent(tree, "sub-1").status);
    }
    expect(states).toEqual(["pending", "running", "completed"]);
  });
});

describe("background subagents", () => {
  test("stay background while their tool calls report running, until their own end state", () => {
    const tree = new RunTree();
    applyAll(tree, [
      event("main", "running"),
      event("bg-1", "background", { label: "slow hunt" }),
      event("bg-1", "running", { label: "slow hunt", tool: "search_text" }),
    ]);
    expect(agent(tree, "bg-1").status).toBe("background");
    expect(agent(tree, "bg-1").currentTool).toBe("search_text");
    expect(agentAccessibleLabel(agent(tree, "bg-1"))).toBe("slow hunt: running in background, 1 tool call, → search_text");
    tree.apply(event("bg-1", "completed", { tool_calls: 1 }));
    expect(agent(tree, "bg-1").status).toBe("completed");
  });

  test("are not shown completed when their parent or the run completes first", () => {
    const tree = new RunTree();
    applyAll(tree, [
      event(ROOT_AGENT, "running"),
      event("main", "running"),
      event("bg-1", "background"),
      event("main", "completed"),
      event(ROOT_AGENT, "completed"),
    ]);
    expect(agent(tree, "bg-1").status).toBe("background");
  });

  test("a run that ends without their end state shows them interrupted, never completed", () => {
    const tree = new RunTree();
    applyAll(tree, [event("main", "running"), event("bg-1", "background"), event(ROOT_AGENT, "cancelled")]);
    expect(tree.settle("run-1", "no end state")).toBe(true);
    expect(agent(tree, "bg-1")).toMatchObject({ status: "interrupted", detail: "no end state" });
    expect(agent(tree, ROOT_AGENT).status).toBe("cancelled");
    expect(tree.settle("run-1", "again")).toBe(false);
  });
});

describe("out-of-order and duplicate events", () => {
  test("a child before its parent: the parent is a running placeholder until its own event", () => {
    const tree = new RunTree();
    tree.apply(event("sub-1", "running", { label: "callers" }));
    expect(agent(tree, "main")).toMatchObject({ placeholder: true, status: "running", children: ["sub-1"] });
    expect(agent(tree, ROOT_AGENT).children).toEqual(["main"]);
    tree.apply(event("main", "running", { label: "main reviewer" }));
    expect(agent(tree, "main")).toMatchObject({ placeholder: false, label: "main reviewer", children: ["sub-1"] });
  });

  test("a nested subagent before both its parent and grandparent", () => {
    const tree = new RunTree();
    tree.apply(event("sub-1.1", "running", { parent_id: "sub-1" }));
    tree.apply(event("sub-1", "running", { parent_id: "main" }));
    tree.apply(event("main", "running"));
    const run = tree.allRuns()[0]!;
    expect(tree.descendants(run).map((node) => node.id)).toEqual(["main", "sub-1", "sub-1.1"]);
  });

  test("a late running or pending event does not undo an end state or a start", () => {
    const tree = new RunTree();
    applyAll(tree, [event("sub-1", "running"), event("sub-1", "pending")]);
    expect(agent(tree, "sub-1").status).toBe("running");
    applyAll(tree, [event("sub-1", "completed"), event("sub-1", "running", { tool: "read_file" })]);
    expect(agent(tree, "sub-1")).toMatchObject({ status: "completed", currentTool: null, calls: [] });
  });

  test("a second, different end state is ignored; a repeated one may bring final counters", () => {
    const tree = new RunTree();
    applyAll(tree, [event("sub-1", "completed", { tool_calls: 1 }), event("sub-1", "error", { detail: "late" })]);
    expect(agent(tree, "sub-1")).toMatchObject({ status: "completed", detail: "" });
    tree.apply(event("sub-1", "completed", { tool_calls: 3 }));
    expect(agent(tree, "sub-1").toolCalls).toBe(3);
  });

  test("a duplicate event changes nothing and says so", () => {
    const tree = new RunTree();
    const first = event("sub-1", "running", { tool: "read_file", tokens_used: 10 });
    expect(tree.apply(first)).toBe(true);
    expect(tree.apply({ ...first })).toBe(false);
    expect(agent(tree, "sub-1").calls).toHaveLength(1);
  });

  test("events of two runs stay apart, newest run first", () => {
    const tree = new RunTree();
    tree.apply(event(ROOT_AGENT, "running"));
    tree.apply({ ...event(ROOT_AGENT, "running"), run_id: "run-2" });
    tree.apply(event(ROOT_AGENT, "completed"));
    expect(tree.allRuns().map((run) => run.id)).toEqual(["run-2", "run-1"]);
    expect(agent(tree, ROOT_AGENT, "run-2").status).toBe("running");
  });
});

describe("tool calls", () => {
  test("sequential calls: each new tool starts a call, the counter finishes it", () => {
    const tree = new RunTree();
    applyAll(tree, [
      event("main", "running", { tool: "read_file" }),
      event("main", "running", { tool: null, tool_calls: 1 }),
      event("main", "running", { tool: "read_file", tool_calls: 1 }),
    ]);
    expect(agent(tree, "main").calls).toEqual([
      { name: "read_file", done: true },
      { name: "read_file", done: false },
    ]);
    // the one in flight counts: two calls made so far
    expect(agentDescription(agent(tree, "main"))).toBe("running · 2 tool calls · → read_file");
  });

  test("parallel calls finish in any order; the last tool is remembered", () => {
    const tree = new RunTree();
    applyAll(tree, [
      event("main", "running", { tool: "search_text" }),
      event("main", "running", { tool: "find_usages" }),
      event("main", "running", { tool: null, tool_calls: 1 }),
      event("main", "running", { tool: null, tool_calls: 2 }),
    ]);
    const main = agent(tree, "main");
    expect(main.calls.map((call) => call.done)).toEqual([true, true]);
    expect(main.lastTool).toBe("find_usages");
    expect(agentDescription(main)).toBe("running · 2 tool calls · last: find_usages");
  });

  test("parallel calls of the same tool are counted from the finished-call counter", () => {
    const tree = new RunTree();
    const started = event("main", "running", { tool: "run_subagent" });
    applyAll(tree, [
      started,
      { ...started },
      event("main", "running", { tool: null, tool_calls: 1 }),
      event("main", "running", { tool: null, tool_calls: 2 }),
    ]);
    expect(agent(tree, "main").calls).toEqual([
      { name: "run_subagent", done: true },
      { name: "run_subagent", done: true },
    ]);
  });

  test("two run_subagent calls in flight are two calls, two rows, and finish one by one", () => {
    const tree = new RunTree();
    const main = (running: string[], calls: number, tool: string | null = running.at(-1) ?? null): RunEvent =>
      event("main", "running", { tool, running_tools: running, tool_calls: calls });
    tree.apply(main(["run_subagent"], 0));
    tree.apply(main(["run_subagent", "run_subagent"], 0));
    expect(agent(tree, "main").calls).toEqual([
      { name: "run_subagent", done: false },
      { name: "run_subagent", done: false },
    ]);
    expect(agentDescription(agent(tree, "main"))).toBe("running · 2 tool calls · → run_subagent");
    tree.apply(main(["run_subagent"], 1));
    expect(agent(tree, "main").calls.map((call) => call.done)).toEqual([true, false]);
    tree.apply(main([], 2));
    expect(agentDescription(agent(tree, "main"))).toBe("running · 2 tool calls · last: run_subagent");
  });

  test("calls that started and ended between two events are filled in from the counter", () => {
    const tree = new RunTree();
    tree.apply(event("main", "running", { running_tools: ["read_file"], tool: "read_file" }));
    tree.apply(event("main", "running", { running_tools: ["search_text"], tool: "search_text", tool_calls: 3 }));
    expect(agent(tree, "main").calls).toEqual([
      { name: "read_file", done: true },
      { name: "search_text", done: true },
      { name: "search_text", done: true },
      { name: "search_text", done: false },
    ]);
  });

  test("the main reviewer reads as such", () => {
    const tree = new RunTree();
    tree.apply(event("main", "running", { label: "review" }));
    expect(agentAccessibleLabel(agent(tree, "main"))).toBe("main reviewer: running, 0 tool calls");
  });

  test("an agent that ends closes its open calls", () => {
    const tree = new RunTree();
    applyAll(tree, [event("sub-1", "running", { tool: "read_file" }), event("sub-1", "cancelled")]);
    expect(agent(tree, "sub-1").calls).toEqual([{ name: "read_file", done: true }]);
  });
});

describe("parseRunEvent", () => {
  test("reads the server's notification", () => {
    const raw = {
      run_id: "run-3",
      agent_id: "sub-1",
      parent_id: "main",
      label: "callers",
      status: "timed_out",
      tool: null,
      tokens_used: 5,
      tokens_max: 200000,
      depth: 1,
      tool_calls: 4,
      detail: "deadline",
    };
    const { depth: _depth, ...expected } = raw;
    expect(parseRunEvent(raw)).toEqual({ ...expected, running_tools: null, work_done_token: null });
    expect(parseRunEvent({ ...raw, running_tools: ["a", 3, "b"], work_done_token: 7 })).toMatchObject({
      running_tools: ["a", "b"],
      work_done_token: "7",
    });
  });

  test.each([null, 3, {}, { run_id: "r", agent_id: "a", status: "exploded" }, { run_id: 1, agent_id: "a", status: "running" }])(
    "refuses %j",
    (raw) => {
      expect(parseRunEvent(raw)).toBeUndefined();
    },
  );

  test("fills what is missing with safe values", () => {
    expect(parseRunEvent({ run_id: "r", agent_id: "a", status: "running", tokens_used: -3 })).toEqual({
      run_id: "r",
      agent_id: "a",
      parent_id: null,
      label: "a",
      status: "running",
      tool: null,
      tokens_used: 0,
      tokens_max: null,
      tool_calls: 0,
      detail: "",
      running_tools: null,
      work_done_token: null,
    });
  });
});

describe("clearFinished and trimming", () => {
  test("drops runs that have ended, keeps running ones", () => {
    const tree = new RunTree();
    tree.apply(event(ROOT_AGENT, "completed"));
    tree.apply({ ...event(ROOT_AGENT, "running"), run_id: "run-2" });
    tree.clearFinished();
    expect(tree.allRuns().map((run) => run.id)).toEqual(["run-2"]);
  });

  test("keeps at most ten runs, dropping the oldest finished ones", () => {
    const tree = new RunTree();
    for (let index = 1; index <= 12; index += 1) {
      tree.apply({ ...event(ROOT_AGENT, "completed"), run_id: `run-${index}` });
    }
    const ids = tree.allRuns().map((run) => run.id);
    expect(ids).toHaveLength(10);
    expect(ids[0]).toBe("run-12");
    expect(ids).not.toContain("run-1");
  });
});

describe("the progress notification reads the run tree the Agents view draws", () => {
  test("each active agent in the view's words, with the tools it runs", () => {
    const tree = new RunTree();
    applyAll(tree, [
      event(ROOT_AGENT, "running", { label: "prscope review (branch)", work_done_token: "prscope-1" }),
      event("main", "running", { label: "review", tool: "run_subagent", running_tools: ["run_subagent", "run_subagent"] }),
      event("sub-1", "pending", { label: "Check tests" }),
      event("sub-1", "running", { label: "Check tests" }),
      event("sub-2", "running", { label: "imports of pkg.util", tool: "find_usages", running_tools: ["find_usages"] }),
    ]);
    const run = tree.runForToken("prscope-1");
    expect(run?.id).toBe("run-1");
    expect(runProgress(tree, run as NonNullable<typeof run>)).toBe(
      "main reviewer: running → run_subagent ×2 · Check tests: running · imports of pkg.util: running → find_usages",
    );
    // the view says the same of each agent
    expect(agentDescription(agent(tree, "sub-1"))).toMatch(/^running · /);
  });

  test("nothing while no agent is active: the server's message stands", () => {
    const tree = new RunTree();
    applyAll(tree, [event(ROOT_AGENT, "running", { work_done_token: "t" }), event("main", "completed")]);
    expect(runProgress(tree, tree.runForToken("t") as NonNullable<ReturnType<RunTree["runForToken"]>>)).toBeUndefined();
    expect(tree.runForToken("other")).toBeUndefined();
  });
});
