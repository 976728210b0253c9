"""Messages in the editor's words: the engine's messages name command-line flags, which an editor user
never types. Each phrase is replaced by what to do in the editor instead; where the client has a command
for it (it names its commands in the `commands` initialization option), the message names that command,
which the client may also offer as a button."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class EditorCommands(BaseModel):
    """The titles of the client's own commands that messages may point to (None: the client has none)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)

    store_key: str | None = None
    """The command that stores the model API key for the server (VS Code: "prscope: Set API Key")."""
    review_afresh: str | None = None
    """The command that reviews again without the stored model review (a request with `noCache`)."""


NO_KEY_CLI = "set ANTHROPIC_API_KEY, or use --provider openai --base-url URL"
NOT_A_WORK_TREE = re.compile(r"^(?:prscope: )?(?P<path>.+) is not inside a git work tree$")
PREFIX = "prscope: "

_EDITOR_WORDS = (
    ("review with --staged or --uncommitted", "review staged or uncommitted changes"),
    ("pass a --base that HEAD was branched from", "choose a base branch that HEAD was branched from"),
    ("pass --base REF", "choose the base branch in the prscope settings (base)"),
    ("--offline: deterministic checks only", "offline setting: deterministic checks only"),
    ("a model review was required (--require-model) but", "a model review was required but"),
)


def editor_words(message: str, commands: EditorCommands | None = None) -> str:
    commands = commands or EditorCommands()
    for cli, editor in _EDITOR_WORDS:
        message = message.replace(cli, editor)
    hint = _store_key_hint(commands)
    message = message.replace(
        f"{NO_KEY_CLI}, for a model review", f"{hint}{'' if commands.store_key else ','} for a model review"
    )
    message = message.replace(NO_KEY_CLI, hint)
    message = message.replace("(--no-cache reviews again)", _review_afresh_hint(commands))
    return message


def user_error(message: str, commands: EditorCommands | None = None) -> str:
    """A user error as the editor shows it: in its words, starting with "prscope: ", and with what to do
    when the engine's message only says what is wrong."""
    message = editor_words(message.strip(), commands)
    outside = NOT_A_WORK_TREE.match(message)
    if outside is not None:
        message = (
            f"{outside['path']} is not inside a git work tree: open a folder inside a git repository "
            "(File > Open Folder), or run git init there"
        )
    return message if message.startswith(PREFIX) else PREFIX + message


def _store_key_hint(commands: EditorCommands) -> str:
    if commands.store_key:
        return f'run "{commands.store_key}"'
    return (
        "set ANTHROPIC_API_KEY in the language server's environment, or set the model provider to openai "
        "with a base URL in the prscope settings"
    )


def _review_afresh_hint(commands: EditorCommands) -> str:
    if commands.review_afresh:
        return f'("{commands.review_afresh}" reviews again)'
    return "(a review request with noCache reviews again)"
