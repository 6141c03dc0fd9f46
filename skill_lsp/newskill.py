"""Starting a new skill from the command line (`skill-lsp new`): a SKILL.md that every runtime of its root accepts.

The directory is the name, the name is one every runtime accepts (the specification's rules in lowercase ASCII,
runtimes.spec), the description is the user's. Before anything is written the file is checked where it will
be, as an editor's unsaved buffer (Workspace.overlays): the rules of the runtimes that discover it, and the
skills beside it (a name a Deck already has). A file with any finding is not written, and the findings say why.
Nothing is overwritten: the file is created exclusively.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from .config import Config
from .discovery import CONVENTIONAL_ROOTS
from .model import Finding
from .output import display_path
from .pathtext import is_skill_filename
from .runtimes import join_labels
from .runtimes.spec import NAME_LIMIT, name_problem, suggest_name
from .targets import UsageError, project_folder

# The roots a bare name may go to, in the current directory (discovery.CONVENTIONAL_ROOTS' skills folders)
ROOTS = tuple(f"{base}/skills" for base in CONVENTIONAL_ROOTS)


def skill_directory(target: str, cwd: Path) -> Path:
    """The directory of the new skill: a path as given (its last part the name; a SKILL.md's folder), or for a
    bare name the one skill root of the current directory."""
    given = Path(target)
    if given.name and is_skill_filename(given.name) and len(given.parts) > 1:
        given = given.parent
    if len(given.parts) > 1 or target.endswith(("/", os.sep)):
        return Path(os.path.abspath(cwd / given))
    roots = [root for root in ROOTS if (cwd / root).is_dir()]
    if len(roots) == 1:
        return Path(os.path.abspath(cwd / roots[0] / target))
    where = (f"the current directory has {len(roots)} skill roots ({', '.join(roots)})" if roots else
             f"the current directory has no skill root ({', '.join(ROOTS)})")
    raise UsageError(f"{target}: {where}; give the skill's path, e.g. skill-lsp new {(roots or ROOTS)[0]}/{target}")


def check_name(name: str) -> None:
    """A name every runtime accepts, or a UsageError that says which rule it breaks and offers one."""
    problem = name_problem(name)
    if problem is None and not name.isascii():
        problem = "only lowercase ASCII letters, digits and '-' are allowed (Claude Code's rule)"
    if problem is None:
        return
    offer = suggest_name(name).encode("ascii", "ignore").decode()
    hint = f"; for example '{offer}'" if offer and offer != name and name_problem(offer) is None else ""
    raise UsageError(f"invalid skill name '{name}': {problem} (a name is 1-{NAME_LIMIT} lowercase letters, digits "
                     f"and single '-' between them, and the directory's name){hint}")


def yaml_scalar(text: str) -> str:
    """text as a YAML value every runtime's loader reads back as itself: plain when it is, else double-quoted."""
    plain = not text.startswith((" ", '"', "'")) and not text.endswith(" ") and ": " not in text and " #" not in text
    try:
        plain = plain and yaml.safe_load(f"key: {text}") == {"key": text}
    except yaml.YAMLError:
        plain = False
    return text if plain else json.dumps(text, ensure_ascii=False)


def skill_text(name: str, description: str) -> str:
    title = " ".join(part.capitalize() for part in name.split("-"))
    return (f"---\nname: {name}\ndescription: {yaml_scalar(description)}\n---\n\n# {title}\n\n{description}\n\n"
            "## Instructions\n\nWrite here the steps the agent follows when it uses this skill.\n")


def create(target: str, description: str, cwd: Path, settings: Config) -> str:
    """Write the new SKILL.md; what to tell the user. UsageError when it would not be accepted, or exists."""
    description = " ".join(description.split())
    if not description:
        raise UsageError("the description is empty: say what the skill does and when to use it")
    directory = skill_directory(target, cwd)
    check_name(directory.name)
    existing = [entry.name for entry in directory.iterdir() if is_skill_filename(entry.name)] if directory.is_dir() else []
    path = directory / "SKILL.md"
    if existing:
        raise UsageError(f"{display_path(directory / existing[0], cwd)} exists; nothing is overwritten")
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{display_path(directory, cwd)} is a file, not a directory")
    text = skill_text(directory.name, description)
    findings, runtimes = _check(path, text, cwd, settings)
    if findings:
        said = "\n".join(f"  {finding.code} {finding.shown_message(cwd)}" for finding in findings)
        raise UsageError(f"{display_path(path, cwd)} is not written: skill-lsp check would report\n{said}")
    directory.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="\n") as file:  # exclusive: never over a file made meanwhile
        file.write(text)
    return f"created {display_path(path, cwd)}, for {join_labels(runtimes)}"


def _check(path: Path, text: str, cwd: Path, settings: Config) -> tuple[list[Finding], list[str]]:
    """The findings skill-lsp check would give the file at path holding text, and the runtimes that load it."""
    from .rules import file_findings
    from .workspace import Workspace

    workspace = Workspace([project_folder(path, cwd)], settings)
    workspace.overlays[path] = text
    model = workspace.build()
    skill = model.skills.get(path)
    if skill is None:  # (a folder the walk leaves out: a virtual environment, an excluded one)
        raise UsageError(f"{display_path(path, cwd)} is not written: skill-lsp does not read a skill there")
    return file_findings(model, path, settings), [runtime.label for runtime in skill.runtimes]
