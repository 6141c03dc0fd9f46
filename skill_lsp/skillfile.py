"""SKILL.md text -> SkillFile: frontmatter fields with spans, YAML errors, body references."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from .model import Position, Span
from .runtimes.claude_code import quote, recover_lines
from .textutil import covered_by, split_lines

_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_SAFE_RESOLVERS = yaml.SafeLoader.yaml_implicit_resolvers
# SafeLoader's implicit resolvers (null, bool, int, float, timestamp, merge, value) by the first
# character of the plain scalars they may match ('' for the empty scalar), wildcard ones added.
_WILDCARD = tuple(_SAFE_RESOLVERS.get(None, ()))
_BY_FIRST = {first: (*resolvers, *_WILDCARD) for first, resolvers in _SAFE_RESOLVERS.items() if first is not None}
_safe_resolve = yaml.SafeLoader.resolve


def _resolve(self: Any, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
    """SafeLoader's tag for a node (it has no path resolvers), called from C for each one: a scalar's
    without the lists SafeLoader builds per call, so a quoted or tagged scalar, or a plain one whose
    first character starts no implicit type (most frontmatter values), costs a dictionary lookup."""
    if kind is yaml.ScalarNode:
        if implicit[0]:
            for tag, pattern in _BY_FIRST.get(value[0] if value else "", _WILDCARD):
                if pattern.match(value):
                    return tag  # type: ignore[no-any-return]
        return _STR_TAG
    return _safe_resolve(self, kind, value, implicit)  # type: ignore[no-any-return,no-untyped-call]


def _stay(*_: object) -> None:
    """SafeLoader walks its path resolvers down and up each node; it has none."""


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
        descend_resolver = _stay
        ascend_resolver = _stay

    def _compose(source: str) -> yaml.Node | None:
        return _Composer(source).get_single_node()  # type: ignore[no-any-return]

except AttributeError:  # pragma: no cover - depends on the PyYAML build
    pass

# Bounds against hostile YAML: node count when composing/constructing and the
# frontmatter size handed to the parser.
MAX_FRONTMATTER_CHARS = 256 * 1024
MAX_NODES = 20_000
# Bounds on what one body yields (its rules and symbols cost per item): the first this many
# references, machine paths and headings are kept, the rest of a hostile file is not.
MAX_BODY_ITEMS = 5_000

_DELIMITER = "---"
_IGNORE = re.compile(r"skill-lsp:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# Every pattern here runs on every body line, so each must be linear in the line's length: no
# two adjacent quantifiers that can match the same characters (the old heading pattern took
# minutes on a 4,000-character line); a heading's closing hashes are stripped in code.
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+)$")
# [text](target "title") and ![alt](target); the target may be in <...>. The link text holds no
# unescaped bracket and the target no parenthesis, so a scan from one '[' stops at the next.
_LINK = re.compile(r"(?<!\\)!?\[(?:[^\[\]\\]|\\.)*\]\(\s*(<[^<>]*>|[^()\s]+)(?:\s+\"[^\"]*\")?\s*\)")
# a link reference definition; `[^1]: Mermaid. "..."` is a footnote (GFM), whose text is no destination
_REF_DEF = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)")
# Bare relative references to the conventional skill subfolders.
SKILL_FOLDERS = frozenset({"scripts", "references", "reference", "assets", "templates", ".", ".."})
_BARE = re.compile(r"(?<![\w./\\:-])((?:\./)?(?:scripts|references|reference|assets|templates)/[\w./-]*[\w-])")
# Paths that only exist on the author's machine: a user's home directory (also as a file:// URI). A
# path ends at whitespace, a quote, a bracket, or the ',' and ';' that separate option values
# (`target=/home/vscode/.cargo,type=volume`).
_MACHINE_PATH = re.compile(
    r"(?<![\w/.=])(?:file://(?=/(?:Users|home)/|/?[A-Za-z]:[\\/]Users[\\/])[^\s)`'\",;]+"
    r"|/(?:Users|home)/([\w.-]+)/[^\s)`'\",;]*|[A-Za-z]:\\Users\\([^\s)`'\",;\\]+)[^\s)`'\",;]*)"
)
# Home directories that are not a person's: the users of development containers, CI runners and
# notebook images, and the placeholders documentation writes for "your name".
# A user name that stands for anyone's: a placeholder's brackets or sigils, or one in capitals (USER, USERNAME).
_PLACEHOLDER_USER = re.compile(r"[<>{}$%*@]|^(?:your|my)|user|name|email", re.IGNORECASE)
_NOT_A_PERSON = frozenset({
    "vscode", "node", "runner", "codespace", "jovyan", "circleci", "gitpod", "devcontainer",
    "name", "username", "user", "you", "yourname", "your-name", "your_name", "yourusername", "me", "example",
})
# A line that shows a machine path as what not to do ("never hard-code `/Users/name/...`").
_COUNTER_EXAMPLE = re.compile(
    r"(?i)\b(?:never|don'?t|do not|avoid|hard-?coded|instead of|not portable|bad|wrong|incorrect)\b|\u274c|\u2717"
)
# Fences whose lines the agent runs as shell commands (Claude Code also runs a fence opened with
# "```!" while it loads the skill).
_SHELL_FENCES = frozenset({"bash", "sh", "shell", "zsh", "console", "fish", "!"})
# ${CLAUDE_SKILL_DIR} (Claude Code 2.1.69) and {baseDir} (the skill directory in Anthropic's own
# skills) name a file of the skill itself, wherever they are written.
_SKILL_DIR_PATH = re.compile(r"(?:\$\{CLAUDE_SKILL_DIR\}|\{baseDir\})/([\w.@+-]+(?:/[\w.@+-]+)*/?)")
# Words that make a path on the same line an example of what a skill could hold, not a file of this
# one: "**Example**: `scripts/rotate_pdf.py`", "e.g. `references/finance.md`", and, after the path,
# "A `scripts/x.py` script would be helpful".
_EXAMPLE_BEFORE = re.compile(r"(?i)\b(?:examples?\b|e\.g\.|for instance\b|such as\b|good\b\s*\**:|bad\b\s*\**:|avoid\b)"
                             r"|[\u2713\u2714\u2717\u2718\u274c\u2705]")
# A line of a template to fill in: a bracketed placeholder that is no link ("- [c4-file.md](./c4-file.md) - [Description]").
_TEMPLATE_LINE = re.compile(r"\[(?:[A-Z][a-z]+(?: [A-Za-z]+){0,3}|\.\.\.|TODO|TBD)\](?![(\[:])")
_EXAMPLE_AFTER = re.compile(r"(?i)\bwould (?:be (?:helpful|useful)|help)\b|\bcould (?:be|hold|contain)\b")
# right after a path, what says it is another skill's file: "Follow `references/ingest.md` in the llm-wiki skill"
_OTHER_SKILL = re.compile(r"(?i)\W*(?:in|of|from) the [\w-]+ skill\b")
# A list whose lead-in says its items are files to make or examples: "Move detailed content to
# references/:", "Create a `references/` directory and move supporting material there:".
_EXAMPLE_LEAD_IN = re.compile(r"(?i)\b(?:examples?|e\.g\.|such as|for instance|create|move|would|could|might)\b")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")
_BACKTICKS = re.compile(r"`+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_PLACEHOLDER = re.compile(r"[{}$<>*|]")


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


@dataclass
class YamlProblem:
    message: str
    span: Span
    # When the problem is a value holding an unquoted ': ' (or another quoting problem), the field line
    # that a quick fix can quote.
    quote_line: int | None = None
    # what to do about it ("quote the value"); empty when there is no common fix
    advice: str = ""


@dataclass
class Reference:
    """A relative file reference in the body (link target or bare path)."""

    target: str
    span: Span
    is_link: bool
    # link: a Markdown link's target, relative to the skill directory; skill-dir: a path through
    # ${CLAUDE_SKILL_DIR} or {baseDir} (target without it); bare: a path written in the text, which
    # may also be meant from the plugin or project root; loose: a path that reads as prose or an
    # example, never reported missing
    kind: str = "bare"


@dataclass
class Placeholder:
    """A `$N` in the body that Claude Code replaces with the invocation's N-th argument, where the
    author almost certainly meant something else (why: "currency" or "shell")."""

    text: str
    span: Span
    why: str


@dataclass
class Heading:
    level: int
    text: str
    span: Span


@dataclass
class SkillFile:
    text: str
    lines: list[str]
    has_frontmatter: bool = False
    closed: bool = False
    open_line: int = 0
    close_line: int | None = None
    fields: dict[str, Field] = field(default_factory=dict)
    duplicate_keys: list[Field] = field(default_factory=list)
    yaml_problem: YamlProblem | None = None
    # Claude Code's second parse when the first failed (None: not tried, or it failed too)
    recovered: Recovered | None = None
    not_mapping: Span | None = None
    body_start: int = 0
    references: list[Reference] = field(default_factory=list)
    machine_paths: list[Reference] = field(default_factory=list)
    placeholders: list[Placeholder] = field(default_factory=list)
    _headings: list[Heading] | None = field(default=None, repr=False, compare=False)
    # line -> suppressed codes (an empty set suppresses every code)
    ignores: dict[int, set[str]] = field(default_factory=dict)

    @property
    def headings(self) -> list[Heading]:
        """The body's headings outside code fences (the first MAX_BODY_ITEMS), found on first use."""
        if self._headings is None:
            self._headings = _scan_headings(self)
        return self._headings

    @property
    def body(self) -> str:
        return "\n".join(self.lines[self.body_start :])

    def body_line_count(self) -> int:
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
        return Position(len(self.lines) - 1, len(self.lines[-1]))


