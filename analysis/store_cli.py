"""`prscope history`, `prscope show RUN` and `prscope dismiss`: the run store from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prscope.analysis.errors import ConfigError
from prscope.analysis.printable import keep_lines, one_line
from prscope.analysis.store import Store, StoreUnavailable, open_store
from prscope.analysis.store.db import RunRow

RunDetail = tuple[RunRow, list[tuple[object, ...]], list[tuple[object, ...]]]
"""What `Store.run_detail` answers: the run, its agents' rows and its findings' rows."""


def main(command: str, argv: Sequence[str]) -> int:
    parser = _parser(command)
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as done:
        return int(done.code or 0)
    try:
        store = open_store(Path(args.path).resolve())
    except StoreUnavailable as err:
        raise ConfigError(str(err)) from None
    try:
        if command == "history":
            return _history(store)
        if command == "show":
            return _show(store, args.run, args.agent)
        return _dismiss(store, args)
    finally:
        store.close()


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"prscope {command}")
    if command == "show":
        parser.add_argument("run", help="a run id from `prscope history` (a unique prefix is enough)")
        parser.add_argument("--agent", metavar="ID", help="print that agent's transcript (ids from the tree)")
    if command == "dismiss":
        parser.add_argument("finding", nargs="?", help="the finding id (JSON `id`, SARIF fingerprint)")
        parser.add_argument("--reason", default="", help="why (kept with the dismissal)")
        parser.add_argument("--list", action="store_true", help="list the dismissals")
        parser.add_argument("--undo", metavar="ID", help="take a dismissal back")
    parser.add_argument("--path", default=".", help="a directory inside the repository (default: .)")
    return parser


def _history(store: Store) -> int:
    runs = store.runs()
    if not runs:
        print("no reviews recorded yet")
    for run in runs:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started_at))
        cost = f"  ${run.cost_usd:.2f}" if run.cost_usd is not None else ""
        head = (run.head or "")[:12]
        print(f"{run.id}  {when}  {run.mode:<11} {run.status:<11} {run.findings:>3} findings  {head}{cost}")
    return 0


def _show(store: Store, run_id: str, agent: str | None) -> int:
    detail = store.run_detail(run_id)
    if detail is None:
        raise ConfigError(f"no run {run_id!r} in this repository's history (see `prscope history`)")
    if agent is not None:
        return _print_transcript(store, detail[0].id, agent)
    for line in show_lines(detail):
        print(line)
    return 0


def show_lines(detail: RunDetail) -> list[str]:
    """A run as `prscope show RUN` prints it (the language server's `prscope.showRun` says the same)."""
    run, agents, findings = detail
    lines = [f"run {run.id}: {run.status}: {one_line(run.status_reason)}"]
    depth: dict[object, int] = {}
    for agent_id, parent_id, label, status, model, tool_calls, tokens, cost in agents:
        depth[agent_id] = depth.get(parent_id, -1) + 1 if parent_id else 0
        price = f", ${cost:.4f}" if cost is not None else ""
        lines.append(
            f"{'  ' * depth[agent_id]}{agent_id} ({one_line(str(label))}): {status}, {tool_calls} tool calls,"
            f" {tokens} tokens{price}, {model}"
        )
    for finding_id, severity, rule, path, line, title, source in findings:
        where = f"{one_line(str(path))}:{line}"
        lines.append(f"{severity:<7} {where} {rule} [{source}] {one_line(str(title))}  ({finding_id})")
    return lines


def _print_transcript(store: Store, run_id: str, agent: str) -> int:
    body = store.transcript(run_id, agent)
    if body is None:
        raise ConfigError(f"run {run_id} has no transcript for agent {agent!r} (see `prscope show {run_id}`)")
    for message in json.loads(body):
        for block in message.get("content", []):
            print(f"[{message.get('role', '?')}] {_block_text(block)}")
    return 0


def _block_text(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "tool_use":
        return f"tool call {block.get('name')} {json.dumps(block.get('input'), ensure_ascii=False)}"
    if kind == "tool_result":
        error = " (error)" if block.get("is_error") else ""
        return f"tool result{error}:\n{keep_lines(str(block.get('content', '')))}"
    return keep_lines(str(block.get("text", "")))


def _dismiss(store: Store, args: argparse.Namespace) -> int:
    if args.list:
        for dismissal in store.dismissals():
            when = time.strftime("%Y-%m-%d", time.localtime(dismissal.created_at))
            print(f"{dismissal.finding_id}  {when}  {one_line(dismissal.reason)}")
        return 0
    if args.undo:
        if not store.undo_dismissal(args.undo):
            raise ConfigError(f"{args.undo!r} is not dismissed (see `prscope dismiss --list`)")
        print(f"prscope: {args.undo} is no longer dismissed", file=sys.stderr)
        return 0
    if not args.finding:
        raise ConfigError("prscope dismiss needs a finding id, --list or --undo ID")
    store.dismiss(args.finding, args.reason)
    print(f"prscope: dismissed {args.finding}", file=sys.stderr)
    return 0
