"""What a code file asks of the agent frameworks, as the model reads it: each `Agent(...)`, `Deck(...)`,
`ClaudeAgentOptions(...)` or `AgentDefinition(...)` call (Python), `query()` options or agent definition
(TypeScript, JavaScript) and subagent file (its frontmatter) is a `Call` of keyword values with their spans,
gathered with the file's ignore comments in a `PySource`.

The readers fill it (pysource, tssource, agentfile); the index, the rules and the server read it. Nothing
here parses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Literal

from .model import Position, Span

_IGNORE = re.compile(r"skill-lsp:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")


def ignored_codes(comment: str) -> set[str] | None:
    """The codes a `skill-lsp: ignore[CODE, ...]` comment suppresses on its line (an empty set: every code);
    None for another comment."""
    match = _IGNORE.search(comment)
    if match is None:
        return None
    codes = match.group(1)
    return {code.strip().upper() for code in codes.split(",") if code.strip()} if codes else set()


# agent_definition: the SDK's AgentDefinition (Python call or TypeScript object); agent_file: a Claude Code
# subagent file's frontmatter (skill_lsp.agentfile), both read as a call with keywords
CallKind = Literal["agent", "deck", "deck_from_project", "claude_options", "agent_definition", "agent_file"]
ValueKind = Literal["str", "list", "tuple", "dict", "none", "name", "path", "number", "bool", "bytes", "other"]


@dataclass
class PyValue:
    kind: ValueKind
    span: Span
    # str: the literal's value (None for an f-string with placeholders)
    text: str | None = None
    # str: the span between the quotes (where completion and edits go)
    content_span: Span | None = None
    items: list[PyValue] = field(default_factory=list)
    pairs: list[tuple[PyValue, PyValue]] = field(default_factory=list)
    # name: the identifier (or the last attribute of a dotted name)
    name: str | None = None
    # path: the statically evaluated path (relative paths stay relative)
    evaluated: PurePath | None = None
    # an inline call inside a list (an Agent(...) written into agents=[...])
    call: Call | None = None

    @property
    def path(self) -> PurePath | None:
        """The path this value names, if static; a str can be a root too (made on demand: few are)."""
        if self.evaluated is None and self.kind == "str" and self.text:
            return PurePath(self.text)
        return self.evaluated


@dataclass
class Keyword:
    name: str
    name_span: Span
    value: PyValue


@dataclass
class Call:
    kind: CallKind
    framework: str
    callee_span: Span
    span: Span
    keywords: dict[str, Keyword]
    assigned_to: str | None = None
    # index within PySource.calls
    index: int = 0
    # agent_definition: the name it is registered under in agents={...} (TypeScript: or the file's name)
    agent_name: str | None = None

    def keyword(self, name: str) -> PyValue | None:
        entry = self.keywords.get(name)
        return entry.value if entry is not None else None

    def string_arg(self, name: str) -> str | None:
        value = self.keyword(name)
        return value.text if value is not None and value.kind == "str" else None


@dataclass
class PySource:
    calls: list[Call] = field(default_factory=list)
    # line -> suppressed codes (empty: all)
    ignores: dict[int, set[str]] = field(default_factory=dict)
    # where and why the file is not the UTF-8 Python reads (textutil.encoding_problem), for SK116
    encoding_problem: tuple[int, int, str] | None = None
    # the file imports agentdeck / claude_agent_sdk at all
    frameworks: set[str] = field(default_factory=set)
    # names imported from other project modules: local name -> (module, name)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    # local names bound to the frameworks: name -> ("symbol", "agentdeck:Agent") | ("module", "agentdeck")
    bindings: dict[str, tuple[str, str]] = field(default_factory=dict)
    # a file's own problems found while reading it (a subagent file's frontmatter): (code, span, message,
    # replacement or None); plain tuples, so that check's cache stores them as they are
    notes: list[tuple[str, Span, str, str | None]] = field(default_factory=list)

    def resolve_callee(self, dotted: str) -> str | None:
        """'agentdeck:Agent' for callee text such as 'A', 'ad.Agent' or 'Deck.from_project'."""
        head, _, rest = dotted.partition(".")
        binding = self.bindings.get(head)
        if binding is None:
            return None
        kind, target = binding
        if kind == "symbol":
            return f"{target}.{rest}" if rest else target
        return f"{target}:{rest.rsplit('.', 1)[-1]}" if rest else None

    def agents(self) -> list[Call]:
        return [call for call in self.calls if call.kind == "agent"]


# -- spans made when first read ---------------------------------------------------------------------------
#
# A parse makes a span for every keyword and value (a few per line of an agent definition); the rules read
# those of the few entries they report, the editor those under the cursor. A reader of an ASCII file (a
# column is a byte) makes its values with the raw_* functions: each span is kept as (line, column,
# end_line, end_column) under `_name` and made a Span when first read (a value's two spans: 0.9 -> 0.4 µs).
# Made, it is an attribute like any other (equality, repr, pickling: the dataclass's own).

_tuple = tuple.__new__
_new = object.__new__
RawSpan = tuple[int, int, int, int]


class _SpanWhenRead:
    """A Span field of an object made by a raw_* function, made from its raw form when first read."""

    __slots__ = ("name", "raw")

    def __init__(self, name: str) -> None:
        self.name = name
        self.raw = "_" + name

    def __get__(self, obj: object, owner: type | None = None) -> Span | None:
        if obj is None:
            return self  # type: ignore[return-value]  # (the class's own attribute)
        raw = obj.__dict__[self.raw]
        span = None if raw is None else _tuple(Span, (_tuple(Position, raw[:2]), _tuple(Position, raw[2:])))
        obj.__dict__[self.name] = span
        return span


# set after the dataclasses are made: their __init__ and their defaults are the fields' own
PyValue.span = _SpanWhenRead("span")  # type: ignore[assignment]
PyValue.content_span = _SpanWhenRead("content_span")  # type: ignore[assignment]
Keyword.name_span = _SpanWhenRead("name_span")  # type: ignore[assignment]
Call.callee_span = _SpanWhenRead("callee_span")  # type: ignore[assignment]
Call.span = _SpanWhenRead("span")  # type: ignore[assignment]


def raw_value(kind: ValueKind, span: RawSpan, text: str | None = None, content_span: RawSpan | None = None,
              items: list[PyValue] | None = None) -> PyValue:
    """PyValue(kind, span, text, content_span, items), its spans given raw (an ASCII file's)."""
    value = _new(PyValue)
    value.__dict__ = {"kind": kind, "_span": span, "text": text, "_content_span": content_span,
                      "items": [] if items is None else items, "pairs": [], "name": None, "evaluated": None, "call": None}
    return value


def raw_keyword(name: str, name_span: RawSpan, value: PyValue) -> Keyword:
    """Keyword(name, name_span, value), its span given raw (an ASCII file's)."""
    keyword = _new(Keyword)
    keyword.__dict__ = {"name": name, "_name_span": name_span, "value": value}
    return keyword


def raw_call(kind: CallKind, framework: str, callee_span: RawSpan, span: RawSpan, keywords: dict[str, Keyword],
             assigned_to: str | None) -> Call:
    """Call(kind, framework, callee_span, span, keywords, assigned_to), its spans given raw (an ASCII file's)."""
    call = _new(Call)
    call.__dict__ = {"kind": kind, "framework": framework, "_callee_span": callee_span, "_span": span, "keywords": keywords,
                     "assigned_to": assigned_to, "index": 0, "agent_name": None}
    return call
