"""The `prscope` command: `prscope review ...` and `prscope tool NAME ...`."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from prscope.analysis import __version__
from prscope.analysis.errors import PrscopeError

USAGE = """usage: prscope {review,tool} ...

  prscope review [PATH] [--base REF | --staged | --uncommitted | --commits A..B] [--format FMT] ...
  prscope tool NAME [--ARG VALUE ...] [--json]
  prscope history | prscope show RUN [--agent ID] | prscope dismiss ID [--reason TEXT] | --list | --undo ID
  prscope --version

Run 'prscope review --help' or 'prscope tool --help' for details."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print(USAGE)
        return 0 if args else 2
    if args[0] == "--version":
        print(f"prscope {__version__}")
        return 0
    command, rest = args[0], args[1:]
    try:
        if command == "review":
            from prscope.analysis.review_cli import main as review_main

            return review_main(rest)
        if command in ("history", "show", "dismiss"):
            from prscope.analysis.store_cli import main as store_main

            return store_main(command, rest)
        if command == "tool":
            from prscope.analysis.tools.cli import main as tool_main

            return tool_main(rest)
    except PrscopeError as err:
        print(f"prscope: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("prscope: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `prscope show RUN --agent main | head`: the reader has what it wanted
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    print(
        f"prscope: error: unknown command {command!r} (expected review, tool, history, show or dismiss)",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
