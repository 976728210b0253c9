"""The repository's Python files: listing, module names, reading with a content hash, word prefilter."""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from prscope.analysis import gitsafe
from prscope.analysis.deadline import check_deadline
from prscope.analysis.errors import RepositoryError
from prscope.analysis.intel.naming import ModuleNaming, walk_module_name
from prscope.analysis.sourcetext import decode_source

SourceReader = Callable[[str], str | None]
FileLister = Callable[[], list[str]]
"""The repository's files at the revision under review (all of them; the index keeps the Python ones)."""

_GIT_TIMEOUT_S = 60
MAX_INDEX_BYTES = 2_000_000
"""Python files above this are not read by the code index (generated data, vendored bundles): one such
file made a review take minutes and gigabytes. They are listed as not checked."""
# Python files, minus environments and caches that are sometimes left untracked but not ignored.
PY_PATHSPEC = (
    "*.py",
    ":(exclude,glob)**/site-packages/**",
    ":(exclude,glob)**/.venv/**",
    ":(exclude,glob)**/.tox/**",
    ":(exclude,glob)**/.nox/**",
    ":(exclude,glob)**/node_modules/**",
    ":(exclude,glob)**/__pycache__/**",
)
_IDENTIFIER = re.compile(r"\w+")
"""Maximal runs of word characters: a word matches `\bword\b` in a text exactly when it is one of them."""
_WORDS_BEFORE_INDEXING = 48
"""Words looked for one by one in the files read at a revision before their identifiers are indexed."""
_DEF_LOOKUPS_BEFORE_INDEX = 8
"""Names looked up one by one before every definition of the files is read into one index."""
# `[ \t]`, not `\s`: with MULTILINE, `^\s*` would start the match on a blank line above the def.
_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+def|def|class)[ \t]+(\w+)", re.MULTILINE)
_CLASS_LINE = re.compile(r"^[ \t\f]*class[ \t]+[A-Za-z_][^\n]*", re.MULTILINE)
"""A line starting a `class` statement, as `class_header_rows` greps it in the working tree."""
_IMPORT_LINE = re.compile(r"[ \t]*(from|import)[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)")


def word_end_pattern(word: str) -> re.Pattern[str]:
    """The word followed by no word character: half of `\\bword\\b`, the half the regex engine can
    search for fast (a pattern that starts with a literal is found by a substring scan; one starting with
    `\\b` is tried at every position: sympy's `T` took 0.6 s over the repository, this 0.015 s)."""
    return re.compile(re.escape(word) + r"(?!\w)")


def attribute_spelling(name: str) -> re.Pattern[str]:
    """`.name` as the text spells an attribute read or store (`x.name`, `x . name`, the dot ending a line):
    a file without it has no attribute occurrence of the name."""
    return re.compile(rf"\.\s*{re.escape(name)}\b")


def has_word(text: str, word_end: re.Pattern[str]) -> bool:
    """Whether `text` holds the word of `word_end_pattern` (which must start with a word character) as
    a whole word, as `\\bword\\b` finds it."""
    for match in word_end.finditer(text):
        start = match.start()
        if start == 0 or not _is_word_character(text[start - 1]):
            return True
    return False


_ASCII_NOT_WORD = str.maketrans({c: " " for c in map(chr, range(128)) if not (c.isalnum() or c == "_")})


def identifiers_in(text: str) -> set[str]:
    """The text's maximal runs of word characters, as `\\w+` finds them, about twice as fast: ASCII
    punctuation becomes spaces for one split, and only the rare token holding other characters (`x→y`)
    is split again by the pattern."""
    words = set(text.translate(_ASCII_NOT_WORD).split())
    for mixed in [word for word in words if not word.isascii()]:
        words.discard(mixed)
        words.update(_IDENTIFIER.findall(mixed))
    return words


