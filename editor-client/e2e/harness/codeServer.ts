/** A code-server of its own per scenario: fresh profile, extensions and config directories under the
 * scenario's scratch folder, the packaged extension installed, served on a free loopback port. */

import { execFile } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import type { E2eEnvironment } from "./environment";
import { spawnGroup, stopGroup, waitForOutput } from "./processes";

const run = promisify(execFile);

/** A quiet workbench: no welcome page, chat, telemetry or update checks in the screenshots. */
const WORKBENCH_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "git.openRepositoryInParentFolders": "never",
  "git.autofetch": false,
  "security.workspace.trust.enabled": false,
};

export interface CodeServer {
  url: string;
  /** code-server's own process (the leader of its process group). */
  pid: number;
  /** The user home the workbench and its processes see. */
  home: string;
  logsDir: string;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  env: E2eEnvironment;
  /** This scenario's scratch folder. */
  root: string;
  settings: Record<string, unknown>;
  /** Added to the server's environment (which has no model variables otherwise). */
  extraEnv: Record<string, string>;
  baseEnv: Record<string, string>;
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const { env, root } = options;
  const dirs = {
    home: join(root, "home"),
    userData: join(root, "user-data"),
    extensions: join(root, "extensions"),
    xdg: join(root, "xdg"),
  };
  for (const dir of Object.values(dirs)) {
    mkdirSync(dir, { recursive: true });
  }
  mkdirSync(join(dirs.userData, "User"), { recursive: true });
  writeFileSync(
    join(dirs.userData, "User", "settings.json"),
    JSON.stringify({ ...WORKBENCH_SETTINGS, ...options.settings }, null, 2),
  );
  const config = join(root, "code-server.yaml");
  writeFileSync(config, "bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n");
  const processEnv: Record<string, string> = {
    ...options.baseEnv,
    ...options.extraEnv,
    HOME: dirs.home,
    XDG_CONFIG_HOME: join(dirs.xdg, "config"),
    XDG_DATA_HOME: join(dirs.xdg, "data"),
    XDG_CACHE_HOME: join(dirs.xdg, "cache"),
    PATH: `${join(env.nodeHome, "bin")}${delimiter}${options.baseEnv.PATH ?? ""}`,
  };
  const common = ["--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions, "--config", config];
  await run(env.codeServer, [...common, "--install-extension", env.vsix], { env: processEnv, timeout: 120_000 });
  const child = spawnGroup(
    env.codeServer,
    [
      ...common,
      "--bind-addr",
      "127.0.0.1:0",
      "--auth",
      "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
    ],
    { env: processEnv, cwd: root, logFile: join(root, "code-server.log") },
  );
  const [, url] = await waitForOutput(child, /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/, 120_000);
  return {
    url: url ?? "",
    pid: child.pid ?? -1,
    home: dirs.home,
    logsDir: join(dirs.userData, "logs"),
    stop: () => stopGroup(child as ChildProcess),
  };
}
