/** The repository a scenario reviews: on `main`, `fetch(url)` and its caller; on the checked-out branch
 * `feature`, `fetch` needs a `timeout` and the caller in app.py (line 3) was left as it was. */

import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const BROKEN_CALL = { path: "app.py", line: 3 };

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "E2E Author",
  GIT_AUTHOR_EMAIL: "author@example.com",
  GIT_COMMITTER_NAME: "E2E Committer",
  GIT_COMMITTER_EMAIL: "committer@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
};

export function makeBreakingChangeRepo(root: string, home: string): string {
  mkdirSync(root, { recursive: true });
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: root, env: { ...process.env, ...GIT_IDENTITY, HOME: home }, stdio: "pipe" });
  };
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text, "utf8");
  };
  git("init", "-q", "-b", "main");
  git("config", "commit.gpgsign", "false");
  write("pkg/__init__.py", "");
  write("pkg/util.py", "def fetch(url):\n    return url\n");
  write("app.py", "from pkg.util import fetch\n\nDATA = fetch('https://example.org')\n");
  git("add", "-A");
  git("commit", "-q", "-m", "fetch and its caller");
  git("checkout", "-q", "-b", "feature");
  write("pkg/util.py", "def fetch(url, timeout):\n    return url, timeout\n");
  git("commit", "-q", "-a", "-m", "fetch needs a timeout");
  return root;
}
