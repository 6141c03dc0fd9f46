"""Who chooses from which skills: one row per AgentDeck agent, Claude session (options call) and subagent with the skills it resolves to, and each skill's rows.

`skill-lsp report` prints the rows (report.py); the server's skills view (server/skillsview.py) shows them under
each skill.
A row holds what the model says statically: the skills a list names (in its order, each once, with the span of
the entry that names it), the names that resolve to no skill, and whether the list is a literal at all (a
variable or a call gives skills known only by running the code).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .codecalls import PyValue
from .disclosure import options_skills
from .index import AgentEntry, DefinitionEntry, Model, OptionsEntry, Owner, SkillEntry
from .model import Span


@dataclass
class Listed:
    """A skill a row chooses from, and where the row names it (the list entry, or the whole call when the
    session permits every skill its roots discover)."""

    skill: SkillEntry
    span: Span


@dataclass
class Row:
    """An agent, a Claude session or a subagent, and the skills it chooses from."""

    owner: Owner
    kind: str  # agent | session | subagent
    name: str
    runtime: str  # the runtime that runs it, as messages name it
    skills: list[Listed] = field(default_factory=list)
    # names listed that resolve to no skill, with their spans
    missing: list[tuple[str, Span]] = field(default_factory=list)
    # False: skills= is not a literal (a variable, a call); which skills it gives is not known statically
    known: bool = True
    # entries of a literal list that are not string literals (left out: not known statically)
    unknown_entries: int = 0

    @property
    def path(self) -> Path:
        return self.owner.path

    @property
    def span(self) -> Span:
        return self.owner.call.span

    @property
    def line(self) -> int:
        """The 1-based line the call (or the subagent file's frontmatter) starts on."""
        return self.owner.call.span.start.line + 1

    @property
    def keys(self) -> list[str]:
        return [each.skill.key for each in self.skills]


def rows(model: Model) -> list[Row]:
    """Every agent, session and subagent of the model, by file and line."""
    found = [agent_row(agent) for agent in model.agents]
    found += [session_row(options) for options in model.options]
    found += [subagent_row(definition) for definition in model.definitions]
    found.sort(key=lambda row: (row.path.parts, row.span.start, row.kind))
    return found


def agent_row(agent: AgentEntry) -> Row:
    """An AgentDeck agent: each listed name looked up in its Decks' registries in turn (disclosure.agent_skills)."""
    row = Row(agent, "agent", agent.display_name, "AgentDeck")
    _fill(row, agent.call.keyword("skills"), agent.resolver())
    return row


def session_row(options: OptionsEntry) -> Row:
    """A Claude session: the skills its `skills` filter permits among those its setting sources discover, or
    every one of them when it has no filter or says "all" (disclosure.options_skills)."""
    call = options.call
    name = call.assigned_to or ("ClaudeAgentOptions" if options.path.suffix == ".py" else "query() options")
    row = Row(options, "session", name, "Claude Agent SDK")
    value = call.keyword("skills")
    if value is None or value.kind == "none" or (value.kind == "str" and value.text == "all"):
        where = value.span if value is not None else call.callee_span
        row.skills = [Listed(skill, where) for skill in options_skills(options)[0]]
        return row
    _fill(row, value, options.registry.session_lookup)
    return row


def subagent_row(definition: DefinitionEntry) -> Row:
    """A subagent (the SDK's AgentDefinition, or a Claude Code subagent file): the skills it preloads, by
    canonical name, display name or a plugin skill's bare name (index.preload_aliases)."""
    runtime = "Claude Code" if definition.is_file else "Claude Agent SDK"
    row = Row(definition, "subagent", definition.display_name, runtime)
    _fill(row, definition.call.keyword("skills"), definition.resolver())
    return row


def _fill(row: Row, value: PyValue | None, lookup: Callable[[str], SkillEntry | None]) -> None:
    """The row's skills from a list value: each name's skill, in order and each once, and the names of none."""
    if value is None or value.kind == "none":
        return
    if value.kind not in ("list", "tuple"):
        row.known = value.kind not in ("name", "other")
        return
    seen: set[int] = set()
    for item in value.items:
        if item.kind != "str" or item.text is None:
            row.unknown_entries += 1
            continue
        skill = lookup(item.text)
        if skill is None:
            row.missing.append((item.text, item.span))
        elif id(skill) not in seen:
            seen.add(id(skill))
            row.skills.append(Listed(skill, item.span))


def listers(all_rows: Iterable[Row]) -> dict[Path, list[tuple[Row, Span]]]:
    """Each skill's path -> the rows that choose from it, with where each names it."""
    found: dict[Path, list[tuple[Row, Span]]] = {}
    for row in all_rows:
        for listed in row.skills:
            found.setdefault(listed.skill.path, []).append((row, listed.span))
    return found

