"""SKILL.md text -> SkillFile: frontmatter fields with spans, YAML errors, body references."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from .bodyscan import IGNORE, Heading, Placeholder, Reference, scan_body, scan_headings, scan_placeholders
from .drawings import DrawnTree
from .model import Position, Span
from .runtimes.claude_code import quote, recover_lines
from .textutil import split_lines
from .yamlerror import YamlProblem, describe_yaml_error, index_position, mark_position, problem_text

_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_SAFE_RESOLVERS = yaml.SafeLoader.yaml_implicit_resolvers
# SafeLoader's implicit resolvers (null, bool, int, float, timestamp, merge, value) by the first
# character of the plain scalars they may match ('' for the empty scalar), wildcard ones added.
_WILDCARD = tuple(_SAFE_RESOLVERS.get(None, ()))
_BY_FIRST = {first: (*resolvers, *_WILDCARD) for first, resolvers in _SAFE_RESOLVERS.items() if first is not None}
_SCALAR = yaml.ScalarNode
_NOTHING: dict[object, object] = {}
# what SafeLoader's resolve gives a sequence or a mapping when there are no path resolvers
_COLLECTION_TAGS: dict[type, str] = {yaml.SequenceNode: yaml.SafeLoader.DEFAULT_SEQUENCE_TAG,
                    yaml.MappingNode: yaml.SafeLoader.DEFAULT_MAPPING_TAG}


def _resolve(self: Any, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
    """SafeLoader's tag for a node (it has no path resolvers), called from C for each one: a scalar's
    without the lists SafeLoader builds per call, so a quoted or tagged scalar, or a plain one whose
    first character starts no implicit type (most frontmatter values), costs a dictionary lookup; a
    collection's by its kind (SafeLoader's resolve was a Python call more)."""
    if kind is _SCALAR:
        if implicit[0]:
            for tag, pattern in _BY_FIRST.get(value[:1], _WILDCARD):
                if pattern.match(value):
                    return tag  # type: ignore[no-any-return]
        return _STR_TAG
    return _COLLECTION_TAGS[kind]


def _compose_pure(source: str) -> yaml.Node | None:
    """PyYAML's pure-Python composer: where libyaml is missing (and in tests of that case)."""
    return yaml.compose(source, Loader=yaml.SafeLoader)


_compose = _compose_pure
try:  # libyaml when it is there: the same nodes and marks, several times faster

    class _Composer(yaml.cyaml.CParser):  # type: ignore[misc,name-defined]
        """libyaml's composer with SafeLoader's tags and nothing else of a loader (a frontmatter
        is composed, its values constructed only where needed): SafeLoader's resolver, called
        from C for every node, cost a quarter of a composition."""

        yaml_implicit_resolvers = _SAFE_RESOLVERS
        yaml_path_resolvers = yaml.SafeLoader.yaml_path_resolvers  # none
        DEFAULT_SCALAR_TAG = yaml.SafeLoader.DEFAULT_SCALAR_TAG
        DEFAULT_SEQUENCE_TAG = yaml.SafeLoader.DEFAULT_SEQUENCE_TAG
        DEFAULT_MAPPING_TAG = yaml.SafeLoader.DEFAULT_MAPPING_TAG
        resolve = _resolve
        # called from C around each node: builtins that take the same arguments and do nothing, no Python
        # frame each (SafeLoader walks its path resolvers down and up the nodes; it has none)
        descend_resolver = staticmethod(_NOTHING.get)  # (parent, index): looks parent up in an empty dictionary
        ascend_resolver = staticmethod(tuple)  # (): the empty tuple

    def _compose(source: str) -> yaml.Node | None:
        return _Composer(source).get_single_node()  # type: ignore[no-any-return]

except AttributeError:  # pragma: no cover - depends on the PyYAML build
    pass

# Bounds against hostile YAML: node count when composing/constructing and the
# frontmatter size handed to the parser.
MAX_FRONTMATTER_CHARS = 256 * 1024
MAX_NODES = 20_000
_DELIMITER = "---"


