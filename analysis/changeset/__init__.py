"""What a pull request changes: load it from git, map its lines, render it, fit it to a token budget.

    cs = load_changeset(repo, DiffSpec(mode="branch"))      # RepositoryError: one line, on bad input
    selection = select_for_budget(cs, 60_000)               # .included copies, .omitted with reasons
    prompt = render_for_model(cs, selection.included)
    print(render_summary(cs))

A ChangeSet reads file text lazily through one `git cat-file --batch` process (thread-safe); call
`cs.close()` (or use it as a context manager) to stop it early, and `cs.prefetch_paths(paths)` to read
many files in one git call before a code index walks them.
"""

from prscope.analysis.changeset.budget import BudgetSelection, classify, estimate_tokens, select_for_budget
from prscope.analysis.changeset.loader import load_changeset
from prscope.analysis.changeset.model import (
    ChangeSet,
    DiffLine,
    DiffSpec,
    FileChange,
    FileStatus,
    Hunk,
    language_for_path,
)
from prscope.analysis.changeset.render import files_summary, render_for_model, render_summary

__all__ = [
    "BudgetSelection",
    "ChangeSet",
    "DiffLine",
    "DiffSpec",
    "FileChange",
    "FileStatus",
    "Hunk",
    "classify",
    "estimate_tokens",
    "files_summary",
    "language_for_path",
    "load_changeset",
    "render_for_model",
    "render_summary",
    "select_for_budget",
]
