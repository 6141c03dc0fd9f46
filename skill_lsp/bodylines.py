"""Which lines of a SKILL.md body its scan looks at, and what the lines above one of them make of it (the
list lead-in it follows, the table it is a row of): found by searching the whole text and by looking back
from the few lines that hold a reference, not by a step per line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .drawings import example_columns

if TYPE_CHECKING:
    from .skillfile import SkillFile

# A list whose lead-in says its items are files to make or examples: "Move detailed content to
# references/:", "Create a `references/` directory and move supporting material there:".
EXAMPLE_LEAD_IN = re.compile(r"(?i)\b(?:examples?|e\.g\.|such as|for instance|create|move|would|could|might)\b")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")

# What a body line must hold for scan_body to look at it: a fence's three backticks or tildes, a path's slash
# or backslash, a link's or a definition's ']'. The lines between only set the state a line of references is
# read in (the list lead-in above it, the table it is in), which is worked out by looking back from the few
# lines that need it. Each pattern is alternatives that start with a character: the regex engine then skips to
# one of those characters as fast as it scans for a set of them (a set or a word among them costs 2 to 6 times
# as much).
LOOK = re.compile(r"/|\\|\]|```|~~~")
# in a code block: its closing fence, and the paths through ${CLAUDE_SKILL_DIR} or {baseDir}; in a block of
# shell, any path (a home directory's); where references are no longer looked for, fences only
LOOK_FENCED = re.compile(r"\{|```|~~~")
LOOK_SHELL = re.compile(r"/|```|~~~")
LOOK_FENCES = re.compile(r"```|~~~")
# what a suppression comment's line holds, searched for apart
IGNORE_WORD = re.compile("skill-lsp")


class LinesHolding:
    """The body's lines (number, text) in which `look` finds something, found by searching the whole text:
    most lines of most bodies hold none of what scan_body looks for, and are never made a Python step. The
    reader may change `look` between two lines (at a code block's fences)."""

    __slots__ = ("look", "skill", "start")

    def __init__(self, skill: SkillFile, look: re.Pattern[str]) -> None:
        self.skill = skill
        self.look = look
        self.start = -1  # where the line last given starts in the text (-1: the text is read line by line)

    def __iter__(self) -> Iterator[tuple[int, str]]:
        skill = self.skill
        text = skill.text
        if "\r" in text:  # lines end at "\r\n", "\r" or "\n": no offset arithmetic, a search per line
            lines = skill.lines
            for number in range(skill.body_start, len(lines)):
                if self.look.search(lines[number]):
                    yield number, lines[number]
            return
        # each line is cut from the text where it is found: the text is not split into lines
        number = skill.body_start
        start = skill.body_offset
        found = self.look.search(text, start)
        while found is not None:
            at = found.start()
            skipped = text.count("\n", start, at)
            if skipped:
                number += skipped
                start = text.rfind("\n", start, at) + 1
            end = text.find("\n", at)
            if end < 0:
                end = len(text)
            self.start = start
            yield number, text[start:end]
            number += 1
            start = end + 1
            found = self.look.search(text, start)


class Above:
    """What the lines above a body line make of it: whether the list it is an item of is introduced as examples
    or files to make, and the example columns of the table it is a row of. Asked only for the lines that hold a
    reference; each looks back over the lines outside code blocks (blocks and their fences are skipped, as a
    line by line scan skips them) and stops at the line the previous question stopped at, so a body is looked
    back over once at most."""

    __slots__ = ("_blocks", "_lead", "_skill", "_start", "_table")

    def __init__(self, skill: SkillFile, blocks: list[tuple[int, int]]) -> None:
        self._skill = skill  # its lines are asked for only when a line of references is a list item or a table row
        self._start = skill.body_start
        self._blocks = blocks  # (opening fence line, closing fence line) of the blocks closed so far
        self._lead: tuple[int, bool] = (-1, False)  # the last list item asked about, and its answer
        self._table: tuple[int, frozenset[int]] = (-1, frozenset())  # the last table row asked about, and its

    def _unfenced(self, number: int) -> Iterator[int]:
        """The line numbers above number, nearest first, outside code blocks and their fences."""
        blocks = self._blocks
        index = len(blocks) - 1
        line = number - 1
        while line >= self._start:
            if index >= 0 and line <= blocks[index][1]:
                line = blocks[index][0] - 1
                index -= 1
                continue
            yield line
            line -= 1

    def example_list(self, number: int, line: str) -> bool:
        """Whether the line is an item of a list whose lead-in line (the last non-blank line above that is
        no list item) ends with ':' and says its items are examples or files to make."""
        if LIST_ITEM.match(line) is None:
            return False
        answer = False
        lines = self._skill.lines
        for above in self._unfenced(number):
            if above == self._lead[0]:
                answer = self._lead[1]
                break
            text = lines[above]
            if text.strip() and not LIST_ITEM.match(text):
                answer = text.rstrip().endswith(":") and EXAMPLE_LEAD_IN.search(text) is not None
                break
        self._lead = (number, answer)
        return answer

    def table(self, number: int, line: str) -> frozenset[int] | None:
        """The example columns of the table the line is a row of (read from the table's first row); None
        for a line that is no table row."""
        if not line.lstrip().startswith("|"):
            return None
        header = number
        columns = None
        lines = self._skill.lines
        for above in self._unfenced(number):
            if above == self._table[0]:
                columns = self._table[1]
                break
            if not lines[above].lstrip().startswith("|"):
                break
            header = above
        if columns is None:
            columns = example_columns(lines[header])
        self._table = (number, columns)
        return columns
