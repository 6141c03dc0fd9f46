"""Which paths a walk leaves out (the exclude patterns of the settings) and which excluded paths it keeps all the same (files named explicitly, with the directories on the way to them)."""

from __future__ import annotations

import fnmatch
from pathlib import Path

from .pathtext import within


class _Keeping(tuple[str, ...]):
    """Exclude patterns with the paths a walk keeps all the same (see kept_from_exclusion)."""

    keep: tuple[str, ...] = ()

    def __new__(cls, patterns: tuple[str, ...], keep: tuple[str, ...]) -> _Keeping:
        made = super().__new__(cls, patterns)
        made.keep = keep
        return made


def keeping(patterns: tuple[str, ...], keep: tuple[str, ...]) -> tuple[str, ...]:
    """The exclude patterns of a walk that keeps the paths keep all the same."""
    return _Keeping(patterns, keep) if keep else patterns


def excluded(path: Path, folder: Path, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    if isinstance(patterns, _Keeping):
        text = str(path)
        if any(within(text, kept) or within(kept, text) for kept in patterns.keep):
            return False  # a kept path, or a directory on the way to one
    try:
        relative = path.relative_to(folder).as_posix()
    except ValueError:
        return False
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern):
            return True
        if fnmatch.fnmatch(relative, pattern + "/*") or relative.startswith(pattern + "/"):
            return True
    return False


def kept_from_exclusion(folder: Path, patterns: tuple[str, ...], named: list[Path]) -> tuple[str, ...]:
    """The excluded parts of folder that hold files named explicitly (on the command line, open in the
    editor): the top-most excluded directory above each (or the file itself when only a file pattern
    covers it). A walk keeps them, so a file named is checked with the roots and agents around it, as
    ruff checks a file named on its command line."""
    if not patterns:
        return ()
    kept: set[str] = set()
    for path in named:
        if not within(path, folder) or path == folder:
            continue
        top: Path | None = None
        current = path
        while current != folder and within(current, folder):
            if excluded(current, folder, patterns):
                top = current
            current = current.parent
        if top is not None:
            kept.add(str(top))
    return tuple(sorted(kept))
