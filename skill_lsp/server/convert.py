"""Core spans and findings <-> LSP types, through the negotiated position encoding."""

from __future__ import annotations

import bisect
import os
import re
from array import array
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlparse

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace.position_codec import PositionCodec

from ..catalogue import BY_CODE
from ..model import Finding, Fix, Position, Severity, Span
from ..textutil import split_lines

SOURCE = "skill-lsp"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def uri_of(path: Path) -> str:
    try:
        return from_fs_path(str(path)) or path.as_uri()
    except UnicodeEncodeError:
        # a file name that is not UTF-8 (its bytes kept as surrogates, os.fsdecode's): its bytes
        # percent-encoded, as editors name it (pygls encodes the text as UTF-8, and fails)
        return path.as_uri()


def path_of(uri: str) -> Path | None:
    """The file system path of a file: URI; None for other schemes."""
    if not uri.startswith("file:"):
        return None
    fs_path = to_fs_path(uri)
    if not fs_path or "\x00" in fs_path:  # file:///a%00b names no file the OS can open
        return None
    if "\ufffd" in fs_path and os.name == "posix":
        # percent-encoded bytes that are not UTF-8 (pygls decoded them to U+FFFD): the file system's
        # own bytes, as os.fsdecode keeps them
        raw = urlparse(uri)
        if not raw.netloc:
            fs_path = os.fsdecode(unquote_to_bytes(raw.path))
    return Path(os.path.abspath(fs_path))


# The characters that take more than one code unit: outside the BMP in UTF-16, outside ASCII in UTF-8.
WIDE = {
    "utf-16": re.compile("[\U00010000-\U0010ffff]"),
    "utf-8": re.compile("[^\x00-\x7f]"),
}


def encoding_name(codec: PositionCodec) -> str:
    """The negotiated encoding's name: utf-8, utf-16 (LSP's default) or utf-32."""
    encoding = codec.encoding
    name = str(getattr(encoding, "value", encoding or "utf-16"))
    return name if name in ("utf-8", "utf-32") else "utf-16"


def _extra_units(char: str, encoding: str) -> int:
    """Code units of char beyond the first (char is one WIDE matched)."""
    if encoding == "utf-16":
        return 1
    point = ord(char)
    return 1 if point < 0x800 else 2 if point < 0x10000 else 3


class _LineUnits:
    """Code points <-> code units on one line, in O(log n): the columns where a character takes more
    than one unit, and the units added before each. Built once per line, so converting thousands of
    positions on one long line (5,000 names listed on it) stays linear in the line."""

    def __init__(self, line: str, encoding: str) -> None:
        self.length = len(line)
        self.columns = array("q")
        self.added = array("q", [0])
        total = 0
        for match in WIDE[encoding].finditer(line):
            self.columns.append(match.start())
            total += _extra_units(match.group(), encoding)
            self.added.append(total)

    def units(self, column: int) -> int:
        """The code units before column."""
        column = min(column, self.length)
        return column + self.added[bisect.bisect_left(self.columns, column)]

    def column(self, units: int) -> int:
        """The first column with at least units code units before it (a position inside a character
        moves past it), or the line's length."""
        low, high = 0, self.length
        while low < high:
            middle = (low + high) // 2
            if self.units(middle) >= units:
                high = middle
            else:
                low = middle + 1
        return low


class Lines:
    """A document's lines, split the LSP way, for converting columns."""

    def __init__(self, text: str, lines: Sequence[str] | None = None) -> None:
        """text's lines; lines, when given, are text split already (a SKILL.md's parse holds them:
        splitting a 7 MB buffer again costs 20 ms an edit)."""
        self.lines: Sequence[str] = split_lines(text) if lines is None else lines
        # (encoding, line) -> its units, or None for a line whose units are its code points
        self._units: dict[tuple[str, int], _LineUnits | None] = {}
        # the codec last asked for, and its encoding's name (thousands of positions in one answer)
        self._codec: tuple[PositionCodec | None, str] = (None, "")

    def _line_units(self, codec: PositionCodec, row: int) -> _LineUnits | None:
        known, encoding = self._codec
        if known is not codec:
            encoding = encoding_name(codec)
            self._codec = (codec, encoding)
        if encoding == "utf-32":
            return None
        key = (encoding, row)
        if key not in self._units:
            line = self.lines[row]
            self._units[key] = None if line.isascii() else _LineUnits(line, encoding)
        return self._units[key]

    def _client_units(self, codec: PositionCodec, position: Position) -> tuple[int, int]:
        row, column = position.line, position.column
        if row >= len(self.lines):
            row = len(self.lines) - 1
            column = len(self.lines[row])
        units = self._line_units(codec, row)
        column = min(column, len(self.lines[row]))
        return row, column if units is None else units.units(column)

    def to_client(self, codec: PositionCodec, position: Position) -> types.Position:
        row, character = self._client_units(codec, position)
        return types.Position(line=row, character=character)

    def range(self, codec: PositionCodec, span: Span) -> types.Range:
        return types.Range(start=self.to_client(codec, span.start), end=self.to_client(codec, span.end))

    def range_json(self, codec: PositionCodec, span: Span) -> dict[str, dict[str, int]]:
        """range(), as the JSON of the answer (an outline of thousands of headings is built as JSON:
        making and converting the protocol's objects took 0.24 s for 5,000)."""
        start_line, start = self._client_units(codec, span.start)
        end_line, end = self._client_units(codec, span.end)
        return {"start": {"line": start_line, "character": start}, "end": {"line": end_line, "character": end}}

    def from_client(self, codec: PositionCodec, position: types.Position) -> Position:
        """Client units -> code points, clamped to the document."""
        if position.line >= len(self.lines):
            last = len(self.lines) - 1
            return Position(last, len(self.lines[last]))
        row = max(position.line, 0)
        line = self.lines[row]
        wanted = max(position.character, 0)
        units = self._line_units(codec, row)
        return Position(row, min(wanted, len(line)) if units is None else units.column(wanted))