def parse_skill(text: str) -> SkillFile:
    lines = split_lines(text)
    skill = SkillFile(text=text, lines=lines)
    first = lines[0].lstrip("\ufeff")
    if first.rstrip() != _DELIMITER:
        skill.body_start = 0
        _scan_body(skill)
        _scan_placeholders(skill)
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
    _parse_frontmatter(skill)
    _scan_body(skill)
    _scan_placeholders(skill)
    return skill


def _collect_ignores(skill: SkillFile, start: int, stop: int) -> None:
    if "skill-lsp" not in skill.text:
        return  # no suppression comment anywhere (most files): no line to look at
    for number in range(start, stop):
        line = skill.lines[number]
        if "skill-lsp" not in line:
            continue
        match = _IGNORE.search(line)
        if match:
            codes = match.group(1)
            skill.ignores[number] = {c.strip().upper() for c in codes.split(",") if c.strip()} if codes else set()


# YAML also ends lines at U+0085, U+2028 and U+2029; LSP (and split_lines) do not. When the
# frontmatter holds one, YAML's line/column marks disagree with the document's lines, so
# positions come from the mark's character index instead.
_YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")


def _line_starts(source: str) -> list[int]:
    return [0, *(match.end() for match in re.finditer("\n", source))]


def _index_position(index: int, line_offset: int, starts: list[int]) -> Position:
    line = bisect.bisect_right(starts, index) - 1
    return Position(line + line_offset, index - starts[line])


