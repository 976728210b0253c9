"""The new<->old line maps agree with the hunks git produces, for any pair of texts."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.changeset.diffparse import parse_patch

texts = st.lists(st.sampled_from(["a", "b", "c", "d", "", "x = 1", "def f():"]), max_size=40)


def git_diff_change(old: list[str], new: list[str], context: int) -> FileChange:
    with tempfile.TemporaryDirectory() as tmp:
        old_file, new_file = Path(tmp) / "old", Path(tmp) / "new"
        old_file.write_text("".join(f"{line}\n" for line in old))
        new_file.write_text("".join(f"{line}\n" for line in new))
        result = subprocess.run(
            ["git", "diff", "--no-index", "--no-color", f"-U{context}", str(old_file), str(new_file)],
            capture_output=True,
            text=True,
            check=False,
        )
    assert result.returncode in (0, 1), result.stderr
    sections = parse_patch(result.stdout)
    change = FileChange(
        path="f.py",
        old_path=None,
        status=FileStatus.MODIFIED,
        is_binary=False,
        language="python",
        hunks=sections[0].hunks if sections else [],
    )
    change.recount()
    return change


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=texts, new=texts, context=st.integers(min_value=0, max_value=3))
def test_line_maps_are_consistent_with_the_texts(old: list[str], new: list[str], context: int) -> None:
    change = git_diff_change(old, new, context)
    mapped = []
    for number in range(1, len(new) + 1):
        origin = change.new_to_old(number)
        if origin is None:
            assert number in change.added_lines
            continue
        assert number not in change.added_lines
        assert new[number - 1] == old[origin - 1]
        assert change.old_to_new(origin) == number
        mapped.append(origin)
    assert mapped == sorted(set(mapped))
    assert len(mapped) == len(new) - change.additions == len(old) - change.deletions
    for number in range(1, len(old) + 1):
        assert (change.old_to_new(number) is None) == (number in change.deleted_lines)
    assert change.added_lines == {
        line.new_no for hunk in change.hunks for line in hunk.lines if line.kind == "+"
    }


def test_lines_past_the_last_hunk_shift_by_the_net_change() -> None:
    old = [f"l{n}" for n in range(1, 11)]
    new = ["l1", "extra1", "extra2", *old[1:]]
    change = git_diff_change(old, new, 0)
    assert change.new_to_old(1) == 1
    assert change.new_to_old(2) is None
    assert change.new_to_old(4) == 2
    assert change.new_to_old(12) == 10
    assert change.old_to_new(10) == 12
