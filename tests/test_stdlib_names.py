"""What a star import of a standard-library module binds, read from source without importing it."""

from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.checks.stdlib_names import star_names


def test_a_module_with_a_literal_all_binds_exactly_that() -> None:
    names = star_names("json")
    assert names is not None and {"dumps", "loads", "JSONDecodeError"} <= names and "scanner" not in names


def test_a_module_without_all_binds_its_public_names_and_those_of_its_own_star_import() -> None:
    names = star_names("ast")
    assert names is not None
    assert {"walk", "parse", "NodeVisitor", "AST", "Name"} <= names  # AST and Name come from `_ast`
    assert "get_child_nodes" not in names and "_Unparser" not in names


def test_an_all_built_at_run_time_or_a_non_standard_module_is_unknown() -> None:
    assert star_names("os") is None  # `__all__.extend(...)` after the literal
    assert star_names("rope") is None and star_names("os.path") is None


def test_a_repository_module_shadowing_the_standard_one_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "json.py").write_text("raise SystemExit('ran')\ndef only_here():\n    pass\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    star_names.cache_clear()
    names = star_names("json")
    assert names is not None and "only_here" not in names and "dumps" in names
