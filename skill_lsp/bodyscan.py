"""The body of a SKILL.md as rules and the editor need it: file references, machine paths, Claude Code's `$N`
placeholders, headings and suppression comments, found in one linear pass over its lines."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .bodylines import IGNORE_WORD, LOOK, LOOK_FENCED, LOOK_FENCES, LOOK_SHELL, Above, LinesHolding
from .drawings import column_at, drawn_tree
from .model import Span
from .textutil import covered_by

if TYPE_CHECKING:
    from .skillfile import SkillFile

# Bounds on what one body yields (its rules and symbols cost per item): the first this many
# references, machine paths and headings are kept, the rest of a hostile file is not.
MAX_BODY_ITEMS = 5_000

IGNORE = re.compile(r"skill-lsp:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# Every pattern here runs on every body line, so each must be linear in the line's length: no
# two adjacent quantifiers that can match the same characters (the old heading pattern took
# minutes on a 4,000-character line); a heading's closing hashes are stripped in code.
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+)$")
# [text](target "title") and ![alt](target); the target may be in <...>. The link text holds no
# unescaped bracket and the target no parenthesis, so a scan from one '[' stops at the next.
_LINK = re.compile(r"(?<!\\)!?\[(?:[^\[\]\\]|\\.)*\]\(\s*(<[^<>]*>|[^()\s]+)(?:\s+\"[^\"]*\")?\s*\)")
# a link reference definition; `[^1]: Mermaid. "..."` is a footnote (GFM), whose text is no destination
_REF_DEF = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)")
# Bare relative references to the conventional skill subfolders.
SKILL_FOLDERS = frozenset({"scripts", "references", "reference", "assets", "templates", ".", ".."})
_BARE = re.compile(r"(?<![\w./\\:-])((?:\./)?(?:scripts|references|reference|assets|templates)/[\w./-]*[\w-])")
# Paths that only exist on the author's machine: a user's home directory (also as a file:// URI). A
# path ends at whitespace, a quote, a bracket, or the ',' and ';' that separate option values
# (`target=/home/vscode/.cargo,type=volume`).
_MACHINE_PATH = re.compile(
    r"(?<![\w/.=])(?:file://(?=/(?:Users|home)/|/?[A-Za-z]:[\\/]Users[\\/])[^\s)`'\",;]+"
    r"|/(?:Users|home)/([\w.-]+)/[^\s)`'\",;]*|[A-Za-z]:\\Users\\([^\s)`'\",;\\]+)[^\s)`'\",;]*)"
)
# Home directories that are not a person's: the users of development containers, CI runners and
# notebook images, and the placeholders documentation writes for "your name".
# A user name that stands for anyone's: a placeholder's brackets or sigils, or one in capitals (USER, USERNAME).
_PLACEHOLDER_USER = re.compile(r"[<>{}$%*@]|^(?:your|my)|user|name|email", re.IGNORECASE)
_NOT_A_PERSON = frozenset({
    "vscode", "node", "runner", "codespace", "jovyan", "circleci", "gitpod", "devcontainer",
    "name", "username", "user", "you", "yourname", "your-name", "your_name", "yourusername", "me", "example",
})
# A line that shows a machine path as what not to do ("never hard-code `/Users/name/...`").
_COUNTER_EXAMPLE = re.compile(
    r"(?i)\b(?:never|don'?t|do not|avoid|hard-?coded|instead of|not portable|bad|wrong|incorrect)\b|\u274c|\u2717"
)
# Fences whose lines the agent runs as shell commands (Claude Code also runs a fence opened with
# "```!" while it loads the skill).
_SHELL_FENCES = frozenset({"bash", "sh", "shell", "zsh", "console", "fish", "!"})
# ${CLAUDE_SKILL_DIR} (Claude Code 2.1.69) and {baseDir} (the skill directory in Anthropic's own
# skills) name a file of the skill itself, wherever they are written.
_SKILL_DIR_PATH = re.compile(r"(?:\$\{CLAUDE_SKILL_DIR\}|\{baseDir\})/([\w.@+-]+(?:/[\w.@+-]+)*/?)")
# Words that make a path on the same line an example of what a skill could hold, not a file of this
# one: "**Example**: `scripts/rotate_pdf.py`", "e.g. `references/finance.md`", "Create new skill + migration guide
# (use `references/migration.md`)", and, after the path, "A `scripts/x.py` script would be helpful".
_EXAMPLE_BEFORE = re.compile(r"(?i)\b(?:examples?\b|e\.g\.|for instance\b|such as\b|good\b\s*\**:|bad\b\s*\**:|avoid\b"
                             r"|new skills?\b)"
                             r"|[\u2713\u2714\u2717\u2718\u274c\u2705]")
# A line of a template to fill in: a bracketed placeholder that is no link ("- [c4-file.md](./c4-file.md) - [Description]").
TEMPLATE_LINE = re.compile(r"\[(?:[A-Z][a-z]+(?: [A-Za-z]+){0,3}|\.\.\.|TODO|TBD)\](?![(\[:])")
_EXAMPLE_AFTER = re.compile(r"(?i)\bwould (?:be (?:helpful|useful)|help)\b|\bcould (?:be|hold|contain)\b")
# right after a path, what says it is another skill's file: "Follow `references/ingest.md` in the llm-wiki skill"
_OTHER_SKILL = re.compile(r"(?i)\W*(?:in|of|from) the [\w-]+ skill\b")
# right before a path, what says it is another skill's file ("see llm-wiki skill's `references/x.md`") or one the
# skill has the agent make ("Save `references/extract.py`:", "Create `scripts/run.sh`"); matched on the few
# characters before the path only
_MAKES_WORDS = r"\b(?:save|create|write|generate)s?(?: it)?(?: (?:to|as|in))?"
_MAKES = re.compile(rf"(?i){_MAKES_WORDS}\W{{0,3}}$")
_BEFORE_PATH = re.compile(rf"(?i)(?:\b[\w-]+ skill's|{_MAKES_WORDS})\W{{0,3}}$")
_BACKTICKS = re.compile(r"`+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_PLACEHOLDER = re.compile(r"[{}$<>*|]")


@dataclass
class Reference:
    """A relative file reference in the body (link target or bare path)."""

    target: str
    span: Span
    is_link: bool
    # link: a Markdown link's target, relative to the skill directory; skill-dir: a path through
    # ${CLAUDE_SKILL_DIR} or {baseDir} (target without it); bare: a path written in the text, which
    # may also be meant from the plugin or project root; loose: a path that reads as prose or an
    # example, never reported missing
    kind: str = "bare"


@dataclass
class Placeholder:
    """A `$N` in the body that Claude Code replaces with the invocation's N-th argument, where the
    author almost certainly meant something else (why: "currency" or "shell")."""

    text: str
    span: Span
    why: str


@dataclass
class Heading:
    level: int
    text: str
    span: Span


def _fence_change(line: str, in_fence: str | None) -> tuple[bool, str | None]:
    """Whether line (holding a backtick or a tilde) opens or closes a code fence, and the fence open
    after it."""
    fence = FENCE.match(line)
    if fence:
        marker = fence.group(1)
        if in_fence is None:
            return True, marker[0] * len(marker)
        if marker[0] == in_fence[0] and len(marker) >= len(in_fence) and not line.strip()[len(marker) :].strip():
            return True, None
    return False, in_fence


def unfenced_lines(skill: SkillFile) -> list[tuple[int, str]]:
    """The body's lines outside fenced code blocks (the fence lines themselves excluded); a list,
    not a generator: this runs on every line of most bodies."""
    unfenced: list[tuple[int, str]] = []
    in_fence: str | None = None
    lines = skill.lines
    for number in range(skill.body_start, len(lines)):
        line = lines[number]
        # the fence pattern needs a backtick or a tilde: test for them first
        if "`" in line or "~" in line:
            changed, in_fence = _fence_change(line, in_fence)
            if changed:
                continue
        if in_fence is None:
            unfenced.append((number, line))
    return unfenced


def scan_body(skill: SkillFile) -> None:
    """The body's suppression comments, file references and drawn trees (headings are found when asked
    for: only the editor's outline reads them)."""
    text = skill.text
    # each needs a character or a word the whole text may not have: most bodies need no scan at all
    wants_ignores = "skill-lsp" in text
    # (a character first: looking for two costs twenty times as much as for one)
    wants_references = "/" in text or "\\" in text or ("]" in text and ("](" in text or "]:" in text))
    if not (wants_ignores or wants_references):
        return
    in_fence: str | None = None
    shell_fence = False
    opened = 0  # the line of the open code block's fence
    # where the open code block's first line starts in the text (-1: the lines are read, not the text)
    opened_after = -1
    read_tree = False  # whether the open code block's tree is read
    blocks: list[tuple[int, int]] = []
    above = Above(skill, blocks)
    holding = LinesHolding(skill, LOOK if wants_references else LOOK_FENCES)
    for number, line in holding:
        if "`" in line or "~" in line:
            changed, in_fence = _fence_change(line, in_fence)
            if changed:
                if in_fence is None:  # the block closes
                    if read_tree:
                        _add_drawn(skill, _block(skill, opened, opened_after, number, holding.start))
                    blocks.append((opened, number))
                    shell_fence = False
                    holding.look = LOOK if wants_references else LOOK_FENCES
                else:
                    shell_fence = _fence_language(line) in _SHELL_FENCES
                    opened, read_tree = number, wants_references
                    opened_after = holding.start + len(line) + 1 if holding.start >= 0 else -1
                    holding.look = (LOOK_SHELL if shell_fence else LOOK_FENCED) if wants_references else LOOK_FENCES
                continue
        if in_fence is not None:
            if wants_references and "/" in line and not _references_full(skill):
                _scan_fenced_line(skill, number, line, shell_fence)
            continue
        # links need '](' or ']:', bare and machine paths a slash or a backslash
        if wants_references and ("/" in line or "](" in line or "]:" in line or "\\" in line):
            if _references_full(skill):
                wants_references = False
                if not wants_ignores:
                    return
                holding.look = LOOK_FENCES
            else:
                _scan_line_references(skill, number, line, above.example_list(number, line), above.table(number, line))
    if in_fence is not None:
        if read_tree:  # a block left open at the end of the file
            _add_drawn(skill, _block(skill, opened, opened_after, skill.line_count() + 1, len(skill.text) + 1))
        blocks.append((opened, skill.line_count()))
    if wants_ignores:
        _body_ignores(skill, blocks)


