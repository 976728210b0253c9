import { describe, expect, test } from "vitest";
import {
  initializationOptions,
  needsRestart,
  type PrscopeSettings,
  readSettings,
  serverEnvironment,
} from "../src/settings";

const DEFAULTS: Record<string, unknown> = {
  interpreter: "",
  serverCommand: [],
  installSource: "prscope",
  offline: false,
  "model.provider": "",
  "model.name": "",
  "model.baseUrl": "",
  baseBranch: "",
  failOn: "",
  "limits.reviewTokens": 0,
  "limits.maxSubagents": -1,
  "limits.deadlineSeconds": 0,
};

function settings(overrides: Record<string, unknown> = {}): PrscopeSettings {
  const values = { ...DEFAULTS, ...overrides };
  return readSettings((key) => values[key]);
}

describe("readSettings", () => {
  test("defaults mean: decided elsewhere (the repository's configuration, the Python extension)", () => {
    expect(settings()).toEqual({
      interpreter: undefined,
      serverCommand: [],
      installSource: "prscope",
      offline: false,
      provider: undefined,
      model: undefined,
      baseUrl: undefined,
      baseBranch: undefined,
      failOn: undefined,
      limits: { reviewTokens: undefined, maxSubagents: undefined, deadlineSeconds: undefined },
    });
  });

  test("limits outside what the server accepts are left unset", () => {
    const read = settings({ "limits.reviewTokens": 999, "limits.maxSubagents": 33, "limits.deadlineSeconds": -5 });
    expect(read.limits).toEqual({ reviewTokens: undefined, maxSubagents: undefined, deadlineSeconds: undefined });
    expect(settings({ "limits.reviewTokens": 1000 }).limits.reviewTokens).toBe(1000);
  });

  test("values of the wrong kind are ignored rather than sent", () => {
    const read = settings({ "model.provider": "gemini", failOn: "sometimes", serverCommand: ["x", 3, ""], "limits.reviewTokens": 1.5 });
    expect(read.provider).toBeUndefined();
    expect(read.failOn).toBeUndefined();
    expect(read.serverCommand).toEqual(["x"]);
    expect(read.limits.reviewTokens).toBeUndefined();
  });
});

describe("initializationOptions", () => {
  test("only what is set, in the server's camelCase names", () => {
    const options = initializationOptions(
      settings({
        "model.provider": "openai",
        "model.baseUrl": "http://127.0.0.1:11434/v1",
        baseBranch: "origin/develop",
        failOn: "warning",
        "limits.maxSubagents": 0,
        "limits.deadlineSeconds": 120,
      }),
    );
    expect(options).toEqual({
      offline: false,
      failOn: "warning",
      base: "origin/develop",
      model: { provider: "openai", baseUrl: "http://127.0.0.1:11434/v1" },
      limits: { maxSubagents: 0, deadlineSeconds: 120 },
    });
  });

  test("defaults give just offline: false", () => {
    expect(initializationOptions(settings())).toEqual({ offline: false });
  });
});

describe("serverEnvironment", () => {
  test("the stored key reaches the server as the provider's variable, never in the options", () => {
    const chosen = settings({ "model.provider": "anthropic" });
    const env = serverEnvironment({ PATH: "/usr/bin", UNSET: undefined }, chosen, "sk-ant-secret");
    expect(env).toEqual({ PATH: "/usr/bin", ANTHROPIC_API_KEY: "sk-ant-secret", PYTHONUNBUFFERED: "1" });
    expect(JSON.stringify(initializationOptions(chosen))).not.toContain("sk-ant-secret");
  });

  test("openai keys go to OPENAI_API_KEY", () => {
    const env = serverEnvironment({}, settings({ "model.provider": "openai" }), "sk-openai");
    expect(env.OPENAI_API_KEY).toBe("sk-openai");
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
  });

  test("a stored key wins over an inherited one; no stored key keeps the inherited one", () => {
    expect(serverEnvironment({ ANTHROPIC_API_KEY: "old" }, settings(), "new").ANTHROPIC_API_KEY).toBe("new");
    expect(serverEnvironment({ ANTHROPIC_API_KEY: "old" }, settings(), undefined).ANTHROPIC_API_KEY).toBe("old");
  });

  test("the base URL of the editor's environment is passed through", () => {
    const env = serverEnvironment({ ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }, settings(), "k");
    expect(env.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:9");
  });
});

describe("needsRestart", () => {
  test.each([
    ["prscope.interpreter", true],
    ["prscope.model", true],
    ["prscope.limits", true],
    ["prscope.offline", true],
    ["prscope.baseBranch", false],
    ["prscope.trace.server", false],
    ["editor.fontSize", false],
  ])("a change of %s: %s", (changed, expected) => {
    expect(needsRestart((section) => changed === section || changed.startsWith(`${section}.`))).toBe(expected);
  });
});
