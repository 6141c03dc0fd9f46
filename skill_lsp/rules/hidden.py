"""SK207: text in a SKILL.md that the model reads and a reviewer does not see — invisible Unicode characters (tag
characters, bidirectional controls, zero-width characters inside words) and HTML comments that give instructions.

Claude Code (2.1.332) builds a skill's prompt from its file as written: the skill command's `getPromptForCommand`
puts the base directory before the body and substitutes the arguments and `${CLAUDE_SKILL_DIR}`, and removes
neither comments nor invisible characters (unlike CLAUDE.md, whose HTML comments it hides from the model since
2.1.72; it neutralises bidirectional and zero-width characters in its own permission prompts since 2.1.211 and
2.1.223, because they hide text from the person who approves). An editor, a diff and a rendered preview show
none of these; the model reads all of them. Unicode tag characters (U+E0000-U+E007F) mirror ASCII and are the
known carrier of instructions hidden in text ("ASCII smuggling"); bidirectional overrides reorder what a reviewer
sees (CVE-2021-42574, "Trojan Source")."""

from __future__ import annotations

import bisect
import re
import unicodedata

from ..bodyscan import code_spans, unfenced_lines
from ..index import SkillEntry
from ..model import Fix, Severity, Span, TextEdit
from .report import Reporter

# The characters looked for (first and last of each range); each class is weighed below (a quick test first: most
# skills have none of them).
_HIDDEN_RANGES = ((0x00AD, 0x00AD), (0x061C, 0x061C), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
                  (0x2060, 0x2064), (0x2066, 0x2069), (0xFEFF, 0xFEFF), (0xE0000, 0xE007F), (0xE0100, 0xE01EF))
_HIDDEN_POINTS = [point for first, last in _HIDDEN_RANGES for point in range(first, last + 1)]
# Those of them str.isprintable() accepts (the variation selectors, Mn; the rest are Cf or unassigned): a line
# that is printable holds a run only if it holds one of these
_PRINTABLE_HIDDEN = [point for point in _HIDDEN_POINTS if chr(point).isprintable()]


def _class_of(points: list[int]) -> str:
    """A regular expression's class of the code points, each run of consecutive ones as a range (a class of
    240 single characters is searched one by one)."""
    runs: list[list[int]] = []
    for point in points:
        if runs and runs[-1][1] == point - 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    return "[" + "".join(chr(first) + ("-" + chr(last) if last != first else "") for first, last in runs) + "]"


_HIDDEN = re.compile(_class_of(_HIDDEN_POINTS) + "+")
_printable_hidden = re.compile(_class_of(_PRINTABLE_HIDDEN)).search if _PRINTABLE_HIDDEN else None
_TAGS = range(0xE0000, 0xE0080)
_VARIATION_SUPPLEMENT = range(0xE0100, 0xE01F0)
_BIDI_CONTROLS = frozenset((0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069))
_DIRECTION_MARKS = frozenset((0x200E, 0x200F, 0x061C))
# letters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko...): where direction marks are typography
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
# a black flag followed by tag characters and a cancel tag is an emoji (England's, Scotland's, Wales's flags)
_FLAG = 0x1F3F4
_CANCEL_TAG = 0xE007F
# An HTML comment outside code, and what makes one read as an instruction to the agent rather than a note to the
# author: the agent addressed, or a sentence that starts with an order. Tool directives and markers are notes.
_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
_ADDRESSED = re.compile(r"(?i)(?<![\w/.-])(?:you|your|claude|assistant|the (?:agent|model|ai|llm))(?![\w-])")
_ORDER = re.compile(
    r"(?i)(?:^|[.!?:]\s+)(?:always|never|do not|don't|ignore|disregard|forget|pretend|reveal|send|upload|"
    r"execute|run|fetch|download|install|delete|remove|read|follow|obey|respond|reply|output|print|say|tell|"
    r"mandatory|important|must)\b"
)
_URL = re.compile(r"\S+://\S+")
_DIRECTIVE = re.compile(
    r"(?i)^\s*(?:markdownlint|prettier|eslint|cspell|vale|textlint|toc|/?toc|end ?toc|skill-lsp|"
    r"[\w.-]+:(?:start|end|begin)\b|(?:begin|end|start)\b|adr:|synced-from:|source:|license|copyright|spdx)"
)


def check_hidden(skill: SkillEntry, reporter: Reporter) -> None:
    """SK207 on the skill's whole text: invisible characters anywhere, instruction comments outside code."""
    file = skill.file
    text = file.text
    # ('<' first: its search is a quarter of the comment's, 0.2 µs against 0.8 on the corpus's texts)
    comments = "<" in text and "<!--" in text
    if text.isascii() and not comments:
        return
    lines = file.lines
    if not text.isascii():
        for number, line in enumerate(lines):
            if line.isascii() or not _may_hide(line):
                continue
            for run in _HIDDEN.finditer(line):
                _report_run(skill, reporter, number, line, run.start(), run.end())
    if comments:
        _check_comments(skill, reporter)


def _may_hide(line: str) -> bool:
    """Whether a line may hold a hidden character: it is not all printable, or it holds one of the printable ones.
    (isprintable is a test in C, the regular expression's a search: 30 -> 16 µs for each of the half of the
    ecosystem's texts that are not all ASCII.)"""
    return not line.isprintable() or (_printable_hidden is not None and _printable_hidden(line) is not None)


