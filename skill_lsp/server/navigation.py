"""Navigation: definition, references, document links and code lenses (the agents that use a skill)."""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types

from ..index import Model, SkillEntry
from ..listing import listings_in
from ..model import Position
from . import cursor, describe
from .convert import uri_of
from .request import Request, request_context
from .server import SkillLanguageServer


def skill_location(ls: SkillLanguageServer, skill: SkillEntry) -> types.Location:
    # from the facts: workspace symbols place a thousand skills, without reading their parses, nor
    # their texts when the span's lines are ASCII (the stat of a thousand files, each handing the
    # interpreter to the analysis running and waiting to take it back, held an answer for 0.5 s)
    span = skill.facts.name_span or skill.facts.first_line
    if skill.facts.plain:
        return types.Location(uri=uri_of(skill.path), range=types.Range(
            start=types.Position(line=span.start.line, character=span.start.column),
            end=types.Position(line=span.end.line, character=span.end.column)))
    lines = ls.lines_for(skill.path)
    rng = lines.range(ls.codec, span) if lines is not None else types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    return types.Location(uri=uri_of(skill.path), range=rng)


def _skill_under_cursor(model: Model, path: Path, position: Position) -> tuple[SkillEntry | None, str | None]:
    """The skill meant at a position: in its own SKILL.md, or a listed name in code."""
    skill = model.skills.get(path)
    if skill is not None:
        return skill, skill.key
    target = cursor.code_target(model, path, position)
    if target is None or target.kind != "skill" or target.item is None or target.item.text is None:
        return None, None
    return cursor.resolve_listing(target.owner, target.item.text), target.item.text


async def definition(ls: SkillLanguageServer, params: types.DefinitionParams) -> list[types.Location] | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    if request is None:
        return None
    path, model, position = request.path, request.model, request.position
    if path in model.skills:
        link = _reference_at(ls, model.skills[path], position)
        if link is not None:
            return [types.Location(uri=uri_of(link), range=types.Range(start=types.Position(line=0, character=0),
                                                                       end=types.Position(line=0, character=0)))]
        return None
    skill, _ = _skill_under_cursor(model, path, position)
    return [skill_location(ls, skill)] if skill is not None else None


def _reference_at(ls: SkillLanguageServer, skill: SkillEntry, position: Position) -> Path | None:
    for reference in skill.file.references:
        if reference.span.start <= position <= reference.span.end:
            target = (skill.directory / reference.target.split("#", 1)[0]).resolve()
            if target.exists():
                return Path(os.path.abspath(target))
    return None


async def references(ls: SkillLanguageServer, params: types.ReferenceParams) -> list[types.Location] | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    if request is None:
        return None
    path, model, position = request.path, request.model, request.position
    skill, name = _skill_under_cursor(model, path, position)
    if name is None:
        return None
    locations: list[types.Location] = []
    if skill is not None:
        listings = model.agents_using(skill)
        if params.context.include_declaration and not skill.external:
            locations.append(skill_location(ls, skill))
    else:
        listings = model.listings.get(name, [])
    for listing_path, span, _ in listings:
        lines = ls.lines_for(listing_path)
        if lines is not None:
            locations.append(types.Location(uri=uri_of(listing_path), range=lines.range(ls.codec, span)))
    return locations


async def skill_request(ls: SkillLanguageServer, uri: str) -> tuple[Request, SkillEntry] | None:
    """The request about a SKILL.md, and its skill; None for any other document."""
    request = await request_context(ls, uri)
    skill = request.model.skills.get(request.path) if request is not None else None
    return (request, skill) if request is not None and skill is not None else None


async def document_links(ls: SkillLanguageServer, params: types.DocumentLinkParams) -> list[types.DocumentLink] | None:
    found = await skill_request(ls, params.text_document.uri)
    if found is None:
        return None
    request, skill = found
    lines = request.lines
    links = []
    tooltips = bool(ls.capability("text_document", "document_link", "tooltip_support"))
    directory = str(skill.directory)
    for reference in skill.file.references:
        # (strings, not Paths: a body of 5,000 links took 0.1 s of the loop making Paths)
        target = os.path.normpath(os.path.join(directory, reference.target.split("#", 1)[0]))
        if os.path.exists(target):
            links.append(types.DocumentLink(range=lines.range(ls.codec, reference.span), target=uri_of(Path(target)),
                                            tooltip=f"Open {reference.target}" if tooltips else None))
    return links


def listing_lenses(ls: SkillLanguageServer, request: Request) -> list[types.CodeLens] | None:
    """A lens on every agent, options call, subagent and project settings file: its listing against its budget
    ("12 skills · 9,400 characters of 8,000 · 2 at risk"); informational (no command to run)."""
    found = listings_in(request.model, request.path)
    if not found:
        return None
    return [types.CodeLens(range=request.lines.range(ls.codec, listing.span),
                           command=types.Command(title=listing.summary(), command="")) for listing in found]


async def code_lens(ls: SkillLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    request_found = await request_context(ls, params.text_document.uri)
    if request_found is None:
        return None
    skill = request_found.model.skills.get(request_found.path)
    if skill is None:
        return listing_lenses(ls, request_found)
    request = request_found
    path, model, lines = request.path, request.model, request.lines
    users = model.agents_using(skill)
    locations = []
    for listing_path, span, _ in users:
        other = ls.lines_for(listing_path)
        if other is not None:
            locations.append(types.Location(uri=uri_of(listing_path), range=other.range(ls.codec, span)))
    title = f"used by {len(users)} agent{'s' if len(users) != 1 else ''}"
    rng = lines.range(ls.codec, skill.file.line_span(0))
    return [types.CodeLens(range=rng, command=types.Command(
        title=title, command="skillLsp.showReferences",
        arguments=[uri_of(path), {"line": rng.start.line, "character": rng.start.character},
                   [ls.protocol._converter.unstructure(location) for location in locations]],
    )), types.CodeLens(range=rng, command=types.Command(
        # the load verdict of each runtime that discovers the skill; informational (no command to run)
        title=describe.verdict_summary(skill), command="",
    ))]
