"""Python string literals without prefix or escapes, and lists of nothing else, read from their text: their
values and spans without compiling them or asking tree-sitter for their nodes.

Most values an agent definition gives are such literals (`name="x"`, `skills=["a", "b"]`); read through
the tree, each costs pysource a few µs of node objects, the most of an agent file's scan after the parse.
"""

from __future__ import annotations

import re

from .codecalls import PyValue, raw_value

# A list of plain one-line string literals (no prefix, escape or CR), each followed by a comma but perhaps the
# last: in a tree without errors, exactly the list node whose items are those strings (a comma between
# any two, so `"""x"""` or `"a" "b"` is never read as several).
_ITEM = r'"[^"\\\r\n]*"|\'[^\'\\\r\n]*\''
_PLAIN_ITEM = re.compile(_ITEM)
_PLAIN_LIST = re.compile(rf"\[[ \t\r\n]*(?:(?:{_ITEM})[ \t\r\n]*,[ \t\r\n]*)*(?:(?:{_ITEM})[ \t\r\n]*)?\]")


def plain_literal(literal: str) -> str | None:
    """The value of a quoted literal with no prefix and no escapes, without compiling it; else None."""
    plain = plain_literal_width(literal)
    return plain[0] if plain is not None else None


def plain_literal_width(literal: str) -> tuple[str, int] | None:
    """plain_literal's value and the width of its quotes (1 or 3)."""
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


def plain_value(literal: str, kind: str, start: tuple[int, int], end: tuple[int, int]) -> PyValue | None:
    """The value of a `string` or `list` node of a tree without errors, of an ASCII file (a column is a
    byte), from its text and its start and end points: a plain string literal, or a list of nothing
    else; None for any other (pysource reads it from the tree). Its spans are made when read."""
    row, column = start
    if kind == "string":
        plain = plain_literal_width(literal)
        if plain is None:
            return None
        inner, width = plain
        return raw_value("str", (row, column, *end), inner, (row, column + width, end[0], end[1] - width))
    if _PLAIN_LIST.fullmatch(literal) is None:
        return None
    items = []
    for match in _PLAIN_ITEM.finditer(literal):
        offset, stop = match.span()
        line_start = literal.rfind("\n", 0, offset)
        if line_start < 0:
            line, first = row, column + offset
        else:
            line, first = row + literal.count("\n", 0, offset), offset - line_start - 1
        last = first + stop - offset
        items.append(raw_value("str", (line, first, line, last), literal[offset + 1 : stop - 1], (line, first + 1, line, last - 1)))
    return raw_value("list", (row, column, *end), items=items)
