/** The packaged extension in a real VS Code (code-server), driven in headless Chromium: what a user sees
 * after "prscope: Review Pull Request", offline and against the loopback fake model API. Screenshots of
 * every checked state go to test-output/e2e/. */

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CodeServer, startCodeServer } from "./harness/codeServer";
import { cleanEnvironment, e2eEnvironment } from "./harness/environment";
import { FakeModel } from "./harness/fakeModel";
import { serverProcesses } from "./harness/processes";
import { BROKEN_CALL, makeBreakingChangeRepo } from "./harness/repo";
import { type Row, UI_TIMEOUT_MS, Workbench } from "./harness/workbench";

const env = e2eEnvironment();
const PROBLEMS = ".markers-panel";
const SIDEBAR = ".part.sidebar";
const API_KEY = "sk-ant-e2e-fake-key-0123456789";
const REVIEW_ROOT = "prscope review (branch)";
/** pip installs prscope and its dependencies from PyPI into a new virtual environment. */
const INSTALL_TIMEOUT_MS = 300_000;

const has = (rows: Row[], ...parts: string[]): boolean => rows.some((row) => parts.every((part) => row.label.includes(part)));
const startsWith = (rows: Row[], prefix: string): boolean => rows.some((row) => row.label.startsWith(prefix));

/** Runs `body` with a named step in its error, so that a failure says which state was not reached. */
async function step<T>(name: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`step "${name}" failed: ${message}`, { cause: error });
  }
}

interface Scenario {
  server: CodeServer;
  workbench: Workbench;
  repo: string;
}

async function openScenario(
  name: string,
  extraEnv: Record<string, string>,
  settings: Record<string, unknown> = {},
): Promise<Scenario> {
  const root = join(env.scratchDir, name);
  const repo = makeBreakingChangeRepo(join(root, "repo"), join(root, "home"));
  const server = await startCodeServer({
    env,
    root,
    settings: { "prscope.interpreter": env.python, ...settings },
    extraEnv,
    baseEnv: cleanEnvironment(),
  });
  try {
    const workbench = await Workbench.open(env, server.url, repo, name);
    await workbench.command("prscope: Focus on Findings View");
    await workbench.widenSideBar(3);
    return { server, workbench, repo };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

async function closeScenario(name: string, scenario: Scenario | undefined): Promise<void> {
  if (scenario === undefined) {
    return;
  }
  try {
    await scenario.workbench.screenshot("last");
    await scenario.workbench.close();
  } finally {
    await scenario.server.stop();
    if (existsSync(scenario.server.logsDir)) {
      cpSync(scenario.server.logsDir, join(env.outputDir, `${name}-logs`), { recursive: true });
    }
  }
}

/** Debian's own Python: externally managed (PEP 668's marker in its standard library's directory) and
 * without prscope, as a new user's system Python is (e2e/toolchain.sh installs python3 and python3-venv). */
const SYSTEM_PYTHON = "/usr/bin/python3";

function systemPythonState(): { marker: boolean; prscope: boolean } {
  const script = [
    "import importlib.util, os, sysconfig",
    "marker = os.path.isfile(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED'))",
    "print(marker, importlib.util.find_spec('prscope') is not None)",
  ].join("\n");
  const [marker, prscope] = execFileSync(SYSTEM_PYTHON, ["-c", script], { encoding: "utf8" }).trim().split(" ");
  return { marker: marker === "True", prscope: prscope === "True" };
}

/** Whether `parts` occur in `text` in this order. */
function inOrder(text: string, ...parts: string[]): boolean {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    if (at < 0) {
      return false;
    }
    from = at + part.length;
  }
  return true;
}

/** The extension's own log (its output channel), as the extension host wrote it to disk. */
function extensionLog(server: CodeServer): string {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (entry.name === "prscope.log") {
        found.push(readFileSync(path, "utf8"));
      }
    }
  };
  if (existsSync(server.logsDir)) {
    walk(server.logsDir);
  }
  return found.join("\n");
}

async function waitForLog(
  server: CodeServer,
  what: string,
  check: (log: string) => boolean,
  timeoutMs = UI_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check(extensionLog(server))) {
      return;
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`timed out waiting for the extension's log to show ${what}:\n${extensionLog(server).slice(-3000)}`);
}

