"""Completion: skill names in an agent's skills list (capped, resolved lazily), frontmatter keys and values."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..index import Model, Registry, SkillEntry
from ..model import Position, Profile, Span
from ..pathtext import is_skill_filename
from ..runtimes import discovering
from . import completing, cursor, describe
from .convert import Lines
from .hover import markdown
from .request import request_context
from .server import SkillLanguageServer

# skill names offered at once; more, and the list is marked incomplete (the client asks again as
# the user types). Serialising the items is most of a completion's cost: 50 fill any editor's list.
COMPLETION_LIMIT = 50


async def completion(ls: SkillLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    session = ls.session
    if request is None or session is None:
        return None
    path, model, lines, position, text = request.path, request.model, request.lines, request.position, request.text
    typed = ls.open_texts().get(path)
    if typed is not None and typed is not text and typed != text:
        # The cursor is in the text the editor has now. The analysis of the last edits may still be
        # under way (a request waits for it only so long), and its text then lacks what was just
        # typed: the names are offered from the model as it stands, in the editor's text.
        lines = ls.lines_for(path, typed) or Lines(typed)
        position = lines.from_client(ls.codec, params.position)
        text = typed
    if is_skill_filename(path.name):
        return _frontmatter_completion(ls, model, path, text, lines, position)
    if not ls.is_agent_file(path):
        return None
    # what its imports say (the analysis's parse when it analysed this text), never queued behind an analysis
    source = await ls.run_aside(session.imports_of, path, text)
    registries: list[Registry]
    if path.suffix == ".py":
        context = completing.skill_string_context(text, position, source)
        if context is None:
            return None
        registries, claude = completing.completion_registries(model, path, context, text)
    else:  # a TypeScript/JavaScript file or a subagent file
        found = completing.agent_list_context(model, path, text, position, source)
        if found is None:
            keys = completing.subagent_key_completion(text, position) if path.suffix == ".md" else None
            if keys is None:
                return None
            key_span, offered = keys
            return types.CompletionList(is_incomplete=False, items=[types.CompletionItem(
                label=key, kind=types.CompletionItemKind.Property, documentation=markdown(doc),
                text_edit=types.TextEdit(range=lines.range(ls.codec, key_span), new_text=f"{key}: "),
            ) for key, doc in offered])
        (context, registries), claude = found, True
    candidates, incomplete = _completion_candidates(registries, context.prefix, set(context.listed))
    replace = lines.range(ls.codec, Span(context.start, context.end))
    # Fifty items are mostly serialisation: each carries only what differs from the defaults (the
    # label is the filter and sort text, and the edit's range is the list's default when the client
    # takes one). The documentation (the skill's hover) comes with completionItem/resolve; a client
    # that does not say it resolves documentation gets the description inline.
    capabilities = ls.capability("text_document", "completion")
    resolves = "documentation" in (_get(capabilities, "completion_item", "resolve_support", "properties") or ())
    shared_range = "editRange" in (_get(capabilities, "completion_list", "item_defaults") or ())
    items: list[types.CompletionItem] = []
    for name, skill in candidates:
        description = skill.description or ""
        items.append(types.CompletionItem(
            label=name,
            kind=types.CompletionItemKind.Module,
            detail=f"{skill.profile.value} skill — {cursor.relative(skill.directory, model)}",
            documentation=None if resolves or not description else markdown(description),
            text_edit=None if shared_range else types.TextEdit(range=replace, new_text=name),
            label_details=types.CompletionItemLabelDetails(description=description[:80] if description else None),
            data={"skill": str(skill.path), "claude": claude},
        ))
    defaults = types.CompletionItemDefaults(edit_range=replace) if shared_range else None
    return types.CompletionList(is_incomplete=incomplete, items=items, item_defaults=defaults)


def _get(value: Any, *names: str) -> Any:
    for name in names:
        value = getattr(value, name, None)
    return value


def _completion_candidates(registries: list[Registry], prefix: str, listed: set[str]) -> tuple[list[tuple[str, SkillEntry]], bool]:
    """The names to offer, in order (registry by registry, sorted), each with the skill it names, and
    whether the list is incomplete: a registry of thousands offers the names that start with what is
    typed (then those containing it), at most COMPLETION_LIMIT of them, and the client asks again as
    the user types."""

    def offered() -> Iterator[tuple[str, SkillEntry]]:
        seen: set[str] = set()
        for registry in registries:
            for name in registry.skills.sorted_keys():
                if name not in seen and (name not in listed or name == prefix):
                    seen.add(name)
                    yield name, registry.skills[name][0]

    hidden = {name for name in listed if name != prefix}
    if len(registries) == 1:
        total = len(registries[0].skills) - sum(1 for name in hidden if name in registries[0].skills)
    else:
        total = len(set().union(*(registry.skills.keys() for registry in registries)) - hidden)
    if total <= COMPLETION_LIMIT:
        return list(offered()), False
    typed = prefix.lower()
    starting: list[tuple[str, SkillEntry]] = []
    containing: list[tuple[str, SkillEntry]] = []
    for name, skill in offered():
        lowered = name.lower()
        if lowered.startswith(typed):
            starting.append((name, skill))
            if len(starting) == COMPLETION_LIMIT:
                break  # the names that start with it come first
        elif typed in lowered and len(containing) < COMPLETION_LIMIT:
            containing.append((name, skill))
    return (starting + containing)[:COMPLETION_LIMIT], True


async def completion_resolve(ls: SkillLanguageServer, item: types.CompletionItem) -> types.CompletionItem:
    """The documentation of a skill name offered by completion: its hover."""
    model = ls.model()
    data = item.data
    if model is None or not isinstance(data, dict) or not isinstance(data.get("skill"), str):
        return item
    skill = model.skills.get(Path(data["skill"]))
    if skill is not None:
        item.documentation = markdown(describe.skill_hover(model, skill, data.get("claude") is True))
    return item


def _frontmatter_completion(
    ls: SkillLanguageServer, model: Model, path: Path, text: str, lines: Lines, position: Position
) -> types.CompletionList | None:
    skill = model.skills.get(path)
    file = skill.file if skill is not None else completing.parse_skill_text(text)
    if skill is not None and file.text != text:
        file = completing.parse_skill_text(text)
    runtimes = skill.runtimes if skill is not None else discovering(None, None, Profile.SPEC)
    entries = completing.frontmatter_completion(file, runtimes, path.parent.name, position)
    if not entries:
        return None
    line = file.lines[position.line]
    items = []
    for label, insert, kind, doc in entries:
        if kind == "key":
            start = len(line) - len(line.lstrip())
            end = len(line.split(":", 1)[0]) if ":" in line else position.column
            end = max(end, position.column)
            span = Span.of(position.line, start, position.line, end)
        else:
            colon = line.index(":") + 1
            start = colon + (len(line[colon:]) - len(line[colon:].lstrip()))
            start = min(start, position.column)
            span = Span.of(position.line, start, position.line, max(position.column, len(line.rstrip())))
        items.append(types.CompletionItem(
            label=label,
            kind=types.CompletionItemKind.Property if kind == "key" else types.CompletionItemKind.Value,
            documentation=markdown(doc),
            text_edit=types.TextEdit(range=lines.range(ls.codec, span), new_text=insert),
            filter_text=label,
        ))
    return types.CompletionList(is_incomplete=False, items=items)
