"""How sure a method access `<receiver>.name` is to reach a class of the family a check is about: the
receiver's type comes from the index's one resolver (`analysis/intel/meaning.py`); the grading is the
checks' (exact, probable, or none of ours).
"""

from __future__ import annotations

import asyncio
import re
import types
from typing import TYPE_CHECKING, Literal

from prscope.analysis.changeset.budget import in_vendored_folder
from prscope.analysis.checks.data_migrations import data_migration_spans, may_hand_to_run_python
from prscope.analysis.intel.infer import occurrence_type
from prscope.analysis.intel.meaning import ReceiverType
from prscope.analysis.intel.resolve import Value
from prscope.analysis.intel.scan import Occurrence

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView

Evidence = Literal["exact", "probable"]
_MAX_REACH = 64

# Method names that builtin and everyday stdlib objects also have: a call through an unknown receiver
# (`d.get(k)`, `s.replace(a, b)`) is far more likely to be one of those than the repository's method.
_COMMON_OBJECTS: tuple[type, ...] = (
    dict,
    list,
    str,
    bytes,
    bytearray,
    set,
    frozenset,
    tuple,
    int,
    float,
    object,
    type,  # a class object's own methods: pdoc's `self.cls.mro()` (`cls: type`)
    types.GeneratorType,
    types.CoroutineType,
    types.AsyncGeneratorType,
    # asyncio's everyday objects: aiormq e0dc5ce6's `await writer.drain()` on `open_connection`'s writer
    asyncio.StreamReader,
    asyncio.StreamWriter,
    asyncio.Future,
    asyncio.Task,
    asyncio.Queue,
    asyncio.Event,
    asyncio.Lock,
)
COMMON_METHOD_NAMES = frozenset(
    {name for kind in _COMMON_OBJECTS for name in dir(kind)}
    | {
        "read", "write", "close", "open", "flush", "seek", "readline", "readlines", "info", "debug",
        "warning", "error", "exception", "critical", "log", "run", "start", "stop", "join", "send", "recv",
        "put", "submit", "result", "cancel", "exists", "match", "search", "sub", "group", "groups", "get",
        "set", "add", "update", "remove", "delete", "execute", "fetchone", "fetchall", "commit", "parse",
        "load", "loads", "dump", "dumps", "render", "emit", "wait", "acquire", "release", "keys", "values",
        "items", "setdefault", "pop", "clear", "copy", "reset", "name", "value", "resolve", "mkdir",
        "unlink", "iterdir", "glob", "stat", "encode", "decode", "format", "strip", "split",
        # ORM querysets and array libraries (Django's `Model.objects.all()`, SQLAlchemy's `query.first()`,
        # NumPy's `mask.any()`): django-cacheops 9043262c drops its mixin's `all()`.
        "all", "any", "first", "one", "filter", "exclude", "order_by",
    }
)  # fmt: skip


# DataFrame / Series methods with names of their own (not `apply`, `sum`, `plot`: repositories' classes
# name methods so too), read as pandas' in files that import pandas.
PANDAS_METHOD_NAMES = frozenset(
    {
        "head", "tail", "iloc", "loc", "iterrows", "itertuples", "groupby", "sort_values", "sort_index",
        "reset_index", "set_index", "reindex", "dropna", "fillna", "drop_duplicates", "value_counts",
        "nunique", "isnull", "notnull", "isna", "notna", "to_frame", "to_csv", "to_dict", "applymap",
        "pivot_table", "melt", "unstack", "rolling", "resample", "idxmax", "idxmin", "nlargest",
        "nsmallest", "to_numpy", "to_parquet", "to_excel", "to_records",
    }
)  # fmt: skip
_IMPORTS_PANDAS = re.compile(r"^[ \t]*(?:import[ \t]+pandas\b|from[ \t]+pandas\b)", re.MULTILINE)


