"""Applying the findings' fixes from the command line: `check --fix`, `--diff` and `--unsafe-fixes`.

Which fix a finding gets is decided here, as ruff decides it: a finding with one preferred fix (or
a single fix) has an unambiguous fix; it is *safe* when it is preferred and only edits text in the
files checked (a key typo, missing frontmatter, a value to quote, the name set to the directory, a
duplicate entry removed). Creating files and renaming files or directories change the project's
layout, and replacing a name or a link with the closest existing one is a guess (GUESSES): those,
and a fix that is not preferred, are *unsafe* and applied only with --unsafe-fixes. A finding with several
candidate fixes and none preferred (two close names) is never fixed from the command line, and neither
is a fix that leaves the author something to write (Fix.focus: a new skill's description, which the
editor puts the cursor on): a fix applied here never leaves a placeholder.

Files are rewritten atomically (a temporary file beside them, then os.replace), only when they are
regular UTF-8 files inside a checked folder once symlinks are resolved, and only when their bytes
still decode to the text the spans were computed on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .model import Finding, Fix, TextEdit
from .textutil import MAX_FILE_BYTES, read_text


def chosen_fix(finding: Finding) -> Fix | None:
    """The fix the command line may apply for a finding: the one preferred, else the only one."""
    preferred = [fix for fix in finding.fixes if fix.preferred]
    if len(preferred) == 1:
        return preferred[0]
    if not preferred and len(finding.fixes) == 1:
        return finding.fixes[0]
    return None


# Rules whose fix puts the closest existing thing in place of what was written: another skill for an
# unknown name (AD101, CL103: "check-availabilty" -> "check-availability", but also "refund" -> the one
# refund skill when the user meant one not written yet), another file for a broken link (SK202:
# "waitlist.md" -> "fleet.md"). Right most of the time, and a silent change of meaning when not: unsafe,
# however preferred the editor's quick fix is.
GUESSES = frozenset({"AD101", "CL103", "SK202"})
# Rules whose fix writes the author's words taken from elsewhere: SK101's frontmatter has the body's first
# paragraph as its description (what Claude Code lists the skill with; to AgentDeck and the specification's
# clients, the words the model chooses the skill by). The editor prefers it; the command line applies it
# with --unsafe-fixes, as SK106's.
CHOSEN_WORDS = frozenset({"SK101"})


def is_safe(finding: Finding, fix: Fix) -> bool:
    return (fix.preferred and bool(fix.edits) and not fix.creates and not fix.renames
            and finding.code not in GUESSES and finding.code not in CHOSEN_WORDS)


def applicable(finding: Finding, unsafe: bool) -> Fix | None:
    """The fix `check --fix` (unsafe: with --unsafe-fixes) applies for finding; None when it applies none."""
    fix = chosen_fix(finding)
    if fix is None or fix.focus is not None or not (unsafe or is_safe(finding, fix)):
        return None  # (a fix with a focus leaves the author something to write: the editor's alone)
    return fix


@dataclass
class Plan:
    """What one pass of fixes does: new texts by file, files to create, paths to rename."""

    texts: dict[Path, tuple[str, str]] = field(default_factory=dict)  # path -> (old text, new text)
    creates: dict[Path, str] = field(default_factory=dict)
    renames: list[tuple[Path, Path]] = field(default_factory=list)
    applied: list[Finding] = field(default_factory=list)
    # the findings each path's change fixes (the text edits', the new file's, the renamed path's)
    fixing: dict[Path, list[Finding]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # why a fix was left out, for stderr

    def __bool__(self) -> bool:
        return bool(self.texts or self.creates or self.renames)


def _inside(path: Path, folders: list[Path]) -> bool:
    """path, with every symlink on the way resolved, is inside one of the (resolved) folders."""
    real = Path(os.path.realpath(path))
    return any(real == folder or real.is_relative_to(folder) for folder in folders)


def _offsets(text: str) -> list[int]:
    """The offset of each line's first character, lines split the LSP way (\\r\\n, \\r, \\n)."""
    starts = [0]
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == "\n" or char == "\r":
            if char == "\r" and index + 1 < length and text[index + 1] == "\n":
                index += 1
            starts.append(index + 1)
        index += 1
    return starts


def _apply_edits(text: str, edits: list[TextEdit]) -> str | None:
    """text with the edits made (spans in lines and code points); None when one falls outside it."""
    starts = _offsets(text)
    placed: list[tuple[int, int, str]] = []
    for edit in edits:
        span = edit.span
        if span.start.line >= len(starts) or span.end.line >= len(starts):
            return None
        start = starts[span.start.line] + span.start.column
        end = starts[span.end.line] + span.end.column
        if end < start or end > len(text):
            return None
        placed.append((start, end, edit.new_text))
    placed.sort(key=lambda item: (item[0], item[1]))
    out = []
    cursor = 0
    for start, end, new_text in placed:
        out.append(text[cursor:start])
        out.append(new_text)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _overlaps(a: list[TextEdit], b: list[TextEdit]) -> bool:
    for first in a:
        for second in b:
            if first.path != second.path:
                continue
            # two insertions at one point conflict too: their order would be arbitrary
            if first.span.start <= second.span.end and second.span.start <= first.span.end:
                return True
    return False


def _current_text(path: Path) -> str | None:
    """The file's text when writing it back as UTF-8 gives its bytes again (no BOM, no invalid bytes)."""
    try:
        text = read_text(path)
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError):
        return None
    try:
        return text if text.encode("utf-8", "surrogatepass") == data else None
    except UnicodeEncodeError:
        return None


