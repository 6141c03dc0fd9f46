"""What the editor features compute, on the core model, in code points.

The pygls layer converts positions and ranges; these functions never see
client units.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..disclosure import (
    NOT_KNOWN,
    agent_disclosure,
    available_skills_xml,
    options_disclosure,
    options_skills,
    skill_entry,
)
from ..fields import FIELDS, FieldSpec
from ..index import AgentEntry, Model, OptionsEntry, Registry, SkillEntry
from ..model import Position, Profile, Span
from ..pysource import Call, PySource, PyValue
from ..rules.report import closest
from ..skillfile import SkillFile
from ..textutil import split_lines

# -- what is under the cursor ---------------------------------------------------------


@dataclass
class CodeTarget:
    """Something in an agent file at a position."""

    kind: str  # skill | skills-keyword | callee
    path: Path
    call: Call
    owner: AgentEntry | OptionsEntry | None
    item: PyValue | None = None


def owner_of(model: Model, path: Path, call: Call) -> AgentEntry | OptionsEntry | None:
    for agent in model.agents:
        if agent.path == path and agent.call is call:
            return agent
    for options in model.options:
        if options.path == path and options.call is call:
            return options
    return None


def code_target(model: Model, path: Path, position: Position) -> CodeTarget | None:
    python = model.pythons.get(path)
    if python is None:
        return None
    best: CodeTarget | None = None
    for call in python.source.calls:
        if not _contains(call.span, position):
            continue
        owner = owner_of(model, path, call)
        skills = call.keywords.get("skills")
        if skills is not None:
            for item in skills.value.items if skills.value.kind in ("list", "tuple") else [skills.value]:
                if _contains(item.span, position) and item.kind == "str":
                    return CodeTarget("skill", path, call, owner, item)
            if _contains(skills.name_span, position):
                best = CodeTarget("skills-keyword", path, call, owner)
        if _contains(call.callee_span, position):
            best = CodeTarget("callee", path, call, owner)
    return best


def _contains(span: Span, position: Position) -> bool:
    return span.start <= position <= span.end


def registries_of(owner: AgentEntry | OptionsEntry) -> list[Registry]:
    if isinstance(owner, AgentEntry):
        return [registry for _, registry in owner.registries() if registry is not None]
    return [owner.registry]


def resolve_listing(owner: AgentEntry | OptionsEntry | None, name: str) -> SkillEntry | None:
    if owner is None:
        return None
    for registry in registries_of(owner):
        skill = registry.lookup(name)
        if skill is not None:
            return skill
    return None


def known_names(owner: AgentEntry | OptionsEntry | None) -> list[str]:
    if owner is None:
        return []
    names: set[str] = set()
    for registry in registries_of(owner):
        names.update(registry.names())
    return sorted(names)


# -- hover ------------------------------------------------------------------------------


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
    parts = [f"**{skill.key}** — {skill.profile.value} skill · `{relative(skill.path, model)}`"]
    if claude and skill.description:
        parts.append(_prose(_clipped(skill.description, 300)))
    preview = skill.body_preview()
    if preview:
        parts.append(_fence(preview, "markdown"))
    if claude:
        parts += ["The listing entry, exactly:", _fence(available_skills_xml([skill]), "xml")]
    else:
        parts += ["The disclosure entry, exactly:", _fence(skill_entry(skill), "text")]
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
    if target.kind == "skill" and target.item is not None:
        name = target.item.text or ""
        skill = resolve_listing(owner, name)
        if skill is not None:
            return skill_hover(model, skill, isinstance(owner, OptionsEntry))
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
    if isinstance(owner, AgentEntry):
        return _agent_hover(model, owner)
    return _options_hover(owner)


def frontmatter_key_at(file: SkillFile, position: Position) -> tuple[str, bool] | None:
    """(key, on_value) when position is on a frontmatter key or its value."""
    for key, entry in file.fields.items():
        if _contains(entry.key_span, position):
            return key, False
        if _contains(entry.value_span, position):
            return key, True
    return None


def skill_file_hover(model: Model, skill: SkillEntry, position: Position) -> str | None:
    found = frontmatter_key_at(skill.file, position)
    if found is None:
        return None
    key, _ = found
    profile = skill.profile
    if key in ("name", "description"):
        claude = profile == Profile.CLAUDE
        lines = [f"**{key}** — {FIELDS[profile][key].doc}", "What an agent sees:",
                 _fence(available_skills_xml([skill]) if claude else skill_entry(skill), "xml" if claude else "text")]
        users = model.agents_using(skill)
        if users:
            lines.append(f"Used by {len(users)} agent{'s' if len(users) != 1 else ''}:")
            lines += [f"- {_owner_label(owner)} — `{relative(path, model)}:{span.start.line + 1}`"
                      for path, span, owner in users[:HOVER_SKILLS]]
            if len(users) > HOVER_SKILLS:
                lines.append("- " + _more(len(users) - HOVER_SKILLS, "agents (Find References lists them all)"))
        else:
            lines.append("No agent in the workspace lists this skill.")
        return "\n\n".join(lines[:3]) + "\n\n" + "\n".join(lines[3:])
    spec = FIELDS[profile].get(key)
    if spec is None:
        near = closest(key, list(FIELDS[profile]), 1)
        hint = f" Did you mean `{near[0]}`?" if near else ""
        return f"**{key}** — not a field of the {profile.value} profile.{hint}"
    return field_doc(spec, profile)


def field_doc(spec: FieldSpec, profile: Profile) -> str:
    kind = {"str": "string", "bool": "boolean", "str|list": "string or list of strings", "mapping": "mapping",
            "str-map": "mapping of strings", "any": "any"}[spec.kind]
    text = f"**{spec.key}** ({kind}{', required' if spec.required and profile != Profile.CLAUDE else ''}) — {spec.doc}"
    if spec.enum:
        text += "\n\nOne of: " + ", ".join(f"`{value}`" for value in spec.enum)
    return text + f"\n\n_{profile.value} profile_"


def _owner_label(owner: AgentEntry | OptionsEntry) -> str:
    if isinstance(owner, AgentEntry):
        return f"Agent {owner.display_name}"
    return f"ClaudeAgentOptions{' ' + owner.call.assigned_to if owner.call.assigned_to else ''}"


# -- completion ----------------------------------------------------------------------------


@dataclass
class StringContext:
    """The cursor is inside a string literal that is an entry of skills=[...]."""

    start: Position  # first character after the opening quote
    end: Position  # end of the current content (cursor, or before the closing quote)
    prefix: str
    framework: str  # agentdeck | claude_agent_sdk
    call_start: int  # offset of the call's '(' in the text
    listed: list[str]


_STRING_PART = re.compile(r"""(?P<q>[rRuU]?(?P<quote>["']))""")


def _open_string(line: str, column: int) -> tuple[int, str] | None:
    """(content start, quote) when column is inside a single-line string on line."""
    index = 0
    start: int | None = None
    quote = ""
    while index < column:
        char = line[index]
        if start is None:
            if char == "#":
                return None
            if char in "\"'":
                if line.startswith(char * 3, index):
                    return None  # triple-quoted: never a skill name
                start, quote = index + 1, char
        else:
            if char == "\\":
                index += 2
                continue
            if char == quote:
                start = None
        index += 1
    return (start, quote) if start is not None else None


def skill_string_context(text: str, position: Position, source: PySource) -> StringContext | None:
    lines = split_lines(text)
    if position.line >= len(lines):
        return None
    line = lines[position.line]
    column = min(position.column, len(line))
    opened = _open_string(line, column)
    if opened is None:
        return None
    start, quote = opened
    # the content after the cursor up to the closing quote, replaced on accept
    rest = line[column:]
    close = rest.find(quote)
    end_column = column + close if close >= 0 else column
    if close < 0:
        word = re.match(r"[\w:.-]*", rest)
        end_column = column + (word.end() if word else 0)
    offset = sum(len(each) + 1 for each in lines[: position.line]) + start - 1
    before = text[: max(offset, 0)]
    context = _enclosing_skills_call(before, source)
    if context is None:
        return None
    framework, call_start, listed = context
    return StringContext(Position(position.line, start), Position(position.line, end_column),
                         line[start:column], framework, call_start, listed)


def _enclosing_skills_call(before: str, source: PySource) -> tuple[str, int, list[str]] | None:
    """For text ending just before a string: inside `skills=[` of which framework call?"""
    window = before[-20000:]
    base = len(before) - len(window)
    depth_square = 0
    depth_round = 0
    index = len(window) - 1
    bracket_at: int | None = None
    while index >= 0:
        char = window[index]
        if char in "\"'":
            # skip back over a string literal
            quote = char
            index -= 1
            while index >= 0 and not (window[index] == quote and (index == 0 or window[index - 1] != "\\")):
                if window[index] == "\n":
                    break
                index -= 1
        elif char == "]":
            depth_square += 1
        elif char == "[":
            if depth_square == 0 and bracket_at is None:
                bracket_at = index
                keyword = re.search(r"\bskills\s*=\s*$", window[:index])
                if keyword is None:
                    return None
            elif depth_square > 0:
                depth_square -= 1
        elif char == ")":
            depth_round += 1
        elif char == "(":
            if depth_round == 0:
                if bracket_at is None:
                    return None
                callee = re.search(r"([A-Za-z_][\w.]*)\s*$", window[:index])
                if callee is None:
                    return None
                resolved = source.resolve_callee(callee.group(1)) or ""
                if resolved == "agentdeck:Agent":
                    framework = "agentdeck"
                elif resolved == "claude_agent_sdk:ClaudeAgentOptions":
                    framework = "claude_agent_sdk"
                else:
                    return None
                listed = re.findall(r"""["']([^"'\n]+)["']""", window[bracket_at:])
                return framework, base + index, listed
            depth_round -= 1
        index -= 1
    return None


def completion_registries(model: Model, path: Path, context: StringContext, text: str) -> tuple[list[Registry], bool]:
    """The registries to offer names from, and whether names are Claude's."""
    claude = context.framework == "claude_agent_sdk"
    line = text[: context.call_start].count("\n")
    _, agents, options = model.entries_in(path)
    owners: list[AgentEntry | OptionsEntry] = [*options] if claude else [*agents]
    for owner in owners:
        if owner.call.span.start.line <= line <= owner.call.span.end.line:
            return registries_of(owner), claude
    if owners:
        found: list[Registry] = []
        for owner in owners:
            found += registries_of(owner)
        return found, claude
    if claude:
        registry = Registry("discovered Claude skills", [])
        for skill in model.skills.values():
            if skill.profile == Profile.CLAUDE and skill.root is not None:
                registry.add(skill)
        return [registry], True
    folder = model.folder_of(path)
    known = model.project_registries.get(folder)
    if known is not None:
        return [known], False
    registry = Registry("AgentDeck roots", [])
    for skill in model.skills.values():
        if skill.profile == Profile.AGENTDECK and skill.root is not None and not skill.misnamed:
            registry.add(skill)
    return [registry], False


def frontmatter_completion(file: SkillFile, profile: Profile, dir_name: str, position: Position) -> list[tuple[str, str, str, str]]:
    """(label, insert text, kind, documentation) for a frontmatter position; [] outside it."""
    if not file.has_frontmatter or position.line == 0:
        return []
    end = file.close_line if file.close_line is not None else len(file.lines)
    if position.line >= end:
        return []
    line = file.lines[position.line]
    before = line[: position.column]
    fields = FIELDS[profile]
    if ":" not in before:
        if before.startswith((" ", "\t", "-")):
            return []
        # the keys written so far, even while the YAML does not parse
        present = {match.group(1) for text in file.lines[1:end] if (match := re.match(r"^([\w-]+)\s*:", text))}
        return [(key, f"{key}: ", "key", field_doc(spec, profile)) for key, spec in fields.items() if key not in present]
    key = before.split(":", 1)[0].strip()
    spec = fields.get(key)
    if key == "name":
        return [(dir_name, dir_name, "value", "The directory name: the name must equal it.")]
    if spec is None:
        return []
    if spec.kind == "bool":
        return [(value, value, "value", spec.doc) for value in ("true", "false")]
    if spec.enum:
        return [(value, value, "value", spec.doc) for value in spec.enum]
    return []


def symbol_matches(query: str, name: str) -> bool:
    """Case-insensitive subsequence match, as editors filter workspace symbols."""
    if not query:
        return True
    iterator = iter(name.lower())
    return all(char in iterator for char in query.lower())


def parse_skill_text(text: str) -> SkillFile:
    from ..skillfile import parse_skill

    return parse_skill(text)
