"""Which folders `check` indexes for the paths it is named, and which of their files it reports.

A directory is a workspace of its own (or part of its project's, when a skill root of the project
links to it); a file is checked with the roots of its own project, found from the file upwards
(project_root), never with the whole current directory that holds it beside other projects; a file
of a kind skill-lsp never reads (a README.md, a .txt) is set aside and said so (checks_file).
"""

from __future__ import annotations

import os
from pathlib import Path

from .config import CONFIG_FILES
from .pathtext import is_skill_filename, is_user_agent_path, within


class UsageError(Exception):
    """A mistake in what the command line names: reported with the command's usage, exit 2."""


# What makes a directory a project: a checkout, a Python project, or a runtime's skill root (or
# settings) in it
PROJECT_MARKERS = (".git", *CONFIG_FILES, ".agentdeck", ".claude", os.path.join(".agents", "skills"),
                   os.path.join(".github", "skills"))

CHECKED_FILES = ("SKILL.md files, agent definitions (Python, TypeScript and JavaScript files, subagent Markdown in "
                 ".claude/agents) and configuration files (pyproject.toml, skill-lsp.toml, .skill-lsp.toml)")


def checks_file(path: Path, user_agents: Path | None) -> bool:
    """Whether `check` reads a file of path's kind (the walk's kinds: discovery.walk)."""
    name = path.name
    if is_skill_filename(name) or name in CONFIG_FILES or name.endswith(".py"):
        return True
    if name.endswith(".md"):
        if user_agents is not None and is_user_agent_path(path, user_agents):
            return True
        # Claude Code's subagents: `.claude/agents`, or a plugin's `agents/` beside its `.claude-plugin/`
        directory = path.parent
        return directory.name == "agents" and (directory.parent.name == ".claude"
                                               or (directory.parent / ".claude-plugin").is_dir())
    from .tssource import is_script_name  # (only now: its parsers' imports cost every other run's start)

    return is_script_name(name)


def not_checked(paths: list[str], user_agents: Path | None) -> list[str]:
    """The paths given that name a file `check` does not read."""
    return [raw for raw in paths if os.path.isfile(raw) and not checks_file(Path(os.path.abspath(raw)), user_agents)]


def linked_into(project: Path, directory: Path) -> bool:
    """Whether one of the project's conventional skill roots is a symlink into (or onto) directory."""
    real = os.path.realpath(directory)
    for parent in (".claude", ".agents", ".github", ".agentdeck"):
        root = project / parent / "skills"
        if root.is_symlink():
            target = os.path.realpath(root)
            if within(target, real) or within(real, target):
                return True
    return False


def selected(path: Path, only: set[Path] | None) -> bool:
    """Whether a file is reported: everything, or the files and directories named."""
    return only is None or path in only or any(within(path, named) for named in only)


def real_in(path: Path, cwd: Path) -> Path:
    """path with its symlinks resolved when that leads to a place under cwd (`.agents/skills` ->
    `skills`): the analysis reports each file on its real path, once; a link out of cwd stays as given."""
    # a directory's links all the way; a file's only above it (the walk lists a symlinked file on its own path)
    real = os.path.realpath(path) if path.is_dir() else os.path.join(os.path.realpath(path.parent), path.name)
    real_cwd = os.path.realpath(cwd)
    if real == os.path.normpath(str(path)) or not (real == real_cwd or real.startswith(real_cwd.rstrip(os.sep) + os.sep)):
        return path
    return Path(os.path.join(cwd, os.path.relpath(real, real_cwd))) if real != real_cwd else cwd


def project_folder(path: Path, cwd: Path) -> Path:
    """The folder to index for a single file: its project, the nearest directory above it with a
    project marker (PROJECT_MARKERS).

    The current directory instead when the file is under it and no project holds the file (run from
    an agent's own directory, `disclosure agent.py` still sees the skill roots around it), or when the
    current directory is itself in a project that holds the file's (a monorepo checked from its root:
    a package's agent still sees the skills at the repository's root). A directory that merely holds
    projects side by side is no project: `check big/README.md` from it indexes `big` alone, not the
    21,000 skills of its neighbours.
    """
    project = project_root(path.parent)
    try:
        path.relative_to(cwd)
    except ValueError:
        return project or path.parent
    if project is None:
        return cwd
    if cwd.is_relative_to(project):
        return project
    return cwd if project_root(cwd) is not None else project


def project_root(start: Path) -> Path | None:
    """The nearest directory from start upwards with a project marker; None when there is none."""
    home = Path.home()
    directory = start
    # never the home directory: ~/.claude holds the user's own settings and ~/.git is often a
    # dotfiles repository, neither of which makes the whole home directory a project
    while directory.parent != directory and directory != home:
        if any((directory / marker).exists() for marker in PROJECT_MARKERS):
            return directory
        directory = directory.parent
    return None


def workspaces(paths: list[str], cwd: Path, user_agents: Path | None = None) -> list[tuple[Path, set[Path] | None]]:
    """One workspace folder per folder given; files (and directories inside a project) restrict the report to
    themselves. The user's subagents (user_agents) are a workspace of their own, never their home directory."""
    folders: dict[Path, set[Path] | None] = {}
    for raw in paths:
        path = Path(os.path.abspath(raw))
        if not path.exists():
            raise UsageError(f"{raw}: no such file or directory")
        if user_agents is not None and within(path, user_agents):
            named = folders.setdefault(user_agents, set())
            if path == user_agents:
                folders[user_agents] = None
            elif named is not None:
                named.add(path)
            continue
        path = real_in(path, cwd)
        if path.is_dir():
            # a directory that a conventional root of its project links to (`check skills` where
            # .agents/skills -> ../skills) is checked as part of that project, whose links decide
            # which runtimes see its skills; the report is restricted to it. Otherwise a directory is
            # a workspace of its own.
            project = project_root(path)
            if project is None or project == path or not project.is_relative_to(cwd) or not linked_into(project, path):
                folders[path] = None
                continue
            path_folder = project
        else:
            path_folder = project_folder(path, cwd)
        folder = path_folder
        if folder in folders and folders[folder] is None:
            continue
        folders.setdefault(folder, set())
        only = folders[folder]
        assert only is not None
        only.add(path)
    # a folder inside another folder given on the command line is covered by it
    result = []
    for folder, only in folders.items():
        if only is not None and any(f != folder and folder.is_relative_to(f) and o is None for f, o in folders.items()):
            continue
        if only is None and any(f != folder and folder.is_relative_to(f) and o is None for f, o in folders.items()):
            continue
        result.append((folder, only))
    return result
