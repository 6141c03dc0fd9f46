"""tree-sitter as the code readers (pysource, tssource) use it: a document's bytes, parsed in chunks by this
thread's parser and stopped when the process ends, node texts sliced from those bytes, and byte columns
turned into code point columns.

A grammar is the caller's: parse_tree takes the language, so nothing here knows Python or TypeScript.
"""

from __future__ import annotations

import bisect
import re
import threading
from array import array

from tree_sitter import Language, Node, Parser, Tree

from .model import Position, Span

_LONE_CR = re.compile(rb"\r(?!\n)")


def document_bytes(text: str) -> bytes:
    """The bytes tree-sitter reads of a document: its UTF-8 (a lone surrogate kept), a lone CR made LF.

    Python, JavaScript and LSP end a line at a lone CR too, tree-sitter only at LF: same length, so byte
    offsets hold and tree-sitter's rows are the document's lines.
    """
    data = text.encode("utf-8", errors="surrogatepass")
    return _LONE_CR.sub(b"\n", data) if b"\r" in data else data


class Lines:
    """Byte columns (tree-sitter) -> code point columns."""

    def __init__(self, data: bytes) -> None:
        # an ASCII file's byte columns are its columns (most files: no line needs looking at)
        self.ascii = data.isascii()
        self.lines = data.split(b"\n") if not self.ascii else []  # (position never looks at an ASCII file's)
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
            # tree-sitter's points are (row, column) tuples: made Positions as they are, without the
            # named tuple's constructor (a code file asks for a span per argument and value)
            return _tuple(Span, (_tuple(Position, start), _tuple(Position, end)))
        return Span(self.position(start[0], start[1]), self.position(end[0], end[1]))


_tuple = tuple.__new__


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


def stop_if_abandoned() -> None:
    """Raise ParseAbandoned after abandon_parses: for work on a tree that runs long between reads (a query)."""
    if _abandoned:
        raise ParseAbandoned()


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


def parse_tree(data: bytes, language: Language) -> Tree:
    """data's tree-sitter tree in language, read in chunks (see _CHUNK); raises ParseAbandoned after
    abandon_parses."""

    if len(data) <= _CHUNK:  # read in one chunk all the same: given whole, without the callbacks
        stop_if_abandoned()
        return parser_for(language).parse(data)

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        if _abandoned:
            raise ParseAbandoned()
        return data[offset : offset + _CHUNK]

    return parser_for(language).parse(read)


# The bytes the scan in progress on this thread reads: a node's text is sliced from them (a tree
# parsed from chunks answers node.text by reading through the callback again, 10 µs a node).
_source = threading.local()


class _Reading:
    """(reading's) a context manager as a class: a generator's costs a code file's scan 2 µs."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __enter__(self) -> None:
        _source.data = self.data

    def __exit__(self, *_: object) -> None:
        _source.data = b""


def reading(data: bytes) -> _Reading:
    """While a tree parsed from data is scanned on this thread: node texts (node_text) come from data."""
    return _Reading(data)


def node_text(node: Node) -> str:
    """node's text, from the bytes being read (reading)."""
    data: bytes = _source.data
    return data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")
