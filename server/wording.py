"""Messages in the editor's words: the engine's messages name command-line flags, which an editor user
never types. Each phrase is replaced by what to do in the editor instead."""

from __future__ import annotations

_EDITOR_WORDS = (
    ("review with --staged or --uncommitted", "review staged or uncommitted changes"),
    ("pass a --base that HEAD was branched from", "choose a base branch that HEAD was branched from"),
    ("pass --base REF", "choose the base branch in the prscope settings (base)"),
    ("--offline: deterministic checks only", "offline setting: deterministic checks only"),
    (
        "set ANTHROPIC_API_KEY, or use --provider openai --base-url URL",
        "set ANTHROPIC_API_KEY in the language server's environment, or set the model provider to openai "
        "with a base URL in the prscope settings",
    ),
    ("a model review was required (--require-model) but", "a model review was required but"),
    (
        "(--no-cache reviews again)",
        '("Review Pull Request (No Cache)", or noCache in the request, reviews again)',
    ),
)


def editor_words(message: str) -> str:
    for cli, editor in _EDITOR_WORDS:
        message = message.replace(cli, editor)
    return message
