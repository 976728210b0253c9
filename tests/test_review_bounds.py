"""A review is bounded on any repository: huge files are not read, findings are capped, the time budget and
a cancel hold inside one symbol's work, Ctrl-C stops an offline review, and an incomplete review says so."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from prscope.analysis.changeset import DiffSpec, load_changeset
from prscope.analysis.checks import ChecksConfig, run_checks
from prscope.analysis.intel.files import MAX_INDEX_BYTES, RepoFiles

from tests.gitrepo import GIT_ENV, GitRepo
from tests.test_checks_support import code_index

PRSCOPE = Path(sys.executable).with_name("prscope")
STOP_WITHIN_S = 1.0
EXIT_AT_ONCE_S = 1.0
UTIL = "def fetch(url):\n    return url\n"
UTIL_CHANGED = "def fetch(url, method):\n    return url\n"
CALLER = "from pkg.util import fetch\n\n" + "".join(
    f"def g{j}():\n    return fetch('a{j}')\n\n" for j in range(20)
)


def _changed_fetch_repo(root: Path, callers: int, extra: dict[str, str] | None = None) -> GitRepo:
    repo = GitRepo(root)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/util.py", UTIL)
    for i in range(callers):
        repo.write(f"gen/m{i}.py", CALLER)
    for path, text in (extra or {}).items():
        repo.write(path, text)
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("pkg/util.py", UTIL_CHANGED)
    repo.commit("fetch needs a method")
    return repo


def _env() -> dict[str, str]:
    env = {**os.environ, **GIT_ENV}
    return {k: v for k, v in env.items() if not k.endswith("_API_KEY")}


def _cli(repo: GitRepo, *extra: str) -> tuple[int, dict[str, object], str]:
    argv = [str(PRSCOPE), "review", "--base", "main", "--offline", "--format", "json", *extra]
    done = subprocess.run(argv, cwd=repo.root, env=_env(), capture_output=True, text=True, check=False)
    return done.returncode, json.loads(done.stdout), done.stderr


def test_a_file_too_large_to_check_is_listed_and_makes_the_review_partial(tmp_path: Path) -> None:
    huge = "from pkg.util import fetch\n" + "fetch('x')\n" * (MAX_INDEX_BYTES // 10)
    repo = _changed_fetch_repo(tmp_path / "repo", 1, {"generated/huge.py": huge})
    code, report, _ = _cli(repo)
    assert code == 1  # the stale calls in gen/m0.py are errors
    omitted = {o["path"]: o["reason"] for o in report["files"]["omitted"]}
    assert omitted["generated/huge.py"].startswith("too large to check (2.")
    assert {f["path"] for f in report["findings"]} == {"gen/m0.py"}
    assert report["status"] == "partial"
    assert "1 file too large to check" in report["status_reason"]
    assert _cli(repo, "--require-complete", "--fail-on", "never")[0] == 3
    assert _cli(repo, "--fail-on", "never")[0] == 0


def test_findings_are_capped_per_file_and_rule_with_a_count(tmp_path: Path) -> None:
    many = "from pkg.util import fetch\n" + "fetch('x')\n" * 400
    repo = _changed_fetch_repo(tmp_path / "repo", 0, {"calls.py": many})
    code, report, _ = _cli(repo)
    assert code == 1
    assert len(report["findings"]) == 250
    assert (
        "breaking-call: 150 more finding(s) not reported (at most 250 per file and 2500 in all)"
        in (report["errors"])
    )


def test_findings_are_capped_per_rule_across_files_with_a_count(tmp_path: Path) -> None:
    many = "from pkg.util import fetch\n" + "fetch('x')\n" * 300
    repo = _changed_fetch_repo(tmp_path / "repo", 0, {f"calls{n:02}.py": many for n in range(11)})
    code, report, _ = _cli(repo)
    assert code == 1
    findings = report["findings"]
    assert isinstance(findings, list) and len(findings) == 2500  # 11 files x 250 would be 2,750
    assert (
        "breaking-call: 800 more finding(s) not reported (at most 250 per file and 2500 in all)"
        in (report["errors"])
    )


def test_a_stop_holds_inside_one_symbols_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _changed_fetch_repo(tmp_path / "repo", 40)
    stop = threading.Event()
    reads: list[str] = []
    original = RepoFiles.read

    def counting_read(self: RepoFiles, path: str) -> object:
        reads.append(path)
        if len(reads) == 5:
            stop.set()  # as a Ctrl-C would, while breaking-call searches the callers of `fetch`
        return original(self, path)

    monkeypatch.setattr(RepoFiles, "read", counting_read)
    cs = load_changeset(repo.root, DiffSpec(mode="branch", base="main"))
    try:
        run = run_checks(cs, code_index(repo.root), ChecksConfig(), stop)
    finally:
        cs.close()
    assert len(reads) <= 6  # the index stopped at the next file, not after all 41
    assert "breaking-call: cancelled" in run.incomplete
    assert any(e.startswith("check breaking-call stopped (cancelled)") for e in run.errors)


def test_the_time_budget_holds_inside_one_symbols_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _changed_fetch_repo(tmp_path / "repo", 40)
    reads: list[str] = []
    original = RepoFiles.read

    def slow_read(self: RepoFiles, path: str) -> object:
        reads.append(path)
        time.sleep(0.1)  # 41 files to read for the one changed symbol: 4 s without a budget
        return original(self, path)

    monkeypatch.setattr(RepoFiles, "read", slow_read)
    cs = load_changeset(repo.root, DiffSpec(mode="branch", base="main"))
    started = time.monotonic()
    try:
        run = run_checks(cs, code_index(repo.root), ChecksConfig(time_budget_s=0.5))
    finally:
        cs.close()
    assert time.monotonic() - started < 2.0
    assert len(reads) < 20  # stopped inside `fetch`'s search, not after it
    assert "breaking-call: time budget spent" in run.incomplete


def test_a_spent_time_budget_stops_the_checks_and_says_which(tmp_path: Path) -> None:
    repo = _changed_fetch_repo(tmp_path / "repo", 3)
    cs = load_changeset(repo.root, DiffSpec(mode="branch", base="main"))
    try:
        run = run_checks(cs, code_index(repo.root), ChecksConfig(time_budget_s=0.0))
    finally:
        cs.close()
    assert run.findings == []
    assert "breaking-call: time budget spent" in run.incomplete


@pytest.fixture(scope="module")
def slow_repo(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """1,500 callers of a changed function: the checks take several seconds (30,000 stale calls)."""
    return _changed_fetch_repo(tmp_path_factory.mktemp("slow") / "repo", 1500)


def _start(repo: GitRepo, output: Path) -> subprocess.Popen[str]:
    argv = [str(PRSCOPE), "review", "--base", "main", "--offline", "--format", "json", "-o", str(output)]
    process = subprocess.Popen(
        argv, cwd=repo.root, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    task_dir = Path(f"/proc/{process.pid}/task")
    # The checks run in a worker thread: a second thread means the review (and its Ctrl-C handler) is up.
    for _ in range(600):
        if process.poll() is not None or len(list(task_dir.iterdir())) >= 2:
            break
        time.sleep(0.05)
    time.sleep(0.5)
    assert process.poll() is None, "the review finished before it could be interrupted"
    return process


def test_the_first_ctrl_c_stops_the_checks_and_writes_the_partial_report(
    slow_repo: GitRepo, tmp_path: Path
) -> None:
    output = tmp_path / "report.json"
    process = _start(slow_repo, output)
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    elapsed = time.monotonic() - pressed
    assert process.returncode in (0, 1), stderr
    # The bar is 1 s for the checks to stop; the report is written and the process exits after
    # that, on a loaded 2-core machine, which took 0.2 s here (it went on for 50 s before).
    assert elapsed < STOP_WITHIN_S, elapsed
    report = json.loads(output.read_text())
    assert report["status"] == "partial"
    assert "checks incomplete: breaking-call: cancelled" in report["status_reason"]
    assert "stopping; the report so far will be written" in stderr


def test_a_second_ctrl_c_exits_at_once(slow_repo: GitRepo, tmp_path: Path) -> None:
    process = _start(slow_repo, tmp_path / "report.json")
    process.send_signal(signal.SIGINT)
    time.sleep(0.05)
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert time.monotonic() - pressed < EXIT_AT_ONCE_S  # it waited 47 s before
    assert process.returncode in (130, -signal.SIGINT), stderr  # os._exit, or killed by the signal itself
