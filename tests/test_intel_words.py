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
    "e.py": "# Base→Child, «T»\nm.T = 1\n",
}


def test_answers_are_the_same_before_and_after_the_files_are_indexed(
    git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files_module, "_WORDS_BEFORE_INDEXING", 8)
    git_repo.write("README.md", "x\n")
    git_repo.commit("base")
    files = RepoFiles(git_repo.root, source=TEXTS.get, listing=lambda: sorted(TEXTS))
    paths = sorted(TEXTS)
    queries = [["Base"], ["Child"], ["café"], ["Basement", "BaseX"], ["Base"], ["missing"]]
    queries += [["Child", "value"]]
    queries += [["pass"], ["return"], ["Base"], ["T"], ["Child"], ["café"], ["m"]]
    indexed_at = None
    for number, words in enumerate(queries):  # more words than it takes to index the identifiers
        expected = [p for p in paths if any(re.search(rf"\b{re.escape(w)}\b", TEXTS[p]) for w in words)]
        assert files.files_with_words(words, paths) == expected, words
        if indexed_at is None and files._identifiers is not None:
            indexed_at = number
    assert indexed_at is not None and indexed_at > 2  # some answers came from the passes, some from the index


def test_def_lines_at_a_revision_are_the_def_lines_not_the_blank_lines_above(git_repo: GitRepo) -> None:
    # sqlalchemy 9e82f32f: each `_set_parent` came one line early (the blank line above), so the keywords
    # Column._set_parent declares were never read and three overrides were wrongly reported
    texts = {
        "m.py": "class A:\n    x = 1\n\n    def run(self):\n        pass\n\n\n\nasync def run():\n    pass\n",
        "n.py": "\n\nclass run:\n    pass\n",
    }
    git_repo.write("README.md", "x\n")
    git_repo.commit("base")
    files = RepoFiles(git_repo.root, source=texts.get, listing=lambda: sorted(texts))
    from_git = RepoFiles(git_repo.root)
    assert files.def_lines("run") == [("m.py", 4), ("m.py", 9), ("n.py", 3)]
    for path, text in texts.items():
        git_repo.write(path, text)
    git_repo.commit("files")
    assert sorted(from_git.def_lines("run")) == files.def_lines("run")


def test_def_lines_are_the_same_before_and_after_every_definition_is_indexed(git_repo: GitRepo) -> None:
    texts = {
        "m.py": "class A:\n    x = 1\n\n    def run(self):\n        pass\n\n\n\nasync def run():\n    pass\n",
        "n.py": '\n\nclass run:\n    """def runner"""\n\n\tdef  café(x): pass\ndef running(): pass\n',
        "o.py": "x = 'def run'\nclass Run: pass\n",
    }
    git_repo.write("README.md", "x\n")
    git_repo.commit("base")
    files = RepoFiles(git_repo.root, source=texts.get, listing=lambda: sorted(texts))
    names = ["run", "café", "running", "Run", "runner", "A", "x", "missing"]
    one_by_one = {name: files.def_lines(name) for name in names}  # the first lookups: a pass per name
    assert files._defined is None
    for name in names * 2:  # past the lookups it takes to index every definition at once
        files.def_lines(name)
    assert files._defined is not None
    assert {name: files.def_lines(name) for name in names} == one_by_one
    assert one_by_one["run"] == [("m.py", 4), ("m.py", 9), ("n.py", 3)]
    assert one_by_one["café"] == [("n.py", 6)] and one_by_one["runner"] == []


TRICKY = [
    "x→y = T.T\n",
    "café_2 + _x__ - 1Base\tBase\u00a0Base\u2028end",
    "«T» ‘quoted’ naïve_name ２ ab·cd",
    "T",
    "",
    "T_ T1 _T (T) a.T\nT",
]


@pytest.mark.parametrize("text", TRICKY)
def test_identifiers_and_whole_words_are_what_the_word_pattern_finds(text: str) -> None:
    assert files_module.identifiers_in(text) == set(re.findall(r"\w+", text))
    for word in ["T", "Base", "café_2", "naïve_name", "y", "cd", "end", "x__"]:
        expected = re.search(rf"\b{re.escape(word)}\b", text) is not None
        assert files_module.has_word(text, files_module.word_end_pattern(word)) == expected, word
