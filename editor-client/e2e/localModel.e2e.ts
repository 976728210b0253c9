/** The second model scenario: the packaged extension in code-server reviewing with a REAL local model
 * server (llama-cpp-python's OpenAI-compatible server with SmolLM2 135M Instruct, e2e/local_model.py),
 * configured as a user would: provider openai, a model name and a base URL in the settings. A weak
 * model: the test checks that the review ends within its deadline with an honest status, and that
 * Cancel drops the request the server is working on; not what the model finds.
 *
 * Skipped, with one line saying so, when scripts/setup-llama has not run (PRSCOPE_LLAMA=0). */

import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CodeServer, startCodeServer } from "./harness/codeServer";
import { cleanEnvironment, e2eEnvironment } from "./harness/environment";
import { spawnGroup, stopGroup, waitForOutput } from "./harness/processes";
import { makeBreakingChangeRepo } from "./harness/repo";
import { type Row, UI_TIMEOUT_MS, Workbench } from "./harness/workbench";

const READY = Boolean(process.env.PRSCOPE_LLAMA_PYTHON && process.env.PRSCOPE_LLAMA_MODEL);
if (!READY) {
  console.log("local-model scenario skipped: no real model server (scripts/setup-llama has not run; PRSCOPE_LLAMA=0?)");
}

const SIDEBAR = ".part.sidebar";
const REVIEW_ROOT = "prscope review (branch)";
const MODEL = "smollm2-135m-instruct";
const DEADLINE_S = 180;
/** The deadline, the wrap-up turn (60 s) and a request the server finishes after the deadline dropped it
 * (llama-cpp-python does not stop a non-streamed generation), on a loaded 2-core machine. */
const REVIEW_TIMEOUT_MS = (DEADLINE_S + 60 + 180) * 1000;
const FINISHED = ["completed", "timed_out", "error", "interrupted"];

interface ServerState {
  requests: number;
  answered: number;
  dropped: number;
  in_flight: number;
  refused: number;
}

class LocalModel {
  constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    private readonly control: string,
  ) {}

  static async start(python: string, control: string, env: Record<string, string>): Promise<LocalModel> {
    mkdirSync(control, { recursive: true });
    const child = spawnGroup(python, [resolve(__dirname, "local_model.py"), control], {
      env,
      logFile: join(control, "local-model.log"),
    });
    const [, url] = await waitForOutput(child, /"base_url": "([^"]+)"/, 180_000);
    return new LocalModel(child, url ?? "", control);
  }

  state(): ServerState {
    const path = join(this.control, "state.json");
    return JSON.parse(existsSync(path) ? readFileSync(path, "utf8") : "{}") as ServerState;
  }

  async waitFor(what: string, check: (state: ServerState) => boolean, timeoutMs: number): Promise<ServerState> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const state = this.state();
      if (check(state)) {
        return state;
      }
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error(`timed out waiting for the model server: ${what}; state: ${JSON.stringify(this.state())}`);
  }

  async stop(): Promise<void> {
    this.child.stdin?.end();
    await stopGroup(this.child, 15_000);
  }
}

async function step<T>(name: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`step "${name}" failed: ${message}`, { cause: error });
  }
}

const runState = (rows: Row[]): string | undefined =>
  rows.find((row) => row.label.startsWith(`${REVIEW_ROOT}: `))?.label.slice(REVIEW_ROOT.length + 2).split(/[\s,]/)[0];

describe.skipIf(!READY)("review with a real local model server (llama.cpp) in code-server", () => {
  const env = e2eEnvironment();
  let model: LocalModel | undefined;
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;

  beforeAll(async () => {
    const root = join(env.scratchDir, "local-model");
    model = await LocalModel.start(env.python, join(root, "control"), cleanEnvironment());
    const repo = makeBreakingChangeRepo(join(root, "repo"), join(root, "home"));
    // SmolLM2's window is 8k; told nothing, prscope would plan for 32k and ask for more than fits.
    writeFileSync(join(repo, ".prscope.toml"), "[model]\ncontext_window = 8192\n");
    server = await startCodeServer({
      env,
      root,
      settings: {
        "prscope.interpreter": env.python,
        "prscope.model.provider": "openai",
        "prscope.model.name": MODEL,
        "prscope.model.baseUrl": model.baseUrl,
        "prscope.limits.deadlineSeconds": DEADLINE_S,
      },
      extraEnv: {},
      baseEnv: cleanEnvironment(),
    });
    workbench = await Workbench.open(env, server.url, repo, "local-model");
    await workbench.command("prscope: Focus on Agents View");
    await workbench.widenSideBar(3);
  });

  afterAll(async () => {
    try {
      await workbench?.screenshot("last");
      await workbench?.close();
    } finally {
      try {
        await server?.stop();
      } finally {
        await model?.stop();
      }
    }
  });

  test("the review ends within its deadline with an honest status; Cancel drops the request in flight", async () => {
    const page = (workbench as Workbench).page;
    const local = model as LocalModel;

    await step("the review runs against the real server and ends complete or partial, with its reason", async () => {
      await (workbench as Workbench).command("prscope: Review Pull Request");
      await local.waitFor("the first model request", (state) => state.requests >= 1, UI_TIMEOUT_MS);
      const rows = await (workbench as Workbench).waitForRows(
        SIDEBAR,
        "the run finished",
        (found) => FINISHED.includes(runState(found) ?? ""),
        REVIEW_TIMEOUT_MS,
      );
      const summary = page.locator(".notification-list-item").filter({ hasText: /prscope review (complete|partial)/ });
      await summary.first().waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
      const text = (await summary.first().innerText()).replace(/\s+/g, " ");
      if (text.includes("prscope review partial")) {
        expect(text, "a partial review says why").toMatch(/partial: .*(model|time|finish|block)/);
      } else {
        expect(runState(rows), "a complete review's run").toBe("completed");
      }
      await (workbench as Workbench).screenshot("1-local-model-review-finished");
      const state = local.state();
      // On a loaded machine the first answer (a 6k-token prompt on 2 cores) may itself outlast the
      // deadline: then the review is partial and says so, which is the point.
      expect(state.requests, "requests sent to the real server").toBeGreaterThanOrEqual(1);
      if (text.includes("prscope review complete")) {
        expect(state.answered, "requests the server answered").toBeGreaterThanOrEqual(1);
      }
      expect(state.refused, "requests the server refused (prompt + max_tokens over its window)").toBe(0);
    });

    await step("Cancel in the progress notification drops the request the server is working on", async () => {
      const before = local.state();
      await (workbench as Workbench).command("prscope: Review Pull Request (No Cache)");
      await local.waitFor(
        "the second review's request in flight",
        (state) => state.requests > before.requests && state.in_flight >= 1,
        UI_TIMEOUT_MS,
      );
      const progress = await (workbench as Workbench).revealNotification("prscope: reviewing the pull request against main");
      await progress.getByRole("button", { name: "Cancel" }).click();
      await local.waitFor("the request dropped", (state) => state.dropped > before.dropped, 30_000);
      await (workbench as Workbench).waitForRows(SIDEBAR, "the run cancelled", (rows) => runState(rows) === "cancelled");
      await (workbench as Workbench).screenshot("2-local-model-review-cancelled");
      expect(local.state().requests, "no request after Cancel").toBe(before.requests + 1);
    });
  });
});