def _body_ignores(skill: SkillFile, blocks: list[tuple[int, int]]) -> None:
    """The suppression comments of the body's lines outside its code blocks (blocks: each one's opening and
    closing fence lines)."""
    opening = [start for start, _ in blocks]
    for number, line in LinesHolding(skill, IGNORE_WORD):
        block = bisect.bisect_right(opening, number) - 1
        if block >= 0 and number <= blocks[block][1]:
            continue  # shown in a code block
        match = IGNORE.search(line)
        if match:
            codes = match.group(1)
            skill.ignores[number] = {c.strip().upper() for c in codes.split(",") if c.strip()} if codes else set()


def _block(skill: SkillFile, opened: int, after: int, closing: int, closing_start: int) -> str:
    """The lines of a code block, joined, from its opening fence's line to its closing one's (after, closing_start:
    where its first line and the closing fence's line start in the text; -1: read from the lines)."""
    if after < 0:
        return "\n".join(skill.lines[opened + 1 : closing])
    return skill.text[after : closing_start - 1]


def _add_drawn(skill: SkillFile, block: str) -> None:
    tree = drawn_tree(block)
    if tree is not None:
        skill.drawn.append(tree)


def _fence_language(line: str) -> str:
    """The info string's first word of a fence's opening line, lower-cased ("```bash title" -> "bash")."""
    info = line.strip().lstrip("`~").strip()
    if info.startswith("!"):
        return "!"
    return info.split(maxsplit=1)[0].strip("{}.").lower() if info else ""