describe("offline review in code-server", () => {
  let scenario: Scenario | undefined;

  beforeAll(async () => {
    // pip (Install prscope) shares the machine's download cache rather than the scenario's empty home's.
    const pipCache = process.env.PIP_CACHE_DIR ?? join(homedir(), ".cache", "pip");
    scenario = await openScenario(
      "offline",
      { PIP_CACHE_DIR: pipCache, PIP_DISABLE_PIP_VERSION_CHECK: "1" },
      // the protocol trace, from this setting alone (the output channel's log level left as it is)
      { "prscope.trace.server": "verbose" },
    );
  });

  afterAll(async () => {
    await closeScenario("offline", scenario);
  });

  test("the breaking call shows in Problems, in the Findings view, and the run completes in the Agents view; it can be dismissed", async () => {
    const { workbench, server, repo } = scenario as Scenario;
    await step("run the review from the command palette; the offline message offers Set API Key", async () => {
      await workbench.command("prscope: Review Pull Request");
      const toast = await workbench.waitForToast("prscope review offline: 1 finding (1 error)");
      // in the editor's words: the command to run, offered as a button too; no environment variable
      await expect.poll(() => toast.textContent(), { timeout: UI_TIMEOUT_MS }).toContain('run "prscope: Set API Key" for a model review');
      expect(await toast.textContent()).not.toContain("environment");
      await toast.getByRole("button", { name: "Set API Key" }).waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
      await workbench.screenshot("1-review-finished");
    });

    await step("prscope.trace.server alone shows the protocol trace in the output channel", async () => {
      await waitForLog(server, "the traced review request with its parameters", (log) =>
        inOrder(log, "Sending request 'prscope/review", "Params:", '"mode": "branch"'),
      );
    });

    await step("the Problems panel lists the breaking call under app.py, line 3", async () => {
      await workbench.command("View: Focus Problems (Errors, Warnings, Infos)");
      const rows = await workbench.waitForRows(PROBLEMS, "the breaking-call problem", (found) =>
        has(found, "no longer matches its signature", `at line ${BROKEN_CALL.line} and character`, "prscope"),
      );
      const problem = rows.findIndex((row) => row.label.includes("no longer matches its signature"));
      const file = rows.slice(0, problem).reverse().find((row) => row.level < (rows[problem]?.level ?? 0));
      expect(file?.label).toContain(`in file ${BROKEN_CALL.path}`);
      await workbench.screenshot("2-problems-panel");
    });

    await step("the Findings view shows the finding with its file, line and source", async () => {
      await workbench.command("prscope: Focus on Findings View");
      await workbench.waitForRows(SIDEBAR, "the finding in the Findings view", (rows) =>
        has(rows, `error breaking-call in ${BROKEN_CALL.path} line ${BROKEN_CALL.line}`, "(check)"),
      );
      await workbench.waitForRows(SIDEBAR, "the file group", (rows) => has(rows, `${BROKEN_CALL.path}: 1 finding`));
      await workbench.screenshot("3-findings-view");
    });

    await step("the Agents view shows the run completed", async () => {
      await workbench.command("prscope: Focus on Agents View");
      await workbench.waitForRows(SIDEBAR, "a completed run", (rows) => startsWith(rows, `${REVIEW_ROOT}: completed`));
      await workbench.screenshot("4-agents-view");
    });

    await step("a setting that restarts the server: the last review's findings come back from the run store", async () => {
      mkdirSync(join(repo, ".vscode"), { recursive: true });
      writeFileSync(join(repo, ".vscode", "settings.json"), JSON.stringify({ "prscope.limits.maxSubagents": 2 }));
      await waitForLog(server, "the restart and the findings shown again", (log) =>
        inOrder(log, "restarting the server (settings changed)", "server started", "the last review's findings are shown again: 1"),
      );
      await workbench.command("prscope: Focus on Findings View");
      await workbench.waitForRows(SIDEBAR, "the finding back in the Findings view", (rows) =>
        has(rows, `error breaking-call in ${BROKEN_CALL.path} line ${BROKEN_CALL.line}`),
      );
      await workbench.screenshot("4b-findings-restored-after-restart");
    });

    await step("a click on the finding opens app.py at line 3", async () => {
      await workbench.command("prscope: Focus on Findings View");
      const finding = workbench.page.locator(`${SIDEBAR} .monaco-list-row[aria-label*="breaking-call in ${BROKEN_CALL.path}"]`);
      await finding.click();
      const cursor = workbench.page.locator(".statusbar-item", { hasText: `Ln ${BROKEN_CALL.line},` });
      await cursor.first().waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
      await workbench.page.locator(".tab.active", { hasText: BROKEN_CALL.path }).waitFor({ timeout: UI_TIMEOUT_MS });
      await workbench.screenshot("5-finding-revealed");
    });

    await step("Dismiss finding, from the quick fixes on the finding, records it in the run store and hides it", async () => {
      // The cursor is on the finding (the previous step put it there).
      await workbench.command("Quick Fix...");
      const dismiss = workbench.page
        .locator(".action-widget .monaco-list-row", { hasText: "prscope: dismiss this finding (breaking-call)" })
        .first();
      await dismiss.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
      await workbench.screenshot("6-dismiss-offered");
      await dismiss.click();
      await workbench.command("prscope: Focus on Findings View");
      await workbench.waitForRows(SIDEBAR, "the dismissed finding gone from the Findings view", (rows) =>
        !has(rows, "breaking-call in"),
      );
      await workbench.command("View: Focus Problems (Errors, Warnings, Infos)");
      await workbench.waitForRows(PROBLEMS, "the dismissed finding gone from Problems", (rows) =>
        !has(rows, "no longer matches its signature"),
      );
      const listed = execFileSync(env.python, ["-m", "prscope", "dismiss", "--list"], { cwd: repo, encoding: "utf8" });
      expect(listed, "prscope dismiss --list").toContain(`breaking-call: Call to \`fetch\` no longer matches its signature (${BROKEN_CALL.path}:${BROKEN_CALL.line})`);
      expect(existsSync(join(repo, ".prscope.toml")), "a configuration file written").toBe(false);
      await workbench.screenshot("7-finding-dismissed");
    });

    await step("Analyze Selection runs the quick analysis of the selected lines as a run of its own", async () => {
      await workbench.page.locator(".monaco-editor .view-lines").first().click();
      await workbench.page.keyboard.press("Control+A");
      await workbench.command("prscope: Analyze Selection");
      await workbench.waitForToast("prscope quick analysis (offline)");
      await workbench.command("prscope: Focus on Agents View");
      await workbench.waitForRows(SIDEBAR, "the quick analysis run completed", (rows) =>
        startsWith(rows, `prscope quick analysis (${BROKEN_CALL.path}:1-`) && has(rows, ": completed"),
      );
      await workbench.screenshot("8-selection-analyzed");
    });

    await step("a crashed server is reported with Show Log", async () => {
      const [pid] = serverProcesses(server.pid, "-m prscope.server");
      expect(pid, "the language server process").toBeDefined();
      process.kill(pid as number, "SIGKILL");
      const toast = await workbench.waitForToast("the language server stopped unexpectedly");
      await workbench.screenshot("9-crash-reported");
      await toast.getByRole("button", { name: "Show Log" }).click();
      await workbench.page
        .locator(".output-view, [id='workbench.panel.output']")
        .filter({ hasText: "the language server stopped unexpectedly" })
        .first()
        .waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
      await workbench.screenshot("10-log-shown");
    });

    await step("an externally managed interpreter without prscope: one message; the private environment is set up and used", async () => {
      expect(systemPythonState(), `${SYSTEM_PYTHON}: PEP 668 marker, prscope importable`).toEqual({ marker: true, prscope: false });
      writeFileSync(join(repo, ".vscode", "settings.json"), JSON.stringify({ "prscope.interpreter": SYSTEM_PYTHON }));
      const toast = await workbench.waitForToast("prscope is not installed in this interpreter");
      expect(await toast.textContent()).toContain("It is externally managed, so pip does not install into it.");
      const buttons = await toast.getByRole("button").allTextContents();
      expect(buttons, "the message's buttons").toContain("Install in a Private Environment");
      expect(buttons, "no pip into an externally managed interpreter").not.toContain("Install in This Environment");
      await workbench.screenshot("11-private-environment-offered");
      await toast.getByRole("button", { name: "Install in a Private Environment" }).click();
      await waitForLog(
        server,
        "the server started from the private environment",
        (log) =>
          inOrder(
            log,
            `creating the private environment`,
            `with ${SYSTEM_PYTHON}`,
            "installing",
            "-py3-none-any.whl",
            "restarting the server (prscope was installed in the private environment)",
            "the server runs from the private environment",
            "server started",
          ),
        INSTALL_TIMEOUT_MS,
      );
      await workbench.waitForNotification("the server runs from it from now on");
      await workbench.screenshot("12-private-environment-in-use");
      expect(systemPythonState().prscope, `prscope in ${SYSTEM_PYTHON} itself`).toBe(false);
      await workbench.command("prscope: Review Pull Request");
      await workbench.waitForToast("prscope review offline:");
      await workbench.screenshot("13-review-from-the-private-environment");
    });
  });
});

