"""Walking a workspace: the SKILL.md, agent-defining (Python, TypeScript/JavaScript, subagent) and configuration files it holds, shared with a process pool when the tree is large, or the part of it nearest the open files."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from . import forks
from .config import CONFIG_FILES
from .exclusion import excluded, keeping
from .pathtext import is_skill_filename, path_of, path_order, within
from .pool import Deal, Piece, Pool
from .textutil import unreadable_reason

# Never descended into: version control, dependencies, caches.
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".tox", ".nox", ".venv", "venv", ".eggs", "site-packages", ".direnv", ".cache",
})
SKILL_FILENAMES = ("SKILL.md",)
# Files that can define agents besides Python (skill_lsp.codefiles parses them): TypeScript/JavaScript
# (tssource.SCRIPT_SUFFIXES; declaration files declare types only) and subagent Markdown files.
_SCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")


def _is_agents_dir(directory: str) -> bool:
    """Claude Code's subagents directory: `.claude/agents`, or a plugin's `agents/` beside `.claude-plugin/`."""
    head, name = os.path.split(directory)
    if name != "agents":
        return False
    return os.path.basename(head) == ".claude" or os.path.isdir(os.path.join(head, ".claude-plugin"))


@dataclass
class Listing:
    skill_files: list[Path] = field(default_factory=list)
    # the files that can define agents: Python, TypeScript/JavaScript, subagent Markdown
    python_files: list[Path] = field(default_factory=list)
    pyprojects: list[Path] = field(default_factory=list)
    # directories that exist (as strings), for resolving roots without touching the disk again
    directories: set[str] = field(default_factory=set)
    # directories that could not be listed, and why (the CLI prints them)
    unreadable: dict[Path, str] = field(default_factory=dict)
    # symlinked directories inside the folder -> the directory they lead to, as a path in the folder
    # (`.agents/skills` -> `skills`); the files above are listed once, on that real path
    aliases: dict[Path, Path] = field(default_factory=dict)


# A walk shares its tree with a process pool from the first directory with this many subdirectories
# (a skills root worth a second process) on: the subdirectories of every directory with at least
# SHARE_FROM of them are cut into pieces of SHARE, walked by the pool's workers (given from the
# front) and by this process (from the back, once it has walked the rest), so that whichever is
# busy (check imports its analysers meanwhile, ~40 ms) or slowed by the machine walks fewer, and
# neither waits for the other at the end.
FORK_FROM = 256
SHARE_FROM = 16
SHARE = 64
T = TypeVar("T")
# Seconds this process waits for a worker's piece before it looks at its deadline again.
LOOK_EVERY = 0.02


def _cut(subdirectories: list[T], processes: int) -> list[list[T]]:
    """A wide directory's subdirectories in pieces, largest first: each a share of what is left
    (guided scheduling), down to SHARE. Each piece a worker is given costs it a round trip through
    this process's pool threads, which wait for the interpreter lock while this one works (imports
    the analysers: up to the switch interval, 5 ms, each way); pieces of SHARE from the first kept
    the workers idle most of the time. The small last ones (this process's, from the back) keep
    either side from waiting for the other at the end."""
    pieces: list[list[T]] = []
    start = 0
    while start < len(subdirectories):
        size = max(SHARE, (len(subdirectories) - start) // (2 * processes))
        pieces.append(subdirectories[start : start + size])
        start += size
    return pieces


class WalkStopped(Exception):
    """A walk given a deadline (walk) that was still under way then."""


def walk(folder: Path, exclude: tuple[str, ...] = (), helpers: int = 0,
         meanwhile: Callable[[], object] | None = None, keep: tuple[str, ...] = (),
         deadline: float | None = None, limit: int | None = None, meanwhile_grace: float = 0.0) -> Listing:
    """Every file of interest under folder; symlinks out of folder are never followed.

    With helpers, a process pool of that many workers shares a large tree's walk with this one (see
    FORK_FROM). A shared walk that entered a directory through a symlink is done again alone: which
    of two ways into one directory is kept depends on the walk's order. `meanwhile` is called once
    this process has walked all but the pieces it shares (the workers walk those meanwhile), before
    it takes its own; a walk that does not share never calls it. `keep` (kept_from_exclusion's) are excluded paths walked all
    the same. A walk still under way at deadline (time.monotonic()), or that has found limit files,
    raises WalkStopped; the time meanwhile took moves this process's deadline, by meanwhile_grace
    seconds at most (the workers' pieces keep the deadline they were given).
    """
    exclude = keeping(exclude, keep)
    walker = _Walker(folder, exclude, helpers, meanwhile, deadline=deadline, limit=limit)
    walker.meanwhile_grace = meanwhile_grace
    try:
        walker.run()
    finally:
        walker.stop()
    if walker.left or walker.found.stopped:
        raise WalkStopped(folder)
    shared = walker.deal is not None
    if shared and walker.found.linked:
        walker = _Walker(folder, exclude, 0, deadline=deadline, limit=limit)
        walker.run()
        if walker.left:
            raise WalkStopped(folder)
    root = str(folder)
    return walker.found.listing(unique=shared, made=walker.made, folder=root, real_root=os.path.realpath(root))


# What the workers of a walk's pool walk under (its folder and exclusions): set while they are forked.
_shared_walk: tuple[Path, tuple[str, ...], int | None] | None = None


def _walk_piece(piece: list[tuple[str, str, bool]], deadline: float | None) -> _Found:
    """(In a pool's worker) what a piece of a shared walk holds."""
    assert _shared_walk is not None
    folder, exclude, limit = _shared_walk
    walker = _Walker(folder, exclude, 0, limit=limit, deadline=deadline)
    walker.walk(list(piece))
    return walker.found


class _Found:
    """What a walk found, as strings (Path objects only for what is returned: this runs over every
    directory of the workspace on each cold start)."""

    def __init__(self) -> None:
        self.skill_files: list[str] = []
        self.python_files: list[str] = []
        self.pyprojects: list[str] = []
        self.directories: list[str] = []
        self.unreadable: dict[str, str] = {}
        self.linked = False  # a directory was entered through a symlink
        self.stopped = False  # the walk stopped at its limit or deadline (a helper's part says so)
        # each symlink to a directory in the workspace -> its real path (seen even when the directory
        # it leads to is walked by its own name instead)
        self.aliases: dict[str, str] = {}

    def merge(self, other: _Found) -> None:
        self.skill_files += other.skill_files
        self.python_files += other.python_files
        self.pyprojects += other.pyprojects
        self.directories += other.directories
        self.unreadable.update(other.unreadable)
        self.linked = self.linked or other.linked
        self.stopped = self.stopped or other.stopped
        self.aliases.update(other.aliases)

    def listing(self, unique: bool, made: dict[str, Path] | None = None, folder: str = "", real_root: str = "") -> Listing:
        """The listing, each file's Path taken from made where it was made already; a file reached
        through a symlinked directory is listed on its real path (as a path in the folder), once."""
        known = made or {}
        aliases: dict[str, str] = {}
        for alias, target in self.aliases.items():
            aliases[alias] = folder + target[len(real_root):] if target != real_root else folder
        real = _real_path(aliases) if aliases else None

        def ordered(paths: list[str]) -> list[Path]:
            if real is not None:
                paths = [real(path) for path in paths]
            unique_paths = set(paths) if unique or real is not None else paths
            return [known.get(path) or path_of(path) for path in sorted(unique_paths, key=path_order)]

        return Listing(ordered(self.skill_files), ordered(self.python_files), ordered(self.pyprojects),
                       set(self.directories), {Path(path): reason for path, reason in self.unreadable.items()},
                       {Path(alias): Path(target) for alias, target in aliases.items()})


def _real_path(aliases: dict[str, str]) -> Callable[[str], str]:
    """A path's text with its longest symlinked-directory prefix replaced by where the link leads
    (repeatedly: a link's target may itself be reached through another link's path)."""
    prefixes = sorted(aliases, key=len, reverse=True)

    def real(path: str) -> str:
        for _ in range(len(prefixes) + 1):
            for alias in prefixes:
                if path.startswith(alias) and path[len(alias) : len(alias) + 1] == os.sep:
                    path = aliases[alias] + path[len(alias) :]
                    break
            else:
                return path
        return path

    return real


@dataclass
class Bounded:
    """A walk stopped at its limit of files (walk_nearest)."""

    limit: int
    files: int  # found, the limit reached
    directories_left: int  # seen and never listed


# the skills roots a directory may hold by their place alone (index._conventional_root)
CONVENTIONAL_ROOTS = (".agentdeck", ".claude", ".agents", ".github")


def walk_nearest(folder: Path, exclude: tuple[str, ...], limit: int, near: list[Path],
                 deadline: float | None = None, roots_first: bool = False,
                 abandoned: Callable[[], bool] | None = None) -> tuple[Listing, Bounded | None]:
    """The files of interest under folder, about limit of them (the directory that reaches the limit
    is listed whole): first the directories of the paths near (the open files) and what is below
    them, then each of their parents' in turn, the folder last. Bounded says where it stopped, None
    when the whole folder was walked; a walk still under way at deadline (time.monotonic()) stops
    there too, as if at the limit (the server's head start does not wait for a huge tree).
    roots_first: the conventional skills roots of each of those directories (`.claude/skills`...)
    are walked before it, as the nearest (a walk cut short by its deadline has the skills the open
    files name, whatever else their directories hold). abandoned, asked at each directory: whether the
    walk is no longer wanted (it then stops there too, and its caller throws it away)."""
    root = str(folder)
    anchors: list[str] = []
    for path in near:
        directory = str(path.parent)
        while directory != root and within(directory, root):
            if directory not in anchors:
                anchors.append(directory)
            directory = os.path.dirname(directory)
    if roots_first:
        anchors += [skills for directory in [*anchors, root] for parent in CONVENTIONAL_ROOTS
                    if os.path.isdir(skills := os.path.join(directory, parent, "skills"))
                    and not (exclude and excluded(Path(skills), folder, exclude))]
    anchors.sort(key=lambda directory: -directory.count(os.sep))  # the deepest, nearest, first
    anchors.append(root)
    found = _Found()
    walked: set[str] = set()
    for anchor in anchors:
        if not os.path.isdir(anchor):
            continue
        walker = _Walker(folder, exclude, 0, start=anchor, skip=frozenset(walked), limit=limit - _count(found),
                         deadline=deadline, abandoned=abandoned)
        walker.run()
        found.merge(walker.found)
        walked.add(anchor)
        if walker.left:
            return found.listing(unique=True), Bounded(limit, _count(found), walker.left)
    return found.listing(unique=True), None


def _count(found: _Found) -> int:
    return len(found.skill_files) + len(found.python_files) + len(found.pyprojects)


class _Walker:
    def __init__(self, folder: Path, exclude: tuple[str, ...], helpers: int,
                 meanwhile: Callable[[], object] | None = None, *, start: str | None = None,
                 skip: frozenset[str] = frozenset(), limit: int | None = None, deadline: float | None = None,
                 abandoned: Callable[[], bool] | None = None) -> None:
        self.folder = folder
        self.root = str(folder)
        self.real_root = os.path.realpath(self.root)
        # a bounded walk (walk_nearest, never shared): where it starts below folder, the directories
        # walked already, the files it may add, and the directories it left when it stopped
        self.start = start
        self.skip = skip
        self.limit = limit
        self.deadline = deadline
        self.abandoned = abandoned  # (walk_nearest's)
        self.left = 0
        self.exclude = exclude
        self.helpers = helpers
        self.meanwhile = meanwhile
        self.meanwhile_grace = 0.0  # (walk's)
        self.found = _Found()
        self.seen: set[str] = set()  # the real paths of the directories walked
        # a shared walk's pool, and its pieces of wide directories (see SHARE)
        self.pool: Pool | None = None
        self.deal: Deal[list[tuple[str, str, bool]]] | None = None
        # the Paths of the skill and Python files found (or merged), made between pieces while the
        # workers walk instead of all at the end; how many of each list are made
        self.made: dict[str, Path] = {}
        self.made_counts = [0, 0]

    def run(self) -> None:
        """The walk from the start (the folder), then the pieces shared with the pool."""
        start = self.start or self.root
        self.walk([(start, os.path.realpath(start) if self.start else self.real_root, False)])
        if self.deal is not None and not self.left and not self.found.stopped:
            if self.meanwhile is not None:
                began = time.monotonic()
                self.meanwhile()
                if self.deadline is not None:
                    # the deadline bounds the walking, not the work done meanwhile (the server imports
                    # its protocol then: a third of a second, more on a busy machine), up to its grace
                    self.deadline += min(time.monotonic() - began, self.meanwhile_grace)
            self.deal.run(self._walk_here, self._take_in, until=self._over, wait=LOOK_EVERY)
            if self.deal.left and not self.found.stopped:
                self.left = self.deal.left

    def _walk_here(self, piece: Piece[list[tuple[str, str, bool]]]) -> None:
        self.walk(list(piece.work))
        self._make_paths()

    def _take_in(self, _: object, found: _Found) -> None:
        """Merge a worker's piece as it comes."""
        self.found.merge(found)
        self._make_paths()

    def _over(self) -> bool:
        """Whether the walk must stop (at its deadline, its limit, or a piece that stopped at them)."""
        if self.found.stopped or (self.limit is not None and _count(self.found) >= self.limit) or (
                self.deadline is not None and time.monotonic() > self.deadline):
            self.found.stopped = True
        return self.found.stopped

    def walk(self, stack: list[tuple[str, str, bool]]) -> None:
        """Walk the directories on stack (path, its real path, whether it is a piece's) and below."""
        folder, exclude, found, seen = self.folder, self.exclude, self.found, self.seen
        root, real_root = self.root, self.real_root
        real_prefix = real_root if real_root.endswith(os.sep) else real_root + os.sep
        limit, deadline, abandoned = self.limit, self.deadline, self.abandoned
        while stack:
            if (limit is not None and _count(found) >= limit) or (deadline is not None and time.monotonic() > deadline) \
                    or found.stopped or (abandoned is not None and abandoned()):
                self.left = len(stack)
                self.found.stopped = True
                break
            directory, real, alone = stack.pop()
            if real in seen:
                continue  # a symlink loop, or a directory reached twice
            seen.add(real)
            found.directories.append(directory)
            try:
                with os.scandir(directory) as entries:
                    children = list(entries)
            except FileNotFoundError:
                continue  # vanished since its parent was listed
            except OSError as error:
                found.unreadable[directory] = unreadable_reason(error)
                continue
            # what this directory adds, taken back should it turn out to be a virtualenv's
            counts = len(found.skill_files), len(found.python_files), len(found.pyprojects)
            virtualenv = False
            agents_dir: bool | None = None  # a subagents directory (decided at its first .md file)
            subdirectories: list[tuple[str, str, bool]] = []
            for entry in children:
                name = entry.name
                if name == "pyvenv.cfg" and directory != root:
                    virtualenv = True
                    break
                try:
                    # one type test for the common cases (a plain directory or file); links are rarer
                    if entry.is_dir(follow_symlinks=False):
                        if name in SKIP_DIRS or (exclude and excluded(Path(entry.path), folder, exclude)):
                            continue
                        if entry.path in self.skip:
                            continue
                        subdirectories.append((entry.path, real + os.sep + name, alone))
                        continue
                    if entry.is_symlink():
                        target = os.path.realpath(entry.path)
                        if target != real_root and not target.startswith(real_prefix):
                            continue  # never follow a link out of the workspace
                        if entry.is_dir():
                            if name in SKIP_DIRS or (exclude and excluded(Path(entry.path), folder, exclude)):
                                continue
                            found.linked = True
                            found.aliases[entry.path] = target
                            subdirectories.append((entry.path, target, alone))
                            continue
                    if not entry.is_file():
                        continue
                except OSError:
                    continue
                if name == "SKILL.md" or (len(name) == 8 and is_skill_filename(name)):
                    bucket = found.skill_files
                elif name.endswith(".py") or (name.endswith(_SCRIPT_SUFFIXES) and not name.endswith(_DECLARATIONS)):
                    bucket = found.python_files
                elif name.endswith(".md") and agents_dir is None:
                    agents_dir = _is_agents_dir(directory)
                    if not agents_dir:
                        continue
                    bucket = found.python_files
                elif name.endswith(".md") and agents_dir:
                    bucket = found.python_files
                elif name in CONFIG_FILES:
                    bucket = found.pyprojects
                else:
                    continue
                if exclude and excluded(Path(entry.path), folder, exclude):
                    continue
                bucket.append(entry.path)
            if virtualenv:
                del found.skill_files[counts[0]:], found.python_files[counts[1]:], found.pyprojects[counts[2]:]
                continue
            if not alone and len(subdirectories) >= SHARE_FROM:
                if self.deal is None and len(subdirectories) >= FORK_FROM and self.helpers > 0:
                    self._start_pool()
                if self.deal is not None:
                    self._share(subdirectories)
                    continue
            stack += subdirectories

    def _share(self, subdirectories: list[tuple[str, str, bool]]) -> None:
        """A wide directory's subdirectories, in pieces, to the pool's workers (and, from the back, this
        process); the pool is forked at the first."""
        global _shared_walk
        assert self.deal is not None
        subdirectories.sort()
        owned = [(path, real_path, True) for path, real_path, _ in subdirectories]
        _shared_walk = (self.folder, self.exclude, self.limit)
        try:
            self.deal.add(Piece(piece, _walk_piece, piece, self.deadline) for piece in _cut(owned, self.helpers + 1))
        finally:
            _shared_walk = None

    def _start_pool(self) -> None:
        """The pool this walk shares its wide directories with (none to be had: this process walks alone)."""
        try:
            self.pool = Pool(self.helpers, forks.child_nice)
        except (OSError, RuntimeError):
            self.helpers = 0
            return
        self.deal = Deal(self.pool, self.helpers + 1)

    def _make_paths(self) -> None:
        """The Paths of the files found (or merged) since the last call. Between directories only: a
        directory that turns out a virtualenv's takes back what it added before this runs again."""
        for index, found in enumerate((self.found.skill_files, self.found.python_files)):
            for text in found[self.made_counts[index] :]:
                self.made[text] = path_of(text)
            self.made_counts[index] = len(found)

    def stop(self) -> None:
        """End the pool (workers still walking a piece no one wants are killed)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close(kill=self.deal is not None and self.deal.close())
