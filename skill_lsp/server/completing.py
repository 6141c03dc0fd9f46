"""Where completion is: the string or list being typed in an agent's skills, the registries it offers, and
frontmatter keys and values. On the core model, in code points; completion.py converts positions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..agentfile import KNOWN_FIELDS as SUBAGENT_FIELDS
from ..codecalls import PySource
from ..index import Model, Owner, Registry
from ..model import Position, Profile, Span
from ..runtimes import FieldSpec, Runtime
from ..skillfile import SkillFile
from ..textutil import split_lines
from .cursor import registries_of
from .describe import field_doc

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
