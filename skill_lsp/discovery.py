"""Walking a workspace: the SKILL.md, Python and pyproject.toml files it holds."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from . import forks
from .textutil import unreadable_reason

# Never descended into: version control, dependencies, caches.
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".tox", ".nox", ".venv", "venv", ".eggs", "site-packages", ".direnv", ".cache",
})
SKILL_FILENAMES = ("SKILL.md",)


@dataclass
class Listing:
    skill_files: list[Path] = field(default_factory=list)
    python_files: list[Path] = field(default_factory=list)
    pyprojects: list[Path] = field(default_factory=list)
    # directories that exist (as strings), for resolving roots without touching the disk again
    directories: set[str] = field(default_factory=set)
    # directories that could not be listed, and why (the CLI prints them)
    unreadable: dict[Path, str] = field(default_factory=dict)


def is_skill_filename(name: str) -> bool:
    return name.lower() == "skill.md"


def excluded(path: Path, folder: Path, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    try:
        relative = path.relative_to(folder).as_posix()
    except ValueError:
        return False
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern):
            return True
        if fnmatch.fnmatch(relative, pattern + "/*") or relative.startswith(pattern + "/"):
            return True
    return False


def within(path: PurePath | str, folder: PurePath | str) -> bool:
    """path is folder or below it (lexically; string compare, no filesystem access)."""
    inner, outer = str(path), str(folder)
    if inner == outer:
        return True
    return inner.startswith(outer if outer.endswith(os.sep) else outer + os.sep)


def split_text(text: str) -> tuple[str, str]:
    """os.path.split of a normalised path's text (a Path's, or normpath's: one separator between
    parts, none at the end), without the generality that makes os.path cost more than the rest of
    placing a skill."""
    cut = text.rfind(os.sep)
    if cut <= 0 or text[cut - 1] == ":":  # the file system's root, a drive's, or no directory
        return os.path.split(text)
    return text[:cut], text[cut + 1 :]


def split_skill_text(text: str) -> tuple[str, str, str, str]:
    """A skill file's normalised path text cut as placing it needs: (the directory above its
    directory, its directory, its directory's name, its name), split_text twice in one cut where
    the text allows."""
    parts = text.rsplit(os.sep, 2)
    if len(parts) == 3 and parts[0] and parts[0][-1] != ":":
        return parts[0], text[: len(text) - len(parts[2]) - 1], parts[1], parts[2]
    directory, name = split_text(text)  # at the file system's (or a drive's) root
    above, directory_name = split_text(directory)
    return above, directory, directory_name, name


def _path_maker() -> Callable[[str], Path]:
    """Path(text) for the texts a walk finds (absolute, normalised: one separator between parts,
    none at the end). On CPython before 3.12 a Path parses its text when made (4 µs, a tenth of a
    cold check for 10,000 skills) and again for str(): this one is made from the parts text.split
    gives, with its text kept, through pathlib's own constructor for parsed parts. It is used only
    after it proved equal to Path on a sample; newer Pythons (whose Path parses lazily), other
    separators and other texts take Path itself."""
    concrete = type(Path("/"))  # PosixPath
    make = getattr(concrete, "_from_parsed_parts", None)
    if sys.version_info >= (3, 12) or os.sep != "/" or make is None:
        return Path

    def parsed(text: str) -> Path:
        parts = text.split("/")
        if parts[0] or len(parts) < 2:
            return Path(text)  # relative
        parts[0] = "/"
        if "" in parts or "." in parts:
            return Path(text)  # a part Path would drop (or the root's '//')
        path: Path = make("", "/", parts)
        path._str = text  # type: ignore[attr-defined]
        # its hash as Path.__hash__ works it out (a POSIX path's case-folded parts are its parts),
        # here where the parts are at hand: every path a walk finds is hashed, and Path's own way
        # (a list of parts made again, three Python calls) cost 2 µs
        path._cached_cparts = parts  # type: ignore[attr-defined]
        path._hash = hash(tuple(parts))  # type: ignore[attr-defined]
        return path

    for sample in ("/", "/a", "/srv/skills/pdf tools/SKILL.md", "/x/.y/z.py"):
        made, expected = parsed(sample), Path(sample)
        if (type(made) is not type(expected) or made != expected or str(made) != str(expected) or made.parts != expected.parts
                or hash(made) != hash(expected) or made.parent != expected.parent or made.name != expected.name):
            return Path
    return parsed


path_of = _path_maker()


def _path_order(path: str) -> str:
    # the order of sorted(Path(...)) (part by part), without building Path objects or lists: with
    # the separator made the lowest character, comparing the strings compares part by part
    return path.replace(os.sep, "\0")


def inside_workspace(path: Path, folders: list[Path]) -> bool:
    """path lies in one of folders once symlinks are resolved: where a quick fix may create or rename."""
    real = Path(os.path.realpath(path))
    return any(within(real, Path(os.path.realpath(folder))) for folder in folders)


# A parallel walk forks at the first directory with this many subdirectories (a skills root
# worth a second process), and from there on shares out the subdirectories of every directory
# with at least SHARE_FROM of them; the directories above those are listed by each process.
FORK_FROM = 256
SHARE_FROM = 16
# Shared subdirectories are dealt in turn, one to each process. When the forking process has other
# work to do meanwhile (check imports its analysers: ~40 ms), the helpers first take this many
# shared subdirectories among themselves, from the directory it forked at on: about what a helper
# walks in that time (a skill directory costs ~10 µs), so that all finish together whatever the
# tree's size.
HEAD_START = 4000


def walk(folder: Path, exclude: tuple[str, ...] = (), helpers: int = 0,
         meanwhile: Callable[[], object] | None = None) -> Listing:
    """Every file of interest under folder; symlinks out of folder are never followed.

    With helpers, up to that many forked processes share a large tree's walk with this one (on
    Linux: a fork shares the walk's state as it is). A walk that entered a directory through a
    symlink, or lost a process, is done again alone: which of two ways into one directory is kept
    depends on the walk's order. `meanwhile` is called once the helpers are forked, before this
    process goes on with its (then smaller) share; a walk that does not fork never calls it.
    """
    walker = _Walker(folder, exclude, helpers, meanwhile)
    try:
        walker.run()
        shared = walker.collect()
    finally:
        walker.stop()
    if shared and (walker.found.linked or not walker.complete):
        walker = _Walker(folder, exclude, 0)
        walker.run()
    return walker.found.listing(unique=shared)


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

    def merge(self, other: _Found) -> None:
        self.skill_files += other.skill_files
        self.python_files += other.python_files
        self.pyprojects += other.pyprojects
        self.directories += other.directories
        self.unreadable.update(other.unreadable)
        self.linked = self.linked or other.linked

    def listing(self, unique: bool) -> Listing:
        def ordered(paths: list[str]) -> list[Path]:
            return [path_of(path) for path in sorted(set(paths) if unique else paths, key=_path_order)]

        return Listing(ordered(self.skill_files), ordered(self.python_files), ordered(self.pyprojects),
                       set(self.directories), {Path(path): reason for path, reason in self.unreadable.items()})


class _Walker:
    def __init__(self, folder: Path, exclude: tuple[str, ...], helpers: int,
                 meanwhile: Callable[[], object] | None = None) -> None:
        self.folder = folder
        self.exclude = exclude
        self.helpers = helpers
        self.meanwhile = meanwhile
        self.found = _Found()
        self.part = 0  # this process's number in a shared walk (0: the one that forked)
        self.parts = 1
        # what is left of the helpers' head start (see HEAD_START)
        self.head = 0
        self.children: list[forks.Stream] = []
        self.sink = -1  # a helper's write end of its results pipe
        self.complete = True

    def run(self) -> None:
        try:
            self._run()
        except BaseException:
            if self.part > 0:
                forks.fail()  # a helper never returns into its parent's code; the parent walks again
            raise
        if self.part > 0:
            forks.send_part(self.sink, self.found)
            forks.finish(self.sink)

    def _run(self) -> None:
        folder, exclude, found = self.folder, self.exclude, self.found
        root = str(folder)
        real_root = os.path.realpath(root)
        real_prefix = real_root if real_root.endswith(os.sep) else real_root + os.sep
        seen: set[str] = set()
        # (path, its real path, whether its subtree is this process's alone): the real path
        # follows lexically until a symlink is crossed
        stack = [(root, real_root, False)]
        while stack:
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
                            subdirectories.append((entry.path, target, alone))
                            continue
                    if not entry.is_file():
                        continue
                except OSError:
                    continue
                if name == "SKILL.md" or (len(name) == 8 and is_skill_filename(name)):
                    bucket = found.skill_files
                elif name.endswith(".py"):
                    bucket = found.python_files
                elif name == "pyproject.toml":
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
                if self.parts == 1 and len(subdirectories) >= FORK_FROM and self.helpers > 0:
                    self.fork()
                    found = self.found  # a child starts afresh
                if self.parts > 1:
                    # every process lists this directory: each takes its share of what is below
                    subdirectories.sort()
                    count = len(subdirectories)
                    subdirectories = [(path, real_path, True) for index, (path, real_path, _) in enumerate(subdirectories)
                                      if self._owner(index) == self.part]
                    self.head = max(0, self.head - count)  # what is left of it goes on to the next one
            stack += subdirectories

    def _owner(self, index: int) -> int:
        """The process whose is the shared subdirectory at index (of its directory, sorted); every
        process deals the same shared directories in the same order, so all agree."""
        if index < self.head:
            return 1 + index % (self.parts - 1)
        return (index - self.head) % self.parts

    def fork(self) -> None:
        """Fork the helpers here, each to go on with the walk from this very point."""
        parts = self.helpers + 1
        self.head = HEAD_START if self.meanwhile is not None else 0
        for part in range(1, parts):
            forked = forks.fork()
            if forked is None:
                # the shares were counted for every helper: without one, this process walks alone
                self.stop()
                self.helpers = 0
                return
            pid, pipe = forked
            if pid == 0:
                self.children = []
                self.part, self.parts, self.sink = part, parts, pipe
                self.found = _Found()
                self.meanwhile = None
                return
            self.children.append(forks.Stream(forked))
        self.parts = parts
        if self.meanwhile is not None:
            self.meanwhile()

    def collect(self) -> bool:
        """Merge what the helpers found; whether the walk was shared."""
        children, self.children = self.children, []
        for child in children:
            sent = [message for message in child.drain() if isinstance(message, _Found)]
            if sent:
                self.found.merge(sent[0])
            else:  # the process was killed: its share is missing
                self.complete = False
        return self.parts > 1

    def stop(self) -> None:
        for child in self.children:
            child.stop()
        self.children = []
