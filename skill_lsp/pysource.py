"""Python text -> the Agent / Deck / ClaudeAgentOptions calls it makes, with spans.

Static only: the file is parsed with tree-sitter (error tolerant) and never
imported or executed. A call counts only when its callee resolves through the
file's own imports to `agentdeck` or `claude_agent_sdk`.
"""

from __future__ import annotations

import ast
import bisect
import re
import threading
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Literal

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from .model import Position, Span
from .textutil import covered_by, encoding_problem

_LANGUAGE = Language(tree_sitter_python.language())
_QUERY = Query(_LANGUAGE, """
(call) @call
(import_statement) @import
(import_from_statement) @import
(comment) @comment
(module (expression_statement (assignment left: (identifier) right: (_)) @assignment))
(interpolation) @interpolation
(assignment) @any_assignment
""")

AGENTDECK = "agentdeck"
CLAUDE_SDK = "claude_agent_sdk"
_FRAMEWORKS = (AGENTDECK, CLAUDE_SDK)
_IGNORE = re.compile(r"skill-lsp:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
_LONE_CR = re.compile(rb"\r(?!\n)")

# the keyword arguments of Agent / Deck / ClaudeAgentOptions that skill-lsp reads
_READ_KEYWORDS = frozenset({"skills", "agents", "name", "instructions", "cwd", "add_dirs", "setting_sources", "plugins",
                            "description"})

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


class _Lines:
    """Byte columns (tree-sitter) -> code point columns."""

    def __init__(self, data: bytes) -> None:
        # an ASCII file's byte columns are its columns (most files: no line needs looking at)
        self.ascii = data.isascii()
        self.lines = data.split(b"\n")
        # row -> None (ASCII) or the byte offset where each code point starts; computed once per
        # row, since one long line (a 20,000-name skills list) is asked for thousands of positions
        self.starts: dict[int, array[int] | None] = {}

    def position(self, row: int, byte_column: int) -> Position:
        if self.ascii or row >= len(self.lines):
            return Position(row, byte_column)
        if row not in self.starts:
            line = self.lines[row]
            self.starts[row] = None if line.isascii() else array("I", (i for i, b in enumerate(line) if b & 0xC0 != 0x80))
        starts = self.starts[row]
        if starts is None:
            return Position(row, byte_column)
        return Position(row, bisect.bisect_left(starts, byte_column))

    def span(self, node: Node) -> Span:
        start = node.start_point
        end = node.end_point
        if self.ascii:
            return Span(Position(start[0], start[1]), Position(end[0], end[1]))
        return Span(self.position(start[0], start[1]), self.position(end[0], end[1]))


# PEP 263: a coding declaration on one of a Python file's first two lines
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def declared_coding(text: str) -> str | None:
    """The encoding a Python file declares (PEP 263), lowered; None without a declaration."""
    for line in text.split("\n", 2)[:2]:
        match = _CODING.match(line)
        if match:
            return match.group(1).lower().replace("_", "-")
    return None


def parse_python(text: str, path: PurePath | None = None) -> PySource:
    source = PySource()
    if AGENTDECK not in text and CLAUDE_SDK not in text:
        return source  # cannot name either framework: nothing to find
    coding = declared_coding(text)
    if coding is None or coding in ("utf-8", "utf8"):  # PEP 263: another declared encoding is its own
        source.encoding_problem = encoding_problem(text)
    data = text.encode("utf-8", errors="surrogatepass")
    if b"\r" in data:
        # Python and LSP end a line at a lone CR too, tree-sitter only at LF: same length, so
        # byte offsets hold and tree-sitter's rows are the document's lines
        data = _LONE_CR.sub(b"\n", data)
    parsed = blank_comment_lines(data)
    tree = parse_tree(parsed)
    with reading(parsed):
        _Scanner(source, _Lines(data), path).scan(tree.root_node)
    return source


# Where comments and strings are, found in one pass in C (re): a `#` inside a string is no comment.
_COMMENT_OR_STRING = re.compile(
    rb'(#[^\n]*)'
    rb'|"""(?:[^"\\]|\\.|"(?!""))*(?:"""|\Z)'
    rb"|'''(?:[^'\\]|\\.|'(?!''))*(?:'''|\Z)"
    rb'|"(?:[^"\\\n]|\\.)*(?:"|$)'
    rb"|'(?:[^'\\\n]|\\.)*(?:'|$)",
    re.DOTALL | re.MULTILINE,
)
_INDENT = frozenset(b" \t\f")


def blank_comment_lines(data: bytes) -> bytes:
    """data with every comment that fills its line replaced by spaces (offsets and rows unchanged).

    tree-sitter-python 0.25's parser is quadratic in a run of comment lines (measured: 1,500 lines
    0.28 s, 4,000 lines 2.2 s, holding the GIL; a fix was proposed upstream and not merged). The
    scanner needs no comment but `# skill-lsp: ignore[...]`, which is kept; blanked, the other
    lines cost what blank lines cost (4,000 lines: 5 ms). A comment after code on its line is kept:
    the code between such comments keeps the parser linear.
    """
    if b"#" not in data:
        return data
    blanked: bytearray | None = None
    for match in _COMMENT_OR_STRING.finditer(data):
        start, end = match.span(1)
        if start < 0 or b"skill-lsp" in data[start:end]:
            continue  # a string, or an ignore comment
        line_start = data.rfind(b"\n", 0, start) + 1
        if any(byte not in _INDENT for byte in data[line_start:start]):
            continue
        if blanked is None:
            blanked = bytearray(data)
        blanked[start:end] = b" " * (end - start)
    return bytes(blanked) if blanked is not None else data


# Bytes handed to tree-sitter per read. Its parser holds the GIL while it works and lets it go only
# when it asks for more text: fed in chunks, a long parse lets the server's other threads (the
# message loop; the exit on a closed stdin or a dead parent) run between reads.
_CHUNK = 16 * 1024


class ParseAbandoned(Exception):
    """The parse was stopped from outside (abandon_parses): the process is ending."""


_abandoned = False


def abandon_parses() -> None:
    """Make every tree-sitter parse in progress, and any later one, stop at its next read."""
    global _abandoned
    _abandoned = True


# A tree-sitter Parser is one mutable C object: two threads parsing with it at once (the server's
# analysis and the one that answers requests while the first index runs) would corrupt it. Each
# thread has its own, per language.
_parsers = threading.local()


def parser_for(language: Language) -> Parser:
    """This thread's parser of language."""
    table: dict[int, Parser] | None = getattr(_parsers, "table", None)
    if table is None:
        table = _parsers.table = {}
    parser = table.get(id(language))
    if parser is None:
        parser = table[id(language)] = Parser(language)
    return parser


def parse_tree(data: bytes, language: Language = _LANGUAGE) -> Tree:
    """data's tree-sitter tree, read in chunks (see _CHUNK); raises ParseAbandoned after abandon_parses."""

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        if _abandoned:
            raise ParseAbandoned()
        return data[offset : offset + _CHUNK]

    return parser_for(language).parse(read)


# A query over a whole tree runs in C holding the GIL (a dense 7 MB file: about a second here,
# during which no other thread, the one that ends the process included, runs). Over a larger tree
# it is run on each subtree of at most this many bytes, the larger nodes above them visited in
# Python, which lets the GIL go between subtrees. (A byte range per query costs a walk over every
# top-level statement each time, measured 5x; tree-sitter 0.26's progress_callback crashes the
# interpreter, measured here.)
_QUERY_RANGE = 256 * 1024
# the node types _QUERY captures anywhere, by capture name (its module-level pattern is done apart)
_CAPTURED = {"call": "call", "import_statement": "import", "import_from_statement": "import", "comment": "comment",
             "interpolation": "interpolation", "assignment": "any_assignment"}


def query_captures(root: Node) -> dict[str, list[Node]]:
    """_QUERY's captures under root (a module), by capture name, in document order; raises
    ParseAbandoned after abandon_parses."""
    if root.end_byte - root.start_byte <= _QUERY_RANGE:
        return dict(QueryCursor(_QUERY).captures(root))
    found: dict[str, list[Node]] = {}
    for child in root.named_children:  # (module (expression_statement (assignment left: (identifier) right: (_))))
        if child.type == "expression_statement":
            for inner in child.named_children:
                left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
                if inner.type == "assignment" and left is not None and left.type == "identifier" and right is not None:
                    found.setdefault("assignment", []).append(inner)
    stack = [root]
    while stack:  # in document order: a node before its children, children in order
        node = stack.pop()
        if node.end_byte - node.start_byte <= _QUERY_RANGE and node is not root:
            for name, nodes in QueryCursor(_QUERY).captures(node).items():
                found.setdefault(name, []).extend(nodes)
            continue
        if _abandoned:
            raise ParseAbandoned()
        captured = _CAPTURED.get(node.type)
        if captured is not None:
            found.setdefault(captured, []).append(node)
        stack.extend(reversed(node.children))
    return found


class _Scanner:
    def __init__(self, source: PySource, lines: _Lines, path: PurePath | None) -> None:
        self.source = source
        self.lines = lines
        self.path = path
        # local name -> ("module", module) or ("symbol", "Agent") etc.
        self.bindings: dict[str, tuple[str, str]] = {}
        # module-level NAME = <expression>, for Deck(skills=SKILLS_DIR)
        self.constants: dict[str, Node] = {}
        # node id of an assignment's value (parentheses unwrapped) -> the name it is assigned to
        self.assigned: dict[int, str] = {}

    def scan(self, root: Node) -> None:
        # The query finds what matters in C; walking every node in Python cost a millisecond a file.
        captures = query_captures(root)
        for node in sorted(captures.get("import", []), key=_start):
            if node.type == "import_from_statement":
                self._import_from(node)
            else:
                self._import(node)
        for node in captures.get("comment", []):
            self._comment(node)
        for node in sorted(captures.get("assignment", []), key=_start):
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if left is not None and right is not None:
                self.constants[_text(left)] = right
        self.source.bindings = self.bindings
        if not self.bindings:
            return
        # every assignment, for the name a call is assigned to (asking a node for its parent costs
        # tree-sitter a walk down from the root, which made calls nested thousands deep quadratic)
        for node in captures.get("any_assignment", []):
            right = node.child_by_field_name("right")
            while right is not None and right.type == "parenthesized_expression" and right.named_child_count == 1:
                right = right.named_children[0]
            if right is None or right.type != "call":
                continue  # only a call is looked up (below); a file of a million `x = 1` reads no name
            name = _target_name(node.child_by_field_name("left"))
            if name is not None:
                self.assigned[right.id] = name
        # a call inside an f-string's {...} is text, not code we analyse (a bisect: there can be thousands)
        inside_string = covered_by([(node.start_byte, node.end_byte) for node in captures.get("interpolation", [])])
        seen: dict[int, Call] = {}
        for node in sorted(captures.get("call", []), key=_start):
            if inside_string(node.start_byte):
                continue
            call = self._call(node, seen)
            if call is not None:
                call.index = len(self.source.calls)
                self.source.calls.append(call)

    # -- imports -------------------------------------------------------------

    def _import_from(self, node: Node) -> None:
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        module = _text(module_node)
        framework = _framework_of(module)
        names: list[tuple[str, str]] = []
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name_node = child.child_by_field_name("name")
                alias_node = child.child_by_field_name("alias")
                if name_node is not None and alias_node is not None:
                    names.append((_text(name_node), _text(alias_node)))
            else:
                names.append((_text(child), _text(child)))
        if any(child.type == "wildcard_import" for child in node.children) and framework:
            names.extend((n, n) for n in ("Agent", "Deck", "ClaudeAgentOptions", "AgentDefinition"))
        for name, local in names:
            if framework:
                self.source.frameworks.add(framework)
                self.bindings[local] = ("symbol", f"{framework}:{name}")
            else:
                self.source.imports[local] = (module, name)

    def _import(self, node: Node) -> None:
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name_node = child.child_by_field_name("name")
                alias_node = child.child_by_field_name("alias")
                if name_node is None or alias_node is None:
                    continue
                module, local = _text(name_node), _text(alias_node)
                framework = _framework_of(module)
                if framework:
                    self.source.frameworks.add(framework)
                    self.bindings[local] = ("module", framework)
            else:
                module = _text(child)
                framework = _framework_of(module)
                if framework:
                    self.source.frameworks.add(framework)
                    # `import agentdeck.core` binds `agentdeck`
                    self.bindings[module.split(".")[0]] = ("module", framework)

    def _comment(self, node: Node) -> None:
        text = _text(node)
        match = _IGNORE.search(text)
        if match:
            codes = match.group(1)
            line = node.start_point[0]
            self.source.ignores[line] = (
                {c.strip().upper() for c in codes.split(",") if c.strip()} if codes else set()
            )

    # -- calls ---------------------------------------------------------------

    def _resolve(self, node: Node) -> str | None:
        """'agentdeck:Agent' for a callee naming an imported framework symbol."""
        if node.type == "identifier":
            binding = self.bindings.get(_text(node))
            if binding and binding[0] == "symbol":
                return binding[1]
            return None
        if node.type == "attribute":
            # a loop, not recursion: a hostile file can chain thousands of attributes (a.a.a...)
            names: list[str] = []
            root = node
            while root.type == "attribute":
                obj = root.child_by_field_name("object")
                attr = root.child_by_field_name("attribute")
                if obj is None or attr is None:
                    return None
                names.append(_text(attr))
                root = obj
            if root.type != "identifier":
                return None
            names.reverse()
            binding = self.bindings.get(_text(root))
            if binding is None:
                return None
            if binding[0] == "module":  # ad.Agent -> agentdeck:Agent, ad.Deck.from_project -> agentdeck:Deck.from_project
                return f"{binding[1]}:" + ".".join(names)
            return f"{binding[1]}." + ".".join(names)
        return None

    def _call(self, node: Node, seen: dict[int, Call], depth: int = 0) -> Call | None:
        if node.id in seen:
            return seen[node.id]
        callee = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if callee is None or arguments is None or arguments.type != "argument_list":
            return None
        target = self._resolve(callee)
        kinds: dict[str, CallKind] = {
            "agentdeck:Agent": "agent",
            "agentdeck:Deck": "deck",
            "agentdeck:Deck.from_project": "deck_from_project",
            "claude_agent_sdk:ClaudeAgentOptions": "claude_options",
            "claude_agent_sdk:AgentDefinition": "agent_definition",
        }
        kind = kinds.get(target or "")
        if kind is None:
            return None
        keywords: dict[str, Keyword] = {}
        for child in arguments.named_children:
            if child.type != "keyword_argument":
                continue
            name_node = child.child_by_field_name("name")
            value_node = child.child_by_field_name("value")
            if name_node is None or value_node is None:
                continue
            name = _text(name_node)
            # only the arguments a rule or a feature reads are evaluated (tools=, model=... are not)
            value = self._value(value_node, seen, depth) if name in _READ_KEYWORDS else PyValue("other", self.lines.span(value_node))
            keywords[name] = Keyword(name, self.lines.span(name_node), value)
        callee_span = self.lines.span(callee)
        if kind == "deck_from_project" and callee.type == "attribute":
            attr = callee.child_by_field_name("attribute")
            if attr is not None:
                callee_span = Span(self.lines.span(callee).start, self.lines.span(attr).end)
        call = Call(
            kind=kind,
            framework=AGENTDECK if kind in ("agent", "deck", "deck_from_project") else CLAUDE_SDK,
            callee_span=callee_span,
            span=self.lines.span(node),
            keywords=keywords,
            assigned_to=self.assigned.get(node.id),
        )
        seen[node.id] = call
        return call

    def _value(self, node: Node, seen: dict[int, Call], depth: int) -> PyValue:
        span = self.lines.span(node)
        kind = node.type
        if depth > 50:
            return PyValue("other", span)
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            inner = node.named_children[0]
            return self._value(inner, seen, depth + 1)
        if kind in ("string", "concatenated_string"):
            return self._string(node, span)
        if kind in ("list", "tuple"):
            items = [self._value(child, seen, depth + 1) for child in node.named_children if child.type != "comment"]
            return PyValue("list" if kind == "list" else "tuple", span, items=items)
        if kind == "dictionary":
            pairs = []
            for child in node.named_children:
                if child.type == "pair":
                    key = child.child_by_field_name("key")
                    value = child.child_by_field_name("value")
                    if key is not None and value is not None:
                        pairs.append((self._value(key, seen, depth + 1), self._value(value, seen, depth + 1)))
            return PyValue("dict", span, pairs=pairs)
        if kind == "none":
            return PyValue("none", span)
        if kind in ("true", "false"):
            return PyValue("bool", span, text=kind)
        if kind in ("integer", "float"):
            return PyValue("number", span, text=_text(node))
        if kind == "call" and self._resolve_call_kind(node):
            # the depth carries on into the inner call: Agent(skills=[Agent(skills=[...])]) nested
            # hundreds deep must not exhaust the stack (scan() still finds every call)
            call = self._call(node, seen, depth + 1)
            return PyValue("other", span, call=call)
        path = self._path(node, 0)
        if path is not None:
            return PyValue("path", span, evaluated=path)
        if kind == "identifier":
            return PyValue("name", span, name=_text(node))
        if kind == "attribute":
            attr = node.child_by_field_name("attribute")
            return PyValue("name", span, name=_text(attr) if attr is not None else None)
        return PyValue("other", span)

    def _resolve_call_kind(self, node: Node) -> bool:
        callee = node.child_by_field_name("function")
        return callee is not None and self._resolve(callee) is not None

    def _string(self, node: Node, span: Span) -> PyValue:
        if node.type == "string" and self.lines.ascii:
            # most strings: one quoted literal without prefix or escapes, in an ASCII file
            literal = _text(node)
            plain = _plain_literal_width(literal)
            if plain is not None:
                end = node.child(node.child_count - 1)
                if end is not None and end.type == "string_end":
                    inner, width = plain
                    content = Span(Position(span.start.line, span.start.column + width),
                                   Position(span.end.line, span.end.column - width))
                    return PyValue("str", span, text=inner, content_span=content)
        parts = node.named_children if node.type == "concatenated_string" else [node]
        values: list[str] = []
        is_bytes = False
        dynamic = False
        content_span: Span | None = None
        for part in parts:
            if part.type != "string":
                dynamic = True
                continue
            start = part.child(0)
            prefix = _text(start).lower() if start is not None else ""
            if "b" in prefix:
                is_bytes = True
            if "f" in prefix and any(c.type == "interpolation" for c in part.named_children):
                dynamic = True
            end = part.child(part.child_count - 1)
            if start is not None and end is not None and end.type == "string_end" and content_span is None:
                content_span = Span(
                    self.lines.position(*start.end_point), self.lines.position(*end.start_point)
                )
            elif content_span is None and start is not None:
                # unterminated: the content runs to the end of the node
                content_span = Span(self.lines.position(*start.end_point), self.lines.span(part).end)
            if not dynamic and not is_bytes and end is not None and end.type == "string_end":
                literal = _text(part)
                value: object = _plain_literal(literal)
                if value is None:
                    try:
                        value = ast.literal_eval(literal.replace("f", "", 1) if "f" in prefix else literal)
                    except (ValueError, SyntaxError, MemoryError, RecursionError):
                        dynamic = True
                        continue
                if isinstance(value, str):
                    values.append(value)
                else:
                    is_bytes = True
            elif end is None or end.type != "string_end":
                dynamic = True
        if is_bytes:
            return PyValue("bytes", span, content_span=content_span)
        text = None if dynamic else "".join(values)
        return PyValue("str", span, text=text, content_span=content_span if len(parts) == 1 else span)

    # -- static path expressions ----------------------------------------------

    def _path(self, node: Node, depth: int) -> PurePath | None:
        """Evaluate Path("x"), Path(__file__).parent / "skills", os.path.join(...)."""
        if depth > 20:
            return None
        kind = node.type
        if kind in ("string", "concatenated_string"):
            value = self._string(node, self.lines.span(node))
            return PurePath(value.text) if value.kind == "str" and value.text else None
        if kind == "identifier":
            name = _text(node)
            if name == "__file__" and self.path is not None:
                return self.path
            constant = self.constants.get(name)
            if constant is not None and constant.id != node.id:
                return self._path(constant, depth + 1)
            return None
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self._path(node.named_children[0], depth + 1)
        if kind == "binary_operator":
            operator = node.child_by_field_name("operator")
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if operator is None or left is None or right is None or _text(operator) != "/":
                return None
            a, b = self._path(left, depth + 1), self._path(right, depth + 1)
            return a / b if a is not None and b is not None else None
        if kind == "attribute":
            obj = node.child_by_field_name("object")
            attr = node.child_by_field_name("attribute")
            if obj is None or attr is None or _text(attr) != "parent":
                return None
            base = self._path(obj, depth + 1)
            return base.parent if base is not None else None
        if kind == "call":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is None or arguments is None:
                return None
            name = _text(function)
            args = [child for child in arguments.named_children if child.type != "comment"]
            if name in ("Path", "pathlib.Path", "PurePath", "pathlib.PurePath", "os.path.join"):
                parts = [self._path(arg, depth + 1) for arg in args]
                if not parts or any(part is None for part in parts):
                    return None
                result = PurePath(*[part for part in parts if part is not None])
                return result
            if name in ("os.path.dirname",) and len(args) == 1:
                base = self._path(args[0], depth + 1)
                return base.parent if base is not None else None
            if name in ("os.path.abspath", "os.path.realpath", "os.path.normpath", "str") and len(args) == 1:
                return self._path(args[0], depth + 1)
            if function.type == "attribute" and not args:
                attr = function.child_by_field_name("attribute")
                obj = function.child_by_field_name("object")
                if attr is not None and obj is not None and _text(attr) in ("resolve", "absolute", "expanduser"):
                    return self._path(obj, depth + 1)
        return None


def _plain_literal(literal: str) -> str | None:
    """The value of a quoted literal with no prefix and no escapes, without compiling it; else None."""
    plain = _plain_literal_width(literal)
    return plain[0] if plain is not None else None


def _plain_literal_width(literal: str) -> tuple[str, int] | None:
    """_plain_literal's value and the width of its quotes (1 or 3)."""
    if "\\" in literal or "\r" in literal or len(literal) < 2:
        return None
    quote = literal[0]
    if quote != '"' and quote != "'":
        return None
    if len(literal) >= 6 and literal.startswith(quote * 3) and literal.endswith(quote * 3):
        return literal[3:-3], 3
    if literal[-1] == quote:
        inner = literal[1:-1]
        return (inner, 1) if quote not in inner and "\n" not in inner else None
    return None


def _start(node: Node) -> int:
    return node.start_byte


def _framework_of(module: str) -> str | None:
    for framework in _FRAMEWORKS:
        if module == framework or module.startswith(framework + "."):
            return framework
    return None


# The bytes the scan in progress on this thread reads: a node's text is sliced from them (a tree
# parsed from chunks answers node.text by reading through the callback again, 10 µs a node).
_source = threading.local()


@contextmanager
def reading(data: bytes) -> Iterator[None]:
    """While a tree parsed from data is scanned on this thread: node texts (_text) come from data.
    (tssource's scanner reads its nodes the same way.)"""
    _source.data = data
    try:
        yield
    finally:
        _source.data = b""


def _text(node: Node) -> str:
    data: bytes = _source.data
    return data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _target_name(left: Node | None) -> str | None:
    """The name an assignment binds: `x = ...` gives x, `self.x = ...` gives x."""
    if left is not None and left.type == "identifier":
        return _text(left)
    if left is not None and left.type == "attribute":
        attr = left.child_by_field_name("attribute")
        return _text(attr) if attr is not None else None
    return None
