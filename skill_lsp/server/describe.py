"""What a hover says: a skill as an agent is shown it, an agent's exact disclosure, each runtime's verdict on a skill, a field's documentation.

On the core model, in code points; the handlers (hover.py) convert positions.
"""

from __future__ import annotations

import re

from ..agentfile import KNOWN_FIELDS as SUBAGENT_FIELDS
from ..disclosure import (
    NOT_KNOWN,
    agent_disclosure,
    agentdeck_cannot_load,
    available_skills_xml,
    listed_skills,
    options_disclosure,
    options_skills,
    skill_entry,
)
from ..index import AgentEntry, DefinitionEntry, Model, OptionsEntry, Owner, SkillEntry
from ..model import Position, Profile
from ..rules.report import closest
from ..rules.skills import load_verdicts
from ..runtimes import Consequence, FieldSpec, Runtime, join_labels, typo_of
from ..skillfile import SkillFile
from .cursor import CodeTarget, contains, known_names, registries_of, relative, resolve_listing


def _fence(text: str, language: str = "text") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


# A hover fits on a screen: longer listings show their first entries and say how many more there are
# (the whole text: `skill-lsp disclosure` or the skillLsp.disclosure command).
HOVER_SKILLS = 5  # skills named in prose
HOVER_XML_SKILLS = 2  # <skill> entries of the exact <available_skills> block
HOVER_TEXT_LINES = 20  # lines of an agent's exact disclosure text
DESCRIPTION_CHARS = 120


def _prose(text: str) -> str:
    """Text read as it is written (shop's, not shop&#x27;s), with the few characters Markdown would
    turn into formatting or HTML escaped."""
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", " ".join(text.split()))


