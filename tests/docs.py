"""The code blocks of the documentation (README.md, docs/*.md, the extension's README and the Neovim page), found by the marker on the line above them.

A snippet a reader copies is marked `<!-- snippet: NAME -->` on the line before its fence, an output the
reader's command prints `<!-- output: COMMAND -->`; the tests read the block by its marker, exactly as the
page prints it, and run it (tests/test_docs.py, tests/editors/).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_BLOCK = re.compile(r"^(?:[ \t]*<!-- (snippet|output): (.+?) -->\n)?([ \t]*)(`{3,}|~{3,})([\w+-]*)[^\n]*\n(.*?)^\3\4[ \t]*$",
                    re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository
    line: int  # of the opening fence, 1-based
    language: str
    kind: str | None  # "snippet", "output" or None (unmarked)
    marker: str | None  # the snippet's name or the output's command
    text: str


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "vscode-client" / "README.md",
            REPO / "editors" / "neovim" / "README.md"]


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _BLOCK.finditer(text):
        kind, marker, indent, _, language, body = match.groups()
        if indent:  # a block inside a list item: its lines carry the item's indentation
            body = "".join(line.removeprefix(indent) for line in body.splitlines(keepends=True))
        fence_at = match.start(4)
        found.append(Block(page.relative_to(REPO).as_posix(), text.count("\n", 0, fence_at) + 1, language.lower(),
                           kind, marker, body))
    return found


def all_blocks() -> list[Block]:
    return [block for page in pages() for block in blocks(page)]


def snippet(name: str) -> str:
    """The text of the one block marked `<!-- snippet: name -->`."""
    marked = [block for block in all_blocks() if block.kind == "snippet" and block.marker == name]
    assert len(marked) == 1, f"{len(marked)} blocks are marked <!-- snippet: {name} --> in README.md and docs/"
    return marked[0].text
