"""Python text -> the `Agent`, `Deck`, `ClaudeAgentOptions` and `AgentDefinition` calls it makes, with spans
(a codecalls.PySource).

Static only: the file is parsed with tree-sitter (error tolerant, skill_lsp.treesitter) and never imported or
executed. A call counts only when its callee resolves through the file's own imports to `agentdeck` or
`claude_agent_sdk`.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePath

import tree_sitter_python
from tree_sitter import Language, Node, Query, QueryCursor

from . import pynodes
from .codecalls import Call, CallKind, Keyword, PySource, PyValue, ignored_codes, raw_call, raw_keyword, raw_value
from .model import Position, Span
from .pyliterals import plain_literal, plain_literal_width, plain_value
from .textutil import covered_by, encoding_problem
from .treesitter import Lines, document_bytes, node_text, parse_tree, reading, stop_if_abandoned

# a named tuple made from a tuple without its constructor's Python call (Positions, Spans: many per file)
_tuple = tuple.__new__
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

# an import_from_statement of plain names (no relative module, alias, parenthesis, wildcard, comment or
# continuation), as its whole text
_PLAIN_FROM = re.compile(r"from[ \t]+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[ \t]+import[ \t]+([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)",
                         re.ASCII)
_NAMES = re.compile(r"\w+", re.ASCII)

AGENTDECK = "agentdeck"
CLAUDE_SDK = "claude_agent_sdk"
_FRAMEWORKS = (AGENTDECK, CLAUDE_SDK)
# the calls skill-lsp reads, by what their callee resolves to
_KINDS: dict[str, CallKind] = {
    "agentdeck:Agent": "agent",
    "agentdeck:Deck": "deck",
    "agentdeck:Deck.from_project": "deck_from_project",
    "claude_agent_sdk:ClaudeAgentOptions": "claude_options",
    "claude_agent_sdk:AgentDefinition": "agent_definition",
}

# the keyword arguments of Agent / Deck / ClaudeAgentOptions that skill-lsp reads
_READ_KEYWORDS = frozenset({"skills", "agents", "name", "instructions", "cwd", "add_dirs", "setting_sources", "plugins",
                            "description", "model", "env"})

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
    data = document_bytes(text)
    parsed = blank_comment_lines(data)
    tree = parse_tree(parsed, _LANGUAGE)
    with reading(parsed):
        _Scanner(source, Lines(data), path).scan(tree.root_node, parsed)
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


# A query over a whole tree runs in C holding the GIL (a dense 7 MB file: about a second here,
# during which no other thread, the one that ends the process included, runs). Over a larger tree
# it is run on each subtree of at most this many bytes, the larger nodes above them visited in
# Python, which lets the GIL go between subtrees. (A byte range per query costs a walk over every
# top-level statement each time, measured 5x; tree-sitter 0.26's progress_callback crashes the
# interpreter, measured here.)
_QUERY_RANGE = 256 * 1024
# the largest file looked at where its text says (pynodes) instead of queried whole
_GUIDED_BYTES = 64 * 1024
# the node types _QUERY captures anywhere, by capture name (its module-level pattern is done apart)
_CAPTURED = {"call": "call", "import_statement": "import", "import_from_statement": "import", "comment": "comment",
             "interpolation": "interpolation", "assignment": "any_assignment"}


def query_captures(root: Node) -> dict[str, list[Node]]:
    """_QUERY's captures under root (a module), by capture name, in document order; raises
    treesitter.ParseAbandoned after abandon_parses."""
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
        stop_if_abandoned()
        captured = _CAPTURED.get(node.type)
        if captured is not None:
            found.setdefault(captured, []).append(node)
        stack.extend(reversed(node.children))
    return found


class _Scanner:
    def __init__(self, source: PySource, lines: Lines, path: PurePath | None) -> None:
        self.source = source
        self.lines = lines
        self.path = path
        # local name -> ("module", module) or ("symbol", "Agent") etc.
        self.bindings: dict[str, tuple[str, str]] = {}
        # module-level NAME = <expression>, for Deck(skills=SKILLS_DIR) (None: not read yet, from root)
        self.constants: dict[str, Node] | None = None
        self.root: Node | None = None
        # node id of an assignment's value (parentheses unwrapped) -> the name it is assigned to
        self.assigned: dict[int, str] = {}
        self.data = b""
        self.plain = False

    def scan(self, root: Node, data: bytes) -> None:
        self.data = data
        # strings and lists of them are read from the bytes (pyliterals.plain_value)
        self.plain = self.lines.ascii and not root.has_error
        # A file without a parse error, not large, is looked at where its text says (pynodes: 20 µs less
        # of an agent file); else the query finds what matters in C (walking every node in Python cost a
        # millisecond a file).
        guided = not root.has_error and len(data) <= min(_GUIDED_BYTES, _QUERY_RANGE)
        imports = pynodes.import_statements(root, data) if guided else None
        comments = pynodes.marked_comments(root, data, b"skill-lsp") if imports is not None else None
        captures = query_captures(root) if comments is None else None
        if captures is not None:
            imports = sorted(captures.get("import", []), key=_start)
            comments = captures.get("comment", [])
            self._set_constants(sorted(captures.get("assignment", []), key=_start))
        else:
            self.root = root  # the constants are read from it when a path needs one
        for node in imports or ():
            if node.type == "import_from_statement":
                self._import_from(node)
            else:
                self._import(node)
        for node in comments or ():
            self._comment(node)
        self.source.bindings = self.bindings
        if not self.bindings:
            return
        found = pynodes.calls_of(root, data, list(self.bindings)) if captures is None else None
        if found is not None:
            nodes = []
            for node, left in found:
                name = _target_name(left)
                if name is not None:
                    self.assigned[node.id] = name
                nodes.append(node)
        else:
            nodes = self._captured_calls(captures if captures is not None else query_captures(root))
        seen: dict[int, Call] = {}
        for node in nodes:
            call = self._call(node, seen)
            if call is not None:
                call.index = len(self.source.calls)
                self.source.calls.append(call)

    def _captured_calls(self, captures: dict[str, list[Node]]) -> list[Node]:
        """The calls of the query's captures, in document order, outside f-strings' {...}; fills assigned."""
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
        return [node for node in sorted(captures.get("call", []), key=_start) if not inside_string(node.start_byte)]

    def _set_constants(self, assignments: list[Node]) -> None:
        constants: dict[str, Node] = {}
        for node in assignments:
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if left is not None and right is not None:
                constants[node_text(left)] = right
        self.constants = constants

    def _constant(self, name: str) -> Node | None:
        """The value of the module-level `name = ...` (the last), found when a path first needs one."""
        if self.constants is None:
            self._set_constants(pynodes.module_assignments(self.root) if self.root is not None else [])
        assert self.constants is not None
        return self.constants.get(name)

    # -- imports -------------------------------------------------------------

    def _import_from(self, node: Node) -> None:
        plain = _PLAIN_FROM.fullmatch(node_text(node)) if self.plain else None
        if plain is not None:  # `from a.b import c, d` in a file without errors: read from its text (3 µs -> 1)
            self._bind(plain[1], [(name, name) for name in _NAMES.findall(plain[2])])
            return
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        module = node_text(module_node)
        framework = _framework_of(module)
        names: list[tuple[str, str]] = []
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name_node = child.child_by_field_name("name")
                alias_node = child.child_by_field_name("alias")
                if name_node is not None and alias_node is not None:
                    names.append((node_text(name_node), node_text(alias_node)))
            else:
                name = node_text(child)
                names.append((name, name))
        if framework and any(child.type == "wildcard_import" for child in node.children):
            names.extend((n, n) for n in ("Agent", "Deck", "ClaudeAgentOptions", "AgentDefinition"))
        self._bind(module, names)

    def _bind(self, module: str, names: list[tuple[str, str]]) -> None:
        """What `from module import name as local, ...` binds."""
        framework = _framework_of(module)
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
                module, local = node_text(name_node), node_text(alias_node)
                framework = _framework_of(module)
                if framework:
                    self.source.frameworks.add(framework)
                    self.bindings[local] = ("module", framework)
            else:
                module = node_text(child)
                framework = _framework_of(module)
                if framework:
                    self.source.frameworks.add(framework)
                    # `import agentdeck.core` binds `agentdeck`
                    self.bindings[module.split(".")[0]] = ("module", framework)

    def _comment(self, node: Node) -> None:
        codes = ignored_codes(node_text(node))
        if codes is not None:
            self.source.ignores[node.start_point[0]] = codes

    # -- calls ---------------------------------------------------------------

    def _resolve(self, node: Node) -> str | None:
        """'agentdeck:Agent' for a callee naming an imported framework symbol."""
        if node.type == "identifier":
            binding = self.bindings.get(node_text(node))
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
                names.append(node_text(attr))
                root = obj
            if root.type != "identifier":
                return None
            names.reverse()
            binding = self.bindings.get(node_text(root))
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
        if callee is None:
            return None
        kind = _KINDS.get(self._resolve(callee) or "")  # (most calls are none of these: asked first)
        if kind is None:
            return None
        arguments = node.child_by_field_name("arguments")
        if arguments is None or arguments.type != "argument_list":
            return None
        keywords: dict[str, Keyword] = {}
        span = self.lines.span
        plain = self.plain  # (an ASCII file: spans made when read, codecalls.raw_*)
        for child in arguments.named_children:
            if child.type != "keyword_argument":
                continue
            name_node = child.child_by_field_name("name")
            value_node = child.child_by_field_name("value")
            if name_node is None or value_node is None:
                continue
            name = node_text(name_node)
            # only the arguments a rule or a feature reads are evaluated (tools=, model=... are not)
            if name in _READ_KEYWORDS:
                value = self._value(value_node, seen, depth)
            elif plain:
                value = raw_value("other", value_node.start_point + value_node.end_point)
            else:
                value = PyValue("other", span(value_node))
            keywords[name] = (raw_keyword(name, name_node.start_point + name_node.end_point, value) if plain
                              else Keyword(name, span(name_node), value))
        # Deck.from_project's callee span ends at from_project, the end of `Deck.from_project`
        attr = callee.child_by_field_name("attribute") if kind == "deck_from_project" and callee.type == "attribute" else None
        framework = AGENTDECK if kind in ("agent", "deck", "deck_from_project") else CLAUDE_SDK
        if plain:
            call = raw_call(kind, framework, callee.start_point + (attr or callee).end_point, node.start_point + node.end_point,
                            keywords, self.assigned.get(node.id))
        else:
            call = Call(kind=kind, framework=framework,
                        callee_span=Span(span(callee).start, span(attr).end) if attr is not None else span(callee),
                        span=span(node), keywords=keywords, assigned_to=self.assigned.get(node.id))
        seen[node.id] = call
        return call

    def _value(self, node: Node, seen: dict[int, Call], depth: int) -> PyValue:
        kind = node.type
        if self.plain and depth < 50 and (kind == "string" or kind == "list"):
            plain = plain_value(self.data[node.start_byte : node.end_byte].decode(), kind, node.start_point, node.end_point)
            if plain is not None:
                return plain
        span = self.lines.span(node)
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
            return PyValue("number", span, text=node_text(node))
        if kind == "call" and self._resolve_call_kind(node):
            # the depth carries on into the inner call: Agent(skills=[Agent(skills=[...])]) nested
            # hundreds deep must not exhaust the stack (scan() still finds every call)
            call = self._call(node, seen, depth + 1)
            return PyValue("other", span, call=call)
        path = self._path(node, 0)
        if path is not None:
            return PyValue("path", span, evaluated=path)
        if kind == "identifier":
            return PyValue("name", span, name=node_text(node))
        if kind == "attribute":
            attr = node.child_by_field_name("attribute")
            return PyValue("name", span, name=node_text(attr) if attr is not None else None)
        return PyValue("other", span)

    def _resolve_call_kind(self, node: Node) -> bool:
        callee = node.child_by_field_name("function")
        return callee is not None and self._resolve(callee) is not None

    def _string(self, node: Node, span: Span) -> PyValue:
        if node.type == "string" and self.lines.ascii:
            # most strings: one quoted literal without prefix or escapes, in an ASCII file
            literal = node_text(node)
            plain = plain_literal_width(literal)
            if plain is not None:
                end = node.child(node.child_count - 1)
                if end is not None and end.type == "string_end":
                    inner, width = plain
                    (line, column), (end_line, end_column) = span
                    content = _tuple(Span, (_tuple(Position, (line, column + width)),
                                            _tuple(Position, (end_line, end_column - width))))
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
            prefix = node_text(start).lower() if start is not None else ""
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
                literal = node_text(part)
                value: object = plain_literal(literal)
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
            name = node_text(node)
            if name == "__file__" and self.path is not None:
                return PurePath(self.path)  # (a caller may give a Path: made pure here, where it is read)
            constant = self._constant(name)
            if constant is not None and constant.id != node.id:
                return self._path(constant, depth + 1)
            return None
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self._path(node.named_children[0], depth + 1)
        if kind == "binary_operator":
            operator = node.child_by_field_name("operator")
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if operator is None or left is None or right is None or node_text(operator) != "/":
                return None
            a, b = self._path(left, depth + 1), self._path(right, depth + 1)
            return a / b if a is not None and b is not None else None
        if kind == "attribute":
            obj = node.child_by_field_name("object")
            attr = node.child_by_field_name("attribute")
            if obj is None or attr is None or node_text(attr) != "parent":
                return None
            base = self._path(obj, depth + 1)
            return base.parent if base is not None else None
        if kind == "call":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is None or arguments is None:
                return None
            name = node_text(function)
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
                if attr is not None and obj is not None and node_text(attr) in ("resolve", "absolute", "expanduser"):
                    return self._path(obj, depth + 1)
        return None


def _start(node: Node) -> int:
    return node.start_byte


def _framework_of(module: str) -> str | None:
    for framework in _FRAMEWORKS:
        if module == framework or module.startswith(framework + "."):
            return framework
    return None


def _target_name(left: Node | None) -> str | None:
    """The name an assignment binds: `x = ...` gives x, `self.x = ...` gives x."""
    if left is not None and left.type == "identifier":
        return node_text(left)
    if left is not None and left.type == "attribute":
        attr = left.child_by_field_name("attribute")
        return node_text(attr) if attr is not None else None
    return None