def _reader_index(source: str, position: int, character: str) -> int:
    """The character index of a ReaderError: PyYAML counts characters, libyaml bytes of UTF-8."""
    if 0 <= position < len(source) and source[position] == character:
        return position
    prefix = source.encode("utf-8", "surrogatepass")[:position]
    return max(0, min(len(prefix.decode("utf-8", "replace")), len(source) - 1))


def _mark_position(mark: yaml.Mark, line_offset: int, starts: list[int] | None = None) -> Position:
    if starts is not None:
        return _index_position(mark.index, line_offset, starts)
    return Position(mark.line + line_offset, mark.column)


def _node_span(node: yaml.Node, line_offset: int, starts: list[int] | None = None) -> Span:
    start = _mark_position(node.start_mark, line_offset, starts)
    end = _mark_position(node.end_mark, line_offset, starts)
    return Span(start, end)


def _parse_frontmatter(skill: SkillFile) -> None:
    assert skill.close_line is not None
    offset = 1
    source = "\n".join(skill.lines[1 : skill.close_line]) + "\n"
    if len(source) > MAX_FRONTMATTER_CHARS:
        skill.yaml_problem = YamlProblem(
            f"the frontmatter is over {MAX_FRONTMATTER_CHARS // 1024} KB; not parsed", skill.line_span(0)
        )
        return
    starts = _line_starts(source) if not source.isascii() and any(brk in source for brk in _YAML_ONLY_BREAKS) else None
    try:
        root = _compose(source)
    except yaml.MarkedYAMLError as error:
        skill.yaml_problem = _describe_yaml_error(skill, error, offset, starts)
        skill.recovered = _recover(skill)
        return
    except yaml.reader.ReaderError as error:  # a character YAML does not allow (NUL, other controls)
        code = ord(error.character) if isinstance(error.character, str) else int(error.character)
        position = _index_position(_reader_index(source, error.position, chr(code)), offset, _line_starts(source))
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
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = str(key_node.value)
        value: object = None
        problem: str | None = None
        plain = _plain_value(value_node, budget)
        if plain is not _NOT_PLAIN:
            value = plain
        elif _node_count(value_node, budget) is None:
            problem = "the value nests or repeats too deeply (YAML aliases); a loader would refuse it"
        else:
            try:
                if constructor is None:
                    constructor = SafeConstructor()
                value = constructor.construct_object(value_node, deep=True)
            except yaml.YAMLError as error:
                problem = _problem_text(error)
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