class Field:
    """One top-level frontmatter key and its value. The spans are worked out from the YAML
    marks on first use: most fields of most files are never reported on."""

    __slots__ = ("_key_node", "_key_span", "_offset", "_starts", "_value_span", "error", "key", "node", "value")

    def __init__(self, key: str, key_node: yaml.Node, value: object, node: yaml.Node, error: str | None,
                 offset: int, starts: list[int] | None) -> None:
        self.key = key
        self.value = value
        self.node = node
        # a value the safe constructor refused (an unsafe tag); value is None then
        self.error = error
        self._key_node = key_node
        self._offset = offset
        self._starts = starts
        self._key_span: Span | None = None
        self._value_span: Span | None = None

    @property
    def key_span(self) -> Span:
        if self._key_span is None:
            self._key_span = _node_span(self._key_node, self._offset, self._starts)
        return self._key_span

    @property
    def value_span(self) -> Span:
        if self._value_span is None:
            self._value_span = _node_span(self.node, self._offset, self._starts)
        return self._value_span

    def span_of(self, node: yaml.Node) -> Span:
        """The span of a node inside this field's value (a list item, for a subagent's skills)."""
        return _node_span(node, self._offset, self._starts)

    def value_raw(self) -> tuple[int, int, int, int]:
        """value_span as four numbers (start line and column, end line and column), without the
        Span: a skill's facts keep the name's span so, and most are never made a Span."""
        if self._value_span is None and self._starts is None:
            start, end = self.node.start_mark, self.node.end_mark
            return start.line + self._offset, start.column, end.line + self._offset, end.column
        span = self.value_span
        return span.start.line, span.start.column, span.end.line, span.end.column

    def __repr__(self) -> str:
        return f"Field({self.key!r}, {self.value!r}, {self.key_span}, {self.value_span})"


class SkillFile:
    """A parsed SKILL.md: its frontmatter's fields (with spans), YAML problems and body references.

    A plain class with slots, not a dataclass: a cold check makes one per skill, and the dataclass's
    keyword __init__ with eight default factories cost 1.3 us of the 26 of a parse. Its `lines` are split
    from the text on first use: a skill whose body holds no reference is checked without them (the split
    cost 2.2 us a skill of the 10,000-skill corpus); the frontmatter and the lines that hold a reference
    are found in the text."""

    __slots__ = ("_headings", "_lines", "body_offset", "body_start", "close_line", "closed", "drawn", "duplicate_keys",
                 "fields", "has_frontmatter", "ignores", "machine_paths", "made", "not_mapping", "open_line",
                 "placeholders", "recovered", "references", "text", "yaml_problem")

    def __init__(self, text: str, lines: list[str] | None = None) -> None:
        self.text = text
        self._lines = lines
        self.has_frontmatter = False
        self.closed = False
        self.open_line = 0
        self.close_line: int | None = None
        self.fields: dict[str, Field] = {}
        self.duplicate_keys: list[Field] = []
        self.yaml_problem: YamlProblem | None = None
        # Claude Code's second parse when the first failed (None: not tried, or it failed too)
        self.recovered: Recovered | None = None
        self.not_mapping: Span | None = None
        self.body_start = 0
        # where the body's first line starts in text, in a text whose lines all end at "\n" (len(text) + 1
        # when the body is empty; unused when the text holds a "\r": then the body is read from lines)
        self.body_offset = 0
        self.references: list[Reference] = []
        self.machine_paths: list[Reference] = []
        # the paths the body has the agent make ("Save `references/extract.py`:"): not missing where mentioned
        self.made: set[str] = set()
        # the directory trees its code blocks draw (drawings.DrawnTree)
        self.drawn: list[DrawnTree] = []
        self.placeholders: list[Placeholder] = []
        self._headings: list[Heading] | None = None
        # line -> suppressed codes (an empty set suppresses every code)
        self.ignores: dict[int, set[str]] = {}

    def __repr__(self) -> str:
        return f"SkillFile(fields={self.fields!r}, body_start={self.body_start}, references={self.references!r})"

    @property
    def lines(self) -> list[str]:
        """The text's lines without their terminators (textutil.split_lines), split on first use. Any
        thread may ask: two that split at once make equal lists, and either is kept."""
        lines = self._lines
        if lines is None:
            lines = self._lines = split_lines(self.text)
        return lines

    def line(self, number: int) -> str:
        """lines[number] (0 <= number < line_count()), without splitting the whole text for one of its
        first lines."""
        if self._lines is not None or number > 8 or "\r" in self.text:
            return self.lines[number]
        text = self.text
        start = 0
        for _ in range(number):
            start = text.index("\n", start) + 1
        end = text.find("\n", start)
        return text[start:] if end < 0 else text[start:end]

    def line_count(self) -> int:
        """len(lines)."""
        if self._lines is not None or "\r" in self.text:
            return len(self.lines)
        return self.text.count("\n") + 1

    @property
    def headings(self) -> list[Heading]:
        """The body's headings outside code fences (the first MAX_BODY_ITEMS), found on first use."""
        if self._headings is None:
            self._headings = scan_headings(self)
        return self._headings

    @property
    def body(self) -> str:
        return "\n".join(self.lines[self.body_start :])

    def body_line_count(self) -> int:
        if self._lines is None and "\r" not in self.text:
            # the line of the text's last non-whitespace character ends the count (str.isspace is what
            # strip() removes, and every "\n" is whitespace): no split for a question asked of every
            # skill, and only the body's line breaks counted (a count costs 0.5 ns a character)
            text = self.text
            tail = text[-64:].rstrip()  # (the whole text's rstrip would copy it)
            last = max(len(text) - 64, 0) + len(tail) if tail or len(text) <= 64 else len(text.rstrip())
            return text.count("\n", self.body_offset, last) + 1 if last > self.body_offset else 0
        end = len(self.lines)
        while end > self.body_start and not self.lines[end - 1].strip():
            end -= 1
        return max(0, end - self.body_start)

    def line_span(self, line: int) -> Span:
        text = self.lines[line] if 0 <= line < len(self.lines) else ""
        return Span.of(line, 0, line, len(text))

    def get_str(self, key: str) -> str | None:
        entry = self.fields.get(key)
        return entry.value if entry is not None and isinstance(entry.value, str) else None

    @property
    def lenient_fields(self) -> dict[str, Field]:
        """The fields a lenient loader reads: the strict parse's, or Claude Code's recovered ones when
        the YAML does not parse as written."""
        if self.yaml_problem is not None and self.recovered is not None:
            return self.recovered.fields
        return self.fields

    def lenient_str(self, key: str) -> str | None:
        entry = self.lenient_fields.get(key)
        return entry.value if entry is not None and isinstance(entry.value, str) else None

    def end_position(self) -> Position:
        lines = self.lines
        return Position(len(lines) - 1, len(lines[-1]))