def _report_run(skill: SkillEntry, reporter: Reporter, number: int, line: str, start: int, end: int) -> None:
    """One run of hidden characters: reported as its most serious class, or not at all where it is typography."""
    points = [ord(ch) for ch in line[start:end]]
    if number == 0 and start == 0 and points[0] == 0xFEFF:
        points, start = points[1:], start + 1  # a byte order mark at the top of the file is an encoding's
        if not points:
            return
    if all(point in _TAGS for point in points) and start > 0 and ord(line[start - 1]) == _FLAG and points[-1] == _CANCEL_TAG:
        return  # 🏴 and its tags: a subdivision flag, an emoji
    tags = [point for point in points if point in _TAGS]
    severity = Severity.WARNING
    if tags:
        spelt = "".join(chr(point - 0xE0000) for point in tags if 0x20 <= point - 0xE0000 < 0x7F)
        kind = ("Unicode tag character", "Unicode tag characters",
                f", spelling '{_shorten(spelt)}'" if spelt.strip() else "")
    elif any(point in _BIDI_CONTROLS for point in points):
        kind = ("bidirectional control", "bidirectional controls", ", reordering what an editor shows")
    elif any(point in _VARIATION_SUPPLEMENT for point in points) and (len(points) > 1 or not _ideograph(line, start)):
        kind = ("variation selector", "variation selectors", " after no ideograph (a way to carry hidden bytes)")
    elif any(point in _DIRECTION_MARKS for point in points):
        if _RTL.search(line):
            return  # marks among right-to-left letters set their direction
        kind, severity = ("direction mark", "direction marks", " in a line of no right-to-left script"), Severity.INFORMATION
    elif _between_word_characters(line, start, end) and any(point not in _VARIATION_SUPPLEMENT for point in points):
        kind, severity = ("zero-width character", "zero-width characters", " inside a word, hiding it from a search"), \
            Severity.INFORMATION
    else:
        return
    shown = " ".join(f"U+{point:04X}" for point in points[:8]) + (" …" if len(points) > 8 else "")
    count = len(points)
    what = f"an invisible {kind[0]}" if count == 1 else f"{count} invisible {kind[1]}"
    span = Span.of(number, start, number, end)
    reporter.report(
        "SK207", skill.path, span,
        f"{what} ({shown}){kind[2]}: the model reads {'it' if count == 1 else 'them'}; an editor and a rendered "
        "preview show nothing",
        profile=skill.profile, severity=severity,
        fixes=[Fix(f"Remove the {what.removeprefix('an ')}", edits=(TextEdit(skill.path, span, ""),), preferred=True)],
        data={"code_points": [f"U+{point:04X}" for point in points]},
    )


def _ideograph(line: str, start: int) -> bool:
    """Whether the character before start is a CJK ideograph (whose glyph a variation selector may choose)."""
    return start > 0 and unicodedata.name(line[start - 1], "").startswith("CJK")


def _between_word_characters(line: str, start: int, end: int) -> bool:
    """Whether the run splits a word of ASCII letters or digits ("ig<U+200B>nore")."""
    return 0 < start and end < len(line) and line[start - 1].isascii() and line[start - 1].isalnum() \
        and line[end].isascii() and line[end].isalnum()


def _shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_comments(skill: SkillEntry, reporter: Reporter) -> None:
    """HTML comments in the body outside code blocks and inline code that read as instructions to the agent."""
    # (line, the line with its inline code blanked) outside fenced blocks: what a preview renders as text
    visible = [(number, _blank_code(line) if "`" in line else line) for number, line in unfenced_lines(skill.file)]
    if not any("<!--" in line for _, line in visible):
        return
    text = "\n".join(line for _, line in visible)
    starts = [0]
    for _, line in visible:
        starts.append(starts[-1] + len(line) + 1)
    for comment in _COMMENT.finditer(text):
        said = _URL.sub(" ", comment.group(1)).strip()  # a link's words are no one's address
        if len(said.split()) < 3 or _DIRECTIVE.match(said) or not (_ADDRESSED.search(said) or _ORDER.search(said)):
            continue
        first = _locate(starts, comment.start())
        last = _locate(starts, comment.end())
        span = Span.of(visible[first][0], comment.start() - starts[first], visible[last][0], comment.end() - starts[last])
        reporter.report(
            "SK207", skill.path, span,
            f"an HTML comment that gives instructions ('{_shorten(said)}'): the model reads it, a rendered preview "
            "hides it from whoever reviews the skill — write it as text, or remove it",
            profile=skill.profile, severity=Severity.INFORMATION,
            fixes=[Fix("Remove the HTML comment", edits=(TextEdit(skill.path, span, ""),))],
        )


def _blank_code(line: str) -> str:
    """The line with its inline code spans turned to spaces (columns kept)."""
    for start, end in code_spans(line):
        line = line[:start] + " " * (end - start) + line[end:]
    return line


def _locate(starts: list[int], offset: int) -> int:
    """The index of the visible line holding offset in the joined text (starts: each line's offset)."""
    return bisect.bisect_right(starts, offset) - 1
