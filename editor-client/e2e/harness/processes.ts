/** Child processes in process groups of their own, so that teardown ends everything they started
 * (code-server's extension host, the language server, git), and ends it even when a test fails. */

import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import { createWriteStream, readdirSync, readFileSync } from "node:fs";

const live = new Set<ChildProcess>();

process.on("exit", () => {
  for (const child of live) {
    killGroup(child, "SIGKILL");
  }
});

/** Starts `command` as the leader of a new process group, its output appended to `logFile`. */
export function spawnGroup(command: string, args: string[], options: SpawnOptions & { logFile: string }): ChildProcess {
  const log = createWriteStream(options.logFile, { flags: "a" });
  const child = spawn(command, args, { ...options, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  live.add(child);
  child.once("exit", () => {
    live.delete(child);
  });
  return child;
}

/** Ends the whole group: SIGTERM, then SIGKILL for whatever is left after `graceMs`. */
export async function stopGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.pid === undefined) {
    return;
  }
  killGroup(child, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupAlive(child.pid)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  killGroup(child, "SIGKILL");
  live.delete(child);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the first match of `pattern` in the child's output (stdout or stderr). */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no output matching ${String(pattern)} within ${timeoutMs} ms; got: ${seen.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString("utf8");
      const match = seen.match(pattern);
      if (match !== null) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`the process exited (code ${String(code)}) before printing ${String(pattern)}: ${seen.slice(-2000)}`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

/** Ids of the processes descended from `ancestor` whose command line contains `marker` (Linux /proc). */
export function serverProcesses(ancestor: number, marker: string): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The command name (field 2) may hold spaces and parentheses: fields after its last ")" are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(pid, ppid);
    } catch {
      // The process ended meanwhile.
    }
  }
  const descends = (pid: number): boolean => {
    for (let current = parents.get(pid); current !== undefined && current > 1; current = parents.get(current)) {
      if (current === ancestor) {
        return true;
      }
    }
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    if (!descends(pid)) {
      return false;
    }
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").includes(marker);
    } catch {
      return false;
    }
  });
}
