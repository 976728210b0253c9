"""`prscope-server` / `python -m server`: the language server over stdio."""

from __future__ import annotations

import sys


def main() -> int:
    # The protocol owns the real stdout; anything printed by mistake goes to stderr instead.
    protocol_stdout = sys.stdout.buffer
    sys.stdout = sys.stderr
    from server.app import build_server

    build_server().start_io(stdin=sys.stdin.buffer, stdout=protocol_stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
