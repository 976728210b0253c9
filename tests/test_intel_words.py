"""Which files hold a word, over files read at a revision: substring-then-regex passes first, then (past a
number of words looked for) an identifier index."""

from __future__ import annotations

import re

import pytest
from prscope.analysis.intel import files as files_module
from prscope.analysis.intel.files import RepoFiles

from tests.gitrepo import GitRepo

TEXTS = {
    "a.py": "class Base:\n    pass\n",
    "b.py": "from a import Base\n\n\nclass Child(Base):\n    x = 'Basement'\n",
    "c.py": "BaseX = 1\nvalue = 1Base\n",
    "d.py": "def café():\n    return Base\n",
}


def test_answers_are_the_same_before_and_after_the_files_are_indexed(
    git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files_module, "_WORDS_BEFORE_INDEXING", 20)
    git_repo.write("README.md", "x\n")
    git_repo.commit("base")
    files = RepoFiles(git_repo.root, source=TEXTS.get, listing=lambda: sorted(TEXTS))
    paths = sorted(TEXTS)
    queries = [["Base"], ["Child"], ["café"], ["Basement", "BaseX"], ["Base"], ["missing"]]
    queries += [["Child", "value"]]
    queries += [["pass"], ["return"], ["Base"]]
    indexed_at = None
    for number, words in enumerate(queries):  # more words than it takes to index the identifiers
        expected = [p for p in paths if any(re.search(rf"\b{re.escape(w)}\b", TEXTS[p]) for w in words)]
        assert files.files_with_words(words, paths) == expected, words
        if indexed_at is None and files._identifiers is not None:
            indexed_at = number
    assert indexed_at is not None and indexed_at > 2  # some answers came from the passes, some from the index
