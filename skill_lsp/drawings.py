"""Directory trees and tables that a SKILL.md draws: the paths a tree lays out under a directory it names, and
the columns of a table headed as examples. A path drawn under another directory than the skill's (an
`onboarding/` folder the skill generates, the `bigquery-skill/` of a lesson on laying out skills) and a path in
an "Example" column are not files the skill promises to hold (SK202)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A tree's branch: `├── name`, `└── name`, `|-- name`, `+-- name`, `` `-- name ``; the name ends at whitespace,
# a comment or a parenthesis ("SKILL.md (overview)", "index.md   # the hub").
_BRANCH = re.compile(r"(?:[├└+`]|\|)(?:──|--)[─-]*[ \t]*([^\s#(—]+)")
# the line above a tree that names its directory ("onboarding/", "my-skill/  # the skill")
_ROOT = re.compile(r"^\s*([\w.@-]+(?:/[\w.@-]+)*/)\s*(?:#.*)?$")
# bounds on what one body draws (each path costs a set entry)
MAX_DRAWN = 5_000


@dataclass
class DrawnTree:
    """One code block's tree: root is the directory its first line names ("onboarding" for "onboarding/"),
    "" when the block starts with a branch; files are the drawn paths below it ("reference/finance.md")."""

    root: str = ""
    files: set[str] = field(default_factory=set)


class TreeReader:
    """Reads the lines of one code block; `tree` is what it drew (None while no branch was seen)."""

    __slots__ = ("_first", "_root", "_stack", "tree")

    def __init__(self) -> None:
        self.tree: DrawnTree | None = None
        self._root = ""
        self._first = True
        self._stack: list[tuple[int, str]] = []  # (the branch's column, its name) of the path so far

    def feed(self, line: str) -> None:
        branch = _BRANCH.search(line) if ("─" in line or "--" in line) else None
        if branch is None:
            if self._first and line.strip():
                self._first = False
                root = _ROOT.match(line)
                if root:
                    self._root = root.group(1).rstrip("/").rsplit("/", 1)[-1]
            return
        self._first = False
        if self.tree is None:
            self.tree = DrawnTree(self._root)
        if len(self.tree.files) >= MAX_DRAWN:
            return
        column = branch.start()
        stack = self._stack
        while stack and stack[-1][0] >= column:
            stack.pop()
        name = branch.group(1).rstrip("/")
        if not name or name in (".", ".."):
            return
        self.tree.files.add("/".join([part for _, part in stack] + [name]))
        stack.append((column, name))


def drawn_tree(block: str) -> DrawnTree | None:
    """The directory tree one code block draws (its lines joined by "\n"), if any (a branch needs a '─' or a '--')."""
    if "─" not in block and "--" not in block:
        return None
    reader = TreeReader()
    for line in block.split("\n"):
        reader.feed(line)
    return reader.tree


def table_cells(line: str) -> list[str]:
    """The cells of a table row, without the outer pipes ("| a | b |" -> ["a", "b"])."""
    row = line.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return [cell.strip() for cell in row.split("|")]


def example_columns(header: str) -> frozenset[int]:
    """The columns of a table whose header cell says they hold examples ("Example", "Examples", "Example path")."""
    return frozenset(i for i, cell in enumerate(table_cells(header)) if cell.strip("*_` ").lower().startswith("example"))


def column_at(line: str, at: int) -> int:
    """The column of a table row that the character at `at` is in (0 for the first cell)."""
    before = line.count("|", 0, at)
    return before - 1 if line.lstrip().startswith("|") else before

