"""Text helpers shared by the parsers: LSP-compatible line splitting and reading."""

from __future__ import annotations

import re
from pathlib import Path

# LSP knows exactly three line terminators; str.splitlines() knows eight.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

# Reads are bounded: a SKILL.md or agent file larger than this is skipped with
# a diagnostic instead of being loaded whole.
MAX_FILE_BYTES = 8 * 1024 * 1024


def split_lines(text: str) -> list[str]:
    """Lines without their terminators; a trailing terminator yields a last empty line."""
    return _LINE_BREAK.split(text)


def decode(data: bytes) -> str:
    """Decode file bytes the way editors do: UTF-8 (BOM dropped), invalid bytes replaced.

    UTF-16 files carry a BOM that says so; everything else is read as UTF-8.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    text = data.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


class FileTooLarge(Exception):
    pass


def read_text(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """Read a file for analysis; raises OSError or FileTooLarge."""
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(f"{path.name} is larger than {limit // (1024 * 1024)} MB; not analysed")
    return decode(data)
