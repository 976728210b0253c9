/** The fake model API (e2e/fake_model.py over tests/fakeapi) as a child process, and what it tells. */

import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawnGroup, stopGroup, waitForOutput } from "./processes";

export interface FakeModelState {
  reviews: number;
  subagents_waiting: number;
  max_parallel: number;
  requests: number;
  disconnects: number;
  rejected: number;
  unauthorized: number;
}

export class FakeModel {
  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    private readonly control: string,
  ) {}

  static async start(python: string, control: string, key: string, env: Record<string, string>): Promise<FakeModel> {
    mkdirSync(control, { recursive: true });
    const script = resolve(__dirname, "..", "fake_model.py");
    const child = spawnGroup(python, [script, control], {
      env: { ...env, FAKE_MODEL_KEY: key },
      logFile: join(control, "fake-model.log"),
    });
    const [, url] = await waitForOutput(child, /"base_url": "([^"]+)"/, 60_000);
    return new FakeModel(child, url ?? "", control);
  }

  state(): FakeModelState {
    const path = join(this.control, "state.json");
    return JSON.parse(existsSync(path) ? readFileSync(path, "utf8") : "{}") as FakeModelState;
  }

  async waitFor(what: string, check: (state: FakeModelState) => boolean, timeoutMs: number): Promise<FakeModelState> {
    const deadline = Date.now() + timeoutMs;
    let state = this.state();
    while (Date.now() < deadline) {
      state = this.state();
      if (check(state)) {
        return state;
      }
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error(`timed out waiting for the fake model: ${what}; state: ${JSON.stringify(state)}`);
  }

  /** Lets the subagents held at their first request go on. */
  releaseSubagents(): void {
    writeFileSync(join(this.control, "release"), "");
  }

  async stop(): Promise<void> {
    this.child.stdin?.end();
    await stopGroup(this.child, 3000);
  }
}
