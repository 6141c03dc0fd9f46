"""The nodes pysource's scanner reads in a parsed Python file without an error, found from the file's text and
checked on its tree instead of by a query over every node: its import statements, its `skill-lsp` comments,
its module-level constants and the calls whose callee starts with one of a few names.

A query walks the whole tree in C (20 µs of a 520-byte agent file, as much as the rest of the scan); these
find each place with bytes.find and ask the tree only about it (a few µs). They answer exactly what the query
answers, and only for a tree without ERROR or MISSING nodes: there every `import` keyword is the text
"import", every identifier its own text, and a node's range holds its descendants'. Each returns None when a
file holds too many candidates to be worth it, and the caller queries the tree as before.
"""

from __future__ import annotations

from tree_sitter import Node

# Past this many places looked at (occurrences of a word, levels of the tree walked down), the query is
# cheaper, and a hostile file (a million "import" words) costs no more than it did.
_BUDGET = 2000
_IMPORTS = frozenset({"import_statement", "import_from_statement"})
_COMMENT = frozenset({"comment"})


def import_statements(root: Node, data: bytes) -> list[Node] | None:
    """The import_statement and import_from_statement nodes under root, in document order; None past
    the budget. Each has an `import` keyword of its own, whose smallest named node is the statement."""
    return _holding(root, data, b"import", _IMPORTS, named=True)


def marked_comments(root: Node, data: bytes, mark: bytes) -> list[Node] | None:
    """The comment nodes holding mark, in document order; None past the budget."""
    return _holding(root, data, mark, _COMMENT, named=False)


def _holding(root: Node, data: bytes, word: bytes, types: frozenset[str], named: bool) -> list[Node] | None:
    """The nodes of those types that are the smallest (named) node around an occurrence of word, each once,
    in document order; None past the budget."""
    found: dict[int, Node] = {}
    find = root.named_descendant_for_byte_range if named else root.descendant_for_byte_range
    at = data.find(word)
    budget = _BUDGET
    while at >= 0:
        budget -= 1
        if budget < 0:
            return None
        node = find(at, at + len(word))
        if node is not None and node.type in types:
            found.setdefault(node.start_byte, node)
        at = data.find(word, at + len(word))
    return [found[start] for start in sorted(found)]


def module_assignments(root: Node) -> list[Node]:
    """What pysource's `(module (expression_statement (assignment left: (identifier) right: (_))))` pattern
    captures, in document order."""
    found: list[Node] = []
    for child in root.named_children:
        if child.type == "expression_statement":
            for inner in child.named_children:
                if inner.type == "assignment":
                    left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
                    if left is not None and left.type == "identifier" and right is not None:
                        found.append(inner)
    return found


# A call found, and the assignment it is the value of (parentheses around it allowed): (call, the
# assignment's left side or None)
FoundCall = tuple[Node, "Node | None"]


def calls_of(root: Node, data: bytes, names: list[str]) -> list[FoundCall] | None:
    """The calls whose callee is one of names or an attribute chain starting with one (`Agent(...)`,
    `ad.Deck.from_project(...)`) and that are not inside an f-string's `{...}`, in document order, each
    with the left side of the assignment whose value it is; None past the budget or for a name that
    is not ASCII (a decoded identifier can equal it without its bytes doing so)."""
    found: dict[int, FoundCall] = {}
    budget = _BUDGET
    for name in names:
        if not name.isascii():
            return None
        word = name.encode()
        at = data.find(word)
        while at >= 0:
            budget -= 1
            if budget < 0:
                return None
            start, at = at, data.find(word, at + len(word))
            if not _may_be_callee(data, start, start + len(word)):
                continue
            node = root.descendant_for_byte_range(start, start + len(word))
            if node is None or node.type != "identifier" or node.end_byte - node.start_byte != len(word):
                continue
            # the nodes from the root down to the identifier (a node's parent costs tree-sitter a walk
            # down from the root: one walk here instead of one per ancestor)
            path = [root]
            step: Node | None = root
            while step != node:
                budget -= 1
                if budget < 0 or step is None:
                    return None
                step = step.child_with_descendant(node)
                if step is None:
                    return None
                path.append(step)
            call = _call_of(path)
            if call is not None:
                found.setdefault(path[call].start_byte, (path[call], _assigned_to(path, call)))
    return [found[start] for start in sorted(found)]


_IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# what may stand between a callee's first name and its `(` or `.`: ASCII whitespace and a line continuation
# (a comment, and any whitespace tree-sitter knows beyond ASCII, are let through to the tree)
_SPACE_BYTES = frozenset(b" \t\n\r\f\v\\")
_AFTER_CALLEE = frozenset(b"(.#")


def _may_be_callee(data: bytes, start: int, end: int) -> bool:
    """False when data[start:end] cannot be a whole identifier that begins a callee: it is part of a
    longer word, or what follows it is neither `(`, `.`, a comment nor a byte beyond ASCII (most
    occurrences: the import of the name, a docstring's word). A cheap test on bytes before the tree is
    asked (each ask costs a few µs)."""
    if start > 0 and data[start - 1] in _IDENTIFIER_BYTES:
        return False
    size = len(data)
    while end < size and data[end] in _SPACE_BYTES:
        end += 1
    return end >= size or data[end] in _AFTER_CALLEE or data[end] >= 0x80


def _call_of(path: list[Node]) -> int | None:
    """The index in path of the call whose callee is path[-1] or an attribute chain on it; None when
    there is none or it is inside an interpolation."""
    index = len(path) - 1
    while (up := _holder(path, index, "attribute", "object")) is not None:
        index = up
    call = _holder(path, index, "call", "function")
    if call is None or any(node.type == "interpolation" for node in path[:call]):
        return None
    return call


def _assigned_to(path: list[Node], call: int) -> Node | None:
    """The left side of the assignment whose right side is path[call], parentheses unwrapped."""
    index = call
    while index > 0 and path[index - 1].type == "parenthesized_expression" and path[index - 1].named_child_count == 1:
        index -= 1
    assignment = _holder(path, index, "assignment", "right")
    return path[assignment].child_by_field_name("left") if assignment is not None else None


def _holder(path: list[Node], index: int, kind: str, field: str) -> int | None:
    """index - 1 when path[index]'s parent is a `kind` node holding it as its `field`; else None."""
    if index == 0:
        return None
    parent = path[index - 1]
    return index - 1 if parent.type == kind and parent.child_by_field_name(field) == path[index] else None