describe("review with the fake model API in code-server", () => {
  let scenario: Scenario | undefined;
  let fake: FakeModel | undefined;

  beforeAll(async () => {
    fake = await FakeModel.start(env.python, join(env.scratchDir, "model", "control"), API_KEY, cleanEnvironment());
    scenario = await openScenario("model", { ANTHROPIC_BASE_URL: fake.baseUrl });
  });

  afterAll(async () => {
    try {
      await closeScenario("model", scenario);
    } finally {
      await fake?.stop();
    }
  });

  test("subagents run in parallel then complete; the same change again comes from the store; Cancel ends a fresh review", async () => {
    const { workbench, server } = scenario as Scenario;
    const model = fake as FakeModel;

    await step("store the API key; the server restarts with it", async () => {
      await workbench.command("prscope: Set API Key");
      await workbench.answerInputBox(API_KEY);
      await workbench.waitForToast("API key stored");
      await waitForLog(server, "a restart with the key", (log) => inOrder(log, "restarting the server (API key changed)", "server started"));
    });

    await step("run the review: both subagents show running at once", async () => {
      await workbench.command("prscope: Review Pull Request");
      await workbench.waitForToast("prscope: reviewing the pull request against main");
      await model.waitFor("both subagents waiting for their answer at once", (state) => state.max_parallel >= 2, UI_TIMEOUT_MS);
      await workbench.command("prscope: Focus on Agents View");
      await workbench.waitForRows(SIDEBAR, "both subagents running, the reviewer's two run_subagent calls in flight", (rows) =>
        startsWith(rows, "callers of fetch: running") &&
        startsWith(rows, "imports of pkg.util: running") &&
        startsWith(rows, "main reviewer: running, 2 tool calls"),
      );
      await workbench.screenshot("1-subagents-running");
      // the progress notification reads the same run state
      const progress = await workbench.revealNotification("prscope: reviewing the pull request against main");
      await expect
        .poll(() => progress.textContent(), { timeout: UI_TIMEOUT_MS })
        .toMatch(/main reviewer: running → run_subagent ×2 · (callers of fetch|imports of pkg\.util): running · (callers of fetch|imports of pkg\.util): running/);
      await workbench.screenshot("1b-progress-reads-the-run-tree");
    });

    await step("the subagents and the run complete", async () => {
      model.releaseSubagents();
      await workbench.waitForRows(SIDEBAR, "the subagents and the run completed", (rows) =>
        startsWith(rows, "callers of fetch: completed") &&
        startsWith(rows, "imports of pkg.util: completed") &&
        startsWith(rows, `${REVIEW_ROOT}: completed`),
      );
      await workbench.waitForToast("prscope review complete: 2 findings (1 error, 1 warning)");
      await workbench.screenshot("2-subagents-completed");
      expect(model.state().unauthorized, "requests without the stored key").toBe(0);
      expect(extensionLog(server), "the extension's log").not.toContain(API_KEY);
    });

    await step("the model's finding is in the Findings view, marked as the model's", async () => {
      await workbench.command("prscope: Focus on Findings View");
      await workbench.waitForRows(SIDEBAR, "the model finding", (rows) =>
        has(rows, "warning error-handling in pkg/util.py line 1", "(model, "),
      );
      await workbench.screenshot("3-model-finding");
    });

    await step("the same change reviewed again is answered from the run store, without a model request", async () => {
      const before = model.state().requests;
      await workbench.command("prscope: Review Pull Request");
      // The message says so, in the editor's words (no command-line flag).
      await workbench.waitForToast('("prscope: Review Pull Request (No Cache)" reviews again)');
      await workbench.screenshot("4-same-change-from-the-store");
      expect(model.state().requests, "model requests of the repeated review").toBe(before);
    });

    await step("Review Pull Request (No Cache) asks the model again; Cancel in the progress notification ends it", async () => {
      await workbench.command("prscope: Review Pull Request (No Cache)");
      await model.waitFor("the second review's first model request", (state) => state.reviews >= 2, UI_TIMEOUT_MS);
      await workbench.waitForToast("prscope: reviewing the pull request against main");
      await workbench.command("prscope: Focus on Agents View");
      await workbench.screenshot("5-second-run-in-progress");
      const progress = await workbench.revealNotification("prscope: reviewing the pull request against main");
      await workbench.screenshot("6-cancel-in-the-progress-notification");
      await progress.getByRole("button", { name: "Cancel" }).click();
      await workbench.waitForRows(SIDEBAR, "the second run cancelled", (rows) => startsWith(rows, `${REVIEW_ROOT}: cancelled`));
      await model.waitFor("the in-flight model request dropped", (state) => state.disconnects >= 1, UI_TIMEOUT_MS);
      // the checks' finding was shown before the model was asked: the cancelled run keeps it, and says so
      await workbench.waitForNotification("prscope: you cancelled the review; the finding it had shown stays.");
      const remaining = workbench.page.locator(".notification-list-item").filter({ hasText: "prscope: reviewing" });
      await expect.poll(() => remaining.count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
      await workbench.screenshot("7-run-cancelled");
    });
  });
});
