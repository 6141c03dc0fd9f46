"""What is under the cursor in an agent file, and the skills its owner can name: on the core model, in code points."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..codecalls import Call, PyValue
from ..index import AgentEntry, Model, OptionsEntry, Owner, Registry, SkillEntry
from ..model import Position, Span

# -- what is under the cursor ---------------------------------------------------------


@dataclass
class CodeTarget:
    """Something in an agent file at a position."""

    kind: str  # skill | skills-keyword | callee | field (a subagent file's frontmatter key)
    path: Path
    call: Call
    owner: Owner | None
    item: PyValue | None = None
    key: str | None = None


def owner_of(model: Model, path: Path, call: Call) -> Owner | None:
    for agent in model.agents:
        if agent.path == path and agent.call is call:
            return agent
    for options in model.options:
        if options.path == path and options.call is call:
            return options
    for definition in model.definitions:
        if definition.path == path and definition.call is call:
            return definition
    return None


def code_target(model: Model, path: Path, position: Position) -> CodeTarget | None:
    python = model.pythons.get(path)
    if python is None:
        return None
    best: CodeTarget | None = None
    for call in python.source.calls:
        # a TypeScript query()'s options object may be a const elsewhere in the file: its callee is outside it
        if not contains(call.span, position) and not contains(call.callee_span, position):
            continue
        owner = owner_of(model, path, call)
        skills = call.keywords.get("skills")
        if skills is not None:
            for item in skills.value.items if skills.value.kind in ("list", "tuple") else [skills.value]:
                if contains(item.span, position) and item.kind == "str":
                    return CodeTarget("skill", path, call, owner, item)
            if contains(skills.name_span, position):
                best = CodeTarget("skills-keyword", path, call, owner)
        if contains(call.callee_span, position):
            best = CodeTarget("callee", path, call, owner)
        if call.kind == "agent_file" and best is None:
            for key, keyword in call.keywords.items():
                if key != "skills" and contains(keyword.name_span, position):
                    best = CodeTarget("field", path, call, owner, key=key)
    return best


def contains(span: Span, position: Position) -> bool:
    return span.start <= position <= span.end


def registries_of(owner: Owner) -> list[Registry]:
    if isinstance(owner, AgentEntry):
        return [registry for _, registry in owner.registries() if registry is not None]
    return [owner.registry]


def resolve_listing(owner: Owner | None, name: str) -> SkillEntry | None:
    if owner is None:
        return None
    if isinstance(owner, OptionsEntry):
        return owner.registry.session_lookup(name)
    return owner.lookup(name)  # an agent's Decks in turn, a subagent's registry and aliases


def known_names(owner: Owner | None) -> list[str]:
    if owner is None:
        return []
    names: set[str] = set()
    for registry in registries_of(owner):
        names.update(registry.names())
    return sorted(names)




def relative(path: Path, model: Model) -> str:
    """path relative to its workspace folder, with forward slashes (as strings: completion asks for
    a hundred at a time, and Path.relative_to is slow)."""
    folder = str(model.folder_of(path))
    text = str(path)
    if text == folder:
        return "."
    if text.startswith(folder.rstrip(os.sep) + os.sep):
        return text[len(folder.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
    return text


def symbol_matches(query: str, name: str) -> bool:
    """Case-insensitive subsequence match, as editors filter workspace symbols."""
    if not query:
        return True
    iterator = iter(name.lower())
    return all(char in iterator for char in query.lower())
