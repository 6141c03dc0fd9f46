"""The text an agent sees: AgentDeck's disclosure block, Claude's <available_skills> listing and a Claude
subagent's preloaded skills."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from .codecalls import PyValue
from .index import AgentEntry, DefinitionEntry, Model, OptionsEntry, SkillEntry
from .model import Profile

AGENTDECK_HEADER = (
    "### Skills available\n"
    "Each entry below is a name and a description. Call `load_skill(name)` to read the\n"
    "full instructions before following one."
)


def entry_line(name: str, description: str | None) -> str:
    return f"- {name}: {description if description is not None else ''}"


def skill_entry(skill: SkillEntry) -> str:
    return entry_line(skill.name or skill.dir_name, skill.description)


def agentdeck_cannot_load(skill: SkillEntry) -> str | None:
    """Why AgentDeck cannot load the skill's frontmatter (so `Deck.build()` fails and no entry exists),
    or None: the same verdict as SK101-SK107's on an AgentDeck root (runtimes.agentdeck)."""
    file = skill.file
    if not file.has_frontmatter:
        return "it has no frontmatter"
    if not file.closed:
        return "its frontmatter is never closed"
    if file.yaml_problem is not None:
        return f"its frontmatter is invalid YAML at line {file.yaml_problem.span.start.line + 1}"
    if file.not_mapping is not None:
        return "its frontmatter is not a mapping"
    for key in ("name", "description"):
        entry = file.fields.get(key)
        if entry is None:
            return f"it has no '{key}'"
        if not isinstance(entry.value, str) or not entry.value.strip():
            return f"its '{key}' is not a non-empty string"
    return None


@dataclass
class Disclosure:
    title: str
    text: str
    # names listed that resolve to no skill (left out of the block)
    unresolved: list[str]
    instructions_known: bool = True
    # names listed whose skill AgentDeck cannot load, with why (left out: build() fails on them)
    unloadable: list[tuple[str, str]] = field(default_factory=list)
    # skills= is a name, a call, a comprehension...: which skills it gives is not known without running
    # the code, so text shows none of them (and says nothing about the runtime's list being empty)
    skills_known: bool = True
    # entries of a literal list that are not string literals, left out of text
    unknown_entries: int = 0

    @property
    def characters(self) -> int:
        return len(self.text)

    @property
    def estimated_tokens(self) -> int:
        # the common rule of thumb for English prose: about four characters per token
        return (len(self.text) + 3) // 4


def agent_skills(model: Model, agent: AgentEntry) -> list[tuple[str, SkillEntry | None]]:
    """The listed names in order, each with the skill it resolves to."""
    resolved: list[tuple[str, SkillEntry | None]] = []
    seen: set[str] = set()
    resolve = agent.resolver()
    for item in agent.skill_values():
        if item.kind != "str" or item.text is None or item.text in seen:
            continue
        seen.add(item.text)
        resolved.append((item.text, resolve(item.text)))
    return resolved


def agentdeck_block(model: Model, agent: AgentEntry) -> tuple[str, list[str], list[tuple[str, str]]]:
    """The skills block, the listed names that resolve to no skill, and those AgentDeck cannot load:
    neither has an entry (a `- quote-fare: ` line would show what build() never produces)."""
    lines = [AGENTDECK_HEADER]
    unresolved = []
    unloadable = []
    for name, skill in agent_skills(model, agent):
        if skill is None:
            unresolved.append(name)
            continue
        reason = agentdeck_cannot_load(skill) if skill.profile == Profile.AGENTDECK else None
        if reason is not None:
            unloadable.append((name, reason))
            continue
        lines.append(entry_line(name, skill.description))
    return "\n".join(lines), unresolved, unloadable


# what the analysis cannot read without running the code: a variable, a call, an expression
_NOT_LITERAL = ("name", "other")


def _statically_known(value: PyValue | None) -> tuple[bool, int]:
    """(whether skills= is a literal the analysis reads, how many entries of its list are not string literals)."""
    if value is None:
        return True, 0
    if value.kind in _NOT_LITERAL:
        return False, 0
    return True, sum(1 for item in value.items if item.kind != "str" or item.text is None)


def agent_disclosure(model: Model, agent: AgentEntry) -> Disclosure:
    """The agent's instructions with the skills block appended, as AgentDeck builds them."""
    instructions = agent.call.string_arg("instructions")
    block, unresolved, unloadable = agentdeck_block(model, agent)
    if not agent_skills(model, agent):
        text = instructions or ""
    else:
        text = f"{instructions}\n\n{block}" if instructions else block
    known, unknown = _statically_known(agent.call.keyword("skills"))
    return Disclosure(agent.display_name, text, unresolved, instructions is not None, unloadable=unloadable,
                      skills_known=known, unknown_entries=unknown)