def _problem_text(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError):
        return " ".join(part for part in (error.context, error.problem) if part)
    return str(error)


_KEY_VALUE = re.compile(r"^(\s*)([^\s#:][^:#]*?):[ \t]+(\S(?:.*\S)?)\s*$")
_BARE_KEY = re.compile(r"^\s*([\w][\w .-]*?)\s*$")
# characters YAML reserves at the start of a plain value
_RESERVED_START = "@`*&!%|>{["


def _describe_yaml_error(
    skill: SkillFile, error: yaml.MarkedYAMLError, offset: int, starts: list[int] | None = None
) -> YamlProblem:
    """The YAML error explained at the line the author must fix, for the common causes: an unquoted ': '
    in a value, a value starting with a character YAML reserves, a key with no ':', a quote or a bracket
    never closed, a line indented under a key that already has a value, and tabs."""
    mark = error.problem_mark or error.context_mark
    problem = _problem_text(error)
    last = (skill.close_line or len(skill.lines)) - 1
    context = error.context or ""
    if mark is not None and error.context_mark is not None and (
            _mark_position(mark, offset, starts).line > last or "simple key" in context):
        # "found unexpected end of stream", "could not find expected ':'": where the quote, the bracket or
        # the bare key started is the line to fix
        mark = error.context_mark
    if mark is None:
        return YamlProblem(f"invalid YAML: {problem}", skill.line_span(0))
    position = _mark_position(mark, offset, starts)
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


def quote_yaml_value(value: str) -> str:
    """A double-quoted YAML scalar holding value exactly, as Claude Code's recovery quotes it."""
    return quote(value)


def _fence_change(line: str, in_fence: str | None) -> tuple[bool, str | None]:
    """Whether line (holding a backtick or a tilde) opens or closes a code fence, and the fence open
    after it."""
    fence = _FENCE.match(line)
    if fence:
        marker = fence.group(1)
        if in_fence is None:
            return True, marker[0] * len(marker)
        if marker[0] == in_fence[0] and len(marker) >= len(in_fence) and not line.strip()[len(marker) :].strip():
            return True, None
    return False, in_fence


def _unfenced_lines(skill: SkillFile) -> list[tuple[int, str]]:
    """The body's lines outside fenced code blocks (the fence lines themselves excluded); a list,
    not a generator: this runs on every line of most bodies."""
    unfenced: list[tuple[int, str]] = []
    in_fence: str | None = None
    lines = skill.lines
    for number in range(skill.body_start, len(lines)):
        line = lines[number]
        # the fence pattern needs a backtick or a tilde: test for them first
        if "`" in line or "~" in line:
            changed, in_fence = _fence_change(line, in_fence)
            if changed:
                continue
        if in_fence is None:
            unfenced.append((number, line))
    return unfenced


def _scan_body(skill: SkillFile) -> None:
    """The body's suppression comments and file references (headings are found when asked for:
    only the editor's outline reads them)."""
    text = skill.text
    # each needs a character or a word the whole text may not have: most bodies need no scan at all
    wants_ignores = "skill-lsp" in text
    wants_references = "/" in text or "](" in text or "]:" in text or "\\" in text
    if not (wants_ignores or wants_references):
        return
    lines = skill.lines
    in_fence: str | None = None
    shell_fence = False
    # whether the current list's lead-in line introduces examples or files to make
    lead_in = False
    for number in range(skill.body_start, len(lines)):  # _unfenced_lines, inlined: this runs on every line
        line = lines[number]
        if "`" in line or "~" in line:
            changed, in_fence = _fence_change(line, in_fence)
            if changed:
                shell_fence = in_fence is not None and _fence_language(line) in _SHELL_FENCES
                continue
        if in_fence is not None:
            if wants_references and "/" in line and not _references_full(skill):
                _scan_fenced_line(skill, number, line, shell_fence)
            continue
        if wants_ignores and "skill-lsp" in line:
            match = _IGNORE.search(line)
            if match:
                codes = match.group(1)
                skill.ignores[number] = {c.strip().upper() for c in codes.split(",") if c.strip()} if codes else set()
        if line.strip() and not _LIST_ITEM.match(line):
            lead_in = line.rstrip().endswith(":") and _EXAMPLE_LEAD_IN.search(line) is not None
        # links need '](' or ']:', bare and machine paths a slash or a backslash
        if wants_references and ("/" in line or "](" in line or "]:" in line or "\\" in line):
            if _references_full(skill):
                wants_references = False
                if not wants_ignores:
                    return
            else:
                _scan_line_references(skill, number, line, lead_in and _LIST_ITEM.match(line) is not None)