# An empty string in skills=[...] is what every name is the moment its quotes are typed (editors close
# the pair at once). In the editor it is a hint that asks for the name, not an error flashing under the
# cursor; `check` keeps the rule's own severity: the Claude Agent SDK does reject an empty name at run
# time (CL101) and AgentDeck resolves none (AD101), so a saved empty name still fails in CI.
_EMPTY_NAME = re.compile(r"""[rRuU]?(""|'')""")
_WHILE_TYPING = ("AD101", "CL101")
EMPTY_NAME_MESSAGE = ("no skill name yet: type one (completion lists the skills this agent can load); "
                      "`skill-lsp check` reports an empty name as an error")


def _empty_name(finding: Finding, lines: Lines) -> bool:
    span = finding.span
    if finding.code not in _WHILE_TYPING or span.start.line != span.end.line or span.start.line >= len(lines.lines):
        return False
    return _EMPTY_NAME.fullmatch(lines.lines[span.start.line][span.start.column:span.end.column]) is not None


def diagnostic(finding: Finding, lines: Lines, codec: PositionCodec, related_lines: dict[Path, Lines],
               base: Path | None = None) -> types.Diagnostic:
    """base: the workspace folder of the file, which the paths of the message are shown relative to."""
    rule = BY_CODE[finding.code]
    if _empty_name(finding, lines):
        return types.Diagnostic(range=lines.range(codec, finding.span), message=EMPTY_NAME_MESSAGE,
                                severity=types.DiagnosticSeverity.Hint, code=finding.code, source=SOURCE,
                                data={"name": rule.name, "fixes": 0})
    related = []
    for item in finding.related:
        other = related_lines.get(item.path)
        if other is None:
            continue
        related.append(types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri_of(item.path), range=other.range(codec, item.span)),
            message=item.message,
        ))
    tags = None
    if finding.code == "SK303":
        tags = [types.DiagnosticTag.Unnecessary]
    return types.Diagnostic(
        range=lines.range(codec, finding.span),
        message=finding.shown_message(base) if base is not None else finding.message,
        severity=_SEVERITY[finding.severity],
        code=finding.code,
        code_description=None,
        source=SOURCE,
        related_information=related or None,
        tags=tags,
        data={"name": rule.name, "fixes": len(finding.fixes)},
    )


def workspace_edit(
    fix: Fix,
    lines_of: dict[Path, Lines],
    codec: PositionCodec,
    versions: dict[Path, int],
    resource_operations: bool,
    document_changes: bool = True,
    uris: dict[Path, str] | None = None,
) -> types.WorkspaceEdit | None:
    """A Fix as a WorkspaceEdit; None when it needs file operations the client cannot do. uris: the URI an
    edited file is open by where it is not its path's (opened through a symlinked directory)."""
    def uri(path: Path) -> str:
        return (uris or {}).get(path) or uri_of(path)

    by_file: dict[Path, list[types.TextEdit]] = {}
    for edit in fix.edits:
        lines = lines_of.get(edit.path)
        if lines is None:
            return None
        by_file.setdefault(edit.path, []).append(types.TextEdit(range=lines.range(codec, edit.span), new_text=edit.new_text))
    if (fix.renames or fix.creates) and not resource_operations:
        return None
    if not document_changes and not (fix.renames or fix.creates):
        # file operations exist only in documentChanges: a client that announces resource operations
        # (Neovim does, without documentChanges) applies them there
        return types.WorkspaceEdit(changes={uri(path): edits for path, edits in by_file.items()})
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = []
    for path, edits in by_file.items():
        changes.append(types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri(path), version=versions.get(path)),
            edits=list(edits),
        ))
    for create in fix.creates:
        changes.append(types.CreateFile(uri=uri_of(create.path), options=types.CreateFileOptions(ignore_if_exists=True)))
        if create.content:
            changes.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri_of(create.path), version=None),
                edits=[types.TextEdit(range=types.Range(start=types.Position(line=0, character=0),
                                                        end=types.Position(line=0, character=0)), new_text=create.content)],
            ))
    for rename in fix.renames:
        changes.append(types.RenameFile(old_uri=uri_of(rename.old), new_uri=uri_of(rename.new),
                                        options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False)))
    return types.WorkspaceEdit(document_changes=changes)
