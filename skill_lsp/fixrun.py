"""Running the fixes from the command line: `check --fix`'s passes, `--diff`'s preview of them, and the counts.

--fix applies a pass of fixes (skill_lsp.fixing.plan_fixes), checks again, and repeats while fixes remain
(a fix can make room for another: two on one line, a name fixed that an agent's entry then matches).
--diff shows every change those passes make, created files and renames included, by running them on a
scratch copy of the checked folders (hard links where the file system allows: a file is only ever
replaced, never written in place, so the originals are never touched) and comparing it with the
originals. The "N fixable" count is the number of findings --fix fixes (fixing.fixable: a fix it
applies, in the first pass or a later one); "Fixed N" and "Would fix N" count the same findings, those
fixable before the passes less those still fixable after them.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .discovery import SKIP_DIRS
from .fixing import applicable, apply_plan, fixable, plan_fixes, unified_diff
from .model import Finding
from .output import Progress, display_path
from .pathtext import within

Workspaces = list[tuple[Path, set[Path] | None]]


@dataclass
class Checked:
    """The findings of one run over the workspaces, and what the report says besides."""

    by_workspace: list[tuple[Path, set[Path] | None, list[Finding]]]
    unreadable: list[str]
    skills: int
    agents: int

    @property
    def findings(self) -> list[Finding]:
        found = [finding for _, _, items in self.by_workspace for finding in items]
        found.sort(key=Finding.sort_key)
        return found

    def fixable(self, unsafe: bool) -> int:
        """How many findings --fix (unsafe: with --unsafe-fixes) fixes."""
        return sum(len(fixable(items, [folder], unsafe, only)) for folder, only, items in self.by_workspace)


# Fixes can make room for more fixes (a second key typo on a line fixed before): passes are repeated
# on the new text, as ruff does, up to this many.
FIX_PASSES = 10


@dataclass
class Changes:
    """What the passes did, in the order they did it: the files written or created, the paths renamed."""

    written: set[Path] = field(default_factory=set)  # where each is now (moved along by later renames)
    renames: list[tuple[Path, Path]] = field(default_factory=list)

    def moved(self, old: Path, new: Path) -> None:
        self.renames.append((old, new))
        self.written = {new / path.relative_to(old) if within(path, old) else path for path in self.written}

    def origin(self, path: Path) -> Path:
        """Where a path of the changed tree was before every rename."""
        for old, new in reversed(self.renames):
            if within(path, new):
                path = old / path.relative_to(new)
        return path


def run_passes(checked: Checked, workspaces: Workspaces, unsafe: bool, recheck: Callable[[Workspaces], Checked],
               progress: Progress, changes: Changes | None = None) -> tuple[int, Checked]:
    """--fix: apply the fixes, check again, and repeat while fixes remain; the number fixed and the last check."""
    before = checked.fixable(unsafe)
    for _ in range(FIX_PASSES):
        progress.phase("fixing")
        changed = False
        failed = False
        for folder, only, findings in checked.by_workspace:
            plan = plan_fixes(sorted(findings, key=Finding.sort_key), [folder], unsafe, only)
            for reason in plan.skipped:
                print(f"skill-lsp: {reason}", file=sys.stderr)
            if not plan:
                continue
            _, problems = apply_plan(plan)
            for problem in problems:
                print(f"skill-lsp: cannot fix {problem}", file=sys.stderr)
            if changes is not None:
                changes.written |= set(plan.texts) | set(plan.creates)
                for old, new in plan.renames:
                    changes.moved(old, new)
            # a file that cannot be written fails the same way on every pass: this pass is the last
            failed = failed or bool(problems)
            changed = True
        if not changed:
            break
        checked = recheck(workspaces)
        if failed:
            break
    return max(0, before - checked.fixable(unsafe)), checked


def show_diff(workspaces: Workspaces, unsafe: bool, cwd: Path,
              rechecking: Callable[[dict[Path, Path]], Callable[[Workspaces], Checked]], progress: Progress) -> int:
    """--diff: every change --fix would make, as a unified diff on stdout, nothing written; exit 1 when
    there is one (as ruff). The passes run on a scratch copy of the folders, checked by
    rechecking(original folder -> its copy)."""
    import tempfile  # (--diff's only: a check without it need not pay its import)

    with tempfile.TemporaryDirectory(prefix="skill-lsp-diff-") as scratch:
        progress.phase("copying the folders to try the fixes on")
        copies: dict[Path, Path] = {}
        for number, (folder, _) in enumerate(workspaces):
            copies[folder] = Path(os.path.realpath(scratch)) / str(number)
            _copy_tree(folder, copies[folder])
        tried = [(copies[folder], None if only is None else {copies[folder] / path.relative_to(folder) for path in only
                                                              if within(path, folder)})
                 for folder, only in workspaces]
        changes = Changes()
        recheck = rechecking(copies)
        count, _ = run_passes(recheck(tried), tried, unsafe, recheck, progress, changes)
        text = _changes_diff(changes, {copy: folder for folder, copy in copies.items()}, cwd)
        # said before the copy is removed (a directory at a time: seconds for thousands of skills)
        progress.stop()
        if text:
            sys.stdout.write(text)
        print(f"Would fix {count} issue{'s' if count != 1 else ''}." if count else "No fixes available.", file=sys.stderr)
        sys.stdout.flush()
    return 1 if text else 0


def _changes_diff(changes: Changes, originals: dict[Path, Path], cwd: Path) -> str:
    """The changes made in the copies as a diff of the original folders (git's a/ b/ prefixes)."""
    def original(path: Path) -> Path:
        for copy, folder in originals.items():
            if within(path, copy):
                return folder / path.relative_to(copy) if path != copy else folder
        return path

    def name(path: Path) -> str:
        return display_path(original(path), cwd)

    parts: list[str] = []
    created: list[Path] = []
    for path in sorted(changes.written):
        if not path.is_file():
            continue
        after = _read(path)
        source = original(changes.origin(path))
        if not source.is_file():
            created.append(path)
            continue
        parts += unified_diff(_read(source), after, f"a/{display_path(source, cwd)}", f"b/{name(path)}")
    for path in created:
        parts += unified_diff("", _read(path), "/dev/null", f"b/{name(path)}")
    for old, new in changes.renames:
        parts += [f"rename from {name(old)}\n", f"rename to {name(new)}\n"]
    return "".join(parts)


def _read(path: Path) -> str:
    """A file's text with its line endings as they are (what the fixes kept)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def _copy_tree(source: Path, target: Path) -> None:
    """source's tree at target, as a walk sees it: hard links to its files (copies where links cannot be
    made), its symlinks as symlinks (one into source leads into the copy), never what a walk skips."""
    target.mkdir(parents=True)
    for directory, subdirectories, files in os.walk(source):
        here = target / os.path.relpath(directory, source)
        for name in list(subdirectories):
            path = os.path.join(directory, name)
            if name in SKIP_DIRS or os.path.islink(path):
                subdirectories.remove(name)
                if name not in SKIP_DIRS:
                    _copy_link(path, here / name, source, target)
                continue
            (here / name).mkdir()
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                _copy_link(path, here / name, source, target)
                continue
            try:
                os.link(path, here / name)
            except OSError:
                try:
                    shutil.copy2(path, here / name)
                except OSError:
                    continue  # unreadable: the check of the copy says so, as the check of the original does


def _copy_link(path: str, copy: Path, source: Path, target: Path) -> None:
    destination = os.readlink(path)
    if os.path.isabs(destination) and within(destination, source):
        destination = str(target / os.path.relpath(destination, source))
    os.symlink(destination, copy)


def fix_note(checked: Checked, fixed: int, fixing: bool, unsafe: bool) -> str:
    """The line after the summary: what was fixed, and what --fix (or --unsafe-fixes) would fix."""
    safe = checked.fixable(False)
    more = checked.fixable(True) - safe
    parts = []
    if fixed:
        parts.append(f"Fixed {fixed} issue{'s' if fixed != 1 else ''}.")
    if safe and not fixing:
        parts.append(f"{safe} fixable with `skill-lsp check --fix`.")
    if more and not unsafe:
        parts.append(f"{more} more fixable with --unsafe-fixes (they create or rename files, or choose a change).")
    return " ".join(parts)


def applicability(checked: Checked) -> dict[int, str]:
    """id(finding) -> "safe" or "unsafe": how --fix fixes it (JSON's "fix"); absent when it does not."""
    result: dict[int, str] = {}
    for folder, only, items in checked.by_workspace:
        unsafe = {id(finding) for finding in fixable(items, [folder], True, only)}
        for finding in items:
            if id(finding) in unsafe:
                result[id(finding)] = "safe" if applicable(finding, False) is not None else "unsafe"
    return result