def _fence_language(line: str) -> str:
    """The info string's first word of a fence's opening line, lower-cased ("```bash title" -> "bash")."""
    info = line.strip().lstrip("`~").strip()
    if info.startswith("!"):
        return "!"
    return info.split(maxsplit=1)[0].strip("{}.").lower() if info else ""


def _scan_fenced_line(skill: SkillFile, number: int, line: str, shell: bool) -> None:
    """A line of a fenced block: the skill directory's own files named through ${CLAUDE_SKILL_DIR}
    (expanded in the whole body), and in a block the agent runs as shell, machine paths."""
    if "{" in line:
        _scan_skill_dir_paths(skill, number, line)
    if shell and ("/Users/" in line or "/home/" in line or ":\\Users\\" in line):
        _scan_machine_paths(skill, number, line, covered_by([]), kind="shell")


def _scan_skill_dir_paths(skill: SkillFile, number: int, line: str) -> list[tuple[int, int]]:
    taken: list[tuple[int, int]] = []
    for match in _SKILL_DIR_PATH.finditer(line):
        if len(skill.references) >= MAX_BODY_ITEMS:
            break
        target = match.group(1).rstrip(".")
        end = match.start(1) + len(target)
        taken.append((match.start(), end))
        if line[match.end(1) : match.end(1) + 1] in ("{", "*", "[", "?"):
            continue  # a pattern (`{baseDir}/references/vector-{a..i}-*.md`), not one file
        # `${CLAUDE_SKILL_DIR}` is Claude Code's (changelog 2.1.69: the skill's own directory); `{baseDir}`
        # is a convention no runtime substitutes, which authors also use for the plugin's directory
        # (`{baseDir}/scanner.sh` beside the plugin's skills/): read as a plain path, found there too
        kind = "skill-dir" if match.group(0).startswith("$") else "base-dir"
        # the span holds the path after the variable: a fix to the closest file keeps the variable
        skill.references.append(Reference(target, Span.of(number, match.start(1), number, end), False, kind))
    return taken


def is_home_path(target: str) -> bool:
    """Whether a machine path found in a body is in a person's home directory (SK204's warning)."""
    return _MACHINE_PATH.match(target) is not None


def _scan_machine_paths(skill: SkillFile, number: int, line: str, inside: Callable[[int], bool], kind: str = "bare") -> None:
    """The home-directory paths of a line: in prose ("bare"), or in a shell block the agent runs ("shell")."""
    if _COUNTER_EXAMPLE.search(line):
        return  # shown as what not to do
    for match in _MACHINE_PATH.finditer(line):
        if len(skill.machine_paths) >= MAX_BODY_ITEMS:
            break
        if inside(match.start()):
            continue
        user = match.group(1) or match.group(2)
        if user is not None and (user.lower() in _NOT_A_PERSON or user.isupper() or _PLACEHOLDER_USER.search(user)):
            continue  # a container's user, or "your name" written as <user>, {user}, $USER, %USERNAME%, USER
        if _example_before(line, match.start()):
            continue  # "e.g. C:\Users\alice\..." shows where something goes, on whatever machine
        path = match.group(0).rstrip(".,;:")
        skill.machine_paths.append(Reference(path, Span.of(number, match.start(), number, match.start() + len(path)), False,
                                             kind))


