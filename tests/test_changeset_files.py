"""Per-file detail on awkward content: encodings, names, binaries, huge files, links, submodules."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from prscope.analysis.changeset import (
    ChangeSet,
    DiffSpec,
    FileChange,
    FileStatus,
    load_changeset,
    render_summary,
)
from prscope.analysis.report import FilesSummary, OmittedFile

from tests.gitrepo import GIT_ENV, GitRepo


@pytest.fixture(autouse=True)
def isolated_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))


def branch_change(repo: GitRepo) -> ChangeSet:
    return load_changeset(repo.root, DiffSpec(base="main"), env={})


def on_feature(repo: GitRepo, files: dict[str, str | bytes]) -> None:
    for path, content in files.items():
        repo.write(path, content)
    repo.commit("base")
    repo.checkout("-b", "feature")


def only(cs: ChangeSet, path: str) -> FileChange:
    change = cs.get(path)
    assert change is not None, [c.path for c in cs.files]
    return change


def test_hunks_lines_and_counts(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"m.py": "".join(f"line{n}\n" for n in range(1, 21))})
    lines = [f"line{n}\n" for n in range(1, 21)]
    lines[1] = "changed2\n"
    del lines[14]
    lines.insert(18, "inserted\n")
    git_repo.write("m.py", "".join(lines))
    git_repo.commit()
    change = only(branch_change(git_repo), "m.py")
    assert change.status is FileStatus.MODIFIED
    assert change.language == "python"
    assert (change.additions, change.deletions) == (2, 2)
    assert len(change.hunks) == 2
    first = change.hunks[0]
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (1, 5, 1, 5)
    assert [(line.kind, line.text) for line in first.lines[1:3]] == [("-", "line2"), ("+", "changed2")]
    assert change.added_lines == {2, 19}
    assert change.deleted_lines == {2, 15}
    assert change.new_to_old(1) == 1
    assert change.new_to_old(2) is None
    assert change.new_to_old(14) == 14
    assert change.new_to_old(15) == 16
    assert change.new_to_old(18) == 19
    assert change.new_to_old(19) is None
    assert change.new_to_old(20) == 20
    assert change.new_to_old(500) == 500
    assert change.old_to_new(15) is None
    assert change.old_to_new(16) == 15


def test_non_utf8_content_is_decoded_with_replacement(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"latin.py": "name = 'caf\xe9'\n".encode("latin-1")})
    git_repo.write("latin.py", "name = 'caf\xe9!'\n".encode("latin-1"))
    git_repo.commit()
    cs = branch_change(git_repo)
    change = only(cs, "latin.py")
    assert not change.is_binary
    assert change.hunks[0].lines[-1].text == "name = 'caf\ufffd!'"
    assert cs.read_new("latin.py") == "name = 'caf\ufffd!'\n"


def test_crlf_file_reports_only_the_changed_line(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"win.py": "a = 1\r\nb = 2\r\nc = 3\r\n"})
    git_repo.write("win.py", "a = 1\r\nb = 20\r\nc = 3\r\n")
    git_repo.commit()
    change = only(branch_change(git_repo), "win.py")
    assert (change.additions, change.deletions) == (1, 1)
    assert change.added_lines == {2}
    assert [line.text for line in change.hunks[0].lines] == ["a = 1", "b = 2", "b = 20", "c = 3"]


@pytest.mark.parametrize(
    "name",
    [
        "with space.py",
        'quote"d.py',
        "tab\there.py",
        "caf\u00e9/\u65e5\u672c.py",
        "back\\slash.py",
        "new\nline.py",
    ],
)
def test_awkward_file_names_come_out_as_real_names(git_repo: GitRepo, name: str) -> None:
    on_feature(git_repo, {"keep.py": "k = 1\n"})
    git_repo.write(name, "x = 1\n")
    git_repo.commit()
    cs = branch_change(git_repo)
    assert [change.path for change in cs.files] == [name]
    assert cs.read_new(name) == "x = 1\n"
    assert only(cs, name).added_lines == {1}


def test_rename_with_edit_keeps_both_paths(git_repo: GitRepo) -> None:
    body = "".join(f"value_{n} = {n}\n" for n in range(30))
    on_feature(git_repo, {"old name.py": body})
    git_repo.git("mv", "old name.py", "new name.py")
    git_repo.write("new name.py", body.replace("value_3 = 3", "value_3 = 33"))
    git_repo.commit()
    cs = branch_change(git_repo)
    change = only(cs, "new name.py")
    assert change.status is FileStatus.RENAMED
    assert change.old_path == "old name.py"
    assert (change.additions, change.deletions) == (1, 1)
    assert cs.get("old name.py") is change
    assert cs.read_old("new name.py") == body
    assert cs.read_new("old name.py") is None
    assert "old name.py -> new name.py" in render_summary(cs)


def test_deleted_file(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"gone.py": "a = 1\nb = 2\n", "stay.py": "s = 1\n"})
    git_repo.delete("gone.py")
    git_repo.commit()
    cs = branch_change(git_repo)
    change = only(cs, "gone.py")
    assert change.status is FileStatus.DELETED
    assert change.old_path == "gone.py"
    assert change.deleted_lines == {1, 2}
    assert change.old_to_new(1) is None
    assert cs.read_new("gone.py") is None
    assert cs.read_old("gone.py") == "a = 1\nb = 2\n"


def test_copy_is_detected(git_repo: GitRepo) -> None:
    body = "".join(f"line {n}\n" for n in range(40))
    on_feature(git_repo, {"orig.txt": body})
    git_repo.write("orig.txt", body + "more\n")
    git_repo.write("copy.txt", body)
    git_repo.commit()
    change = only(branch_change(git_repo), "copy.txt")
    assert change.status is FileStatus.COPIED
    assert change.old_path == "orig.txt"


def test_binary_files(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"img.png": b"\x89PNG\r\n\x1a\n\0\0\0data"})
    git_repo.write("img.png", b"\x89PNG\r\n\x1a\n\0\0\0other")
    git_repo.write("new.bin", b"\0\1\2\3")
    git_repo.commit()
    cs = branch_change(git_repo)
    for path in ("img.png", "new.bin"):
        change = only(cs, path)
        assert change.is_binary
        assert change.hunks == []
        assert cs.read_new(path) is None
    assert only(cs, "new.bin").status is FileStatus.ADDED
    assert "binary" in render_summary(cs)


def test_untracked_binary_in_uncommitted_mode(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"a.py": "a = 1\n"})
    git_repo.write("blob.dat", b"\0binary")
    change = only(load_changeset(git_repo.root, DiffSpec(mode="uncommitted")), "blob.dat")
    assert change.is_binary
    assert change.status is FileStatus.ADDED


def test_fifty_megabyte_file_is_not_diffed_or_loaded(git_repo: GitRepo) -> None:
    line = b"0123456789" * 8 + b"\n"
    big = line * (50 * 1024 * 1024 // len(line))
    on_feature(git_repo, {"data.csv": big, "small.py": "s = 1\n"})
    git_repo.write("data.csv", big + b"one more line\n")
    git_repo.write("small.py", "s = 2\n")
    git_repo.commit()
    git_repo.write("huge_untracked.txt", big)
    started = time.perf_counter()
    cs = branch_change(git_repo)
    elapsed = time.perf_counter() - started
    change = only(cs, "data.csv")
    assert change.too_large
    assert change.hunks == []
    assert change.size is not None and change.size > 50_000_000
    assert cs.read_new("data.csv") is None
    assert only(cs, "small.py").additions == 1
    assert elapsed < 3.0
    uncommitted = load_changeset(git_repo.root, DiffSpec(mode="uncommitted"))
    assert only(uncommitted, "huge_untracked.txt").too_large
    assert "too large" in render_summary(cs)


def test_submodule_change(tmp_path: Path, git_repo: GitRepo) -> None:
    library = GitRepo(tmp_path / "library")
    library.write("lib.py", "v = 1\n")
    first = library.commit("one")
    git_repo.write("main.py", "m = 1\n")
    git_repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library.root), "lib")
    git_repo.commit("add submodule")
    git_repo.checkout("-b", "feature")
    library.write("lib.py", "v = 2\n")
    second = library.commit("two")
    sub = GitRepo(git_repo.root / "lib", init=False)
    sub.git("fetch", "-q", "origin")
    sub.git("checkout", "-q", second)
    git_repo.commit("bump submodule")
    cs = branch_change(git_repo)
    change = only(cs, "lib")
    assert change.status is FileStatus.SUBMODULE
    assert (change.old_blob, change.new_blob) == (first, second)
    assert change.hunks == []
    assert cs.read_new("lib") is None
    assert "S  lib" in render_summary(cs)


def test_symlinks_are_not_followed_outside_the_repository(git_repo: GitRepo, tmp_path: Path) -> None:
    secret = tmp_path / "outside-secret.py"
    secret.write_text("TOKEN = 'do-not-read'\n")
    on_feature(git_repo, {"a.py": "a = 1\n"})
    os.symlink(secret, git_repo.root / "link.py")
    git_repo.commit("add link")
    os.symlink(secret, git_repo.root / "untracked_link.py")
    os.symlink(tmp_path, git_repo.root / "outside_dir")
    cs = branch_change(git_repo)
    change = only(cs, "link.py")
    assert change.is_symlink
    assert change.language is None
    assert [line.text for line in change.hunks[0].lines] == [str(secret)]
    assert cs.read_new("link.py") == str(secret)
    worktree = load_changeset(git_repo.root, DiffSpec(mode="uncommitted"))
    assert only(worktree, "untracked_link.py").is_symlink
    for path in ("untracked_link.py", "link.py"):
        assert "do-not-read" not in (worktree.read_new(path) or "")
    assert worktree.read_new("outside_dir/outside-secret.py") is None
    assert worktree.read_new("../outside-secret.py") is None
    assert worktree.read_new(str(secret)) is None
    assert cs.read_new("../outside-secret.py") is None


def test_type_change_file_to_symlink(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"target.txt": "t\n", "thing.txt": "was a file\n"})
    git_repo.delete("thing.txt")
    os.symlink("target.txt", git_repo.root / "thing.txt")
    git_repo.commit()
    change = only(branch_change(git_repo), "thing.txt")
    assert change.status is FileStatus.TYPE_CHANGED
    assert change.is_symlink
    assert change.new_to_old(1) is None


def test_mode_only_change(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"run.sh": "echo hi\n"})
    (git_repo.root / "run.sh").chmod(0o755)
    git_repo.commit()
    change = only(branch_change(git_repo), "run.sh")
    assert change.status is FileStatus.TYPE_CHANGED
    assert (change.old_mode, change.new_mode) == ("100644", "100755")
    assert change.hunks == []


def test_empty_diff_is_an_empty_changeset(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"a.py": "a = 1\n"})
    cs = branch_change(git_repo)
    assert cs.files == []
    assert cs.base_sha == cs.head_sha
    assert "no changes" in render_summary(cs)
    assert load_changeset(git_repo.root, DiffSpec(mode="staged")).files == []
    assert load_changeset(git_repo.root, DiffSpec(mode="uncommitted")).files == []


def test_empty_added_file_and_missing_final_newline(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"a.py": "a = 1"})
    git_repo.write("a.py", "a = 2")
    git_repo.write("empty.py", "")
    git_repo.commit()
    cs = branch_change(git_repo)
    assert only(cs, "empty.py").status is FileStatus.ADDED
    assert only(cs, "empty.py").hunks == []
    change = only(cs, "a.py")
    assert [(line.kind, line.text) for line in change.hunks[0].lines] == [("-", "a = 1"), ("+", "a = 2")]


def test_read_new_for_unchanged_files_per_mode(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"same.py": "same = 1\n", "edit.py": "e = 1\n"})
    git_repo.write("edit.py", "e = 2\n")
    git_repo.commit()
    git_repo.write("same.py", "same = 'dirty worktree'\n")
    branch = branch_change(git_repo)
    assert branch.read_new("same.py") == "same = 1\n"
    assert branch.read_old("same.py") == "same = 1\n"
    assert branch.read_new("missing.py") is None
    worktree = load_changeset(git_repo.root, DiffSpec(mode="uncommitted"))
    assert worktree.read_new("same.py") == "same = 'dirty worktree'\n"
    assert worktree.read_old("same.py") == "same = 1\n"
    branch.close()
    assert branch.read_new("edit.py") == "e = 2\n"


def test_unresolved_merge_conflict(git_repo: GitRepo) -> None:
    git_repo.merge_with_conflict("f.py", "a\nb\n", "a\nX\n", "a\nY\n")
    staged = load_changeset(git_repo.root, DiffSpec(mode="staged"))
    change = only(staged, "f.py")
    assert change.unmerged
    assert change.status is FileStatus.MODIFIED
    assert "(unmerged)" in render_summary(staged)
    worktree = only(load_changeset(git_repo.root, DiffSpec(mode="uncommitted")), "f.py")
    assert "<<<<<<< HEAD" in [line.text for line in worktree.hunks[0].lines]


def test_reading_from_many_threads_at_once(git_repo: GitRepo) -> None:
    from concurrent.futures import ThreadPoolExecutor

    on_feature(git_repo, {f"m{n}.py": f"v = {n}\n" for n in range(40)})
    for n in range(40):
        git_repo.write(f"m{n}.py", f"v = {n * 2}\n")
    git_repo.commit()
    cs = branch_change(git_repo)

    def read_all(offset: int) -> list[str | None]:
        return [cs.read_new(f"m{(n + offset) % 40}.py") for n in range(40)]

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(read_all, range(6)))
    for offset, texts in enumerate(results):
        assert texts == [f"v = {((n + offset) % 40) * 2}\n" for n in range(40)]
    cs.prefetch()
    assert cs.read_old("m3.py") == "v = 3\n"
    cs.close()


def test_git_warnings_are_kept_not_swallowed(git_repo: GitRepo) -> None:
    bodies = {f"f{n}.py": numbered_body(n) for n in range(3)}
    on_feature(git_repo, dict(bodies))
    for name, body in bodies.items():
        git_repo.git("mv", name, f"moved_{name}")
        git_repo.write(f"moved_{name}", body + "extra = 1\n")
    git_repo.commit()
    git_repo.git("config", "diff.renameLimit", "1")
    cs = branch_change(git_repo)
    assert any("rename detection was skipped" in warning for warning in cs.warnings)
    assert "git warning: " in render_summary(cs)


def numbered_body(seed: int) -> str:
    return "".join(f"name_{seed}_{n} = {n}\n" for n in range(20))


def test_prefetching_many_paths_reads_the_same_text(git_repo: GitRepo) -> None:
    files = {f"pkg/m{n}.py": f"v = {n}\n" for n in range(30)}
    on_feature(git_repo, {**files, "bin.dat": b"\0\1"})
    git_repo.write("pkg/m0.py", "v = 'changed'\n")
    git_repo.commit()
    cs = branch_change(git_repo)
    cs.prefetch_paths([*files, "bin.dat", "missing.py", "with space.py"])
    assert cs.read_new("pkg/m0.py") == "v = 'changed'\n"
    assert cs.read_new("pkg/m7.py") == "v = 7\n"
    assert cs.read_new("bin.dat") is None
    assert cs.read_new("missing.py") is None
    cs.prefetch_paths(["pkg/m0.py"], side="old")
    assert cs.read_old("pkg/m0.py") == "v = 0\n"


def test_a_file_name_that_is_not_utf8(git_repo: GitRepo) -> None:
    on_feature(git_repo, {"keep.py": "k = 1\n"})
    raw_name = os.fsdecode(b"caf\xe9.py")
    (git_repo.root / raw_name).write_text("x = 1\n")
    git_repo.commit()
    (git_repo.root / os.fsdecode(b"new\xff.py")).write_text("y = 2\n")
    cs = branch_change(git_repo)
    [change] = cs.files
    assert change.path == "caf\ufffd.py"
    assert cs.read_new(change.path) == "x = 1\n"
    worktree = load_changeset(git_repo.root, DiffSpec(mode="uncommitted"))
    assert worktree.read_new("new\ufffd.py") == "y = 2\n"
    assert only(worktree, "new\ufffd.py").added_lines == {1}
    summary = FilesSummary(changed=1, omitted=[OmittedFile(path=change.path, reason="x")])
    assert "caf\ufffd.py" in summary.model_dump_json()