def _scan_fenced_line(skill: SkillFile, number: int, line: str, shell: bool) -> None:
    """A line of a fenced block: the skill directory's own files named through ${CLAUDE_SKILL_DIR}
    (expanded in the whole body), and in a block the agent runs as shell, machine paths."""
    if "{" in line:
        _scan_skill_dir_paths(skill, number, line)
    if shell and ("/Users/" in line or "/home/" in line or ":\\Users\\" in line):
        _scan_machine_paths(skill, number, line, covered_by([]), kind="shell")


def _scan_skill_dir_paths(skill: SkillFile, number: int, line: str) -> list[tuple[int, int]]:
    taken: list[tuple[int, int]] = []
    for match in _SKILL_DIR_PATH.finditer(line):
        if len(skill.references) >= MAX_BODY_ITEMS:
            break
        target = match.group(1).rstrip(".")
        end = match.start(1) + len(target)
        taken.append((match.start(), end))
        if line[match.end(1) : match.end(1) + 1] in ("{", "*", "[", "?"):
            continue  # a pattern (`{baseDir}/references/vector-{a..i}-*.md`), not one file
        # `${CLAUDE_SKILL_DIR}` is Claude Code's (changelog 2.1.69: the skill's own directory); `{baseDir}`
        # is a convention no runtime substitutes, which authors also use for the plugin's directory
        # (`{baseDir}/scanner.sh` beside the plugin's skills/): read as a plain path, found there too
        kind = "skill-dir" if match.group(0).startswith("$") else "base-dir"
        # the span holds the path after the variable: a fix to the closest file keeps the variable
        skill.references.append(Reference(target, Span.of(number, match.start(1), number, end), False, kind))
    return taken