# Claude Code's positional placeholders: `$N` ($0 is the first argument) is replaced by the N-th
# argument of the invocation; a `$N` with no argument is kept as written (changelog 2.1.19: "$0, $1
# shorthand"; 2.1.210: unmatched placeholders preserved verbatim). A digit run ends the number, so
# "$2.5M" and "$1,000" hold `$2` and `$1`. Only `$0`-`$9` are looked for: a shell-split invocation in
# words ("/skill review the auth changes") easily has several arguments, ten or more rarely.
_POSITIONAL = re.compile(r"(?<![\\$\w{])\$(\d)(?![\w])")
# Money: a `$N` followed by decimals, thousands, a magnitude or a rate ("$0.50", "$2.5M", "$1,000",
# "$5/month", "$3k", "$10 per seat").
_CURRENCY = re.compile(r"[.,]\d|\s?(?:[kKmMbB]n?|million|billion|thousand|bn|USD)\b|/(?:mo|month|yr|year|hr|hour|day|user|seat)\b"
                       r"|\s(?:per|a|an|each)\s|\s?(?:USD|usd)\b")
# In shell, a `$N` the shell or a program fills: inside single quotes or braces (an awk program, a
# function body), or on a line that runs a program taking its own positional fields.
_SHELL_PROGRAM = re.compile(r"\b(?:awk|gawk|sed|perl|xargs|bash -c|sh -c|zsh -c|find .* -exec|function)\b|\(\)\s*\{|\$[@#*]|\bshift\b")


def _scan_placeholders(skill: SkillFile) -> None:
    """The body's `$N` that Claude Code would replace where the author meant money or a shell's own
    positional parameter (see Placeholder)."""
    if "$" not in skill.text or _POSITIONAL.search(skill.text) is None:
        return
    lines = skill.lines
    in_fence: str | None = None
    shell_fence = False
    for number in range(skill.body_start, len(lines)):
        line = lines[number]
        if "`" in line or "~" in line:
            changed, in_fence = _fence_change(line, in_fence)
            if changed:
                # an unlabelled fence mostly holds commands too
                shell_fence = in_fence is not None and _fence_language(line) in (*_SHELL_FENCES, "")
                continue
        if "$" not in line:
            continue
        code = _code_spans(line) if in_fence is None and "`" in line else []
        for match in _POSITIONAL.finditer(line):
            if len(skill.placeholders) >= MAX_BODY_ITEMS:
                return
            why = None
            if _CURRENCY.match(line, match.end()):
                why = "currency"
            elif in_fence is not None:
                why = "shell" if shell_fence and _shell_filled(line, match.start()) else None
            else:
                inline = _code_span_holding(code, match.start(), match.end())
                if inline is not None:
                    snippet = line[inline[0] : inline[1]]
                    ticks = len(snippet) - len(snippet.lstrip("`"))
                    why = "shell" if _shell_filled(snippet.strip("`"), match.start() - inline[0] - ticks) else None
            if why is not None:
                skill.placeholders.append(Placeholder(match.group(0), Span.of(number, match.start(), number, match.end()), why))


def _shell_filled(code: str, at: int) -> bool:
    """Whether the `$N` at offset at of a line of shell is one the shell or a program fills: inside
    single quotes or braces, or on a line running awk, sed, a function ..."""
    if _SHELL_PROGRAM.search(code):
        return True
    before = code[:at]
    return before.count("'") % 2 == 1 or before.count("{") > before.count("}")


# a heading line found in the whole text at once (MULTILINE: ^ and $ at "\n"; [^\S\n] is \s on one line)
_HEADING_LINE = re.compile(r"^[^\S\n]{0,3}(#{1,6})[^\S\n]+(.+)$", re.MULTILINE)


def _scan_headings(skill: SkillFile) -> list[Heading]:
    text = skill.text
    if "\r" in text or "`" in text or "~" in text:
        return _scan_headings_by_line(skill)
    # no fence and no line break but "\n": one pattern over the body finds what the line by line
    # scan finds, without making the list of every line (a 7 MB body: 0.18 s -> a few ms)
    headings: list[Heading] = []
    lines = skill.lines
    offset = sum(len(line) + 1 for line in lines[: skill.body_start])
    number, counted = skill.body_start, offset
    for heading in _HEADING_LINE.finditer(text, offset):
        start = heading.start()
        number += text.count("\n", counted, start)
        counted = start
        headings.append(Heading(len(heading.group(1)), _heading_text(heading.group(2)),
                                Span.of(number, 0, number, heading.end() - start)))
        if len(headings) >= MAX_BODY_ITEMS:
            break
    return headings


