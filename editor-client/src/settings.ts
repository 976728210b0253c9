/** The extension's settings, read once into a typed value, and what the server gets from them: its
 * initialization options and its process environment. API keys go into the environment only: clients
 * log initialization options, and settings are synced and shared. */

export type Provider = "anthropic" | "openai";
export type FailOn = "error" | "warning" | "note" | "never";

export interface Limits {
  reviewTokens?: number;
  maxSubagents?: number;
  deadlineSeconds?: number;
}

export interface PrscopeSettings {
  interpreter: string | undefined;
  serverCommand: string[];
  installSource: string;
  offline: boolean;
  provider: Provider | undefined;
  model: string | undefined;
  baseUrl: string | undefined;
  baseBranch: string | undefined;
  failOn: FailOn | undefined;
  limits: Limits;
}

/** `WorkspaceConfiguration.get` of the `prscope` section, or a plain object in tests. */
export type SettingGetter = (key: string) => unknown;

const PROVIDERS: readonly Provider[] = ["anthropic", "openai"];
const FAIL_ON: readonly FailOn[] = ["error", "warning", "note", "never"];

/** Settings keys whose change needs a new server process (command, environment or initialization
 * options); the others are read when they are used. */
export const RESTART_SETTINGS = [
  "prscope.interpreter",
  "prscope.serverCommand",
  "prscope.offline",
  "prscope.model",
  "prscope.failOn",
  "prscope.limits",
] as const;

export function readSettings(get: SettingGetter): PrscopeSettings {
  return {
    interpreter: text(get("interpreter")),
    serverCommand: stringList(get("serverCommand")),
    installSource: text(get("installSource")) ?? "prscope",
    offline: get("offline") === true,
    provider: oneOf(get("model.provider"), PROVIDERS),
    model: text(get("model.name")),
    baseUrl: text(get("model.baseUrl")),
    baseBranch: text(get("baseBranch")),
    failOn: oneOf(get("failOn"), FAIL_ON),
    limits: {
      reviewTokens: integerIn(get("limits.reviewTokens"), 1000, Number.MAX_SAFE_INTEGER),
      maxSubagents: integerIn(get("limits.maxSubagents"), 0, 32),
      deadlineSeconds: integerIn(get("limits.deadlineSeconds"), 1, Number.MAX_SAFE_INTEGER),
    },
  };
}

/** What the server reads from `initializationOptions` (server/settings.py). Unset values are left
 * out, so that the repository's own configuration applies. Never holds a key. */
export function initializationOptions(settings: PrscopeSettings): Record<string, unknown> {
  const model = compact({ provider: settings.provider, model: settings.model, baseUrl: settings.baseUrl });
  const limits = compact({ ...settings.limits });
  return compact({
    offline: settings.offline,
    failOn: settings.failOn,
    base: settings.baseBranch,
    model: Object.keys(model).length > 0 ? model : undefined,
    limits: Object.keys(limits).length > 0 ? limits : undefined,
  });
}

export function apiKeyVariable(provider: Provider | undefined): string {
  return provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
}

/** The server process's environment: the editor's, plus the stored API key for the chosen provider
 * (a stored key wins over one inherited from the environment). */
export function serverEnvironment(
  inherited: Readonly<Record<string, string | undefined>>,
  settings: PrscopeSettings,
  apiKey: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined) {
      env[name] = value;
    }
  }
  if (apiKey) {
    env[apiKeyVariable(settings.provider)] = apiKey;
  }
  // The server speaks LSP on stdout; Python must not buffer its log lines on stderr either.
  env.PYTHONUNBUFFERED = "1";
  return env;
}

export function needsRestart(affects: (section: string) => boolean): boolean {
  return RESTART_SETTINGS.some((key) => affects(key));
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string" && item !== "") : [];
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((item) => item === value);
}

/** The value when it is an integer the server accepts (server/settings.py LimitOptions), else unset:
 * an out-of-range number means "not set" rather than an error at every start. */
function integerIn(value: unknown, min: number, max: number): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
}

function compact<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
