"""Text helpers shared by the parsers: LSP-compatible line splitting and reading."""

from __future__ import annotations

import bisect
import errno
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

# LSP knows exactly three line terminators; str.splitlines() knows eight.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

# Reads are bounded: a SKILL.md or agent file larger than this is skipped with
# a diagnostic instead of being loaded whole.
MAX_FILE_BYTES = 8 * 1024 * 1024


def split_lines(text: str) -> list[str]:
    """Lines without their terminators; a trailing terminator yields a last empty line."""
    if "\r" not in text:
        return text.split("\n")  # the common case, several times faster than the pattern
    return _LINE_BREAK.split(text)


class Decoded(str):
    """A file's text that is not what a UTF-8 reader gets from its bytes: problem says where
    (an index into the text) and why. Plain str for every file that is valid UTF-8."""

    problem: tuple[int, str]


def decode(data: bytes) -> str:
    """Decode file bytes the way editors do: UTF-8 (BOM dropped), invalid bytes replaced.

    UTF-16 files carry a BOM that says so; everything else is read as UTF-8. Either way, a file
    that is not valid UTF-8 comes back as a Decoded naming its first bad byte (rule SK116).
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")
        return with_problem(text, 0, "the file is UTF-16 (it starts with a UTF-16 byte order mark)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", errors="replace")
        where = len(data[: error.start].decode("utf-8"))  # the replacement characters start here
        bad = data[error.start]
        text = text[1:] if text.startswith("\ufeff") else text
        return with_problem(text, max(where - (1 if data.startswith(b"\xef\xbb\xbf") else 0), 0),
                        f"byte 0x{bad:02X} (at byte {error.start}) is not valid UTF-8")
    return text[1:] if text.startswith("\ufeff") else text


def with_problem(text: str, index: int, reason: str) -> Decoded:
    """text, marked as read from bytes that are not valid UTF-8 (see Decoded)."""
    decoded = Decoded(text)
    decoded.problem = (index, reason)
    return decoded


def decoded_problem(text: str) -> tuple[int, str] | None:
    """Decoded.problem, or None for a text that was valid UTF-8."""
    return text.problem if isinstance(text, Decoded) else None


def encoding_problem(text: str) -> tuple[int, int, str] | None:
    """Where (line, column) and why text, read from a file, is not valid UTF-8 (see decode); None
    when it is."""
    if not isinstance(text, Decoded):
        return None
    index, reason = text.problem
    line_start = 0
    line = 0
    for match in _LINE_BREAK.finditer(text, 0, index):
        line += 1
        line_start = match.end()
    return line, index - line_start, reason


_TOO_LARGE = " is larger than {} MB; not analysed"


class FileTooLarge(Exception):
    """Over the read limit; str() is the reason shown to the user (see is_too_large)."""

    def __init__(self, name: str, limit: int = MAX_FILE_BYTES) -> None:
        super().__init__(name + _TOO_LARGE.format(limit // (1024 * 1024)))


def unreadable_reason(error: OSError | FileTooLarge) -> str:
    """Why a file or directory was skipped, as the CLI and the server's log say it."""
    if isinstance(error, FileTooLarge):
        return str(error)
    return f"cannot be read: {error.strerror or error}"


def is_too_large(reason: str) -> bool:
    """Whether an unreadable file's reason (Model.unreadable) is FileTooLarge's."""
    return reason.endswith(_TOO_LARGE.format(MAX_FILE_BYTES // (1024 * 1024)))


def check_size(text: str, name: str, limit: int = MAX_FILE_BYTES) -> str:
    """text, unless its UTF-8 form is over limit (an editor buffer is bounded like a file on disk)."""
    if len(text) > limit or (len(text) > limit // 4 and len(text.encode("utf-8", "surrogatepass")) > limit):
        raise FileTooLarge(name, limit)
    return text


# read_text's open: non-blocking (a FIFO never hangs it), binary on Windows, not inherited by children
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def read_text(path: Path | str, limit: int = MAX_FILE_BYTES) -> str:
    """Read a file for analysis; raises OSError or FileTooLarge.

    Every file skill-lsp analyses is read here: at most limit + 1 bytes, and only a regular
    file (opened non-blocking, so a FIFO or a device named SKILL.md never hangs the reader).
    """
    descriptor = os.open(path, _READ_FLAGS)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        # plain os.read calls sized by fstat: a buffered read(limit + 1) would allocate the
        # whole limit for every file; the loop covers a file that grows while it is read
        wanted = min(status.st_size, limit) + 1
        data = os.read(descriptor, wanted)
        total = len(data)
        if not (total < wanted and total >= status.st_size):  # not all of it, as of the fstat, at once
            parts = [data]
            wanted = limit + 1 - total
            while data and total <= limit:
                data = os.read(descriptor, wanted)
                if not data:
                    break
                parts.append(data)
                total += len(data)
                if len(data) < wanted and total >= status.st_size:
                    break  # all of it, as of the fstat: no read just to see the end
                wanted = limit + 1 - total
            data = b"".join(parts)
    finally:
        os.close(descriptor)
    if total > limit:
        raise FileTooLarge(path.name if isinstance(path, Path) else os.path.basename(path), limit)
    return decode(data)


def covered_by(spans: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether an offset lies in one of spans (half-open, possibly nested), by bisection: a line can
    hold 100,000 of them."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = [start for start, _ in merged]

    def covered(offset: int) -> bool:
        index = bisect.bisect_right(starts, offset) - 1
        return index >= 0 and offset < merged[index][1]

    return covered
