"""The text an agent sees: AgentDeck's disclosure block and Claude's <available_skills> listing."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from .index import AgentEntry, Model, OptionsEntry, SkillEntry
from .pysource import PyValue

AGENTDECK_HEADER = (
    "### Skills available\n"
    "Each entry below is a name and a description. Call `load_skill(name)` to read the\n"
    "full instructions before following one."
)


def entry_line(name: str, description: str | None) -> str:
    return f"- {name}: {description if description is not None else ''}"


def skill_entry(skill: SkillEntry) -> str:
    return entry_line(skill.name or skill.dir_name, skill.description)


@dataclass
class Disclosure:
    title: str
    text: str
    # names listed that resolve to no skill (left out of the block)
    unresolved: list[str]
    instructions_known: bool = True

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
    for item in agent.skill_values():
        if item.kind != "str" or item.text is None or item.text in seen:
            continue
        seen.add(item.text)
        skill = None
        for _, registry in agent.registries():
            if registry is not None:
                skill = registry.lookup(item.text)
                if skill is not None:
                    break
        resolved.append((item.text, skill))
    return resolved


def agentdeck_block(model: Model, agent: AgentEntry) -> tuple[str, list[str]]:
    lines = [AGENTDECK_HEADER]
    unresolved = []
    for name, skill in agent_skills(model, agent):
        if skill is None:
            unresolved.append(name)
            continue
        lines.append(entry_line(name, skill.description))
    return "\n".join(lines), unresolved


def agent_disclosure(model: Model, agent: AgentEntry) -> Disclosure:
    """The agent's instructions with the skills block appended, as AgentDeck builds them."""
    instructions = agent.call.string_arg("instructions")
    block, unresolved = agentdeck_block(model, agent)
    if not agent_skills(model, agent):
        text = instructions or ""
    else:
        text = f"{instructions}\n\n{block}" if instructions else block
    return Disclosure(agent.display_name, text, unresolved, instructions is not None)


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
    discovered = sorted((bucket[0] for bucket in registry.skills.values()), key=lambda s: s.key)
    if value is None or value.kind == "none" or (value.kind == "str" and value.text == "all"):
        return discovered, []
    if value.kind != "list":
        return [], []
    return listed_skills(value.items, registry.lookup)


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


def options_disclosure(options: OptionsEntry) -> Disclosure:
    skills, missing = options_skills(options)
    title = f"ClaudeAgentOptions at line {options.call.span.start.line + 1}"
    return Disclosure(title, available_skills_xml(skills), missing)
