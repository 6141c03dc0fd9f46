"""Paths as text, as the walk and the model handle them: whether one lies within another, cuts of a normalised path's text, Path objects made from it (path_of), their order, and where a path leads inside the workspace.

A walk finds every path as text (os.scandir's); the model keeps Paths. Working on the text spares
pathlib's parsing where it is paid per file (placing 10,000 skills, SK202's lookups); the one Path
per file is made by path_of, which on CPython before 3.12 builds it from the parts the text splits
into, proved equal to Path on samples first.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path, PurePath


def is_skill_filename(name: str) -> bool:
    return name.lower() == "skill.md"


def is_user_agent_path(path: Path, directory: Path) -> bool:
    """A Markdown file below the user's subagents directory: Claude Code reads its subdirectories too
    (anthropics/claude-code#58950: `~/.claude/agents/foo/bar.md` becomes the `bar` subagent)."""
    return path.suffix == ".md" and not is_skill_filename(path.name) and path != directory and within(path, directory)


def within(path: PurePath | str, folder: PurePath | str) -> bool:
    """path is folder or below it (lexically; string compare, no filesystem access)."""
    inner, outer = str(path), str(folder)
    if inner == outer:
        return True
    return inner.startswith(outer if outer.endswith(os.sep) else outer + os.sep)


_SEP = os.sep


def split_text(text: str) -> tuple[str, str]:
    """os.path.split of a normalised path's text (a Path's, or normpath's: one separator between
    parts, none at the end), without the generality that makes os.path cost more than the rest of
    placing a skill (placing 10,000 skills and checking their links splits 60,000 texts: one
    rpartition costs half of a search and two slices)."""
    head, _, tail = text.rpartition(_SEP)
    if not head or head[-1] == ":":  # the file system's root, a drive's, or no directory
        return os.path.split(text)
    return head, tail


def split_skill_text(text: str) -> tuple[str, str, str, str]:
    """A skill file's normalised path text cut as placing it needs: (the directory above its
    directory, its directory, its directory's name, its name), split_text twice in one cut where
    the text allows."""
    directory, _, name = text.rpartition(_SEP)
    above, _, directory_name = directory.rpartition(_SEP)
    if above and above[-1] != ":":
        return above, directory, directory_name, name
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


def path_order(path: str) -> str:
    """A sort key giving the order of sorted(Path(...)) (part by part), without building Path objects
    or lists: with the separator made the lowest character, comparing the strings compares part by
    part."""
    return path.replace(os.sep, "\0")


def real_path_in(path: Path, folders: list[Path]) -> Path:
    """path as a walk of folders lists it: a path through a symlinked directory of a folder that leads
    elsewhere in the same folder (`.agents/skills/pdf/SKILL.md`, `.agents/skills -> ../skills`) is the
    real one (`skills/pdf/SKILL.md`); any other path is itself (a link out of the folder is never followed)."""
    text = str(path)
    for folder in folders:
        if not within(text, folder):
            continue
        # the directories' links only: the walk lists a symlinked file on its own path
        real = os.path.join(os.path.realpath(os.path.dirname(text)), os.path.basename(text))
        if real == text:
            return path
        real_folder = os.path.realpath(folder)
        if within(real, real_folder):
            return Path(os.path.join(folder, os.path.relpath(real, real_folder))) if real != real_folder else folder
    return path


def inside_workspace(path: Path, folders: list[Path]) -> bool:
    """path lies in one of folders once symlinks are resolved: where a quick fix may create or rename."""
    real = Path(os.path.realpath(path))
    return any(within(real, Path(os.path.realpath(folder))) for folder in folders)