def is_home_path(target: str) -> bool:
    """Whether a machine path found in a body is in a person's home directory (SK204's warning)."""
    return _MACHINE_PATH.match(target) is not None


def _scan_machine_paths(skill: SkillFile, number: int, line: str, inside: Callable[[int], bool], kind: str = "bare") -> None:
    """The home-directory paths of a line: in prose ("bare"), or in a shell block the agent runs ("shell")."""
    if _COUNTER_EXAMPLE.search(line):
        return  # shown as what not to do
    for match in _MACHINE_PATH.finditer(line):
        if len(skill.machine_paths) >= MAX_BODY_ITEMS:
            break
        if inside(match.start()):
            continue
        user = match.group(1) or match.group(2)
        if user is not None and (user.lower() in _NOT_A_PERSON or user.isupper() or _PLACEHOLDER_USER.search(user)):
            continue  # a container's user, or "your name" written as <user>, {user}, $USER, %USERNAME%, USER
        if _example_before(line, match.start()):
            continue  # "e.g. C:\Users\alice\..." shows where something goes, on whatever machine
        path = match.group(0).rstrip(".,;:")
        skill.machine_paths.append(Reference(path, Span.of(number, match.start(), number, match.start() + len(path)), False,
                                             kind))


# Claude Code's positional placeholders: `$N` ($0 is the first argument) is replaced by the N-th
# argument of the invocation; a `$N` with no argument is kept as written (changelog 2.1.19: "$0, $1
# shorthand"; 2.1.210: unmatched placeholders preserved verbatim). A digit run ends the number, so
# "$2.5M" and "$1,000" hold `$2` and `$1`. Only `$0`-`$9` are looked for: a shell-split invocation in
# words ("/skill review the auth changes") easily has several arguments, ten or more rarely.
_POSITIONAL = re.compile(r"(?<![\\$\w{])\$(\d)(?![\w])")
# Money: a `$N` followed by decimals, thousands, a magnitude or a rate ("$0.50", "$2.5M", "$1,000",
# "$5/month", "$3k", "$10 per seat").
_CURRENCY = re.compile(r"[.,]\d|\s?(?:[kKmMbB]n?|million|billion|thousand|bn|USD)\b|/(?:mo|month|yr|year|hr|hour|day|user|seat)\b"
                       r"|\s(?:per|a|an|each)\s|\s?(?:USD|usd)\b")
# In shell, a `$N` the shell or a program fills: inside single quotes or braces (an awk program, a
# function body), or on a line that runs a program taking its own positional fields.
_SHELL_PROGRAM = re.compile(r"\b(?:awk|gawk|sed|perl|xargs|bash -c|sh -c|zsh -c|find .* -exec|function)\b|\(\)\s*\{|\$[@#*]|\bshift\b")