def _scan_headings_by_line(skill: SkillFile) -> list[Heading]:
    headings: list[Heading] = []
    for number, line in _unfenced_lines(skill):
        if "#" in line:
            heading = _HEADING.match(line)
            if heading:
                headings.append(
                    Heading(len(heading.group(1)), _heading_text(heading.group(2)), Span.of(number, 0, number, len(line)))
                )
                if len(headings) >= MAX_BODY_ITEMS:
                    break
    return headings


def _heading_text(raw: str) -> str:
    """A heading's text without trailing whitespace and closing hashes (at least one character)."""
    return raw.rstrip().rstrip("#").rstrip() or raw[0]


def _references_full(skill: SkillFile) -> bool:
    """Once either list is full the body's references are not scanned further."""
    return len(skill.references) >= MAX_BODY_ITEMS or len(skill.machine_paths) >= MAX_BODY_ITEMS


def _code_spans(line: str) -> list[tuple[int, int]]:
    """The inline code spans of a line (backtick strings of equal length pair up, as CommonMark
    pairs them), each from its opening backticks to the end of its closing ones; linear in the line."""
    runs = [(match.start(), match.end()) for match in _BACKTICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)
    latest: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        size = runs[index][1] - runs[index][0]
        following[index] = latest.get(size)
        latest[size] = index
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        closing = following[index]
        if closing is None:
            index += 1
            continue
        spans.append((runs[index][0], runs[closing][1]))
        index = closing + 1
    return spans


