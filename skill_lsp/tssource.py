"""TypeScript / JavaScript text -> the Claude Agent SDK `query()` options and `AgentDefinition`s it writes, with
spans (a codecalls.PySource, as the Python scanner's calls).

Static only, like skill_lsp.pysource: parsed with tree-sitter (skill_lsp.treesitter; the TypeScript grammar
for `.ts`, `.mts`, `.cts`, the TSX grammar — a superset of JavaScript — for the rest), never run. A call
counts only when its callee resolves through the file's own imports from `@anthropic-ai/claude-agent-sdk`:
`import { query }`, `import { query as q }`, `import * as sdk` / a default import (`sdk.query`),
`require(...)` with or without destructuring. Another library's `query(...)` is never touched.

What is read (TypeScript SDK 0.3.333, `sdk.d.ts`): `query({ prompt, options })` with `options.skills:
string[] | 'all'`, `options.agents: Record<string, AgentDefinition>` (`skills?: string[]`), `plugins`
(`{ type: 'local', path }`), `cwd`, `additionalDirectories`, `settingSources`. An options object or an
agent definition may be a `const` of the same file; a `const` typed `AgentDefinition` / `Options` (from
the SDK) counts on its own too. The values come out as the Python scanner's calls, keyword names mapped
to the Python SDK's (`additionalDirectories` -> `add_dirs`, `settingSources` -> `setting_sources`), so
the model resolves roots and registries the same way.
"""

from __future__ import annotations

import re
from pathlib import PurePath

import tree_sitter_typescript
from tree_sitter import Language, Node

from .codecalls import Call, Keyword, PySource, PyValue, ignored_codes
from .model import Span
from .treesitter import Lines, document_bytes, node_text, parse_tree, reading

SDK_MODULE = "@anthropic-ai/claude-agent-sdk"
TS_SDK = "claude_agent_sdk_ts"
SCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")

_TS = Language(tree_sitter_typescript.language_typescript())
_TSX = Language(tree_sitter_typescript.language_tsx())

# options keys -> the keyword names the model reads (the Python SDK's)
_OPTION_KEYS = {"skills": "skills", "agents": "agents", "plugins": "plugins", "cwd": "cwd",
                "additionalDirectories": "add_dirs", "settingSources": "setting_sources", "model": "model", "env": "env"}
_AGENT_KEYS = {"skills": "skills", "description": "description", "prompt": "prompt", "model": "model"}
_WRAPPERS = ("parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression")


def is_script_name(name: str) -> bool:
    return name.endswith(SCRIPT_SUFFIXES) and not name.endswith((".d.ts", ".d.mts", ".d.cts"))


def parse_script(text: str, path: PurePath | None = None) -> PySource:
    source = PySource()
    if SDK_MODULE not in text:
        return source  # cannot import the SDK: nothing to find
    data = document_bytes(text)
    suffix = path.suffix if path is not None else ".ts"
    tree = parse_tree(data, _TS if suffix in (".ts", ".mts", ".cts") else _TSX)
    with reading(data):
        _Scanner(source, Lines(data), path).scan(tree.root_node)
    return source


def _text(node: Node | None) -> str:
    return "" if node is None else node_text(node)


def _unwrap(node: Node) -> Node:
    while node.type in _WRAPPERS and node.named_child_count >= 1:
        node = node.named_children[0]
    return node


