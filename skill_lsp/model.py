"""The core's own small types: spans, findings and the edits that fix them.

Lines and columns are 0-based and count Unicode code points; protocol shells
convert them (the CLI to 1-based, the server through the document's position
codec).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple


class Severity(enum.IntEnum):
    """Ordered like LSP's DiagnosticSeverity (1 is the most severe)."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        key = text.strip().upper()
        aliases = {"E": "ERROR", "W": "WARNING", "I": "INFORMATION", "INFO": "INFORMATION", "H": "HINT"}
        return cls[aliases.get(key, key)]


class Profile(str, enum.Enum):
    AGENTDECK = "agentdeck"
    CLAUDE = "claude"
    SPEC = "spec"


# Positions and spans are named tuples: immutable, ordered and hashable like frozen
# dataclasses, and several times cheaper to create (tens of thousands per parse).
class Position(NamedTuple):
    line: int
    column: int


class Span(NamedTuple):
    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, column: int, end_line: int, end_column: int) -> Span:
        return cls(Position(line, column), Position(end_line, end_column))

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        return cls(Position(line, column), Position(line, column))

    def contains(self, line: int, column: int) -> bool:
        return self.start <= Position(line, column) <= self.end


@dataclass(frozen=True)
class TextEdit:
    path: Path
    span: Span
    new_text: str


@dataclass(frozen=True)
class RenamePath:
    """Rename a file or directory (for a skill directory: the whole folder)."""

    old: Path
    new: Path


@dataclass(frozen=True)
class CreateFile:
    path: Path
    content: str


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[TextEdit, ...] = ()
    renames: tuple[RenamePath, ...] = ()
    creates: tuple[CreateFile, ...] = ()
    preferred: bool = False
    # where the user's cursor goes once the fix is applied (a file it creates, at what they must fill in)
    focus: tuple[Path, Position] | None = None


@dataclass(frozen=True)
class Related:
    path: Path
    span: Span
    message: str


@dataclass
class Finding:
    code: str
    severity: Severity
    path: Path
    span: Span
    message: str
    related: list[Related] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)
    # What a quick fix or a hover needs without re-deriving it: the expected
    # name, the closest known names, the unknown key ...
    data: dict[str, object] = field(default_factory=dict)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (str(self.path), self.span.start.line, self.span.start.column, self.code, self.message)

    def shown_message(self, base: Path) -> str:
        """The message with each path it names (data["paths"]: the rules write them absolute) relative to base:
        the current directory on the command line, as the path:line:col in front of it; the workspace folder
        in an editor, as its explorer shows paths. base itself is its name ("resolved against proj/")."""
        paths = self.data.get("paths")
        if not isinstance(paths, list) or not paths:
            return self.message
        message = self.message
        # the longest first: a root's path is the start of its skills' paths
        for raw in sorted({str(path) for path in paths}, key=len, reverse=True):
            message = re.sub(rf"{re.escape(raw)}(?![\w.-])", relative_text(Path(raw), base).replace("\\", "\\\\"), message)
        return message


def relative_text(path: Path, base: Path) -> str:
    """path relative to base, in forward slashes; base itself by its name; absolute outside base."""
    if path == base:
        return base.name or str(base)
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)