def scan_placeholders(skill: SkillFile) -> None:
    """The body's `$N` that Claude Code would replace where the author meant money or a shell's own
    positional parameter (see Placeholder)."""
    if "$" not in skill.text or _POSITIONAL.search(skill.text) is None:
        return
    lines = skill.lines
    in_fence: str | None = None
    shell_fence = False
    for number in range(skill.body_start, len(lines)):
        line = lines[number]
        if "`" in line or "~" in line:
            changed, in_fence = _fence_change(line, in_fence)
            if changed:
                # an unlabelled fence mostly holds commands too
                shell_fence = in_fence is not None and _fence_language(line) in (*_SHELL_FENCES, "")
                continue
        if "$" not in line:
            continue
        code = code_spans(line) if in_fence is None and "`" in line else []
        for match in _POSITIONAL.finditer(line):
            if len(skill.placeholders) >= MAX_BODY_ITEMS:
                return
            why = None
            if _CURRENCY.match(line, match.end()):
                why = "currency"
            elif in_fence is not None:
                why = "shell" if shell_fence and _shell_filled(line, match.start()) else None
            else:
                inline = _code_span_holding(code, match.start(), match.end())
                if inline is not None:
                    snippet = line[inline[0] : inline[1]]
                    ticks = len(snippet) - len(snippet.lstrip("`"))
                    why = "shell" if _shell_filled(snippet.strip("`"), match.start() - inline[0] - ticks) else None
            if why is not None:
                skill.placeholders.append(Placeholder(match.group(0), Span.of(number, match.start(), number, match.end()), why))


def _shell_filled(code: str, at: int) -> bool:
    """Whether the `$N` at offset at of a line of shell is one the shell or a program fills: inside
    single quotes or braces, or on a line running awk, sed, a function ..."""
    if _SHELL_PROGRAM.search(code):
        return True
    before = code[:at]
    return before.count("'") % 2 == 1 or before.count("{") > before.count("}")


# a heading line found in the whole text at once (MULTILINE: ^ and $ at "\n"; [^\S\n] is \s on one line)
_HEADING_LINE = re.compile(r"^[^\S\n]{0,3}(#{1,6})[^\S\n]+(.+)$", re.MULTILINE)


def scan_headings(skill: SkillFile) -> list[Heading]:
    text = skill.text
    if "\r" in text or "`" in text or "~" in text:
        return _scan_headings_by_line(skill)
    # no fence and no line break but "\n": one pattern over the body finds what the line by line
    # scan finds, without making the list of every line (a 7 MB body: 0.18 s -> a few ms)
    headings: list[Heading] = []
    offset = skill.body_offset
    number, counted = skill.body_start, offset
    for heading in _HEADING_LINE.finditer(text, offset):
        start = heading.start()
        number += text.count("\n", counted, start)
        counted = start
        headings.append(Heading(len(heading.group(1)), _heading_text(heading.group(2)),
                                Span.of(number, 0, number, heading.end() - start)))
        if len(headings) >= MAX_BODY_ITEMS:
            break
    return headings


def _scan_headings_by_line(skill: SkillFile) -> list[Heading]:
    headings: list[Heading] = []
    for number, line in unfenced_lines(skill):
        if "#" in line:
            heading = _HEADING.match(line)
            if heading:
                headings.append(
                    Heading(len(heading.group(1)), _heading_text(heading.group(2)), Span.of(number, 0, number, len(line)))
                )
                if len(headings) >= MAX_BODY_ITEMS:
                    break
    return headings


def _heading_text(raw: str) -> str:
    """A heading's text without trailing whitespace and closing hashes (at least one character)."""
    return raw.rstrip().rstrip("#").rstrip() or raw[0]


def _references_full(skill: SkillFile) -> bool:
    """Once either list is full the body's references are not scanned further."""
    return len(skill.references) >= MAX_BODY_ITEMS or len(skill.machine_paths) >= MAX_BODY_ITEMS


def code_spans(line: str) -> list[tuple[int, int]]:
    """The inline code spans of a line (backtick strings of equal length pair up, as CommonMark
    pairs them), each from its opening backticks to the end of its closing ones; linear in the line."""
    runs = [(match.start(), match.end()) for match in _BACKTICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)
    latest: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        size = runs[index][1] - runs[index][0]
        following[index] = latest.get(size)
        latest[size] = index
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        closing = following[index]
        if closing is None:
            index += 1
            continue
        spans.append((runs[index][0], runs[closing][1]))
        index = closing + 1
    return spans


