"""What the editor features compute, on the core model, in code points.

The pygls layer converts positions and ranges; these functions never see
client units.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

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
from ..index import AgentEntry, DefinitionEntry, Model, OptionsEntry, Owner, Registry, SkillEntry
from ..model import Position, Profile, Span
from ..pysource import Call, PySource, PyValue
from ..rules.report import closest
from ..rules.skills import load_verdicts
from ..runtimes import Consequence, FieldSpec, Runtime, join_labels, typo_of
from ..skillfile import SkillFile
from ..textutil import split_lines

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
        if not _contains(call.span, position) and not _contains(call.callee_span, position):
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
        if call.kind == "agent_file" and best is None:
            for key, keyword in call.keywords.items():
                if key != "skills" and _contains(keyword.name_span, position):
                    best = CodeTarget("field", path, call, owner, key=key)
    return best


def _contains(span: Span, position: Position) -> bool:
    return span.start <= position <= span.end


def registries_of(owner: Owner) -> list[Registry]:
    if isinstance(owner, AgentEntry):
        return [registry for _, registry in owner.registries() if registry is not None]
    return [owner.registry]


def resolve_listing(owner: Owner | None, name: str) -> SkillEntry | None:
    if owner is None:
        return None
    if isinstance(owner, DefinitionEntry):
        return owner.lookup(name)
    if isinstance(owner, OptionsEntry):
        return owner.registry.session_lookup(name)
    for registry in registries_of(owner):
        skill = registry.lookup(name)
        if skill is not None:
            return skill
    return None


def known_names(owner: Owner | None) -> list[str]:
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
        if _contains(entry.key_span, position):
            return key, False
        if _contains(entry.value_span, position):
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


def _open_string(line: str, column: int, comment: str = "#", quotes: str = "\"'") -> tuple[int, str] | None:
    """(content start, quote) when column is inside a single-line string on line (Python by default;
    TypeScript/JavaScript with comment="//" and backticks among the quotes)."""
    index = 0
    start: int | None = None
    quote = ""
    while index < column:
        char = line[index]
        if start is None:
            if line.startswith(comment, index):
                return None
            if char in quotes:
                if comment == "#" and line.startswith(char * 3, index):
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
                elif resolved in ("claude_agent_sdk:ClaudeAgentOptions", "claude_agent_sdk:AgentDefinition"):
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
    if claude:  # the innermost options or AgentDefinition around the call
        return _owner_registries(model, path, line), True
    _, agents, _ = model.entries_in(path)
    for agent in agents:
        if agent.call.span.start.line <= line <= agent.call.span.end.line:
            return registries_of(agent), False
    if agents:
        found: list[Registry] = []
        for agent in agents:
            found += registries_of(agent)
        return found, False
    folder = model.folder_of(path)
    known = model.project_registries.get(folder)
    if known is not None:
        return [known], False
    registry = Registry("AgentDeck roots", [])
    for skill in model.skills.values():
        if skill.profile == Profile.AGENTDECK and skill.root is not None and not skill.misnamed:
            registry.add(skill)
    return [registry], False


def frontmatter_completion(file: SkillFile, runtimes: tuple[Runtime, ...], dir_name: str,
                           position: Position) -> list[tuple[str, str, str, str]]:
    """(label, insert text, kind, documentation) for a frontmatter position; [] outside it. Keys are those
    of the runtimes that discover the skill."""
    if not file.has_frontmatter or position.line == 0:
        return []
    end = file.close_line if file.close_line is not None else len(file.lines)
    if position.line >= end:
        return []
    line = file.lines[position.line]
    before = line[: position.column]
    fields: dict[str, tuple[Runtime, FieldSpec]] = {}
    for each in runtimes:
        for key, spec in each.fields.items():
            fields.setdefault(key, (each, spec))
    if ":" not in before:
        if before.startswith((" ", "\t", "-")):
            return []
        # the keys written so far, even while the YAML does not parse
        present = {match.group(1) for text in file.lines[1:end] if (match := re.match(r"^([\w-]+)\s*:", text))}
        return [(key, f"{key}: ", "key", field_doc(spec, owner, runtimes)) for key, (owner, spec) in fields.items()
                if key not in present]
    key = before.split(":", 1)[0].strip()
    found = fields.get(key)
    if key == "name":
        return [(dir_name, dir_name, "value", "The directory name: the name must equal it.")]
    if found is None:
        return []
    spec = found[1]
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


# -- completion in TypeScript / JavaScript and subagent files ------------------------------------

_WORD = re.compile(r"[\w:.-]*")
_TOP_KEY = re.compile(r"^([^\s#'\"-][^:]*?)\s*:(?:\s|$)")


def agent_list_context(model: Model, path: Path, text: str, position: Position,
                       source: PySource) -> tuple[StringContext, list[Registry]] | None:
    """Inside a skills list of a subagent file or of a TypeScript query()/AgentDefinition: where the name
    being typed starts and ends, and the registries to offer from (the innermost owner's)."""
    lines = split_lines(text)
    if position.line >= len(lines):
        return None
    line = lines[position.line]
    column = min(position.column, len(line))
    if path.suffix == ".md":
        found = _frontmatter_list_position(lines, position.line, column)
    else:
        found = _script_list_position(text, lines, position.line, column, source)
    if found is None:
        return None
    start, listed = found
    rest = line[column:]
    end = column + (_WORD.match(rest) or _WORD.match("")).end()  # type: ignore[union-attr]
    context = StringContext(Position(position.line, start), Position(position.line, end), line[start:column],
                            "claude_agent_sdk", 0, listed)
    return context, _owner_registries(model, path, position.line)


def _frontmatter_list_position(lines: list[str], row: int, column: int) -> tuple[int, list[str]] | None:
    """(start of the name at the cursor, the names listed) when the cursor is in `skills:` of the frontmatter."""
    if not lines or lines[0].strip() != "---" or row == 0:
        return None
    close = next((number for number in range(1, len(lines)) if lines[number].rstrip() == "---"), len(lines))
    if row >= close:
        return None
    key_row = row
    while key_row > 0 and _TOP_KEY.match(lines[key_row]) is None:
        key_row -= 1
    match = _TOP_KEY.match(lines[key_row]) if key_row > 0 else None
    if match is None or match.group(1) != "skills":
        return None
    line = lines[row]
    if row == key_row and column < match.end():
        return None  # on the key itself
    if row != key_row and line[:1] not in (" ", "\t", "-"):
        return None  # a new key being typed: list items are indented or start with '-'

    start = column
    while start > 0 and line[start - 1] not in "[],'\" \t":
        start -= 1
    lead = line[match.end():start] if row == key_row else line[:start]
    # a name starts the value, follows '- ' (a block item), '[' or ',' (a flow list), or a quote
    if not re.fullmatch(r"\s*(?:-\s*|\[\s*|.*,\s*)?['\"]?", lead):
        return None
    stop = next((number for number in range(key_row + 1, close) if _TOP_KEY.match(lines[number])), close)
    block = "\n".join(lines[key_row:stop])
    listed = [name for name in re.findall(r"[\w][\w:.-]*", block.split(":", 1)[1] if ":" in block else "")
              if name != line[start:column]]
    return start, listed


def _script_list_position(text: str, lines: list[str], row: int, column: int,
                          source: PySource) -> tuple[int, list[str]] | None:
    """(start of the name at the cursor, the names listed) when the cursor is in a string of `skills: [`."""
    if not source.frameworks:
        return None  # the file does not import the SDK
    line = lines[row]
    found = _open_string(line, column, "//", "\"'`")
    if found is None:
        return None
    opened = found[0]
    offset = sum(len(each) + 1 for each in lines[:row]) + opened - 1
    window = text[max(0, offset - 20000):offset]
    bracket = _open_bracket(window)
    if bracket is None or re.search(r"\bskills\s*:\s*$", window[:bracket]) is None:
        return None
    listed = re.findall(r"""["'`]([^"'`\n]+)["'`]""", window[bracket:])
    return opened, listed


def _open_bracket(window: str) -> int | None:
    """The index of the '[' still open at the end of window (strings skipped), if any."""
    depth = 0
    index = len(window) - 1
    while index >= 0:
        char = window[index]
        if char in "\"'`":
            quote = char
            index -= 1
            while index >= 0 and window[index] != quote and window[index] != "\n":
                index -= 1
        elif char in "])}":
            depth += 1
        elif char in "[({":
            if depth == 0:
                return index if char == "[" else None
            depth -= 1
        index -= 1
    return None


def _owner_registries(model: Model, path: Path, line: int) -> list[Registry]:
    """The registries of the innermost options or agent definition of path around line; else all of the
    file's; else every discovered Claude skill."""
    _, _, options = model.entries_in(path)
    owners: list[Owner] = [*options, *model.definitions_in(path)]
    around = [owner for owner in owners if owner.call.span.start.line <= line <= owner.call.span.end.line]
    if around:
        innermost = min(around, key=lambda owner: (owner.call.span.end.line - owner.call.span.start.line,
                                                   -owner.call.span.start.column))
        return registries_of(innermost)
    if owners:
        found: list[Registry] = []
        for owner in owners:
            for registry in registries_of(owner):
                if registry not in found:
                    found.append(registry)
        return found
    registry = Registry("discovered Claude skills", [])
    for skill in model.skills.values():
        if skill.profile == Profile.CLAUDE and skill.root is not None:
            registry.add(skill)
    return [registry]


def subagent_key_completion(text: str, position: Position) -> tuple[Span, list[tuple[str, str]]] | None:
    """At the start of a top-level line of a subagent file's frontmatter: the fields not written yet, and the
    span the typed word takes."""
    lines = split_lines(text)
    if not lines or lines[0].strip() != "---" or position.line == 0 or position.line >= len(lines):
        return None
    close = next((number for number in range(1, len(lines)) if lines[number].rstrip() == "---"), len(lines))
    if position.line >= close:
        return None
    line = lines[position.line]
    column = min(position.column, len(line))
    if not re.fullmatch(r"[A-Za-z_]*", line[:column]) or ":" in line[:column]:
        return None
    end = column + len(re.match(r"[A-Za-z_]*", line[column:]).group(0))  # type: ignore[union-attr]
    written = {match.group(1) for row in lines[1:close] if (match := _TOP_KEY.match(row))}
    offered = [(key, doc) for key, doc in SUBAGENT_FIELDS.items()
               if key not in written and key.lower().startswith(line[:column].lower())]
    return Span.of(position.line, 0, position.line, end), offered
