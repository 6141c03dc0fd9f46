"""Edits: rename a skill (its directory, its name and every listing), quick fixes, and the reveal command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ..index import AgentEntry, DefinitionEntry, Model, SkillEntry
from ..model import Finding, Fix, Position, Profile, Span
from ..pathtext import inside_workspace
from ..rules.skills import name_problem
from . import cursor
from .convert import Lines, uri_of, workspace_edit
from .publish import uri_for
from .request import Request, request_context
from .server import SkillLanguageServer
from .session import Session
from .symbols import options_items


class JsonRpcRequestFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid, and cannot be answered now (pygls has no class for it)."""

    CODE = -32803
    MESSAGE = "Request failed"


def _rename_target(model: Model, path: Path, position: Position) -> tuple[SkillEntry, Span] | None:
    skill = model.skills.get(path)
    if skill is not None:
        entry = skill.file.fields.get("name")
        if entry is None or not isinstance(entry.value, str):
            return None
        if not (entry.key_span.start <= position <= entry.value_span.end):
            return None
        return skill, _unquoted(skill.file.lines, entry.value_span)
    target = cursor.code_target(model, path, position)
    if target is None or target.kind != "skill" or target.item is None or target.item.text is None:
        return None
    resolved = cursor.resolve_listing(target.owner, target.item.text)
    if resolved is None or resolved.external:
        return None
    return resolved, target.item.content_span or target.item.span


def _index_needed(request: Request | None) -> None:
    """A rename edits every file that lists the skill: the model of the files nearest the open ones
    would miss some. Said at once, rather than answered when the index ends."""
    if request is not None and request.near:
        raise JsonRpcRequestFailed("skill-lsp is still indexing the workspace: rename once it is done")


def _unquoted(lines: list[str], span: Span) -> Span:
    if span.start.line == span.end.line:
        text = lines[span.start.line][span.start.column : span.end.column]
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            return Span.of(span.start.line, span.start.column + 1, span.end.line, span.end.column - 1)
    return span


async def prepare_rename(ls: SkillLanguageServer, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    _index_needed(request)
    found = _rename_target(request.model, request.path, request.position) if request is not None else None
    if request is None or found is None:
        return None
    skill, span = found
    return types.PrepareRenamePlaceholder(range=request.lines.range(ls.codec, span), placeholder=skill.dir_name)


async def rename(ls: SkillLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    _index_needed(request)
    if request is None:
        return None
    model = request.model
    found = _rename_target(model, request.path, request.position)
    if found is None:
        raise JsonRpcInvalidParams("Only a skill's name can be renamed: put the cursor on `name:` in a SKILL.md "
                                   "or on a name in skills=[...]")
    skill, _ = found
    prefix = skill.root.prefix if skill.root is not None else ""
    new_dir = params.new_name.strip()
    if prefix and new_dir.startswith(prefix):
        new_dir = new_dir[len(prefix):]
    problem = name_problem(new_dir)
    if problem is not None:
        raise JsonRpcInvalidParams(f"'{params.new_name}' is not a valid skill name: {problem}")
    target_dir = skill.directory.with_name(new_dir)
    if ls.session is None or not inside_workspace(target_dir, ls.session.folders):
        raise JsonRpcInvalidParams(f"{skill.directory} is not inside the workspace; skill-lsp only renames there")
    if new_dir != skill.dir_name and target_dir.exists():
        raise JsonRpcInvalidParams(f"'{new_dir}' already exists in {skill.directory.parent.name}/")
    old_key = skill.key
    new_key = prefix + new_dir
    edits: dict[Path, list[types.TextEdit]] = {}
    lines = ls.lines_for(skill.path)
    entry = skill.file.fields.get("name")
    if lines is not None and entry is not None and isinstance(entry.value, str) and (
        skill.profile != Profile.CLAUDE or entry.value == skill.dir_name
    ):
        span = _unquoted(skill.file.lines, entry.value_span)
        edits.setdefault(skill.path, []).append(types.TextEdit(range=lines.range(ls.codec, span), new_text=new_dir))
    renamed_in: set[int] = set()  # an owner listing the skill twice (or by two names) is edited once
    for listing_path, _, owner in model.agents_using(skill):
        other = ls.lines_for(listing_path)
        if other is None or id(owner) in renamed_in:
            continue
        renamed_in.add(id(owner))
        items = owner.skill_values() if isinstance(owner, (AgentEntry, DefinitionEntry)) else options_items(owner)
        for item in items:
            if item.kind != "str" or item.text is None:
                continue
            if item.text == old_key:
                new_text = new_key
            elif isinstance(owner, DefinitionEntry) and owner.lookup(item.text) is skill:
                new_text = new_dir  # a subagent naming it by its display name or bare plugin name
            else:
                continue
            edits.setdefault(listing_path, []).append(
                types.TextEdit(range=other.range(ls.codec, item.content_span or item.span), new_text=new_text))
    can_rename = _resource_operations(ls, "rename") and bool(ls.capability("workspace", "workspace_edit", "document_changes"))
    if not can_rename or new_dir == skill.dir_name:
        if new_dir != skill.dir_name:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"skill-lsp: this editor cannot rename directories; rename {skill.directory} to {new_dir} by hand.",
            ))
        if ls.capability("workspace", "workspace_edit", "document_changes"):
            return types.WorkspaceEdit(document_changes=[
                types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri_for(ls, p), version=ls.document_version(p)), edits=list(e)) for p, e in edits.items()
            ])
        return types.WorkspaceEdit(changes={uri_for(ls, p): e for p, e in edits.items()})
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = [
        types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(
            uri=uri_for(ls, p), version=ls.document_version(p)), edits=list(e)) for p, e in edits.items()
    ]
    changes.append(types.RenameFile(old_uri=uri_of(skill.directory), new_uri=uri_of(target_dir),
                                    options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False)))
    return types.WorkspaceEdit(document_changes=changes)


