"""Walking a workspace: the SKILL.md, Python and pyproject.toml files it holds."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePath

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


def _path_order(path: str) -> str:
    # the order of sorted(Path(...)) (part by part), without building Path objects or lists: with
    # the separator made the lowest character, comparing the strings compares part by part
    return path.replace(os.sep, "\0")


def inside_workspace(path: Path, folders: list[Path]) -> bool:
    """path lies in one of folders once symlinks are resolved: where a quick fix may create or rename."""
    real = Path(os.path.realpath(path))
    return any(within(real, Path(os.path.realpath(folder))) for folder in folders)


def walk(folder: Path, exclude: tuple[str, ...] = ()) -> Listing:
    """Every file of interest under folder; symlinks out of folder are never followed.

    Strings throughout (Path objects only for what is returned): this runs over
    every directory of the workspace on each cold start.
    """
    listing = Listing()
    root = str(folder)
    real_root = os.path.realpath(root)
    real_prefix = real_root if real_root.endswith(os.sep) else real_root + os.sep
    seen: set[str] = set()
    skill_files: list[str] = []
    python_files: list[str] = []
    pyprojects: list[str] = []
    directories: list[str] = []
    # (path, its real path): the real path follows lexically until a symlink is crossed
    stack = [(root, real_root)]
    while stack:
        directory, real = stack.pop()
        if real in seen:
            continue  # a symlink loop, or a directory reached twice
        seen.add(real)
        directories.append(directory)
        try:
            with os.scandir(directory) as entries:
                children = list(entries)
        except FileNotFoundError:
            continue  # vanished since its parent was listed
        except OSError as error:
            listing.unreadable[Path(directory)] = unreadable_reason(error)
            continue
        if directory != root and any(child.name == "pyvenv.cfg" for child in children):
            continue  # a virtualenv
        for entry in children:
            name = entry.name
            try:
                # one type test for the common cases (a plain directory or file); links are rarer
                if entry.is_dir(follow_symlinks=False):
                    if name in SKIP_DIRS or (exclude and excluded(Path(entry.path), folder, exclude)):
                        continue
                    stack.append((entry.path, real + os.sep + name))
                    continue
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if target != real_root and not target.startswith(real_prefix):
                        continue  # never follow a link out of the workspace
                    if entry.is_dir():
                        if name in SKIP_DIRS or (exclude and excluded(Path(entry.path), folder, exclude)):
                            continue
                        stack.append((entry.path, target))
                        continue
                if not entry.is_file():
                    continue
            except OSError:
                continue
            if is_skill_filename(name):
                bucket = skill_files
            elif name.endswith(".py"):
                bucket = python_files
            elif name == "pyproject.toml":
                bucket = pyprojects
            else:
                continue
            if exclude and excluded(Path(entry.path), folder, exclude):
                continue
            bucket.append(entry.path)
    listing.skill_files = [Path(path) for path in sorted(skill_files, key=_path_order)]
    listing.python_files = [Path(path) for path in sorted(python_files, key=_path_order)]
    listing.pyprojects = [Path(path) for path in sorted(pyprojects, key=_path_order)]
    listing.directories = set(directories)
    return listing