def parse_skill(text: str) -> SkillFile:
    if "\r" in text:  # lines end at "\r\n", "\r" or "\n": the frontmatter is found in the lines
        return _parse_lines(SkillFile(text, split_lines(text)))
    skill = SkillFile(text)
    end = text.find("\n")  # of the first line
    first = text if end < 0 else text[:end]
    if first.lstrip("\ufeff").rstrip() != _DELIMITER:
        scan_body(skill)
        scan_placeholders(skill)
        return skill
    skill.has_frontmatter = True
    # the closing delimiter: the first line after it that is "---" and trailing whitespace
    at = end
    stop = -1
    while at >= 0:
        at = text.find("\n---", at)
        if at < 0:
            break
        stop = text.find("\n", at + 4)
        if (text[at + 1 :] if stop < 0 else text[at + 1 : stop]).rstrip() == _DELIMITER:
            break
        at = stop
    if at < 0:
        skill.body_start = skill.line_count()
        skill.body_offset = len(text) + 1
        _collect_ignores(skill, 1, skill.body_start)
        return skill
    skill.close_line = close = text.count("\n", 0, at + 1)
    skill.closed = True
    skill.body_start = close + 1
    skill.body_offset = len(text) + 1 if stop < 0 else stop + 1
    if "skill-lsp" in text:  # a suppression comment somewhere (few files): the frontmatter's lines are looked at
        _collect_ignores(skill, 1, close)
    # the lines between the delimiters, each ending at "\n"
    _parse_frontmatter(skill, text[end + 1 : at + 1] or "\n")
    scan_body(skill)
    scan_placeholders(skill)
    return skill


def _parse_lines(skill: SkillFile) -> SkillFile:
    """parse_skill of a text whose lines may end at "\r": the frontmatter found line by line."""
    lines = skill.lines
    first = lines[0].lstrip("\ufeff")
    if first.rstrip() != _DELIMITER:
        scan_body(skill)
        scan_placeholders(skill)
        return skill
    skill.has_frontmatter = True
    for number in range(1, len(lines)):
        if lines[number].rstrip() == _DELIMITER:
            skill.close_line = number
            break
    if skill.close_line is None:
        skill.body_start = len(lines)
        _collect_ignores(skill, 1, len(lines))
        return skill
    skill.closed = True
    skill.body_start = skill.close_line + 1
    _collect_ignores(skill, 1, skill.close_line)
    _parse_frontmatter(skill, "\n".join(lines[1 : skill.close_line]) + "\n")
    scan_body(skill)
    scan_placeholders(skill)
    return skill


