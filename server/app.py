"""Handler wiring for the language server; review logic lives in `analysis`."""

from __future__ import annotations

from pygls.lsp.server import LanguageServer

from analysis import __version__


def build_server() -> LanguageServer:
    return LanguageServer("prscope", __version__)
