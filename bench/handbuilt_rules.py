"""Build the hand-made history that tops up the mined rule sets where real history is thin.

Each scenario is a small package written the way such code is written in real projects (shapes taken
from the mined commits and from well-known APIs: `is_authenticated`, `Response.json`, `Link.filename`),
in two commits: the base, then one commit that makes the change *and fixes its callers*, as a careful
author would. `bench/mine_rules.py` then mines this repository exactly like a public one, so hand-built
cases have the same format, the same ground-truth rules (receivers the miner cannot type are neutral)
and the same scorer. Dates and authors are fixed: the commit ids are the same on every machine.

    python bench/handbuilt_rules.py /tmp/i14/repos/handbuilt
    python bench/mine_rules.py /tmp/i14/repos/handbuilt prscope/handbuilt > bench/rules-handbuilt.json
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

from handbuilt_async import ASYNC
from handbuilt_property import PROPERTY

SCENARIOS = [*PROPERTY, *ASYNC]
ENV = {
    "GIT_AUTHOR_NAME": "prscope bench",
    "GIT_AUTHOR_EMAIL": "bench@prscope.invalid",
    "GIT_COMMITTER_NAME": "prscope bench",
    "GIT_COMMITTER_EMAIL": "bench@prscope.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


def git(root: Path, *args: str, when: int = 0) -> None:
    stamp = f"{1_700_000_000 + when * 3600} +0000"
    env = {**os.environ, **ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dedent(text).lstrip("\n"), encoding="utf-8")


def build(root: Path) -> int:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    step = 0
    for scenario in SCENARIOS:
        package = scenario["package"]
        write(root, {f"{package}/__init__.py": scenario.get("init", "")})
        write(root, {f"{package}/{p}": t for p, t in scenario["before"].items()})
        git(root, "add", "-A")
        step += 1
        git(root, "commit", "-q", "-m", f"{package}: base", when=step)
        for path, edits in scenario["edits"].items():
            target = root / package / path
            text = target.read_text(encoding="utf-8")
            for old, new in edits:
                if text.count(old) != 1:
                    raise SystemExit(f"{package}/{path}: the edit target is not unique: {old!r}")
                text = text.replace(old, new)
            target.write_text(text, encoding="utf-8")
        git(root, "add", "-A")
        step += 1
        git(root, "commit", "-q", "-m", f"{package}: {scenario['message']}", when=step)
    return step


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    commits = build(Path(argv[0]))
    print(f"{len(SCENARIOS)} scenarios, {commits} commits in {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
