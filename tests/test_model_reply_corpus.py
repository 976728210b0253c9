"""Messy model replies end as findings on the line whose code they quote, or are dropped with a reason.

A corpus of replies as models really write them (fences, prose, unclosed blocks, JSON arrays, CRLF,
synonyms, drifted line numbers...) through the real parser and the real anchoring on a real change set;
and random input never makes the parser or the anchoring raise."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prscope.analysis.agent.anchoring import anchor_line
from prscope.analysis.agent.blocks import parse_blocks
from prscope.analysis.agent.review_agent import anchor_candidates
from prscope.analysis.changeset import ChangeSet, DiffSpec, load_changeset

from tests.gitrepo import GitRepo

LINES = [f"value_{n} = compute_{n}(price, quantity)" for n in range(1, 121)]
LINES[39] = "    total = price * qty  # line 40"
LINES[79] = "def checkout(cart):  # line 80"
LINES[99] = "    return"
SOURCE = "\n".join(LINES) + "\n"


@pytest.fixture(scope="module")
def cs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChangeSet]:
    repo = GitRepo(tmp_path_factory.mktemp("corpus") / "repo")
    repo.write("src/shop.py", "x = 0\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("src/shop.py", SOURCE)
    repo.commit("feature")
    changeset = load_changeset(repo.root, DiffSpec(base="main"))
    yield changeset
    changeset.close()


def _finding(**fields: object) -> dict[str, object]:
    return {"rule": "bug", "severity": "warning", "path": "src/shop.py", "title": "t", **fields}


def _lines(*findings: dict[str, object]) -> str:
    return "\n".join(json.dumps(f) for f in findings)


def _wrap(body: str) -> str:
    return f"<findings>\n{body}\n</findings>\n<summary>s</summary>"


TOTAL = "    total = price * qty  # line 40"
CORPUS: list[tuple[str, str, list[int]]] = [
    ("exact line and quote", _wrap(_lines(_finding(line=40, code=TOTAL))), [40]),
    ("cited 3 below", _wrap(_lines(_finding(line=43, code=TOTAL))), [40]),
    ("cited 5 above", _wrap(_lines(_finding(line=35, code=TOTAL))), [40]),
    ("cited 25 off", _wrap(_lines(_finding(line=65, code=TOTAL))), [40]),
    ("quote not in the file", _wrap(_lines(_finding(line=40, code="return None"))), []),
    ("quote 25 lines below", _wrap(_lines(_finding(line=105, code="def checkout(cart):  # line 80"))), [80]),
    ("quote beyond the window", _wrap(_lines(_finding(line=1, code="def checkout(cart):  # line 80"))), []),
    ("whitespace differs", _wrap(_lines(_finding(line=41, code="total   =  price *\tqty  # line 40"))), [40]),
    ("partial quote", _wrap(_lines(_finding(line=42, code="price * qty"))), [40]),
    ("short quote only on the cited line", _wrap(_lines(_finding(line=42, code="qty"))), []),
    ("short name on the cited line", _wrap(_lines(_finding(line=40, code="qty"))), [40]),
    ("short name with spaces around", _wrap(_lines(_finding(line=40, code="  total "))), [40]),
    ("short fragment with an operator", _wrap(_lines(_finding(line=40, code="* qty"))), [40]),
    ("short quote inside a longer name", _wrap(_lines(_finding(line=40, code="pri"))), []),
    ("short quote the whole cited line", _wrap(_lines(_finding(line=100, code="return"))), [100]),
    ("short quote never moved to another line", _wrap(_lines(_finding(line=98, code="return"))), []),
    ("short fenced quote", _wrap(_lines(_finding(line=80, code="```\ncart\n```"))), [80]),
    ("multi-line quote uses its first line", _wrap(_lines(_finding(line=44, code=f"{TOTAL}\nmore"))), [40]),
    ("fenced quote", _wrap(_lines(_finding(line=44, code=f"```python\n{TOTAL}\n```"))), [40]),
    ("no quote, line exists", _wrap(_lines(_finding(line=7))), [7]),
    ("no quote, line out of range", _wrap(_lines(_finding(line=500))), []),
    ("quote alias", _wrap(_lines(_finding(line=41, quote=TOTAL))), [40]),
    (
        "code_line alias and file alias",
        _wrap(json.dumps({"file": "src/shop.py", "line": 39, "code_line": TOTAL, "title": "t"})),
        [40],
    ),
    ("line_number as a string", _wrap(json.dumps(_finding(line_number="40", code=TOTAL))), [40]),
    ("./ path", _wrap(_lines(_finding(line=40, code=TOTAL, path="./src/shop.py"))), [40]),
    ("diff prefix path", _wrap(_lines(_finding(line=40, code=TOTAL, path="b/src/shop.py"))), [40]),
    ("backslash path", _wrap(_lines(_finding(line=40, code=TOTAL, path="src\\shop.py"))), [40]),
    ("absolute path is not a repository file", _wrap(_lines(_finding(line=40, path="/etc/shop.py"))), []),
    (
        "path from the root with a slash",
        _wrap(_lines(_finding(line=41, code=TOTAL, path="/src/shop.py"))),
        [40],
    ),
    ("unknown file", _wrap(_lines(_finding(line=1, path="src/other.py"))), []),
    (
        "code fence around the block",
        "<findings>\n```json\n" + _lines(_finding(line=40, code=TOTAL)) + "\n```\n</findings>",
        [40],
    ),
    (
        "prose around the blocks",
        "Here is what I found.\n" + _wrap(_lines(_finding(line=40, code=TOTAL))) + "\nThanks!",
        [40],
    ),
    ("unclosed findings block", "<findings>\n" + _lines(_finding(line=40, code=TOTAL)), [40]),
    (
        "CRLF line endings",
        _wrap(_lines(_finding(line=41, code=TOTAL), _finding(line=7))).replace("\n", "\r\n"),
        [7, 40],
    ),
    ("JSON array", _wrap(json.dumps([_finding(line=40, code=TOTAL), _finding(line=9)])), [9, 40]),
    ("trailing comma", _wrap(json.dumps(_finding(line=40, code=TOTAL))[:-1] + ",}"), [40]),
    (
        "severity synonyms",
        _wrap(
            _lines(_finding(line=40, code=TOTAL, severity="critical"), _finding(line=12, severity="minor"))
        ),
        [12, 40],
    ),
    (
        "two findings drift onto one line",
        _wrap(_lines(_finding(line=40, code=TOTAL), _finding(line=42, code=TOTAL))),
        [40],
    ),
    ("empty findings block", _wrap(""), []),
    (
        "a finding per line among junk",
        _wrap("junk line\n" + _lines(_finding(line=40, code=TOTAL)) + "\n{not json}"),
        [40],
    ),
]


@pytest.mark.parametrize(("name", "reply", "expected"), CORPUS, ids=[case[0] for case in CORPUS])
def test_corpus_reply_lands_on_the_quoted_line(
    cs: ChangeSet, name: str, reply: str, expected: list[int]
) -> None:
    parsed = parse_blocks(reply)
    findings, dropped = anchor_candidates(cs, parsed.findings)
    assert sorted(f.line for f in findings) == expected, (name, dropped, parsed.problems)
    assert len(findings) + len(dropped) >= (1 if expected else 0)


def test_an_absolute_path_inside_the_repository_names_that_file(cs: ChangeSet) -> None:
    absolute = f"{cs.repo_root.as_posix()}/src/shop.py"
    parsed = parse_blocks(_wrap(_lines(_finding(line=42, code=TOTAL, path=absolute))))
    (finding,), dropped = anchor_candidates(cs, parsed.findings)
    assert (finding.path, finding.line, dropped) == ("src/shop.py", 40, [])


def test_a_moved_finding_keeps_its_span(cs: ChangeSet) -> None:
    parsed = parse_blocks(_wrap(_lines(_finding(line=43, end_line=45, code=TOTAL))))
    (finding,), _ = anchor_candidates(cs, parsed.findings)
    assert (finding.line, finding.end_line) == (40, 42)


def test_a_dropped_finding_says_why(cs: ChangeSet) -> None:
    parsed = parse_blocks(_wrap(_lines(_finding(line=40, code="return None"))))
    findings, dropped = anchor_candidates(cs, parsed.findings)
    assert findings == [] and "the quoted code is not within 30 lines of line 40" in dropped[0]


def test_a_short_quote_off_the_cited_line_says_why(cs: ChangeSet) -> None:
    parsed = parse_blocks(_wrap(_lines(_finding(line=42, code="qty"))))
    findings, dropped = anchor_candidates(cs, parsed.findings)
    assert findings == [] and "the short quoted code 'qty' is not on line 42" in dropped[0]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_random_replies_never_raise(text: str) -> None:
    parse_blocks(text)
    parse_blocks(f"<findings>\n{text}\n</findings>")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(max_size=40), max_size=50),
    st.integers(-5, 80),
    st.one_of(st.none(), st.text(max_size=80)),
)
def test_random_anchoring_never_raises(lines: list[str], cited: int, code: str | None) -> None:
    anchor = anchor_line(lines, cited, code)
    assert anchor.line is None or 1 <= anchor.line <= len(lines)


def test_corpus_has_at_least_30_replies() -> None:
    assert len(CORPUS) >= 30