def _clipped(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _more(count: int, what: str) -> str:
    return f"_… and {count:,} more {what}_"


def skill_hover(model: Model, skill: SkillEntry, claude: bool) -> str:
    """A skill: its name and file first, its description as prose, the start of its body, and the
    exact entry an agent's listing holds for it."""
    parts = [f"**{skill.key}** — loaded by {join_labels(each.label for each in skill.runtimes)} · "
             f"`{relative(skill.path, model)}`"]
    if claude and skill.description:
        parts.append(_prose(_clipped(skill.description, 300)))
    preview = skill.body_preview()
    if preview:
        parts.append(_fence(preview, "markdown"))
    if _unloadable(skill, claude) is None:
        parts.append("The listing entry, exactly:" if claude else "The disclosure entry, exactly:")
    parts.append(_agent_view(skill, claude))
    return "\n\n".join(parts)


def _head(text: str, lines: int) -> tuple[str, int]:
    """The first lines of text, and how many lines are left out."""
    split = text.split("\n")
    if len(split) <= lines + 2:  # never "1 more line": show it
        return text, 0
    return "\n".join(split[:lines]), len(split) - lines


def _agent_hover(model: Model, owner: AgentEntry) -> str:
    disclosure = agent_disclosure(model, owner)
    header = (f"**Disclosure of {disclosure.title}** — what the agent sees: "
              f"{disclosure.characters:,} characters, about {disclosure.estimated_tokens:,} tokens")
    shown, left = _head(disclosure.text, HOVER_TEXT_LINES)
    parts = [header, _fence(shown)]
    if left:
        parts.append(_more(left, f"line{'s' if left != 1 else ''} (`skill-lsp disclosure {owner.path.name}` prints them all)"))
    if not disclosure.skills_known:
        parts.append(NOT_KNOWN.replace("not known statically", "**not known statically**") + "; no skills block is shown.")
    elif disclosure.unknown_entries:
        parts.append(f"{disclosure.unknown_entries} entr{'ies are' if disclosure.unknown_entries != 1 else 'y is'} not a "
                     "string literal and not known statically; left out above.")
    if disclosure.unresolved:
        parts.append("Left out (no such skill, build() fails): " + ", ".join(f"`{n}`" for n in disclosure.unresolved))
    if disclosure.unloadable:
        parts.append("Left out (AgentDeck cannot load it, build() fails): " + ", ".join(
            f"`{name}` — {reason}" for name, reason in disclosure.unloadable))
    if not disclosure.instructions_known:
        parts.append("The instructions are not a literal; only the skills block is shown.")
    return "\n\n".join(parts)


def _options_hover(owner: OptionsEntry) -> str:
    disclosure = options_disclosure(owner)
    if not disclosure.skills_known:
        return "**`<available_skills>` preview** — " + NOT_KNOWN.replace("not known statically", "**not known statically**") + "."
    skills, _ = options_skills(owner)
    header = (f"**`<available_skills>` preview** — {len(skills):,} skill{'s' if len(skills) != 1 else ''}, "
              f"{disclosure.characters:,} characters, about {disclosure.estimated_tokens:,} tokens")
    parts = [header]
    if skills:
        listed = [f"- **{skill.key}** — {_prose(_clipped(skill.description or ''))}" for skill in skills[:HOVER_SKILLS]]
        if len(skills) > HOVER_SKILLS:
            listed.append("- " + _more(len(skills) - HOVER_SKILLS, "skills"))
        parts.append("\n".join(listed))
    if len(skills) <= HOVER_XML_SKILLS:
        parts += ["The block, exactly:", _fence(disclosure.text, "xml")]
    else:
        # a prefix of the exact text, cut after a whole <skill> entry
        first = available_skills_xml(skills[:1])
        shown = first[: first.rindex("</available_skills>")].rstrip("\n")
        parts += ["The block, exactly (its start):", _fence(shown, "xml"),
                  _more(len(skills) - 1, f"`<skill>` entries (`skill-lsp disclosure {owner.path.name}` prints the whole block)")]
    if disclosure.unknown_entries:
        parts.append(f"{disclosure.unknown_entries} entr{'ies are' if disclosure.unknown_entries != 1 else 'y is'} not a "
                     "string literal and not known statically; left out above.")
    if disclosure.unresolved:
        parts.append("Never offered (not discovered): " + ", ".join(f"`{n}`" for n in disclosure.unresolved))
    return "\n\n".join(parts)


def code_hover(model: Model, target: CodeTarget) -> str | None:
    owner = target.owner
    if target.kind == "field" and target.key is not None:
        doc = SUBAGENT_FIELDS.get(target.key)
        if doc is None:
            near = closest(target.key, list(SUBAGENT_FIELDS), 1)
            return f"**{target.key}** — not a subagent field Claude Code reads; it is ignored." + (
                f" Did you mean `{near[0]}`?" if near else "")
        return f"**{target.key}** — {doc}\n\n_Claude Code subagent_"
    if target.kind == "skill" and target.item is not None:
        name = target.item.text or ""
        skill = resolve_listing(owner, name)
        if skill is not None:
            return skill_hover(model, skill, not isinstance(owner, AgentEntry))
        if not name:
            return "**no skill name yet** — type one: completion lists the skills this agent can load."
        registries = registries_of(owner) if owner is not None else []
        near = registries[0].skills.index().closest(name) if len(registries) == 1 else closest(name, known_names(owner))
        text = f"**unknown skill** `{name}` — no skill this agent can load has that name."
        if near:
            text += "\n\nClosest known: " + ", ".join(f"`{n}`" for n in near)
        return text
    if owner is None:
        return None
    if isinstance(owner, DefinitionEntry):
        return subagent_hover(model, owner)
    if isinstance(owner, AgentEntry):
        return _agent_hover(model, owner)
    return _options_hover(owner)


def subagent_hover(model: Model, definition: DefinitionEntry) -> str:
    """What a subagent sees of skills: each preloaded skill's whole SKILL.md, injected at start."""
    kind = "Subagent" if definition.is_file else "AgentDefinition"
    preloaded, missing = listed_skills(definition.skill_values(), definition.resolver())
    characters = sum(len(skill.file.text) for skill in preloaded)
    parts = [f"**{kind} `{definition.display_name}`** — preloads {len(preloaded)} skill"
             f"{'s' if len(preloaded) != 1 else ''}: the full content of each is injected into its context at start "
             f"({characters:,} characters, about {(characters + 3) // 4:,} tokens)"]
    if preloaded:
        parts.append("\n".join(f"- `{skill.key}` — {skill.description or '(no description)'} "
                                f"(`{relative(skill.path, model)}`)" for skill in preloaded))
    if missing:
        parts.append("Not preloaded (no such skill): " + ", ".join(f"`{name}`" for name in missing))
    parts.append(f"Skills from {definition.registry.label}.")
    return "\n\n".join(parts)


def frontmatter_key_at(file: SkillFile, position: Position) -> tuple[str, bool] | None:
    """(key, on_value) when position is on a frontmatter key or its value (the keys a lenient loader
    reads when the YAML needs its recovery)."""
    for key, entry in file.lenient_fields.items():
        if contains(entry.key_span, position):
            return key, False
        if contains(entry.value_span, position):
            return key, True
    return None


def in_frontmatter(file: SkillFile, position: Position) -> bool:
    end = file.close_line if file.close_line is not None else (len(file.lines) - 1 if file.has_frontmatter else -1)
    return file.has_frontmatter and 0 <= position.line <= end


def verdict_lines(skill: SkillEntry) -> list[str]:
    """'Claude Code: loads it' and the like, one per runtime that discovers the skill."""
    return [f"{each.label}: {does}" for each, _, does in load_verdicts(skill)]


def verdict_summary(skill: SkillEntry) -> str:
    """The load verdicts in one line, for a code lens: 'Claude Code: loads · Codex: skips the skill'."""
    parts = []
    for each, consequence, does in load_verdicts(skill):
        if consequence is None:
            parts.append(f"{each.label}: loads")
        else:
            parts.append(f"{each.label}: {does.split(' — ')[0]}" if consequence == Consequence.DROPPED
                         else f"{each.label}: loads, altered")
    return " · ".join(parts)


def _verdict_block(skill: SkillEntry) -> str:
    return "**Load verdict**\n\n" + "\n".join(f"- {line}" for line in verdict_lines(skill))


def skill_file_hover(model: Model, skill: SkillEntry, position: Position) -> str | None:
    """The hover of a SKILL.md's frontmatter: on a key, its documentation for the runtimes that read it;
    on name/description, what an agent sees and who uses it; anywhere in the frontmatter, the load
    verdict of each runtime that discovers the skill."""
    file = skill.file
    found = frontmatter_key_at(file, position)
    if found is None:
        return _verdict_block(skill) if in_frontmatter(file, position) else None
    key, _ = found
    runtimes = skill.runtimes
    if key in ("name", "description"):
        claude = skill.profile == Profile.CLAUDE
        spec = _field_of(runtimes, key)
        doc = spec[1].doc if spec is not None else ""
        lines = [f"**{key}** — {doc}", "What an agent sees:", _agent_view(skill, claude)]
        users = model.agents_using(skill)
        if users:
            lines.append(f"Used by {len(users)} agent{'s' if len(users) != 1 else ''}:")
            lines += [f"- {_owner_label(owner)} — `{relative(path, model)}:{span.start.line + 1}`"
                      for path, span, owner in users[:HOVER_SKILLS]]
            if len(users) > HOVER_SKILLS:
                lines.append("- " + _more(len(users) - HOVER_SKILLS, "agents (Find References lists them all)"))
        else:
            lines.append("No agent in the workspace lists this skill.")
        return "\n\n".join(lines[:3]) + "\n\n" + "\n".join(lines[3:]) + "\n\n" + _verdict_block(skill)
    known = _field_of(runtimes, key)
    if known is None:
        if any(each.knows(key) for each in runtimes):
            readers = [each.label for each in runtimes if each.knows(key)]
            return f"**{key}** — parsed by {', '.join(readers)} for its own use; not a skill setting."
        near = typo_of(key, sorted({k for each in runtimes for k in each.fields}))
        hint = f" Did you mean `{near}`?" if near else ""
        labels = ", ".join(each.label for each in runtimes)
        return f"**{key}** — not a field {labels} reads; it is ignored.{hint}"
    return field_doc(known[1], known[0], runtimes)


def _agent_view(skill: SkillEntry, claude: bool) -> str:
    """What an agent sees of the skill, or why it sees nothing: a skill AgentDeck cannot load is not
    shown as an entry with an empty description (one model, one answer: SK103 says it is dropped)."""
    reason = _unloadable(skill, claude)
    if reason is not None:
        return f"No entry: AgentDeck cannot load this skill ({reason}), so `Deck.build()` fails."
    return _fence(available_skills_xml([skill]) if claude else skill_entry(skill), "xml" if claude else "text")


def _unloadable(skill: SkillEntry, claude: bool) -> str | None:
    """Why AgentDeck cannot load the skill an AgentDeck agent lists, or None."""
    return agentdeck_cannot_load(skill) if not claude and skill.profile == Profile.AGENTDECK else None


def _field_of(runtimes: tuple[Runtime, ...], key: str) -> tuple[Runtime, FieldSpec] | None:
    for each in runtimes:
        spec = each.field(key)
        if spec is not None:
            return each, spec
    return None


_KINDS = {"str": "string", "bool": "boolean", "str|list": "string or list of strings", "mapping": "mapping",
          "str-map": "mapping of strings", "any": "any", "hint": "string (a list is joined)", "shell": "shell name",
          "effort": "level or integer", "context": "inline or fork"}


def field_doc(spec: FieldSpec, runtime: Runtime, runtimes: tuple[Runtime, ...] = ()) -> str:
    required = spec.required and runtime.key != "claude-code"
    text = f"**{spec.key}** ({_KINDS[spec.kind]}{', required' if required else ''}) — {spec.doc}"
    if spec.enum:
        text += "\n\nOne of: " + ", ".join(f"`{value}`" for value in spec.enum)
    readers = [each.label for each in runtimes or (runtime,) if each.field(spec.key) is not None]
    return text + f"\n\n_read by {', '.join(readers)}_"


def _owner_label(owner: Owner) -> str:
    if isinstance(owner, AgentEntry):
        return f"Agent {owner.display_name}"
    if isinstance(owner, DefinitionEntry):
        return f"{'subagent' if owner.is_file else 'AgentDefinition'} {owner.display_name}"
    return f"ClaudeAgentOptions{' ' + owner.call.assigned_to if owner.call.assigned_to else ''}"