def _code_span_holding(code: list[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    """The inline code span (of code_spans') that holds the text from start to end, or None."""
    return next(((open_, close) for open_, close in code if open_ <= start and end <= close), None)


def _scan_line_references(skill: SkillFile, number: int, line: str, example_list: bool = False,
                          table: frozenset[int] | None = None) -> None:
    """The links, bare paths and machine paths of a line outside code blocks; example_list: the line is an item
    of a list introduced as examples; table: the columns of the line's table headed as examples."""
    # each pattern runs only on a line holding what it cannot match without (a substring test costs
    # a fraction of a pattern's scan)
    code = code_spans(line) if "`" in line else []
    in_code = covered_by(code) if code else None
    taken: list[tuple[int, int]] = []
    if "{" in line:
        taken += _scan_skill_dir_paths(skill, number, line)
    template: bool | None = None  # whether the line is a template's to fill in, asked once per line
    for match in _LINK.finditer(line) if "](" in line else ():
        if _references_full(skill):
            return
        if in_code is not None and in_code(match.start()):
            continue  # link syntax shown in inline code: an example, not a link
        target = match.group(1)
        start = match.start(1)
        if target.startswith("<") and target.endswith(">"):
            target, start = target[1:-1], start + 1
        taken.append((match.start(), match.end()))
        if template is None:
            template = TEMPLATE_LINE.search(line) is not None
        _add_reference(skill, number, target, start, is_link=True,
                       example=template or bool(table and column_at(line, start) in table))
    definition = _REF_DEF.match(line) if "]:" in line else None
    if definition:
        target = definition.group(1)
        start = definition.start(1)
        if target.startswith("<") and target.endswith(">"):
            target, start = target[1:-1], start + 1
        taken.append((definition.start(), definition.end()))
        _add_reference(skill, number, target, start, is_link=True)
    rest = _outside(line, taken)
    bare = "scripts/" in rest or "reference" in rest or "assets/" in rest or "templates/" in rest
    machine = "/Users/" in rest or "/home/" in rest or ":\\Users\\" in rest
    if not (bare or machine):
        return
    inside = covered_by(taken)
    for match in _BARE.finditer(line) if bare else ():
        if len(skill.references) >= MAX_BODY_ITEMS:
            break
        if inside(match.start()):
            continue
        target = match.group(1).rstrip(".")
        if line[match.end(1) : match.end(1) + 1] in _PATTERN_NEXT:
            continue  # cut at a pattern's or a template's character (`references/api_{version}.md`, `scripts/*.py`)
        span = Span.of(number, match.start(1), number, match.start(1) + len(target))
        kind = _bare_kind(line, match.start(1), match.start(1) + len(target), code,
                          example_list or bool(table and column_at(line, match.start(1)) in table))
        if kind == "loose" and _MAKES.search(line, max(0, match.start(1) - 40), match.start(1)):
            skill.made.add(target)  # a file the skill has the agent make: no mention of it is a missing file
        skill.references.append(Reference(target, span, False, kind))
    if machine:
        _scan_machine_paths(skill, number, line, inside)


# characters after a path that make it part of a pattern or a template, not a file's name
_PATTERN_NEXT = frozenset("{}*$%")
# a file name that stands for any file ("python scripts/script_name.py --help", "references/your_file.md",
# "[c4-component-name.md](./c4-component-name.md)")
_PLACEHOLDER_FILE = re.compile(r"(?:^|/)(?:your[_-][\w-]*|[\w-]*[_-]name|name|filename|foo|bar|xxx+)\.\w+$")


# The example words of the last line asked about, found once per line: a line of 2 MB holding thousands of paths
# would otherwise be searched again for each (quadratic: 220 s for a line of 5,000 paths).
_MARKS: tuple[str, int, int] = ("", -1, -1)


def _marks(line: str) -> tuple[int, int]:
    """(where the first example word before a path can end, where the last example word after one starts)."""
    global _MARKS
    marks = _MARKS  # one read: another thread may be parsing another file
    if marks[0] is not line:
        first = _EXAMPLE_BEFORE.search(line)
        last = -1
        for found in _EXAMPLE_AFTER.finditer(line):
            last = found.start()
        marks = _MARKS = (line, first.end() if first is not None else -1, last)
    return marks[1], marks[2]


def _example_before(line: str, start: int) -> bool:
    """An example word ends before start ("e.g. /Users/alice/...", "**Example**: `scripts/x.py`")."""
    first = _marks(line)[0]
    return 0 <= first <= start


def _example_after(line: str, end: int) -> bool:
    """An example word follows end ("`scripts/x.py` would be helpful")."""
    return _marks(line)[1] >= end


def _bare_kind(line: str, start: int, end: int, code: list[tuple[int, int]], example_list: bool) -> str:
    """"bare" for a path written as a file of the skill, "loose" for one that reads as prose or an
    example ("links to assets/code", "**Example**: `scripts/rotate_pdf.py`"): shown as a document
    link when it exists, never reported missing."""
    if example_list or _PLACEHOLDER_FILE.search(line, start, end):
        return "loose"
    if line.lstrip().startswith("|") and "." not in line[start:end].rsplit("/", 1)[-1]:
        return "loose"  # a table's cell of folders or name prefixes (`scripts/gen_`), not one file
    span = _code_span_holding(code, start, end)
    if span is None:
        if "." not in line[start:end].rsplit("/", 1)[-1]:
            return "loose"  # "references/examples/scripts", "assets/code": folder names as words
    elif "](" in line[span[0] : span[1]]:
        return "loose"  # `[text](references/filename.md)`: link syntax shown as an example
    if (_example_before(line, start) or _example_after(line, end) or _OTHER_SKILL.match(line, end)
            or _BEFORE_PATH.search(line, max(0, start - 40), start)):
        return "loose"
    return "bare"


def _outside(line: str, taken: list[tuple[int, int]]) -> str:
    """The line without the links taken from it, for the words a bare or a machine path starts with
    ('scripts/', '/home/'...): such a word holds no whitespace, '[', '!' or ')', so it lies wholly
    inside a link (which starts with '[' or '!' and ends with ')' or before whitespace) or wholly
    outside, and a path found inside a link is not a bare one."""
    if not taken:
        return line
    pieces: list[str] = []
    last = 0
    for start, end in sorted(taken):
        pieces.append(line[last:start])
        last = max(last, end)
    pieces.append(line[last:])
    return " ".join(pieces)


def _add_reference(skill: SkillFile, number: int, target: str, start: int, is_link: bool, example: bool = False) -> None:
    if not target:
        return
    if target.startswith("file:"):
        if _MACHINE_PATH.match(target) and len(skill.machine_paths) < MAX_BODY_ITEMS:
            skill.machine_paths.append(Reference(target, Span.of(number, start, number, start + len(target)), is_link))
        return  # a file:// URI into a home directory is the author's machine; others (/etc, /tmp) are not
    if target.startswith("~"):
        return  # the home directory of whoever runs the agent: the same path on every machine
    if target.startswith("/") and not _MACHINE_PATH.match(target) and "." not in target.rstrip("/").rsplit("/", 1)[-1]:
        return  # a site's page (`/en/hooks`, copied from a documentation site): a URL path, no file
    if target.startswith("/") or _DRIVE.match(target):
        if len(skill.machine_paths) < MAX_BODY_ITEMS:
            skill.machine_paths.append(Reference(target, Span.of(number, start, number, start + len(target)), is_link))
        return
    if target.startswith(("#", "//")) or _SCHEME.match(target):
        return
    if _PLACEHOLDER.search(target):
        return  # a template or a placeholder, not a file
    kind = "loose" if example or _PLACEHOLDER_FILE.search(target) else "link" if is_link else "bare"
    last = target.rstrip("/").rsplit("/", 1)[-1]
    if is_link and "." not in last and not target.endswith("/") and target.split("/", 1)[0] not in SKILL_FOLDERS:
        kind = "loose"  # [Runbook](internal-wiki/deployment-runbook): a page of a wiki or a site, not a file
    if len(skill.references) < MAX_BODY_ITEMS:
        skill.references.append(Reference(target, Span.of(number, start, number, start + len(target)), is_link, kind))