class Grader:
    """How sure a `<receiver>.name` read is to reach a method of one of `family`'s classes."""

    def __init__(
        self, view: RepoView, name: str, family: set[str], super_family: set[str], *, exact_only: bool = False
    ) -> None:
        self.view = view
        self.name = name
        self.family = {view.names.canonical(c) for c in family} | family
        self.super_family = {view.names.canonical(c) for c in super_family} | super_family
        self.exact_only = exact_only
        """Only exact sites are wanted: not even a receiver declared as a base class of the family."""
        self.skip_probable = exact_only or name in COMMON_METHOD_NAMES or name == "__init__"
        self._migration_spans: dict[str, list[tuple[int, int]]] = {}
        self._imports_pandas: dict[str, bool] = {}

    def grade(
        self, module: str, path: str, occurrence: Occurrence
    ) -> tuple[Evidence, bool, str | None] | None:
        assert occurrence.receiver is not None
        graded = self._graded(module, path, occurrence)
        if graded is not None and graded[0] == "probable" and in_vendored_folder(path):
            # Vendored third-party code (poetry-core's `_vendor/pyparsing`) never names the repository's
            # classes: a receiver of unknown type there is one of its own objects (a `re.Match`).
            return None
        if graded is not None and graded[0] == "probable" and self._in_data_migration(path, occurrence.line):
            return None  # a historical model of the migration's state (`data_migrations`), or Django's own
        if graded is not None and graded[0] == "probable" and self._pandas_method_in_pandas_code(path):
            return None
        return graded

    def _pandas_method_in_pandas_code(self, path: str) -> bool:
        """Whether the name is one of pandas' own DataFrame / Series methods and the file imports pandas: a
        receiver of unknown type there is far more likely a frame than the repository's object
        (featuretools f3577d0e8d drops `BaseEntity.head`; `df.head()`, `val_counts.head(top_n)`)."""
        if self.name not in PANDAS_METHOD_NAMES:
            return False
        if path not in self._imports_pandas:
            self._imports_pandas[path] = _IMPORTS_PANDAS.search(self.view.text(path) or "") is not None
        return self._imports_pandas[path]

    def _in_data_migration(self, path: str, line: int) -> bool:
        if path not in self._migration_spans:
            text = self.view.text(path) or ""
            tree = self.view.tree(path) if may_hand_to_run_python(text) else None
            self._migration_spans[path] = data_migration_spans(tree) if tree is not None else []
        return any(first <= line <= last for first, last in self._migration_spans[path])

    def _graded(
        self, module: str, path: str, occurrence: Occurrence
    ) -> tuple[Evidence, bool, str | None] | None:
        found = occurrence_type(self.view.names.resolver, module, path, occurrence, self.name)
        if found.kind == "super":
            assert found.owner is not None
            return ("exact", True, None) if str(found.owner) in self.super_family else None
        if found.kind == "self":
            assert found.owner is not None
            owner = str(found.owner)
            if owner in self.family:
                return "exact", True, owner
            reach = self._reach(found.owner)
            if reach == "yes":
                return "exact", True, owner
            return None if reach == "no" else self._probable(owner)
        return self._typed(found)

    def _reach(self, own: Value) -> Literal["yes", "no", "unknown"]:
        """Whether `self.name` in class `own` reaches the family: "yes" through its bases, "no" when the
        class or a repository base on the way defines `name` itself, "unknown" otherwise (a mixin that
        relies on the class it is mixed into, a base from outside the repository)."""
        resolver = self.view.names.resolver
        frontier = [own]
        seen = {own}
        defined = False
        for _step in range(_MAX_REACH):
            if not frontier:
                break
            cls = frontier.pop()
            facts = resolver.class_facts(cls)
            if facts is None:
                continue
            if self.name in (self.view.class_members(str(cls)) or facts.members):
                defined = True
                continue
            for base in facts.bases:
                for value in resolver.chain_values(cls.module, base, None) if base is not None else ():
                    if str(value) in self.family:
                        return "yes"
                    if value not in seen:
                        seen.add(value)
                        frontier.append(value)
        return "no" if defined else "unknown"

    def _probable(self, owner: str | None = None) -> tuple[Evidence, bool, str | None] | None:
        return None if self.skip_probable else ("probable", True, owner)

    def _typed(self, found: ReceiverType) -> tuple[Evidence, bool, str | None] | None:
        instances = {str(v) for v in found.instances}
        classes = {str(v) for v in found.classes}
        if instances & self.family:
            return "exact", True, None
        if classes & self.family:
            return "exact", False, None
        if instances & self.view.ancestors(self.family):
            # Declared as a base class of ours, it may hold one of ours, whatever the name: a common one
            # (`drain`) is no hint of some stdlib object here (aiormq e0dc5ce6's `AbstractConnection`)
            return None if self.exact_only else ("probable", True, None)
        if instances or classes or found.modules or found.foreign or found.opaque_call:
            # Something else, or an untyped call result (`current_app.jinja_env.get_template(n).module`).
            return None
        return self._probable()
