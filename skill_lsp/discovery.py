"""Walking a workspace: the SKILL.md, Python and pyproject.toml files it holds."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

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
    # directories that exist, for resolving roots without touching the disk again
    directories: set[Path] = field(default_factory=set)


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


def within(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def walk(folder: Path, exclude: tuple[str, ...] = ()) -> Listing:
    """Every file of interest under folder; symlinks out of folder are never followed."""
    listing = Listing()
    real_folder = Path(os.path.realpath(folder))
    seen: set[str] = set()
    stack = [folder]
    while stack:
        directory = stack.pop()
        real = os.path.realpath(directory)
        if real in seen:
            continue  # a symlink loop, or a directory reached twice
        seen.add(real)
        listing.directories.add(directory)
        try:
            with os.scandir(directory) as entries:
                children = list(entries)
        except OSError:
            continue  # unreadable or vanished: nothing to report from here
        if any(child.name == "pyvenv.cfg" for child in children) and directory != folder:
            continue  # a virtualenv
        for entry in children:
            path = Path(entry.path)
            try:
                is_link = entry.is_symlink()
                if is_link and not within(Path(os.path.realpath(path)), real_folder):
                    continue  # never follow a link out of the workspace
                if entry.is_dir():
                    if entry.name in SKIP_DIRS or excluded(path, folder, exclude):
                        continue
                    stack.append(path)
                    continue
                if not entry.is_file():
                    continue
            except OSError:
                continue
            name = entry.name
            if excluded(path, folder, exclude):
                continue
            if is_skill_filename(name):
                listing.skill_files.append(path)
            elif name.endswith(".py"):
                listing.python_files.append(path)
            elif name == "pyproject.toml":
                listing.pyprojects.append(path)
    listing.skill_files.sort()
    listing.python_files.sort()
    listing.pyprojects.sort()
    return listing