def _collect_ignores(skill: SkillFile, start: int, stop: int) -> None:
    if "skill-lsp" not in skill.text:
        return  # no suppression comment anywhere (most files): no line to look at
    for number in range(start, stop):
        line = skill.lines[number]
        if "skill-lsp" not in line:
            continue
        match = IGNORE.search(line)
        if match:
            codes = match.group(1)
            skill.ignores[number] = {c.strip().upper() for c in codes.split(",") if c.strip()} if codes else set()


# YAML also ends lines at U+0085, U+2028 and U+2029; LSP (and split_lines) do not. When the
# frontmatter holds one, YAML's line/column marks disagree with the document's lines, so
# positions come from the mark's character index instead.
_YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")


def _line_starts(source: str) -> list[int]:
    return [0, *(match.end() for match in re.finditer("\n", source))]


def _reader_index(source: str, position: int, character: str) -> int:
    """The character index of a ReaderError: PyYAML counts characters, libyaml bytes of UTF-8."""
    if 0 <= position < len(source) and source[position] == character:
        return position
    prefix = source.encode("utf-8", "surrogatepass")[:position]
    return max(0, min(len(prefix.decode("utf-8", "replace")), len(source) - 1))


def _node_span(node: yaml.Node, line_offset: int, starts: list[int] | None = None) -> Span:
    start = mark_position(node.start_mark, line_offset, starts)
    end = mark_position(node.end_mark, line_offset, starts)
    return Span(start, end)


def _parse_frontmatter(skill: SkillFile, source: str) -> None:
    """The fields of the frontmatter's text (source: its lines, each ending at "\n")."""
    offset = 1
    if len(source) > MAX_FRONTMATTER_CHARS:
        skill.yaml_problem = YamlProblem(
            f"the frontmatter is over {MAX_FRONTMATTER_CHARS // 1024} KB; not parsed", skill.line_span(0)
        )
        return
    starts = _line_starts(source) if not source.isascii() and any(brk in source for brk in _YAML_ONLY_BREAKS) else None
    try:
        root = _compose(source)
    except yaml.MarkedYAMLError as error:
        skill.yaml_problem = describe_yaml_error(skill, error, offset, starts)
        skill.recovered = _recover(skill)
        return
    except yaml.reader.ReaderError as error:  # a character YAML does not allow (NUL, other controls)
        code = ord(error.character) if isinstance(error.character, str) else int(error.character)
        position = index_position(_reader_index(source, error.position, chr(code)), offset, _line_starts(source))
        line = skill.lines[position.line] if position.line < len(skill.lines) else ""
        column = min(position.column, len(line))
        skill.yaml_problem = YamlProblem(
            f"invalid YAML: unacceptable character #x{code:04x}: {error.reason}; remove it",
            Span.of(position.line, column, position.line, min(column + 1, len(line))),
        )
        return
    except (yaml.YAMLError, RecursionError, ValueError) as error:
        skill.yaml_problem = YamlProblem(f"invalid YAML: {error}", skill.line_span(0))
        return
    if root is None:
        return  # empty frontmatter: an empty mapping
    if not isinstance(root, yaml.MappingNode):
        skill.not_mapping = _node_span(root, offset, starts)
        return
    skill.fields, skill.duplicate_keys = _read_fields(root, offset, starts)


def _read_fields(root: yaml.MappingNode, offset: int, starts: list[int] | None) -> tuple[dict[str, Field], list[Field]]:
    """The top-level keys of a composed frontmatter, each value constructed (or its error kept)."""
    fields: dict[str, Field] = {}
    duplicates: list[Field] = []
    constructor: SafeConstructor | None = None
    budget = [MAX_NODES]
    for key_node, value_node in root.value:
        if not isinstance(key_node, _SCALAR):
            continue
        key = str(key_node.value)
        value: object = None
        problem: str | None = None
        # a string's value without a call (most values are; _plain_value's first case)
        plain = value_node.value if (type(value_node) is _SCALAR and value_node.tag == _STR_TAG
                                     and budget[0] > 0) else _NOT_PLAIN
        if plain is not _NOT_PLAIN:
            budget[0] -= 1
            value = plain
        elif (plain := _plain_value(value_node, budget)) is not _NOT_PLAIN:
            value = plain
        elif _node_count(value_node, budget) is None:
            problem = "the value nests or repeats too deeply (YAML aliases); a loader would refuse it"
        else:
            try:
                if constructor is None:
                    constructor = SafeConstructor()
                value = constructor.construct_object(value_node, deep=True)
            except yaml.YAMLError as error:
                problem = problem_text(error)
            except (RecursionError, ValueError, TypeError, OverflowError) as error:
                problem = f"cannot be loaded: {error}"
        entry = Field(key, key_node, value, value_node, problem, offset, starts)
        if key in fields:
            duplicates.append(entry)
        fields[key] = entry
    return fields, duplicates


