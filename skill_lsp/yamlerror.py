"""Why a SKILL.md's frontmatter does not parse, said at the line the author must fix (YamlProblem)."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import yaml

from .model import Position, Span

if TYPE_CHECKING:
    from .skillfile import SkillFile


@dataclass
class YamlProblem:
    message: str
    span: Span
    # When the problem is a value holding an unquoted ': ' (or another quoting problem), the field line
    # that a quick fix can quote.
    quote_line: int | None = None
    # what to do about it ("quote the value"); empty when there is no common fix
    advice: str = ""


def index_position(index: int, line_offset: int, starts: list[int]) -> Position:
    line = bisect.bisect_right(starts, index) - 1
    return Position(line + line_offset, index - starts[line])


def mark_position(mark: yaml.Mark, line_offset: int, starts: list[int] | None = None) -> Position:
    if starts is not None:
        return index_position(mark.index, line_offset, starts)
    return Position(mark.line + line_offset, mark.column)


def problem_text(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError):
        return " ".join(part for part in (error.context, error.problem) if part)
    return str(error)


_KEY_VALUE = re.compile(r"^(\s*)([^\s#:][^:#]*?):[ \t]+(\S(?:.*\S)?)\s*$")
_BARE_KEY = re.compile(r"^\s*([\w][\w .-]*?)\s*$")
# characters YAML reserves at the start of a plain value
_RESERVED_START = "@`*&!%|>{["


def describe_yaml_error(
    skill: SkillFile, error: yaml.MarkedYAMLError, offset: int, starts: list[int] | None = None
) -> YamlProblem:
    """The YAML error explained at the line the author must fix, for the common causes: an unquoted ': '
    in a value, a value starting with a character YAML reserves, a key with no ':', a quote or a bracket
    never closed, a line indented under a key that already has a value, and tabs."""
    mark = error.problem_mark or error.context_mark
    problem = problem_text(error)
    last = (skill.close_line or len(skill.lines)) - 1
    context = error.context or ""
    if mark is not None and error.context_mark is not None and (
            mark_position(mark, offset, starts).line > last or "simple key" in context):
        # "found unexpected end of stream", "could not find expected ':'": where the quote, the bracket or
        # the bare key started is the line to fix
        mark = error.context_mark
    if mark is None:
        return YamlProblem(f"invalid YAML: {problem}", skill.line_span(0))
    position = mark_position(mark, offset, starts)
    line = min(position.line, last)
    text = skill.lines[line] if 0 <= line < len(skill.lines) else ""
    column = min(position.column, len(text))
    end_of_text = len(text.rstrip())
    whole = Span.of(line, len(text) - len(text.lstrip()), line, end_of_text) if text.strip() else Span.of(line, 0, line, 0)
    match = _KEY_VALUE.match(text)
    value = match.group(3) if match else ""
    key = match.group(2).strip() if match else ""
    if "\t" in text[: len(text) - len(text.lstrip())] and ("tab" in problem or "'\\t'" in problem or "cannot start any token" in problem):
        indent = len(text) - len(text.lstrip())
        return YamlProblem(
            f"invalid YAML: line {line + 1} is indented with a tab; YAML indentation must use spaces, not tabs",
            Span.of(line, 0, line, indent), advice="indent with spaces",
        )
    if "mapping values are not allowed" in problem and match:
        if ": " in value and not value.startswith(("'", '"', "|", ">", "[", "{")):
            # reported at the parser's mark (the offending ': '), through the end of the value
            start = column if match.start(3) <= column < end_of_text else match.start(3)
            return YamlProblem(
                f"invalid YAML: the value of '{key}' contains ': ' and is not quoted, so YAML reads it as a second key",
                Span.of(line, start, line, end_of_text), quote_line=line, advice="quote the value",
            )
        above = _key_above(skill, line)
        if match.group(1) and above is not None:
            return YamlProblem(
                f"invalid YAML: '{key}' is indented under '{above}', which already has a value, so YAML cannot "
                "read it as a key",
                whole, advice=f"align '{key}' with the keys above it",
            )
    if "simple key" in context and _BARE_KEY.match(text):
        bare = text.strip()
        return YamlProblem(
            f"invalid YAML: '{bare}' has no ':' after it, so YAML cannot read it as a key",
            whole, advice=f"write '{bare}: ...', or indent the line if it continues the value above",
        )
    if "quoted scalar" in context:
        return YamlProblem(
            "invalid YAML: the quote opened here is never closed, so YAML reads the rest of the frontmatter into it",
            Span.of(line, column, line, end_of_text), advice="close the quote on this line",
        )
    if "flow sequence" in context or "flow mapping" in context:
        return YamlProblem(
            f"invalid YAML: the '{text[column] if column < len(text) else '['}' opened here is never closed",
            Span.of(line, column, line, end_of_text), quote_line=line if match else None,
            advice="close it, or quote the value if it is text",
        )
    if match and value[0] in _RESERVED_START and not value.startswith(("|", ">", "[", "{")):
        return YamlProblem(
            f"invalid YAML: the value of '{key}' starts with '{value[0]}', which YAML reserves",
            Span.of(line, match.start(3), line, end_of_text), quote_line=line, advice="quote the value",
        )
    if match and value[0] in "'\"" and ("expected key" in problem or "block end" in problem):
        # from the parser's mark (the text after the closing quote) to the end of the value
        start = column if match.start(3) < column < end_of_text else match.start(3)
        return YamlProblem(
            f"invalid YAML: the value of '{key}' is a quoted string followed by more text",
            Span.of(line, start, line, end_of_text), quote_line=line, advice="quote the whole value",
        )
    if "mapping values are not allowed" in problem:
        return YamlProblem(
            f"invalid YAML: {problem}", Span.of(line, column, line, max(column, end_of_text)),
            advice="most often an unquoted ': ' inside a value; quote the value",
        )
    end = end_of_text if column < end_of_text else len(text)
    if end <= column and text.strip():
        column, end = 0, len(text)
    return YamlProblem(f"invalid YAML: {problem}", Span.of(line, column, line, end))


def _key_above(skill: SkillFile, line: int) -> str | None:
    """The key of the nearest line above that is a less indented 'key: value' with a value."""
    indent = len(skill.lines[line]) - len(skill.lines[line].lstrip())
    for number in range(line - 1, 0, -1):
        text = skill.lines[number]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        match = _KEY_VALUE.match(text)
        if match and len(match.group(1)) < indent:
            return match.group(2).strip()
        return None
    return None
