"""Hover, and the skillLsp.disclosure command: what an agent is shown, and what a runtime makes of a skill."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ..disclosure import NOT_KNOWN, PRELOAD_NOTE, disclosure_of, owners_in
from ..index import DefinitionEntry
from . import cursor, describe
from .request import request_context
from .server import SkillLanguageServer


def markdown(text: str) -> types.MarkupContent:
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)


async def hover(ls: SkillLanguageServer, params: types.HoverParams) -> types.Hover | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    if request is None:
        return None
    path, model, lines, position = request.path, request.model, request.lines, request.position
    skill = model.skills.get(path)
    if skill is not None:
        found = describe.frontmatter_key_at(skill.file, position)
        text = describe.skill_file_hover(model, skill, position)
        if text is None:
            return None
        if found is None:  # the load verdict, anywhere in the frontmatter
            return types.Hover(contents=markdown(text), range=lines.range(ls.codec, skill.file.line_span(position.line)))
        entry = skill.file.lenient_fields[found[0]]
        span = entry.value_span if found[1] else entry.key_span
        return types.Hover(contents=markdown(text), range=lines.range(ls.codec, span))
    target = cursor.code_target(model, path, position)
    if target is None:
        return None
    text = describe.code_hover(model, target)
    if text is None:
        return None
    if target.item is not None:
        span = target.item.span
    elif target.kind in ("skills-keyword", "field"):
        span = target.call.keywords[target.key or "skills"].name_span
    else:
        span = target.call.callee_span
    return types.Hover(contents=markdown(text), range=lines.range(ls.codec, span))


async def disclosure_command(ls: SkillLanguageServer, *args: Any) -> dict[str, str] | None:
    arguments = args[0] if len(args) == 1 and isinstance(args[0], list) else list(args)
    if not arguments or not isinstance(arguments[0], dict):
        raise JsonRpcInvalidParams("skillLsp.disclosure takes [{uri, position}]")
    argument = arguments[0]
    uri = argument.get("uri")
    raw_position = argument.get("position") or {}
    if not isinstance(uri, str) or not isinstance(raw_position, dict):
        raise JsonRpcInvalidParams("skillLsp.disclosure takes [{uri, position}]")
    try:
        cursor = types.Position(line=int(raw_position.get("line", 0)), character=int(raw_position.get("character", 0)))
    except (TypeError, ValueError) as error:
        raise JsonRpcInvalidParams("skillLsp.disclosure: position must be {line, character}") from error
    request = await request_context(ls, uri, cursor)
    if request is None:
        return None
    path, model, position = request.path, request.model, request.position
    # the innermost agent, options or subagent (an AgentDefinition in agents={...}) at the cursor, else the
    # file's only one (a subagent file, or an agent file with the cursor elsewhere)
    in_file = owners_in(model, path)
    around = [owner for owner in in_file if owner.call.span.start <= position <= owner.call.span.end]
    chosen = around[-1] if around else in_file[0] if len(in_file) == 1 else None
    if chosen is None:
        return None
    result = disclosure_of(model, chosen)
    answer = {"title": result.title, "text": result.text}
    if not result.skills_known:
        answer["note"] = NOT_KNOWN  # rather than an empty block read as "no skills"
    elif isinstance(chosen, DefinitionEntry) and result.text:
        answer["note"] = PRELOAD_NOTE
    return answer