@dataclass
class Recovered:
    """What Claude Code's second parse reads after its repair (runtimes.claude_code.recover_lines): the
    fields, with spans on the file's own lines, and the lines it quoted or re-indented."""

    fields: dict[str, Field]
    duplicate_keys: list[Field]
    quoted: dict[int, tuple[int, int]]  # file line -> the columns of the value it quoted
    shifted: list[int]  # file lines whose leading tabs it replaced


def _recover(skill: SkillFile) -> Recovered | None:
    """Claude Code's retry of a frontmatter that does not parse; None when the retry fails too."""
    assert skill.close_line is not None
    repaired = recover_lines(skill.lines[1 : skill.close_line])
    if repaired is None:
        return None
    source = "\n".join(repaired.lines) + "\n"
    try:
        root = _compose(source)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    if root is None:
        return Recovered({}, [], {}, [])
    if not isinstance(root, yaml.MappingNode):
        return None
    starts = _line_starts(source) if not source.isascii() and any(brk in source for brk in _YAML_ONLY_BREAKS) else None
    fields, duplicates = _read_fields(root, 1, starts)

    def moved(span: Span) -> Span:
        def at(position: Position) -> Position:
            return Position(position.line, max(0, position.column - repaired.shifted.get(position.line - 1, 0)))
        return Span(at(span.start), at(span.end))

    quoted = {line + 1: columns for line, columns in repaired.quoted.items()}
    for entry in (*fields.values(), *duplicates):
        entry._key_span = moved(entry.key_span)
        line = entry.value_span.start.line
        if line in quoted and entry.value_span.end.line == line:
            start, end = quoted[line]
            entry._value_span = Span.of(line, start, line, end)
        else:
            entry._value_span = moved(entry.value_span)
    return Recovered(fields, duplicates, quoted, sorted(line + 1 for line in repaired.shifted))


_NOT_PLAIN = object()


def _plain_value(node: yaml.Node, budget: list[int]) -> object:
    """What SafeConstructor makes of a string scalar, or of a mapping or a list holding only string
    scalars (most frontmatter values: a metadata mapping, a list of tools), without a constructor
    per file; _NOT_PLAIN for anything else (a merge key is tagged as one, not as a string)."""
    kind = type(node)
    if kind is yaml.ScalarNode:
        if node.tag == _STR_TAG and budget[0] > 0:
            budget[0] -= 1
            return node.value
        return _NOT_PLAIN
    items = node.value
    if kind is yaml.MappingNode and node.tag == _MAP_TAG and budget[0] > 2 * len(items):
        mapping = {}
        for key, item in items:
            if not (type(key) is yaml.ScalarNode and type(item) is yaml.ScalarNode
                    and key.tag == _STR_TAG and item.tag == _STR_TAG):
                return _NOT_PLAIN
            mapping[key.value] = item.value
        budget[0] -= 1 + 2 * len(items)
        return mapping
    if kind is yaml.SequenceNode and node.tag == _SEQ_TAG and budget[0] > len(items):
        values = []
        for item in items:
            if not (type(item) is yaml.ScalarNode and item.tag == _STR_TAG):
                return _NOT_PLAIN
            values.append(item.value)
        budget[0] -= 1 + len(items)
        return values
    return _NOT_PLAIN


def _node_count(node: yaml.Node, budget: list[int]) -> int | None:
    """Count nodes as a loader would expand them; None when over the budget."""
    stack = [node]
    while stack:
        current = stack.pop()
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if isinstance(current, yaml.MappingNode):
            for pair in current.value:
                stack.extend(pair)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return budget[0]


def quote_yaml_value(value: str) -> str:
    """A double-quoted YAML scalar holding value exactly, as Claude Code's recovery quotes it."""
    return quote(value)