def _is_word_character(character: str) -> bool:
    """What `\\w` matches in a str pattern: a Unicode letter or digit, or the underscore."""
    return character.isalnum() or character == "_"


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str
    digest: str
    stat_key: tuple[int, int, int, int] | None = None  # taken before reading, so a later edit shows


def content_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def decode(data: bytes, path: str = "x.py") -> str:
    """Source bytes to text as Python reads them (BOM, PEP 263); undecodable bytes replaced, not refused."""
    return decode_source(data, path)


def run_git(repo_root: Path, *args: str, ok_codes: Iterable[int] = (0,)) -> str:
    try:
        result = gitsafe.run_git(repo_root, args, timeout_s=_GIT_TIMEOUT_S)
    except FileNotFoundError as exc:
        raise RepositoryError("git is not installed or not on PATH") from exc
    except gitsafe.TimeoutExpired as exc:
        raise RepositoryError(f"git {args[0]} took longer than {_GIT_TIMEOUT_S}s in {repo_root}") from exc
    if result.returncode not in tuple(ok_codes):
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepositoryError(f"git {args[0]} failed in {repo_root}: {message[0] if message else 'error'}")
    return result.stdout.decode("utf-8", "replace")


class RepoFiles:
    """Lists and reads the repository's Python files; remembers content digests by file stat."""

    def __init__(
        self, repo_root: Path, source: SourceReader | None = None, listing: FileLister | None = None
    ) -> None:
        self.repo_root = repo_root.resolve()
        self._root_text = str(self.repo_root)
        self._source = source
        self._listing = listing
        self._lock = threading.Lock()
        self._stat_digests: dict[str, tuple[tuple[int, int, int, int], str]] = {}
        self._override_texts: dict[str, str | None] = {}
        self._override_digests: dict[str, str] = {}
        self._def_lines: dict[str, list[tuple[str, int]]] = {}
        self._defined: dict[str, list[tuple[str, int]]] | None = None
        self._class_lines: list[tuple[str, str]] | None = None
        self._def_lookups = 0
        self._word_files_key: tuple[str, ...] = ()
        self._word_files: dict[str, set[str]] = {}
        self._passes = 0
        self._identifiers: dict[str, frozenset[str]] | None = None
        self._files_key: tuple[str, ...] | None = None
        self._modules: dict[str, str] = {}
        self._module_of: dict[str, str | None] = {}
        self._packages: set[str] = set()
        self._same_name: dict[str, list[str]] = {}
        self.too_large: dict[str, int] = {}
        """Files the index refused to read, with their size in bytes."""
        if not (self.repo_root / ".git").exists():
            top = run_git(self.repo_root, "rev-parse", "--show-toplevel").strip()
            if not top:
                raise RepositoryError(f"not a git repository: {self.repo_root}")

    @property
    def has_source_override(self) -> bool:
        return self._source is not None

    def python_files(self) -> list[str]:
        """Tracked plus untracked-not-ignored `*.py` files, repo-relative with `/` separators, sorted
        (or the `listing`'s Python files, when one was given)."""
        if self._listing is not None:
            listed = sorted({p for p in self._listing() if p.endswith(".py") and not _excluded(p)})
            self._refresh_modules(listed)
            return listed
        tracked = run_git(self.repo_root, "ls-files", "-z", "--", *PY_PATHSPEC).split("\0")
        untracked = run_git(
            self.repo_root, "ls-files", "-z", "--others", "--exclude-standard", "--", *PY_PATHSPEC
        ).split("\0")
        deleted: set[str] = set()
        if self._source is None:
            listing = run_git(self.repo_root, "ls-files", "-z", "--deleted", "--", *PY_PATHSPEC)
            deleted = set(listing.split("\0"))
        files = sorted({p for p in [*tracked, *untracked] if p and p.endswith(".py") and p not in deleted})
        self._refresh_modules(files)
        return files

    def _refresh_modules(self, files: list[str]) -> None:
        key = tuple(files)
        with self._lock:
            if key == self._files_key:
                return
        naming = ModuleNaming(files, self._imported_tops)
        with self._lock:
            self._files_key = key
            self._modules = naming.modules
            self._same_name = naming.same_name
            self._module_of = naming.module_of
            self._packages = naming.packages

    def _imported_tops(self) -> set[str]:
        """First names of the repository's absolute imports (`import a.b`, `from a import b`: `a`)."""
        if self._source is not None:
            return set()  # no working tree to grep: names stay as the package walk gives them
        pattern = r"^[[:space:]]*(from|import)[[:space:]]+[A-Za-z_]"
        output = self.grep_python("-h", "-E", "-e", pattern)
        tops: set[str] = set()
        for line in output.split("\n"):
            match = _IMPORT_LINE.match(line)
            if match is None:
                continue
            if match.group(1) == "from":
                tops.add(match.group(2).split(".")[0])
            else:
                tops.update(part.strip().split(".")[0].split(" ")[0] for part in match.group(2).split(","))
        return tops

    def module_name(self, path: str) -> str | None:
        with self._lock:
            if path in self._module_of:
                return self._module_of[path]
        return walk_module_name(path, None, self.repo_root)

    def has_file(self, path: str) -> bool:
        """Whether `path` is one of the listed Python files."""
        with self._lock:
            return path in self._module_of

    def module_path(self, module: str) -> str | None:
        with self._lock:
            return self._modules.get(module)

    def module_paths(self, module: str) -> list[str]:
        """Every file with this module name (top-level `conftest`, say, exists in many directories)."""
        with self._lock:
            paths = self._same_name.get(module)
            if paths:
                return list(paths)
            found = self._modules.get(module)
        return [found] if found is not None else []

    def is_package(self, module: str) -> bool:
        with self._lock:
            return module in self._packages

    def known_module(self, module: str) -> bool:
        with self._lock:
            return module in self._modules or module in self._packages

    def read(self, path: str) -> SourceFile | None:
        """The file's text and digest; None when it is absent or unreadable."""
        if self._source is not None:
            with self._lock:
                cached = path in self._override_texts
                text = self._override_texts.get(path)
            if not cached:
                text = self._source(path)
                if text is not None and len(text) > MAX_INDEX_BYTES:
                    self._refuse(path, len(text.encode("utf-8", "surrogatepass")))
                    text = None
                with self._lock:
                    self._override_texts[path] = text
            if text is None:
                return None
            with self._lock:
                digest = self._override_digests.get(path)
            if digest is None:
                digest = content_digest(text)
                with self._lock:
                    self._override_digests[path] = digest
            return SourceFile(path, text, digest)
        full = os.path.join(self._root_text, path)
        if not _inside(self._root_text, full):
            return None  # a symlink that leaves the repository: never read through it
        try:
            st = os.stat(full)
            if st.st_size > MAX_INDEX_BYTES:
                self._refuse(path, st.st_size)
                return None
            with open(full, "rb") as handle:
                data = handle.read(MAX_INDEX_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_INDEX_BYTES:
            self._refuse(path, len(data))
            return None
        text = decode(data, path)
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        return SourceFile(path, text, content_digest(text), key)

    def _refuse(self, path: str, size: int) -> None:
        with self._lock:
            self.too_large[path] = size
        return None

    def digest_if_unchanged(self, path: str) -> str | None:
        """The digest remembered for the file when its stat has not changed since it was read."""
        if self._source is not None:
            return None
        try:
            st = os.stat(os.path.join(self._root_text, path))
        except OSError:
            return None
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        with self._lock:
            remembered = self._stat_digests.get(path)
        if remembered is not None and remembered[0] == key:
            return remembered[1]
        return None

    def remember_digest(self, source: SourceFile) -> None:
        if self._source is not None or source.stat_key is None:
            return
        with self._lock:
            self._stat_digests[source.path] = (source.stat_key, source.digest)

    def files_with_words(self, words: Iterable[str], files: list[str]) -> list[str]:
        """Files (among `files`) containing any of `words` as a whole word."""
        word_list = sorted({w for w in words if w})
        if not word_list:
            return []
        if self._source is not None:
            return self._files_with_words_read(word_list, files)
        output = self.grep_python("-l", "-w", *(arg for word in word_list for arg in ("-e", word)))
        found = {p for p in output.split("\0") if p}
        return [p for p in files if p in found]

    def _files_with_words_read(self, words: list[str], files: list[str]) -> list[str]:
        """`files_with_words` over files read at a revision. The checks ask about the same and related
        class names again and again (a class family for every changed member), so after a few regex passes
        over every file the files' identifiers are indexed once and each later word is a lookup."""
        key = tuple(files)
        with self._lock:
            if self._word_files_key != key:
                self._word_files_key, self._word_files, self._passes = key, {}, 0
            missing = [w for w in words if w not in self._word_files]
            # Each word looked for costs a substring search over every file; past a few dozen words
            # (a class family, asked again and again) indexing every file's identifiers once is cheaper.
            self._passes += len(missing)
            index_now = bool(missing) and self._passes > _WORDS_BEFORE_INDEXING and self._identifiers is None
        if index_now:
            self._index_identifiers(files)
        if missing:
            found = self._find_words(missing, files)
            with self._lock:
                if self._word_files_key == key:
                    self._word_files.update(found)
        else:
            found = {}
        with self._lock:
            sets = [found.get(w) or self._word_files.get(w, set()) for w in words]
        return [p for p in files if any(p in hits for hits in sets)]

    def _find_words(self, words: list[str], files: list[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {w: set() for w in words}
        identifiers = self._identifiers
        if identifiers is not None and all(p in identifiers for p in files):
            for path in files:
                for word in words:
                    if word in identifiers[path]:
                        found[word].add(path)
            return found
        if all(_IDENTIFIER.fullmatch(w) for w in words):
            # A word is in a file as a whole word iff it is one of the file's identifier tokens: a cheap
            # substring search, then a word-bounded search only in the files holding the substring.
            bounded = {w: word_end_pattern(w) for w in words}
            for path in files:
                check_deadline()
                text = self._text(path)
                if text is not None:
                    for word in words:
                        if word in text and has_word(text, bounded[word]):
                            found[word].add(path)
            return found
        pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b")
        for path in files:
            check_deadline()
            source = self.read(path)
            if source is not None:
                for word in set(pattern.findall(source.text)):
                    found[word].add(path)
        return found

    def kept_text(self, path: str) -> str | None:
        """The text of a file read at a revision, as read (such a file never changes); None otherwise."""
        if self._source is None:
            return None
        with self._lock:
            return self._override_texts.get(path)

    def _text(self, path: str) -> str | None:
        """The file's text (as `read` gives it, without working out its digest)."""
        if self._source is not None:
            with self._lock:
                if path in self._override_texts:
                    return self._override_texts[path]
        source = self.read(path)
        return source.text if source is not None else None

    def _index_identifiers(self, files: list[str]) -> None:
        identifiers: dict[str, frozenset[str]] = {}
        for path in files:
            check_deadline()
            text = self._text(path)
            identifiers[path] = frozenset(map(sys.intern, identifiers_in(text or "")))
        with self._lock:
            self._identifiers = identifiers

    def _definitions_by_name(self) -> dict[str, list[tuple[str, int]]]:
        """Every `def` / `class` statement of the files read at a revision, by name: read once, as the
        checks ask for one name after another (sqlalchemy: a hundred names, each over 600 files)."""
        with self._lock:
            known = self._defined
        if known is not None:
            return known
        defined: dict[str, list[tuple[str, int]]] = {}
        for path in self.python_files():
            check_deadline()
            text = self._text(path)
            if text is None:
                continue
            line, counted = 1, 0
            for match in _DEFINITION.finditer(text):
                line += text.count("\n", counted, match.start())
                counted = match.start()
                defined.setdefault(match.group(1), []).append((path, line))
        with self._lock:
            self._defined = defined
        return defined

    def _def_lines_read(self, name: str) -> list[tuple[str, int]]:
        with self._lock:
            known = self._def_lines.get(name)
        if known is not None:
            return list(known)  # files read at a revision never change: the same answer
        # `[ \t]`, not `\s`: with MULTILINE, `^\s*` would start the match on a blank line above the def.
        python_pattern = rf"^[ \t]*(async[ \t]+def|def|class)[ \t]+{re.escape(name)}\b"
        compiled = re.compile(python_pattern, re.MULTILINE)
        identifiers = self._identifiers if _IDENTIFIER.fullmatch(name) else None
        hits: list[tuple[str, int]] = []
        for path in self.python_files():
            if identifiers is not None and path in identifiers and name not in identifiers[path]:
                continue  # the name is no identifier of the file: no `def name` in it
            text = self._text(path)
            if text is None or name not in text:
                continue  # (a substring search first: the line regex is slow over a big repository)
            for match in compiled.finditer(text):
                hits.append((path, text.count("\n", 0, match.start()) + 1))
        with self._lock:
            self._def_lines[name] = list(hits)
        return hits

    def grep_python(self, *options: str) -> str:
        """`git grep -z` over the working tree's Python files (tracked and untracked); `options` hold
        the output mode and the `-e` patterns. No match is an empty answer, not an error."""
        args = ("grep", "-z", "-I", "--untracked", "--no-color", *options, "--", *PY_PATHSPEC)
        return run_git(self.repo_root, *args, ok_codes=(0, 1))

    def class_header_rows(self) -> list[tuple[str, str]]:
        """(path, line) of every line of the Python files that starts a `class` statement: one grep of
        the working tree, or one pass over the files read at a revision (kept: they never change). The
        checks' class families ask for bases by name round after round; without this they read every
        file once per round (sympy's `Expr` family: 3 s)."""
        if self._source is None:
            output = self.grep_python("-E", "-e", r"^[[:space:]]*class[[:space:]]+[A-Za-z_]")
            return [
                (path, text)
                for path, _, text in (row.partition("\0") for row in output.split("\n"))
                if path and text
            ]
        with self._lock:
            known = self._class_lines
        if known is not None:
            return known
        rows: list[tuple[str, str]] = []
        for path in self.python_files():
            check_deadline()
            text = self._text(path)
            if text is not None and "class" in text:
                rows.extend((path, match.group(0).rstrip("\r")) for match in _CLASS_LINE.finditer(text))
        with self._lock:
            self._class_lines = rows
        return rows

    def def_lines(self, name: str) -> list[tuple[str, int]]:
        """(path, line) of `def name` / `class name` statements anywhere in the Python files."""
        pattern = rf"^\s*(async\s+def|def|class)\s+{re.escape(name)}\b"
        if self._source is not None:
            with self._lock:
                self._def_lookups += 1
                many = self._def_lookups > _DEF_LOOKUPS_BEFORE_INDEX
            if many and _IDENTIFIER.fullmatch(name):
                return list(self._definitions_by_name().get(name, ()))
            return self._def_lines_read(name)
        output = self.grep_python("-n", "-E", "-e", pattern)
        listed = set(self.python_files()) if self._listing is not None else None
        results: list[tuple[str, int]] = []
        for line in output.splitlines():
            parts = line.split("\0")
            if len(parts) >= 3 and parts[1].isdigit() and (listed is None or parts[0] in listed):
                results.append((parts[0], int(parts[1])))
        return results


_EXCLUDED_DIRS = frozenset(p.split("/")[1] for p in PY_PATHSPEC if p.startswith(":(exclude"))


def _excluded(path: str) -> bool:
    """Whether a listed path is in a directory PY_PATHSPEC leaves out (environments, caches)."""
    return any(part in _EXCLUDED_DIRS for part in path.split("/")[:-1])


def _inside(root: str, full: str) -> bool:
    real = os.path.realpath(full)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)