def refusal(finding: Finding, fix: Fix, roots: list[Path], only: set[Path] | None) -> str | None:
    """Why --fix never applies fix, whatever else it applies ("" when that goes without saying); None
    when it may. roots: the checked folders, symlinks resolved; only: the files named, if any."""
    paths = [edit.path for edit in fix.edits] + [create.path for create in fix.creates]
    paths += [path for rename in fix.renames for path in (rename.old, rename.new)]
    if not all(_inside(path, roots) for path in paths):
        return f"{finding.code} at {finding.path}: the fix would write outside the checked folders"
    if only is not None and not all(edit.path in only for edit in fix.edits):
        return ""  # files named on the command line: the fixes edit those files only
    if any(os.path.islink(edit.path) for edit in fix.edits):
        return f"{finding.code} at {finding.path}: {finding.path.name} is a symlink; not rewritten"
    if any(create.path.exists() for create in fix.creates):
        return ""
    if any(rename.new.exists() or not rename.old.exists() for rename in fix.renames):
        return ""
    return None


def fixable(findings: Iterable[Finding], folders: list[Path], unsafe: bool, only: set[Path] | None = None) -> list[Finding]:
    """The findings --fix (unsafe: with --unsafe-fixes) fixes: each has a fix it applies, in this pass
    or, where two fixes overlap, in a later one."""
    roots = [Path(os.path.realpath(folder)) for folder in folders]
    return [finding for finding in findings
            if (fix := applicable(finding, unsafe)) is not None and refusal(finding, fix, roots, only) is None]


def plan_fixes(findings: Iterable[Finding], folders: list[Path], unsafe: bool, only: set[Path] | None = None) -> Plan:
    """One pass: the fixes of findings that may be applied together (the first of two that overlap
    wins; the next pass, on the fixed text, takes up the other)."""
    roots = [Path(os.path.realpath(folder)) for folder in folders]
    plan = Plan()
    edits_by_file: dict[Path, list[TextEdit]] = {}
    taken_paths: set[Path] = set()
    for finding in findings:
        fix = applicable(finding, unsafe)
        if fix is None:
            continue
        reason = refusal(finding, fix, roots, only)
        if reason is not None:
            if reason:
                plan.skipped.append(reason)
            continue
        new_edits = list(fix.edits)
        if any(_overlaps(edits_by_file.get(edit.path, []), new_edits) for edit in new_edits):
            continue
        layout = {create.path for create in fix.creates} | {p for r in fix.renames for p in (r.old, r.new)}
        if layout & taken_paths or any(edit.path in taken_paths for edit in new_edits):
            continue  # a path another fix creates or moves in this pass
        if any(create.path in plan.creates for create in fix.creates):
            continue
        for edit in new_edits:
            edits_by_file.setdefault(edit.path, []).append(edit)
            plan.fixing.setdefault(edit.path, []).append(finding)
        for path in [create.path for create in fix.creates] + [rename.old for rename in fix.renames]:
            plan.fixing.setdefault(path, []).append(finding)
        for create in fix.creates:
            plan.creates[create.path] = create.content
        plan.renames += [(rename.old, rename.new) for rename in fix.renames]
        # later edits must not land in a file that moves
        taken_paths |= {path for rename in fix.renames for path in (rename.old, rename.new)}
        taken_paths |= set(plan.creates)
        plan.applied.append(finding)
    for path, edits in edits_by_file.items():
        old = _current_text(path)
        new = _apply_edits(old, edits) if old is not None else None
        if old is None or new is None:
            plan.skipped.append(f"{path}: not plain UTF-8, or its text no longer fits the fix; not rewritten")
            plan.applied = [finding for finding in plan.applied if finding not in plan.fixing[path]]
            continue
        if new != old:
            plan.texts[path] = (old, new)
    return plan


def write_atomically(path: Path, text: str) -> None:
    """Replace path's content: a temporary file in the same directory, then os.replace (one rename)."""
    import tempfile  # only when writing: its imports cost every other run's start-up

    directory = path.parent
    mode = None
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        pass
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".skill-lsp", dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def apply_plan(plan: Plan) -> tuple[list[Finding], list[str]]:
    """Make the plan's changes: the findings fixed, and the problems met (each leaves its file as it was)."""
    problems = []
    failed: set[Path] = set()
    for path, (_, new) in plan.texts.items():
        try:
            write_atomically(path, new)
        except OSError as error:
            problems.append(f"{path}: {error.strerror or error}")
            failed.add(path)
    for created, content in plan.creates.items():
        try:
            created.parent.mkdir(parents=True, exist_ok=True)
            # exclusive: a file that appeared meanwhile is never overwritten
            with open(created, "x", encoding="utf-8", newline="") as handle:
                handle.write(content)
        except OSError as error:
            problems.append(f"{created}: {error.strerror or error}")
            failed.add(created)
    for source, target in plan.renames:
        try:
            if target.exists():
                raise FileExistsError(17, "the target exists")
            os.rename(source, target)
        except OSError as error:
            problems.append(f"{source}: {error.strerror or error}")
            failed.add(source)
    unfixed = [finding for path in failed for finding in plan.fixing.get(path, [])]
    return [finding for finding in plan.applied if finding not in unfixed], problems


def unified_diff(old: str, new: str, before: str, after: str) -> list[str]:
    """old -> new as a unified diff's lines, before and after the names of its two sides."""
    import difflib

    lines = []
    for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), before, after):
        # as diff(1) and git mark it, so that patch(1) can apply the output
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return lines
