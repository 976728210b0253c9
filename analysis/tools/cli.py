"""`prscope tool NAME --ARG VALUE ... [--json] [--repo PATH]`: call one tool as the model would.

The flags are generated from the tool's pydantic argument model, and the arguments go through the same
ToolExecutor the agent uses, so what is printed is exactly what the model would read.
Exit codes: 0 the tool answered, 1 the tool answered with an error result, 2 usage or repository error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from prscope.analysis.errors import PrscopeError
from prscope.analysis.tools.base import Tool, ToolCall, ToolContext, ToolExecutor, ToolRegistry
from prscope.analysis.tools.registry import DIFF_TOOL_NAMES, default_registry, make_tool_context
from pydantic.fields import FieldInfo

if TYPE_CHECKING:
    from prscope.analysis.changeset import ChangeSet

USAGE = "prscope tool NAME [--ARG VALUE ...] [--json] [--repo PATH]\n       prscope tool --list"


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    registry = default_registry()
    if not args:
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    if args[0] in ("-h", "--help"):
        print(
            f"usage: {USAGE}\n\n{_tool_list(registry)}\n\nRun 'prscope tool NAME --help' for its arguments."
        )
        return 0
    if args[0] == "--list":
        print(_tool_list(registry))
        return 0
    tool = registry.get(args[0])
    if tool is None:
        print(
            f"prscope tool: error: unknown tool {args[0]!r} (available: {', '.join(registry.names())})",
            file=sys.stderr,
        )
        return 2
    try:
        return _run_tool(registry, tool, args[1:])
    except PrscopeError as err:
        print(f"prscope: error: {err}", file=sys.stderr)
        return err.exit_code


def _tool_list(registry: ToolRegistry) -> str:
    width = max(len(name) for name in registry.names())
    rows = []
    for spec in registry.specs():
        first_sentence = spec.description.split(". ")[0].rstrip(".")
        rows.append(f"  {spec.name:<{width}}  {first_sentence}")
    return "tools:\n" + "\n".join(rows)


def _run_tool(registry: ToolRegistry, tool: Tool[Any], argv: list[str]) -> int:
    parser = build_parser(tool)
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    common = {"json", "repo", "allow_secret_files", "base", "staged", "uncommitted", "commits"}
    arguments = {k: v for k, v in vars(options).items() if k not in common}
    ctx = _context(tool, options)
    try:
        result = asyncio.run(ToolExecutor(registry, ctx).execute(ToolCall("cli", tool.name, arguments)))
    finally:
        _close_changeset(ctx)
    if options.json:
        payload = {
            "tool": tool.name,
            "arguments": arguments,
            "is_error": result.is_error,
            "content": result.content,
        }
        _emit(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        _emit(result.content)
    return 1 if result.is_error else 0


def _emit(text: str) -> None:
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader (`| head`) went away: nothing more to say, and no traceback at exit either
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _context(tool: Tool[Any], options: argparse.Namespace) -> ToolContext:
    repo = Path(options.repo).expanduser()
    changeset = _load_changeset(repo, options) if tool.name in DIFF_TOOL_NAMES else None
    return make_tool_context(repo, changeset=changeset, allow_secret_files=options.allow_secret_files)


def _load_changeset(repo: Path, options: argparse.Namespace) -> ChangeSet:
    from prscope.analysis.changeset import DiffSpec, load_changeset

    if options.staged:
        spec = DiffSpec(mode="staged")
    elif options.uncommitted:
        spec = DiffSpec(mode="uncommitted")
    elif options.commits:
        spec = DiffSpec(mode="commits", commits=options.commits)
    else:
        spec = DiffSpec(mode="branch", base=options.base)
    return load_changeset(repo, spec)


def _close_changeset(ctx: ToolContext) -> None:
    close = getattr(ctx.extras.get("changeset"), "close", None)
    if callable(close):
        close()


def build_parser(tool: Tool[Any]) -> argparse.ArgumentParser:
    """An argparse parser whose flags mirror the tool's argument model (defaults left to the model)."""
    parser = argparse.ArgumentParser(
        prog=f"prscope tool {tool.name}",
        description=tool.description,
        argument_default=argparse.SUPPRESS,
    )
    arguments = parser.add_argument_group("tool arguments")
    for name, field in tool.args_model.model_fields.items():
        _add_field(arguments, name, field)
    common = parser.add_argument_group("options")
    common.add_argument("--json", action="store_true", default=False, help="print a JSON object instead")
    common.add_argument("--repo", default=".", metavar="PATH", help="repository (default: current directory)")
    common.add_argument(
        "--allow-secret-files",
        action="store_true",
        default=False,
        help="let the tool read secret-looking files (.env, keys, credentials)",
    )
    if tool.name in DIFF_TOOL_NAMES:
        change = common.add_mutually_exclusive_group()
        change.add_argument("--base", default=None, metavar="REF", help="compare the branch with REF")
        change.add_argument("--staged", action="store_true", default=False, help="the staged change")
        change.add_argument(
            "--uncommitted", action="store_true", default=False, help="all uncommitted changes"
        )
        change.add_argument("--commits", default=None, metavar="A..B", help="a commit range")
    else:
        parser.set_defaults(base=None, staged=False, uncommitted=False, commits=None)
    return parser


def _add_field(group: argparse._ArgumentGroup, name: str, field: FieldInfo) -> None:
    annotation = _strip_optional(field.annotation)
    flags = [f"--{name.replace('_', '-')}"]
    if "_" in name and annotation is not bool:
        flags.append(f"--{name}")  # the spelling the model uses works too
    help_text = field.description or ""
    if not field.is_required():
        help_text += f" (default: {field.get_default()!r})"
    kwargs: dict[str, Any] = {"dest": name, "help": help_text, "required": field.is_required()}
    if annotation is bool:
        kwargs["action"] = argparse.BooleanOptionalAction
    elif get_origin(annotation) is Literal:
        choices = list(get_args(annotation))
        kwargs.update(choices=choices, type=type(choices[0]), metavar="{" + ",".join(map(str, choices)) + "}")
    elif get_origin(annotation) in (list, tuple, set):
        item = (get_args(annotation) or (str,))[0]
        kwargs.update(nargs="+", type=item if item in (int, float, str) else str, metavar="VALUE")
    elif annotation in (int, float):
        kwargs.update(type=annotation, metavar=annotation.__name__.upper())
    else:
        kwargs.update(type=str, metavar="TEXT")
    group.add_argument(*flags, **kwargs)


def _strip_optional(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation
