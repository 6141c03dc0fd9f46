"""Edits that never lose data: every quick fix, and a rename, applied to a copy of `fixable/`.

A fix must remove its finding and change nothing else: every other finding stays, at
the same place (shifted by the edit in the edited file), except

- findings about the very text the edit replaced (fixing a name can fix SK108 and SK109 at once);
- registry consequences (AD101, CL103, SK301, SK302): renaming a skill changes what agents resolve;
- the placeholders a template leaves for the user (an empty description, an empty body) in the
  file the fix created or edited.

And no edit, creation or rename ever targets a path outside the workspace.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from skill_lsp.config import Config
from skill_lsp.model import Finding, Fix, Position, Span
from skill_lsp.pathtext import inside_workspace
from skill_lsp.rules import run_rules
from skill_lsp.textutil import split_lines
from skill_lsp.workspace import Workspace

from .rpc import INVALID_PARAMS, RawClient

FIXABLE = Path(__file__).parent / "fixable"
REGISTRY = {"AD101", "CL103", "SK301", "SK302"}
TEMPLATE = {"SK107", "SK201"}

Key = tuple[str, str, Span, str]  # code, path relative to the project, span, message


def copy(tmp_path: Path, name: str = "project", newline: str = "\n") -> Path:
    target = tmp_path / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(FIXABLE, target)
    if newline != "\n":
        for path in target.rglob("*"):
            if path.is_file():
                path.write_bytes(path.read_bytes().replace(b"\n", newline.encode()))
    return target


def findings(root: Path) -> list[Finding]:
    results = run_rules(Workspace([root]).build(), Config())
    return sorted((f for found in results.values() for f in found), key=Finding.sort_key)


def key(root: Path, finding: Finding) -> Key:
    return finding.code, finding.path.relative_to(root).as_posix(), finding.span, finding.message


def _offset(text: str, position: Position) -> int:
    lines = split_lines(text)
    index = 0
    for line in lines[: position.line]:
        index += len(line)
        index += 2 if text.startswith("\r\n", index) else 1
    return index + min(position.column, len(lines[position.line]))


def _end_of(start: Position, inserted: str) -> Position:
    lines = split_lines(inserted)
    if len(lines) == 1:
        return Position(start.line, start.column + len(inserted))
    return Position(start.line + len(lines) - 1, len(lines[-1]))


def apply(fix: Fix) -> dict[Path, tuple[Span, Position]]:
    """Apply fix as an editor would; per edited file, the replaced span and the end of the new text."""
    edited: dict[Path, tuple[Span, Position]] = {}
    for edit in fix.edits:
        assert edit.path not in edited, "one edit per file in a fix"
        text = edit.path.read_bytes().decode("utf-8")
        start, end = _offset(text, edit.span.start), _offset(text, edit.span.end)
        edit.path.write_bytes((text[:start] + edit.new_text + text[end:]).encode("utf-8"))
        edited[edit.path] = (edit.span, _end_of(edit.span.start, edit.new_text))
    for create in fix.creates:
        create.path.parent.mkdir(parents=True, exist_ok=True)
        if not create.path.exists():  # CreateFile(ignoreIfExists)
            create.path.write_text(create.content, encoding="utf-8")
    for rename in fix.renames:
        assert not rename.new.exists()  # RenameFile(overwrite=False)
        os.rename(rename.old, rename.new)
    return edited


def _shift(position: Position, span: Span, new_end: Position) -> Position:
    if position < span.end:
        return position
    if position.line == span.end.line:
        return Position(new_end.line, new_end.column + position.column - span.end.column)
    return Position(position.line + new_end.line - span.end.line, position.column)


def _overlaps(a: Span, b: Span) -> bool:
    """Spans share text (an empty span: lies within the other); merely touching is not overlapping."""
    if a.start == a.end:
        return b.start <= a.start <= b.end
    if b.start == b.end:
        return a.start <= b.start <= a.end
    return a.start < b.end and b.start < a.end


def _fixes(root: Path) -> list[tuple[str, int, Key, str]]:
    # collected before any fixture runs: never the developer's own ~/.claude/skills
    saved = os.environ.get("SKILL_LSP_USER_SKILLS_DIR")
    os.environ["SKILL_LSP_USER_SKILLS_DIR"] = ""
    try:
        found = findings(root)
    finally:
        if saved is None:
            del os.environ["SKILL_LSP_USER_SKILLS_DIR"]
        else:
            os.environ["SKILL_LSP_USER_SKILLS_DIR"] = saved
    return [(f"{f.code} {fix.title}", index, key(root, f), fix.title)
            for f in found for index, fix in enumerate(f.fixes)]


ALL_FIXES = _fixes(FIXABLE.resolve())


def test_the_fixture_has_a_fix_of_every_kind() -> None:
    titles = {title.split(" ", 1)[1].split(" '")[0] for title, *_ in ALL_FIXES}
    # (no fix creates an empty file for a missing reference: tests/test_cli_fix.py)
    assert {"Set name to", "Rename the directory to", "Change to", "Quote the value",
            "Add frontmatter", "Add name: nameless", "Add the body's first paragraph as the description",
            "Rename skill.md to SKILL.md",
            "Remove the duplicate", "Replace with", "Remove", "Create skill", "Trim the whitespace",
            'Replace the list with skills="all"', "Change to true"} <= titles, titles


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("title, index, target, fix_title", ALL_FIXES, ids=[f"{t} #{i}" for t, i, _, _ in ALL_FIXES])
def test_a_quick_fix_fixes_its_finding_and_nothing_else(tmp_path: Path, title: str, index: int, target: Key,
                                                        fix_title: str, newline: str) -> None:
    root = copy(tmp_path, newline=newline).resolve()
    before = findings(root)
    finding = next(f for f in before if key(root, f)[:3] == target[:3])
    fix = finding.fixes[index]
    assert fix.title == fix_title
    targets = [edit.path for edit in fix.edits] + [c.path for c in fix.creates]
    targets += [p for r in fix.renames for p in (r.old, r.new)]
    assert all(inside_workspace(path, [root]) for path in targets), targets

    edited = apply(fix)
    renamed = {r.old: r.new for r in fix.renames}
    touched = set(edited) | {c.path for c in fix.creates} | set(renamed.values())
    after = findings(root)
    after_keys = Counter(key(root, f) for f in after)

    def moved(path: Path) -> Path:
        for old, new in renamed.items():
            if path == old or old in path.parents:
                return new / path.relative_to(old)
        return path

    def message(other: Finding) -> str:
        """A message naming a renamed directory names it by its new name."""
        text = other.message
        for old, new in renamed.items():
            if old.is_dir() or new.is_dir():
                if other.path == old or old in other.path.parents:
                    text = text.replace(f"{old.name}/", f"{new.name}/")
        return text

    # the fixed finding is gone (wherever its file now is)
    assert not any(f.code == finding.code and f.path == moved(finding.path) and f.message == finding.message for f in after)
    # everything else stays where it was, shifted by the edit
    expected: Counter[Key] = Counter()
    for other in before:
        if other is finding or other.code in REGISTRY:
            continue
        span = other.span
        if other.path in edited:
            replaced, new_end = edited[other.path]
            if _overlaps(span, replaced):
                continue  # about the text the fix rewrote
            span = Span(_shift(span.start, replaced, new_end), _shift(span.end, replaced, new_end))
        expected[(other.code, moved(other.path).relative_to(root).as_posix(), span, message(other))] += 1
    missing = expected - after_keys
    assert not missing, f"{title}: findings lost or moved: {sorted(missing)}"
    surplus = [k for k in (after_keys - expected).elements()
               if k[0] not in REGISTRY and not (k[0] in TEMPLATE and root / k[1] in touched)]
    assert not surplus, f"{title}: new findings: {surplus}"


# -- renames through the language server ---------------------------------------------------------------


def _rename_capabilities() -> dict[str, object]:
    return {"workspace": {"workspaceEdit": {"documentChanges": True, "resourceOperations": ["create", "rename", "delete"]}}}


def _apply_workspace_edit(edit: dict[str, object]) -> list[Path]:
    """Apply a WorkspaceEdit's documentChanges (UTF-16 positions; the fixture is ASCII); the paths touched."""
    from urllib.parse import unquote, urlparse

    def path_of(uri: str) -> Path:
        return Path(unquote(urlparse(uri).path))

    touched = []
    changes = edit["documentChanges"]
    assert isinstance(changes, list)
    for change in changes:
        if change.get("kind") == "rename":
            old, new = path_of(change["oldUri"]), path_of(change["newUri"])
            assert not new.exists()
            os.rename(old, new)
            touched += [old, new]
            continue
        assert "kind" not in change, change
        path = path_of(change["textDocument"]["uri"])
        text = path.read_text(encoding="utf-8")
        for text_edit in sorted(change["edits"], key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                                reverse=True):
            rng = text_edit["range"]
            start = _offset(text, Position(rng["start"]["line"], rng["start"]["character"]))
            end = _offset(text, Position(rng["end"]["line"], rng["end"]["character"]))
            text = text[:start] + text_edit["newText"] + text[end:]
        path.write_text(text, encoding="utf-8")
        touched.append(path)
    return touched


def test_rename_moves_a_skill_and_every_reference_and_loses_nothing(tmp_path: Path, _isolated_environment: Path) -> None:
    root = copy(tmp_path).resolve()
    before = Counter((f.code, f.path.relative_to(root).as_posix(), f.message) for f in findings(root))
    skill = root / ".agentdeck/skills/confirm-booking/SKILL.md"
    client = RawClient(tmp_path, cwd=tmp_path, env={"SKILL_LSP_USER_SKILLS_DIR": str(_isolated_environment)})
    try:
        client.initialize(root, capabilities=_rename_capabilities())
        client.wait_for_index()
        client.open(skill)
        position = {"line": 1, "character": len("name: conf")}
        for bad in ("../evil", "a/b", "..", "/etc/x", "Confirm Ride"):
            response = client.call("textDocument/rename", {"textDocument": {"uri": skill.as_uri()}, "position": position,
                                                           "newName": bad})
            assert response.get("error", {}).get("code") == INVALID_PARAMS, (bad, response)
        response = client.call("textDocument/rename", {"textDocument": {"uri": skill.as_uri()}, "position": position,
                                                       "newName": "confirm-ride"})
        edit = response["result"]
        touched = _apply_workspace_edit(edit)
        assert all(inside_workspace(path, [root]) for path in touched), touched
        assert client.shutdown_and_exit() == 0
    finally:
        client.close()
    assert client.violations == []
    assert (root / ".agentdeck/skills/confirm-ride/SKILL.md").read_text().startswith("---\nname: confirm-ride\n")
    assert '"confirm-ride", "quote-fare"' in (root / "agent.py").read_text()
    # the same findings (columns on the renamed entry's line move with its length)
    assert Counter((f.code, f.path.relative_to(root).as_posix(), f.message) for f in findings(root)) == before


def test_the_server_drops_a_fix_that_would_write_through_a_symlink(tmp_path: Path, _isolated_environment: Path) -> None:
    """A Deck root inside the workspace that is a symlink to elsewhere: "create the skill" there would write
    outside, so the server offers every fix but that one."""
    root = (tmp_path / "project").resolve()
    outside = (tmp_path / "outside").resolve()
    outside.mkdir()
    (root / ".agentdeck/skills/demo").mkdir(parents=True)
    (root / ".agentdeck/skills/demo/SKILL.md").write_text("---\nname: demo\ndescription: Demo.\n---\n\nBody.\n")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    agent = root / "agent.py"
    agent.write_text('from agentdeck import Agent, Deck\n'
                     'a = Agent(name="A", skills=["demo", "demi"])\n'
                     'd = Deck(agents=[a], skills=["./linked", "./.agentdeck/skills"])\n')
    # the core proposes the creation (the root is inside, lexically) ...
    proposed = [c.path for f in findings(root) for fix in f.fixes for c in fix.creates]
    assert proposed == [root / "linked/demi/SKILL.md"]
    client = RawClient(tmp_path, cwd=tmp_path, env={"SKILL_LSP_USER_SKILLS_DIR": str(_isolated_environment)})
    try:
        client.initialize(root, capabilities=_rename_capabilities())
        client.wait_for_index()
        client.open(agent)
        diagnostics = client.diagnostics(agent, lambda items: any(d["code"] == "AD101" for d in items))
        target = next(d for d in diagnostics if d["code"] == "AD101")
        response = client.call("textDocument/codeAction", {"textDocument": {"uri": agent.as_uri()},
                                                           "range": target["range"], "context": {"diagnostics": [target]}})
        actions = response["result"]
        # ... and the server offers the other fix only
        assert [action["title"] for action in actions] == ["Remove 'demi' ('demo' is listed already)"]
        for action in actions:
            for change in action["edit"].get("documentChanges", []):
                uri = change.get("uri") or change.get("newUri") or change["textDocument"]["uri"]
                assert not uri.startswith(outside.as_uri()) and "/linked/" not in uri, action
        assert client.shutdown_and_exit() == 0
    finally:
        client.close()
    assert client.violations == []
