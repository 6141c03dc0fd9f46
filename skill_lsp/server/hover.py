"""Hover, and the skillLsp.disclosure command: what an agent is shown, and what a runtime makes of a skill."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ..disclosure import NOT_KNOWN, PRELOAD_NOTE, disclosure_of, owners_in
from ..index import DefinitionEntry, Model, SkillEntry
from ..listing import Entry, Listing, skill_listings
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
        if found[0] in ("description", "when_to_use"):
            text += listing_text(model, skill)
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


def _cut_text(skill: SkillEntry, entry: Entry, cap: int) -> str:
    """Where Claude Code's per-entry cap falls in the description (and when_to_use)."""
    full = skill.facts.description or ""
    if skill.facts.when_to_use:
        full = f"{full} - {skill.facts.when_to_use}"
    kept = len(full) - entry.cut
    before, after = full[max(0, kept - 40):kept], full[kept:kept + 60]
    return (f"Claude Code cuts the description and `when_to_use` at {cap:,} characters (`skillListingMaxDescChars`): "
            f"the entry ends `…{before}…` and the model never reads the last {entry.cut:,} characters, from "
            f"`{after}{'…' if len(full) > kept + 60 else ''}`.")


def _one_listing(skill: SkillEntry, listing: Listing, entry: Entry) -> str:
    budget = listing.budget
    head = f"**{listing.title}** — {listing.summary()}"
    lines = [head]
    if listing.runtime == "claude-code":
        lines.append(f"This skill's entry is {entry.size:,} characters; the budget: {budget.how}.")
        if entry.cut:
            lines.append(_cut_text(skill, entry, listing.cap))
        if entry in listing.at_risk:
            lines.append(f"Over budget by {listing.over:,} characters: this description can be dropped (Claude Code keeps "
                         f"the descriptions of the most used skills; at least {listing.dropped_at_least} go).")
        elif listing.over:
            lines.append("Over budget, but this description fits whichever others go.")
    elif listing.runtime == "codex":
        if entry in listing.left_out:
            lines.append("Codex leaves this skill out of its listing: its line does not fit in the budget, even "
                         f"without descriptions ({budget.how}).")
        elif listing.shortened:
            lines.append(f"Codex shortens the descriptions to fit ({budget.how}): about {listing.shortened:,} "
                         "characters of them are not shown.")
    else:
        lines.append(budget.how + ".")
    return "\n\n".join(lines)


def listing_text(model: Model, skill: SkillEntry) -> str:
    """The listings the skill is an entry of, its entry's size and cut, and whether its description is at risk."""
    found = skill_listings(model, skill)
    if not found:
        return ""
    return "\n\n---\n\n" + "\n\n".join(_one_listing(skill, listing, entry) for listing, entry in found)


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
