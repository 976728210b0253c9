"""File bytes to text the way Python reads source: a BOM or a PEP 263 coding line decides the encoding.

Only `.py`/`.pyi` files have a declared encoding; everything else is read as UTF-8. Bytes that do not
decode are replaced (the text is still shown), and `undecodable` says so, so the checks can skip the file
instead of judging text Python would never read.
"""

from __future__ import annotations

import codecs
import io
import tokenize

_UTF8_BOM = codecs.BOM_UTF8
_PYTHON_SUFFIXES = (".py", ".pyi")


def source_encoding(data: bytes, path: str) -> str:
    """The encoding Python uses for this file (utf-8 unless a BOM or coding line says otherwise)."""
    if not path.endswith(_PYTHON_SUFFIXES):
        return "utf-8-sig" if data.startswith(_UTF8_BOM) else "utf-8"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except (SyntaxError, LookupError):
        return "utf-8"  # an unknown or contradictory coding line: Python refuses it; read as UTF-8
    return encoding


def decode_source(data: bytes, path: str) -> str:
    """The text of a file, in its declared encoding; undecodable bytes become U+FFFD."""
    encoding = source_encoding(data, path)
    try:
        return data.decode(encoding, "replace")
    except LookupError:
        return data.decode("utf-8", "replace")


def undecodable(data: bytes, path: str) -> str | None:
    """Why Python could not read the file's bytes as text (e.g. "not valid latin-1"), or None."""
    encoding = source_encoding(data, path)
    try:
        data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        name = encoding.removesuffix("-sig")
        return f"not valid {'UTF-8' if name == 'utf-8' else name}"
    return None