class _Scanner:
    def __init__(self, source: PySource, lines: Lines, path: PurePath | None = None) -> None:
        self.source = source
        self.lines = lines
        self.path = path
        # local name -> "query" | "AgentDefinition" | "Options" (a named import) or "*" (the module)
        self.bindings: dict[str, str] = {}
        # const/let/var NAME = value, and its type annotation's text
        self.constants: dict[str, Node] = {}
        self.annotations: dict[str, str] = {}
        self.declared: dict[str, Node] = {}  # the name node of each const
        self.done: set[int] = set()  # object nodes already read as options or agent definitions

    def scan(self, root: Node) -> None:
        stack = [root]
        calls: list[Node] = []
        declarators: list[Node] = []
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "import_statement":
                self._import(node)
            elif kind == "comment":
                self._comment(node)
            elif kind == "variable_declarator":
                declarators.append(node)
            elif kind == "call_expression":
                calls.append(node)
            stack.extend(reversed(node.children))
        for node in declarators:
            self._declarator(node)
        if not self.bindings:
            return
        self.source.frameworks.add(TS_SDK)
        for node in sorted(calls, key=lambda n: n.start_byte):
            self._call(node)
        for name, node in self.constants.items():  # typed consts that no query() call reached
            value = _unwrap(node)
            annotation = self.annotations.get(name, "") or self._satisfies(node)
            if value.type != "object" or value.id in self.done:
                continue
            if self._names(annotation, "AgentDefinition"):
                self._agent(value, name, name, self.declared.get(name))
            elif self._names(annotation, "Options"):
                self._options(value, node, name)
        self.source.calls.sort(key=lambda call: call.span)
        for index, call in enumerate(self.source.calls):
            call.index = index

    # -- imports -------------------------------------------------------------------------

    def _import(self, node: Node) -> None:
        module = node.child_by_field_name("source")
        if module is None or _string_value(module) != SDK_MODULE:
            return
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":  # import sdk from '...'
                    self.bindings[_text(part)] = "*"
                elif part.type == "namespace_import":
                    for child in part.named_children:
                        if child.type == "identifier":
                            self.bindings[_text(child)] = "*"
                elif part.type == "named_imports":
                    for specifier in part.named_children:
                        if specifier.type != "import_specifier":
                            continue
                        name = specifier.child_by_field_name("name")
                        alias = specifier.child_by_field_name("alias")
                        if name is not None:
                            self.bindings[_text(alias or name)] = _text(name)

    def _declarator(self, node: Node) -> None:
        target = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if target is None or value is None:
            return
        inner = _unwrap(value)
        if inner.type == "await_expression" and inner.named_child_count:
            inner = _unwrap(inner.named_children[0])
        if inner.type == "call_expression" and _text(inner.child_by_field_name("function")) == "require":
            arguments = inner.child_by_field_name("arguments")
            argument = arguments.named_children[0] if arguments is not None and arguments.named_child_count else None
            if argument is None or _string_value(argument) != SDK_MODULE:
                return
            if target.type == "identifier":
                self.bindings[_text(target)] = "*"
            elif target.type == "object_pattern":
                for part in target.named_children:
                    if part.type == "shorthand_property_identifier_pattern":
                        self.bindings[_text(part)] = _text(part)
                    elif part.type == "pair_pattern":
                        key, local = part.child_by_field_name("key"), part.child_by_field_name("value")
                        if key is not None and local is not None and local.type == "identifier":
                            self.bindings[_text(local)] = _text(key)
            return
        if target.type == "identifier":
            self.constants[_text(target)] = value
            self.declared[_text(target)] = target
            annotation = node.child_by_field_name("type")
            if annotation is not None:
                self.annotations[_text(target)] = _text(annotation).lstrip(":").strip()

    def _comment(self, node: Node) -> None:
        codes = ignored_codes(_text(node))
        if codes is not None:
            self.source.ignores[node.start_point[0]] = codes

    def _names(self, text: str, symbol: str) -> bool:
        """Whether a type (or callee) text names the SDK's symbol through this file's imports."""
        head, _, rest = text.strip().partition(".")
        binding = self.bindings.get(head)
        if binding is None:
            return False
        return rest == symbol if binding == "*" else (not rest and binding == symbol)

    def _satisfies(self, node: Node) -> str:
        if node.type in ("satisfies_expression", "as_expression") and node.named_child_count >= 2:
            return _text(node.named_children[-1])
        return ""

    # -- calls and objects ---------------------------------------------------------------

    def _follow(self, node: Node, depth: int = 0) -> Node:
        """An identifier's const value (in this file), wrappers taken off."""
        node = _unwrap(node)
        while node.type in ("identifier", "shorthand_property_identifier") and depth < 20:
            value = self.constants.get(_text(node))
            if value is None:
                break
            node = _unwrap(value)
            depth += 1
        return node

    def _call(self, node: Node) -> None:
        function = node.child_by_field_name("function")
        if function is None or not self._names(_text(function), "query"):
            return
        arguments = node.child_by_field_name("arguments")
        if arguments is None or not arguments.named_child_count:
            return
        argument = self._follow(arguments.named_children[0])
        if argument.type != "object":
            return
        for key, value, _ in self._pairs(argument):
            if key == "options":
                options = self._follow(value)
                if options.type == "object":
                    self._options(options, function, None)

    def _pairs(self, node: Node) -> list[tuple[str, Node, Node]]:
        """(key, value, key node) of an object literal; `{ reviewer }` is reviewer: reviewer."""
        found = []
        for child in node.named_children:
            if child.type == "pair":
                key = child.child_by_field_name("key")
                value = child.child_by_field_name("value")
                if key is None or value is None:
                    continue
                name = _string_value(key) if key.type == "string" else _text(key)
                if name is not None:
                    found.append((name, value, key))
            elif child.type == "shorthand_property_identifier":
                found.append((_text(child), child, child))
        return found

    def _options(self, node: Node, callee: Node, variable: str | None) -> None:
        if node.id in self.done:
            return
        self.done.add(node.id)
        keywords: dict[str, Keyword] = {}
        agents: list[tuple[str, Node, Node]] = []
        for key, value, key_node in self._pairs(node):
            mapped = _OPTION_KEYS.get(key)
            if mapped is None:
                continue
            if key == "agents":
                table = self._follow(value)
                if table.type == "object":
                    agents = self._pairs(table)
            parsed = self._directory(value) if key in ("cwd", "additionalDirectories") else self._value(value, 0)
            keywords[mapped] = Keyword(mapped, self.lines.span(key_node), parsed)
        self.source.calls.append(Call("claude_options", TS_SDK, self.lines.span(callee), self.lines.span(node),
                                      keywords, assigned_to=variable))
        for name, value, key_node in agents:
            definition = self._follow(value)
            if definition.type == "object":
                named = _unwrap(value).type in ("identifier", "shorthand_property_identifier")
                # a const's agent is shown where it is declared, an inline one where it is registered
                self._agent(definition, name, _text(value) if named else None,
                            self.declared.get(_text(_unwrap(value))) if named else key_node)

    def _agent(self, node: Node, name: str, variable: str | None, named_by: Node | None = None) -> None:
        if node.id in self.done:
            return
        self.done.add(node.id)
        keywords: dict[str, Keyword] = {}
        for key, value, key_node in self._pairs(node):
            mapped = _AGENT_KEYS.get(key)
            if mapped is not None:
                keywords[mapped] = Keyword(mapped, self.lines.span(key_node), self._value(value, 0))
        # what hovers show the agent on (its "callee"): the name it is registered under in agents: {...} or
        # the const typed AgentDefinition, else the object's opening brace
        callee = named_by if named_by is not None else (node.child(0) or node)
        self.source.calls.append(Call("agent_definition", TS_SDK, self.lines.span(callee), self.lines.span(node),
                                      keywords, assigned_to=variable, agent_name=name))

    def _directory(self, node: Node) -> PyValue:
        """cwd / additionalDirectories: a literal, `__dirname` or `import.meta.dirname`, `path.join(...)` /
        `path.resolve(...)` of those; `process.cwd()` is where the program runs — taken as unset, the file's
        project, as the SDK defaults to the current directory too."""
        node = self._follow(node)
        span = self.lines.span(node)
        if node.type == "array":
            return PyValue("list", span, items=[self._directory(child) for child in node.named_children
                                                if child.type != "comment"])
        if _text(node).replace(" ", "") == "process.cwd()":
            return PyValue("none", span)
        path = self._path(node, 0)
        if path is not None:
            return PyValue("path", span, evaluated=path)
        return self._value(node, 0)

    def _path(self, node: Node, depth: int) -> PurePath | None:
        node = self._follow(node)
        if depth > 20:
            return None
        if node.type in ("string", "template_string"):
            text = _string_value(node)
            return PurePath(text) if text else None
        text = _text(node)
        if text in ("__dirname", "import.meta.dirname"):
            return PurePath(self.path).parent if self.path is not None else None  # (a caller may give a Path)
        if node.type == "call_expression":
            function = _text(node.child_by_field_name("function"))
            arguments = node.child_by_field_name("arguments")
            if function.rsplit(".", 1)[-1] in ("join", "resolve") and arguments is not None and arguments.named_child_count:
                parts = [self._path(child, depth + 1) for child in arguments.named_children]
                if all(part is not None for part in parts):
                    return PurePath(*[part for part in parts if part is not None])
        return None

    def _value(self, node: Node, depth: int) -> PyValue:
        span = self.lines.span(node)
        if depth > 50:
            return PyValue("other", span)
        node = _unwrap(node)
        span = self.lines.span(node)
        kind = node.type
        if kind in ("string", "template_string"):
            text = _string_value(node)
            content = Span(self.lines.position(node.start_point[0], node.start_point[1] + 1),
                           self.lines.position(node.end_point[0], max(node.end_point[1] - 1, 0)))
            if node.start_point[0] != node.end_point[0]:
                content = span
            return PyValue("str", span, text=text, content_span=content)
        if kind == "array":
            return PyValue("list", span, items=[self._value(child, depth + 1) for child in node.named_children
                                                if child.type != "comment"])
        if kind == "object":
            pairs = []
            for key, value, key_node in self._pairs(node):
                pairs.append((PyValue("str", self.lines.span(key_node), text=key), self._value(value, depth + 1)))
            return PyValue("dict", span, pairs=pairs)
        if kind in ("null", "undefined"):
            return PyValue("none", span)
        if kind in ("true", "false"):
            return PyValue("bool", span, text=kind)
        if kind == "number":
            return PyValue("number", span, text=_text(node))
        if kind in ("identifier", "shorthand_property_identifier"):
            followed = self._follow(node)
            if followed.id != node.id and followed.type in ("string", "array", "object", "template_string"):
                return self._value(followed, depth + 1)
            return PyValue("name", span, name=_text(node))
        return PyValue("other", span)


def _string_value(node: Node) -> str | None:
    """A string literal's value; None for a template with substitutions or an unreadable escape."""
    raw = _text(node)
    if node.type == "template_string":
        if any(child.type == "template_substitution" for child in node.named_children) or len(raw) < 2:
            return None
        body = raw[1:-1]
    elif node.type == "string" and len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0]:
        body = raw[1:-1]
    else:
        return None
    if "\\" not in body:
        return body
    return _unescape(body)


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|.)", re.DOTALL)


def _unescape(body: str) -> str | None:
    """A JavaScript string literal's escapes decoded (by hand: nothing is evaluated)."""
    def decode(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "ux" and len(escape) > 1:
            digits = escape[2:-1] if escape.startswith("u{") else escape[1:]
            code = int(digits, 16)
            return chr(code) if code <= 0x10FFFF else "\ufffd"
        if escape in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
            return ""  # a line continuation
        return _SIMPLE_ESCAPES.get(escape, escape)
    return _ESCAPE.sub(decode, body)