def _stays_in_workspace(fix: Fix, session: Session) -> bool:
    """Every path the fix touches is in the workspace, or (a text edit) is a user subagent open in the editor:
    the file the user is editing, outside every folder (~/.claude/agents), which the editor changes in its buffer."""
    folders = session.folders
    if not all(inside_workspace(edit.path, folders) or (session.is_open(edit.path) and session.is_user_agent(edit.path))
               for edit in fix.edits):
        return False
    paths = [create.path for create in fix.creates] + [path for rename in fix.renames for path in (rename.old, rename.new)]
    return all(inside_workspace(path, folders) for path in paths)


def _resource_operations(ls: SkillLanguageServer, kind: str) -> bool:
    operations = ls.capability("workspace", "workspace_edit", "resource_operations") or []
    return any(str(getattr(op, "value", op)) == kind for op in operations)


async def code_action(ls: SkillLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    await ls.scheduler.flush()
    path = ls.path_of(params.text_document.uri)
    session = ls.session
    if path is None or session is None:
        return None
    findings = session.findings.get(path, [])
    lines = ls.lines_for(path)
    if not findings or lines is None:
        return None
    # the findings by code and start in code points: a diagnostic's start is converted, not every
    # finding's range (20,000 of them on one line took 0.1 s at each request)
    starting: dict[tuple[str, int, int], list[Finding]] = {}
    for finding in findings:
        starting.setdefault((finding.code, finding.span.start.line, finding.span.start.column), []).append(finding)

    def finding_of(diag: types.Diagnostic) -> Finding | None:
        start = lines.from_client(ls.codec, diag.range.start)
        found = None
        for finding in starting.get((str(diag.code), start.line, start.column), []):
            rng = lines.range(ls.codec, finding.span)
            if rng.start == diag.range.start and rng.end == diag.range.end:
                found = finding  # (the last of the same range, as a published diagnostic shows)
        return found
    resource_ops = _resource_operations(ls, "create") and _resource_operations(ls, "rename")
    document_changes = bool(ls.capability("workspace", "workspace_edit", "document_changes"))
    only = params.context.only
    if only and not any(str(kind).startswith(types.CodeActionKind.QuickFix) for kind in only):
        return None
    show_document = bool(ls.capability("window", "show_document", "support"))
    actions: list[types.CodeAction] = []
    # two findings on one span can propose the same change under two titles (SK108 "Set name to 'x'"
    # and SK109 "Change to 'x'" on one name): offered once, under the first title, for both diagnostics
    offered: dict[str, types.CodeAction] = {}
    for diag in params.context.diagnostics:
        if diag.source != "skill-lsp":
            continue
        matched = finding_of(diag)
        if matched is None:
            continue
        for fix in matched.fixes:
            if not _stays_in_workspace(fix, session):
                continue  # whatever a rule proposed, no edit leaves the workspace (symlinks resolved)
            lines_of: dict[Path, Lines] = {}
            for edit in fix.edits:
                if edit.path not in lines_of:
                    other = ls.lines_for(edit.path)
                    if other is not None:
                        lines_of[edit.path] = other
            versions = {p: v for p in lines_of if (v := ls.document_version(p)) is not None}
            change = workspace_edit(fix, lines_of, ls.codec, versions, resource_ops, document_changes,
                                    {p: uri_for(ls, p) for p in lines_of})
            if change is None:
                continue
            same = offered.get(repr(change))
            if same is not None:
                if same.diagnostics is not None and diag not in same.diagnostics:
                    same.diagnostics = [*same.diagnostics, diag]
                same.is_preferred = same.is_preferred or fix.preferred or None
                continue
            action = types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                                      edit=change, is_preferred=fix.preferred or None,
                                      command=_reveal_command(ls, fix) if show_document else None)
            offered[repr(change)] = action
            actions.append(action)
    return actions


def _reveal_command(ls: SkillLanguageServer, fix: Fix) -> types.Command | None:
    """The command a client runs once it has applied the fix's edit: open the file at its focus."""
    if fix.focus is None:
        return None
    path, position = fix.focus
    created = next((create.content for create in fix.creates if create.path == path), None)
    lines = Lines(created) if created is not None else ls.lines_for(path)
    if lines is None:
        return None
    at = lines.to_client(ls.codec, position)
    return types.Command(title="Open", command="skillLsp.reveal",
                         arguments=[{"uri": uri_of(path), "line": at.line, "character": at.character}])


async def reveal_command(ls: SkillLanguageServer, *args: Any) -> bool:
    """Show a document with the cursor at a position (window/showDocument): after "Create skill",
    on the description the user has to write."""
    arguments = args[0] if len(args) == 1 and isinstance(args[0], list) else list(args)
    argument = arguments[0] if arguments and isinstance(arguments[0], dict) else {}
    uri = argument.get("uri")
    line, character = argument.get("line"), argument.get("character")
    if not isinstance(uri, str) or not isinstance(line, int) or not isinstance(character, int) or ls.path_of(uri) is None:
        raise JsonRpcInvalidParams("skillLsp.reveal takes [{uri, line, character}]")
    session = ls.session
    target = ls.path_of(uri)
    if session is None or target is None or not inside_workspace(target, session.folders):
        return False
    if not ls.capability("window", "show_document", "support"):
        return False
    at = types.Position(line=max(line, 0), character=max(character, 0))
    result = await ls.window_show_document_async(types.ShowDocumentParams(
        uri=uri, take_focus=True, selection=types.Range(start=at, end=at)))
    return bool(result.success)