def _code_span_holding(code: list[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    """The inline code span (of _code_spans') that holds the text from start to end, or None."""
    return next(((open_, close) for open_, close in code if open_ <= start and end <= close), None)


def _scan_line_references(skill: SkillFile, number: int, line: str, example_list: bool = False) -> None:
    # each pattern runs only on a line holding what it cannot match without (a substring test costs
    # a fraction of a pattern's scan)
    code = _code_spans(line) if "`" in line else []
    in_code = covered_by(code) if code else None
    taken: list[tuple[int, int]] = []
    if "{" in line:
        taken += _scan_skill_dir_paths(skill, number, line)
    template: bool | None = None  # whether the line is a template's to fill in, asked once per line
    for match in _LINK.finditer(line) if "](" in line else ():
        if _references_full(skill):
            return
        if in_code is not None and in_code(match.start()):
            continue  # link syntax shown in inline code: an example, not a link
        target = match.group(1)
        start = match.start(1)
        if target.startswith("<") and target.endswith(">"):
            target, start = target[1:-1], start + 1
        taken.append((match.start(), match.end()))
        if template is None:
            template = _TEMPLATE_LINE.search(line) is not None
        _add_reference(skill, number, target, start, is_link=True, example=template)
    definition = _REF_DEF.match(line) if "]:" in line else None
    if definition:
        target = definition.group(1)
        start = definition.start(1)
        if target.startswith("<") and target.endswith(">"):
            target, start = target[1:-1], start + 1
        taken.append((definition.start(), definition.end()))
        _add_reference(skill, number, target, start, is_link=True)
    rest = _outside(line, taken)
    bare = "scripts/" in rest or "reference" in rest or "assets/" in rest or "templates/" in rest
    machine = "/Users/" in rest or "/home/" in rest or ":\\Users\\" in rest
    if not (bare or machine):
        return
    inside = covered_by(taken)
    for match in _BARE.finditer(line) if bare else ():
        if len(skill.references) >= MAX_BODY_ITEMS:
            break
        if inside(match.start()):
            continue
        target = match.group(1).rstrip(".")
        if line[match.end(1) : match.end(1) + 1] in _PATTERN_NEXT:
            continue  # cut at a pattern's or a template's character (`references/api_{version}.md`, `scripts/*.py`)
        span = Span.of(number, match.start(1), number, match.start(1) + len(target))
        kind = _bare_kind(line, match.start(1), match.start(1) + len(target), code, example_list)
        skill.references.append(Reference(target, span, False, kind))
    if machine:
        _scan_machine_paths(skill, number, line, inside)


# characters after a path that make it part of a pattern or a template, not a file's name
_PATTERN_NEXT = frozenset("{}*$%")
# a file name that stands for any file ("python scripts/script_name.py --help", "references/your_file.md")
_PLACEHOLDER_FILE = re.compile(r"/(?:your[_-]\w*|\w*[_-]name|name|filename|foo|bar|xxx+)\.\w+$")


# The example words of the last line asked about, found once per line: a line of 2 MB holding thousands of paths
# would otherwise be searched again for each (quadratic: 220 s for a line of 5,000 paths).
_MARKS: tuple[str, int, int] = ("", -1, -1)


def _marks(line: str) -> tuple[int, int]:
    """(where the first example word before a path can end, where the last example word after one starts)."""
    global _MARKS
    marks = _MARKS  # one read: another thread may be parsing another file
    if marks[0] is not line:
        first = _EXAMPLE_BEFORE.search(line)
        last = -1
        for found in _EXAMPLE_AFTER.finditer(line):
            last = found.start()
        marks = _MARKS = (line, first.end() if first is not None else -1, last)
    return marks[1], marks[2]


def _example_before(line: str, start: int) -> bool:
    """An example word ends before start ("e.g. /Users/alice/...", "**Example**: `scripts/x.py`")."""
    first = _marks(line)[0]
    return 0 <= first <= start


def _example_after(line: str, end: int) -> bool:
    """An example word follows end ("`scripts/x.py` would be helpful")."""
    return _marks(line)[1] >= end


def _bare_kind(line: str, start: int, end: int, code: list[tuple[int, int]], example_list: bool) -> str:
    """"bare" for a path written as a file of the skill, "loose" for one that reads as prose or an
    example ("links to assets/code", "**Example**: `scripts/rotate_pdf.py`"): shown as a document
    link when it exists, never reported missing."""
    if example_list or _PLACEHOLDER_FILE.search(line, start, end):
        return "loose"
    if line.lstrip().startswith("|") and "." not in line[start:end].rsplit("/", 1)[-1]:
        return "loose"  # a table's cell of folders or name prefixes (`scripts/gen_`), not one file
    span = _code_span_holding(code, start, end)
    if span is None:
        if "." not in line[start:end].rsplit("/", 1)[-1]:
            return "loose"  # "references/examples/scripts", "assets/code": folder names as words
    elif "](" in line[span[0] : span[1]]:
        return "loose"  # `[text](references/filename.md)`: link syntax shown as an example
    if _example_before(line, start) or _example_after(line, end) or _OTHER_SKILL.match(line, end):
        return "loose"
    return "bare"


def _outside(line: str, taken: list[tuple[int, int]]) -> str:
    """The line without the links taken from it, for the words a bare or a machine path starts with
    ('scripts/', '/home/'...): such a word holds no whitespace, '[', '!' or ')', so it lies wholly
    inside a link (which starts with '[' or '!' and ends with ')' or before whitespace) or wholly
    outside, and a path found inside a link is not a bare one."""
    if not taken:
        return line
    pieces: list[str] = []
    last = 0
    for start, end in sorted(taken):
        pieces.append(line[last:start])
        last = max(last, end)
    pieces.append(line[last:])
    return " ".join(pieces)


def _add_reference(skill: SkillFile, number: int, target: str, start: int, is_link: bool, example: bool = False) -> None:
    if not target:
        return
    if target.startswith("file:"):
        if _MACHINE_PATH.match(target) and len(skill.machine_paths) < MAX_BODY_ITEMS:
            skill.machine_paths.append(Reference(target, Span.of(number, start, number, start + len(target)), is_link))
        return  # a file:// URI into a home directory is the author's machine; others (/etc, /tmp) are not
    if target.startswith("~"):
        return  # the home directory of whoever runs the agent: the same path on every machine
    if target.startswith("/") and not _MACHINE_PATH.match(target) and "." not in target.rstrip("/").rsplit("/", 1)[-1]:
        return  # a site's page (`/en/hooks`, copied from a documentation site): a URL path, no file
    if target.startswith("/") or _DRIVE.match(target):
        if len(skill.machine_paths) < MAX_BODY_ITEMS:
            skill.machine_paths.append(Reference(target, Span.of(number, start, number, start + len(target)), is_link))
        return
    if target.startswith(("#", "//")) or _SCHEME.match(target):
        return
    if _PLACEHOLDER.search(target):
        return  # a template or a placeholder, not a file
    kind = "loose" if example else "link" if is_link else "bare"
    last = target.rstrip("/").rsplit("/", 1)[-1]
    if is_link and "." not in last and not target.endswith("/") and target.split("/", 1)[0] not in SKILL_FOLDERS:
        kind = "loose"  # [Runbook](internal-wiki/deployment-runbook): a page of a wiki or a site, not a file
    if len(skill.references) < MAX_BODY_ITEMS:
        skill.references.append(Reference(target, Span.of(number, start, number, start + len(target)), is_link, kind))
