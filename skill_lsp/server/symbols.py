"""Symbols: a SKILL.md's or an agent file's outline (its JSON made directly), and the workspace's skills."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from ..bodyscan import MAX_BODY_ITEMS
from ..index import AgentEntry, DefinitionEntry, OptionsEntry
from ..model import Span
from ..skillfile import SkillFile
from ..textutil import FileTooLarge, check_size
from . import cursor
from .convert import Lines, encoding_name
from .navigation import skill_location
from .protocol import Serialized
from .request import request_context
from .scheduler import keep_recent
from .server import SkillLanguageServer

# the skill names an agent file's outline shows, all its agents together (a list of 60,000 names
# took two seconds to outline; skillfile.MAX_BODY_ITEMS bounds a SKILL.md's headings the same way)
OUTLINE_NAMES = MAX_BODY_ITEMS


def _skill_symbols(ls: SkillLanguageServer, path: Path, file: SkillFile, lines: Lines) -> Serialized:
    """A SKILL.md's outline: its frontmatter keys, then its headings as a tree, encoded as the JSON the
    answer carries. The same outline as last time when nothing it shows moved: an editor asks again
    after every edit, and 5,000 headings cost a tenth of a second to build and as much again to
    encode each time (a 7 MB buffer edited at its end)."""
    codec = ls.codec
    headings = file.headings  # (5,000 at most: skillfile.MAX_BODY_ITEMS)
    key = (encoding_name(codec), tuple(lines.lines[: max(file.body_start, 0)]), tuple(
        (heading.level, heading.text, heading.span.start, heading.span.end,
         lines.lines[heading.span.start.line] if heading.span.start.line < len(lines.lines) else "")
        for heading in headings))
    known = ls.symbols_cache.get(path)
    if known is not None and known[0] == key:
        return known[1]
    # the answer's JSON, made directly (what the protocol's converter makes of DocumentSymbols)
    outline: list[dict[str, Any]] = []
    for name, entry in file.lenient_fields.items():
        full = Span(entry.key_span.start, max(entry.key_span.end, entry.value_span.end))
        detail = (entry.value if isinstance(entry.value, str) else "")[:80]
        symbol: dict[str, Any] = {"name": name, "kind": types.SymbolKind.Property.value,
                                  "range": lines.range_json(codec, full),
                                  "selectionRange": lines.range_json(codec, entry.key_span)}
        if detail:
            symbol["detail"] = detail
        outline.append(symbol)
    stack: list[tuple[int, list[dict[str, Any]]]] = []  # open headings: level, children
    for heading in headings:
        where = lines.range_json(codec, heading.span)
        children: list[dict[str, Any]] = []
        symbol = {"name": heading.text or "#", "kind": types.SymbolKind.String.value, "range": where,
                  "selectionRange": where, "children": children}
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        (stack[-1][1] if stack else outline).append(symbol)
        stack.append((heading.level, children))
    shown = None
    if len(headings) >= MAX_BODY_ITEMS and "\r" not in file.text:
        # what the outline shows lies in the text up to its last heading's line break (LF alone
        # ends the lines of a text without CR)
        last = headings[-1].span.start.line
        shown = file.text[: sum(map(len, lines.lines[: last + 1])) + last + 1]
    encoded = Serialized(outline)
    keep_recent(ls.symbols_cache, path, (key, encoded, shown))
    return encoded


def _capped_outline(ls: SkillLanguageServer, path: Path, text: str) -> Serialized | None:
    """The outline kept for path when it shows the first MAX_BODY_ITEMS headings and text starts
    with all it shows: the same outline, without parsing the text. Typing at the end of a 7 MB
    buffer asks for it again and again; its parse and headings cost 0.15 s of the loop's time each
    (a SKILL.md's headings are found in order, so what follows the last one shown changes none)."""
    known = ls.symbols_cache.get(path)
    if known is None or known[2] is None or known[0][0] != encoding_name(ls.codec) or not text.startswith(known[2]):
        return None
    return known[1]


async def document_symbols(ls: SkillLanguageServer, params: types.DocumentSymbolParams) -> list[Any] | Serialized | None:
    path = ls.path_of(params.text_document.uri)
    open_text = ls.open_texts().get(path) if path is not None else None
    known = ls.model()
    session = ls.session
    oversized = False
    if (path is not None and open_text is not None and known is not None and path in known.skills
            and session is not None and ls.scheduler.indexed.is_set()):
        # an open SKILL.md the model knows: its outline is made from its text as the editor has it
        # now, never waiting for the analysis of the edits before it (a 7 MB buffer typed into keeps
        # it busy)
        try:
            check_size(open_text, path.name)
            kept = _capped_outline(ls, path, open_text)
            if kept is not None:
                return kept
            file = await ls.run_aside(session.skill_parse, path, open_text)
            return _skill_symbols(ls, path, file, Lines(open_text, file.lines))
        except FileTooLarge:  # over the bound of a buffer: the outline of what the model has, at once
            oversized = True
    request = await request_context(ls, params.text_document.uri, wait=not oversized)
    if request is None:
        return None
    path, model, lines = request.path, request.model, request.lines
    codec = ls.codec
    skill = model.skills.get(path)
    if skill is not None:
        return _skill_symbols(ls, path, skill.file, lines)
    python = model.pythons.get(path)
    if python is None:
        return []
    # the answer's JSON, made directly, as a SKILL.md's outline is (_skill_symbols): 5,000 listed names
    # made into DocumentSymbols and converted took 0.15 s at each request
    result: list[dict[str, Any]] = []
    owners: list[AgentEntry | OptionsEntry | DefinitionEntry] = [*model.agents, *model.options, *model.definitions_in(path)]
    room = OUTLINE_NAMES  # the listed names the outline shows, all owners together
    for owner in owners:
        if owner.path != path:
            continue
        listed = owner.skill_values() if isinstance(owner, (AgentEntry, DefinitionEntry)) else options_items(owner)
        names = [item for item in listed if item.kind == "str" and owner.call.span.start <= item.span.start <= owner.call.span.end]
        children = [{"name": item.text or "?", "kind": types.SymbolKind.Constant.value, "range": where, "selectionRange": where}
                    for item in names[: max(room, 0)] for where in (lines.range_json(codec, item.span),)]
        room -= len(children)
        if isinstance(owner, DefinitionEntry):
            name, detail = owner.display_name, "subagent" if owner.is_file else "AgentDefinition"
        elif isinstance(owner, AgentEntry):
            name, detail = owner.display_name, "Agent"
        else:
            name, detail = owner.call.assigned_to or "ClaudeAgentOptions", "ClaudeAgentOptions"
        if len(children) < len(names):
            detail += f" (the first {len(children):,} of {len(names):,} skills)"
        span, callee = owner.call.span, owner.call.callee_span
        # a TypeScript options object can be a const away from its query() call: select within the object then
        selection = callee if span.start <= callee.start and callee.end <= span.end else span
        kind = types.SymbolKind.Class if not isinstance(owner, OptionsEntry) else types.SymbolKind.Object
        result.append({"name": name, "detail": detail, "kind": kind.value, "range": lines.range_json(codec, span),
                       "selectionRange": lines.range_json(codec, selection), "children": children})
    for deck in model.decks:
        if deck.path == path:
            result.append({"name": deck.call.assigned_to or "Deck", "detail": "Deck", "kind": types.SymbolKind.Module.value,
                           "range": lines.range_json(codec, deck.call.span),
                           "selectionRange": lines.range_json(codec, deck.call.callee_span)})
    result.sort(key=lambda symbol: (symbol["range"]["start"]["line"], symbol["range"]["start"]["character"]))
    return Serialized(result)


def options_items(entry: OptionsEntry) -> list[Any]:
    value = entry.call.keyword("skills")
    return value.items if value is not None and value.kind == "list" else []


async def workspace_symbols(ls: SkillLanguageServer, params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    await ls.scheduler.flush()
    model = ls.model()
    if model is None:
        return []
    found = []
    for skill in model.skills.values():
        if skill.external or not cursor.symbol_matches(params.query, skill.key):
            continue
        found.append(types.SymbolInformation(
            name=skill.key, kind=types.SymbolKind.Module, location=skill_location(ls, skill),
            container_name=cursor.relative(skill.directory.parent, model),
        ))
        if len(found) >= 1000:
            break
    return found
