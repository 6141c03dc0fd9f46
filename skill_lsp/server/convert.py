"""Core spans and findings <-> LSP types, through the negotiated position encoding."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

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
    return from_fs_path(str(path)) or path.as_uri()


def path_of(uri: str) -> Path | None:
    """The file system path of a file: URI; None for other schemes."""
    if not uri.startswith("file:"):
        return None
    fs_path = to_fs_path(uri)
    if not fs_path or "\x00" in fs_path:  # file:///a%00b names no file the OS can open
        return None
    return Path(os.path.abspath(fs_path))


class Lines:
    """A document's lines, split the LSP way, for converting columns."""

    def __init__(self, text: str) -> None:
        self.lines: Sequence[str] = split_lines(text)

    def to_client(self, codec: PositionCodec, position: Position) -> types.Position:
        if position.line >= len(self.lines):
            last = len(self.lines) - 1
            return types.Position(line=last, character=codec.client_num_units(self.lines[last]))
        line = self.lines[position.line]
        return types.Position(line=position.line, character=codec.client_num_units(line[: position.column]))

    def range(self, codec: PositionCodec, span: Span) -> types.Range:
        return types.Range(start=self.to_client(codec, span.start), end=self.to_client(codec, span.end))

    def from_client(self, codec: PositionCodec, position: types.Position) -> Position:
        """Client units -> code points, clamped to the document."""
        if position.line >= len(self.lines):
            last = len(self.lines) - 1
            return Position(last, len(self.lines[last]))
        line = self.lines[max(position.line, 0)]
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return Position(position.line, index)
            units += codec.client_num_units(char)
        return Position(position.line, len(line))


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


def diagnostic(finding: Finding, lines: Lines, codec: PositionCodec, related_lines: dict[Path, Lines]) -> types.Diagnostic:
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
        message=finding.message,
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
) -> types.WorkspaceEdit | None:
    """A Fix as a WorkspaceEdit; None when it needs file operations the client cannot do."""
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
        return types.WorkspaceEdit(changes={uri_of(path): edits for path, edits in by_file.items()})
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = []
    for path, edits in by_file.items():
        changes.append(types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri_of(path), version=versions.get(path)),
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
