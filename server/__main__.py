"""`prscope-server` / `python -m prscope.server`: the language server over stdio."""

from __future__ import annotations

import logging
import sys


def main() -> int:
    # The protocol owns the real stdout; anything printed by mistake goes to stderr instead.
    protocol_stdout = sys.stdout.buffer
    sys.stdout = sys.stderr
    # The server log (editors keep the server's stderr): one line per record, level first, so a user
    # error reads as one WARNING line and only a real crash carries a traceback.
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    from prscope.server.app import build_server

    build_server().start_io(stdin=sys.stdin.buffer, stdout=protocol_stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