def available_skills_xml(skills: list[SkillEntry]) -> str:
    """The <available_skills> block of the Agent Skills reference (skills-ref to-prompt)."""
    lines = ["<available_skills>"]
    for skill in skills:
        lines += [
            "<skill>",
            "<name>",
            html.escape(skill.key),
            "</name>",
            "<description>",
            html.escape(skill.description or ""),
            "</description>",
            "<location>",
            str(skill.path),
            "</location>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def options_skills(options: OptionsEntry) -> tuple[list[SkillEntry], list[str]]:
    """The skills a ClaudeAgentOptions permits (its list filters what discovery found)."""
    registry = options.registry
    value = options.call.keyword("skills")
    if value is None or value.kind == "none" or (value.kind == "str" and value.text == "all"):
        # (the table's keys, sorted once until one comes or goes: not each skill's key)
        return [registry.skills[key][0] for key in registry.skills.sorted_keys() if registry.skills[key]], []
    if value.kind != "list":
        return [], []
    return listed_skills(value.items, registry.session_lookup)


def listed_skills(items: list[PyValue], lookup: Callable[[str], SkillEntry | None]) -> tuple[list[SkillEntry], list[str]]:
    """The skills a list names, in order and each once, and the names that name none."""
    chosen: list[SkillEntry] = []
    missing: list[str] = []
    for item in items:
        if item.kind != "str" or item.text is None:
            continue
        skill = lookup(item.text)
        if skill is None:
            missing.append(item.text)
        elif skill not in chosen:
            chosen.append(skill)
    return chosen, missing


NOT_KNOWN = "skills= is not a literal: which skills it gives is not known statically (only running the code tells)"


def options_disclosure(options: OptionsEntry) -> Disclosure:
    skills, missing = options_skills(options)
    kind = "ClaudeAgentOptions" if options.path.suffix == ".py" else "query() options"
    title = f"{kind} at line {options.call.span.start.line + 1}"
    known, unknown = _statically_known(options.call.keyword("skills"))
    # not known: no block at all, rather than the empty one an empty list would give
    text = available_skills_xml(skills) if known else ""
    return Disclosure(title, text, missing, skills_known=known, unknown_entries=unknown)


# Claude Code 2.1.332 preloads each skill a subagent lists as the Skill tool gives it, through the skill
# command's getPromptForCommand with no arguments: `Base directory for this skill: ${dir}\n\n${body}` in skill
# mode, ${CLAUDE_SKILL_DIR} replaced by the directory (strings of its binary; hidden.py has the same source).
PRELOAD_HEADER = "Base directory for this skill: "
PRELOAD_NOTE = ("argument placeholders ($ARGUMENTS) are given no arguments and shell commands (!`...`) run when the "
                "subagent starts; both are shown as written")


def definition_disclosure(definition: DefinitionEntry) -> Disclosure:
    """What a Claude subagent is given of its skills at start: each listed skill's whole body, preloaded."""
    preloaded, missing = listed_skills(definition.skill_values(), definition.resolver())
    texts = []
    for skill in preloaded:
        directory = str(skill.directory)
        texts.append(f"{PRELOAD_HEADER}{directory}\n\n{skill.file.body.replace('${CLAUDE_SKILL_DIR}', directory)}")
    known, unknown = _statically_known(definition.call.keyword("skills"))
    title = f"{'subagent' if definition.is_file else 'AgentDefinition'} {definition.display_name}"
    return Disclosure(title, "\n\n".join(texts), missing, skills_known=known, unknown_entries=unknown)


Owner: TypeAlias = "AgentEntry | OptionsEntry | DefinitionEntry"


def owners_in(model: Model, path: Path) -> list[Owner]:
    """The agents, options and subagents a file defines, in the order they are written."""
    every: list[Owner] = [*model.agents, *model.options, *model.definitions]
    found = [owner for owner in every if owner.path == path]
    return sorted(found, key=lambda owner: (owner.call.span.start.line, owner.call.span.start.column))


def disclosure_of(model: Model, owner: Owner) -> Disclosure:
    if isinstance(owner, AgentEntry):
        return agent_disclosure(model, owner)
    if isinstance(owner, OptionsEntry):
        return options_disclosure(owner)
    return definition_disclosure(owner)
