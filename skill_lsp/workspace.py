"""The files a model is built from: workspace folders on disk under open editor buffers, their walks and their parses (kept by content), and the `Loader` steps a build reads them with.

`Workspace.build(loader)` builds the model (builder.build): the core walks, places and links; the
loader reads the files. `Reads` (the default) reads and parses every file and keeps the parses, as
`skill-lsp disclosure`, `--fix` and tests need; check's cache (cache.CheckLoader) and the server
(server/indexing.ServerLoader) pass their own, which reuse analyses and share work with a process pool.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Protocol

from .builder import Builder, build
from .codecalls import PySource
from .codefiles import is_code_path, parse_code
from .config import Config, load_config, shadow, user_agents_dir, user_skills_dir, walk_exclude
from .discovery import Listing, walk
from .exclusion import kept_from_exclusion
from .index import Model, PythonEntry, SkillEntry, SkillFacts, SkillJob
from .model import Finding
from .overlap import terms_of
from .pathtext import is_skill_filename, is_user_agent_path, split_skill_text, within
from .skillfile import SkillFile, parse_skill
from .textutil import FileTooLarge, check_size, read_text, unreadable_reason
from .trace import phase


class Loader(Protocol):
    """The steps of a build that read files, in the order build() calls them."""

    def listing(self, workspace: Workspace, folder: Path) -> Listing:
        """The walk of one folder (Workspace.walked, or a bounded one)."""

    def prepare(self, workspace: Workspace, model: Model, skill_paths: list[tuple[Path, Path]], directories: set[str]) -> None:
        """Once the tree is walked and before any file is read (work may start early here)."""

    def load_pythons(self, workspace: Workspace, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
        """Each code file read; those that make a call we know enter model.pythons (else model.unreadable)."""

    def load_skills(self, workspace: Workspace, model: Model, jobs: list[SkillJob]) -> None:
        """Each placed SKILL.md loaded into model.skills, in the jobs' order (else model.unreadable)."""


class Reads:
    """The plain loader: every file read and parsed, its parse kept by the workspace."""

    def listing(self, workspace: Workspace, folder: Path) -> Listing:
        return workspace.walked(folder)

    def prepare(self, workspace: Workspace, model: Model, skill_paths: list[tuple[Path, Path]], directories: set[str]) -> None:
        pass

    def load_pythons(self, workspace: Workspace, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
        with phase("parse python"):
            workspace.read_pythons(model, python_paths)

    def load_skills(self, workspace: Workspace, model: Model, jobs: list[SkillJob]) -> None:
        with phase("parse skills"):
            workspace.read_skills(model, jobs)


READS = Reads()

@dataclass
class _Parsed:
    text: str
    value: object


class Workspace:
    """The files of one or more workspace folders, disk under open editor buffers."""

    def __init__(self, folders: list[Path], settings: Config | None = None) -> None:
        self.folders = [Path(os.path.abspath(folder)) for folder in folders]
        self.settings = settings or Config()
        self.overlays: dict[Path, str] = {}
        self._cache: dict[Path, _Parsed] = {}
        self.listings: dict[Path, Listing] = {}
        self.kept: dict[Path, tuple[str, ...]] = {}  # the excluded paths each listing walked all the same
        # files named explicitly (check's command line): checked even in an excluded folder, like open ones
        self.named: list[Path] = []
        self._disk_texts: dict[Path, tuple[tuple[int, int], str]] = {}
        self.model: Model | None = None
        # what built the model, kept for incremental updates
        self.builder: Builder | None = None
        self._reparse = self.reparse  # one bound method for every entry made from an analysis
        # the skill paths of the build under way, cut once for the builders that place them
        self._cut: tuple[list[tuple[Path, Path]], list[tuple[str, str, str]]] | None = None
        self._user_agents: Path | bool | None = False  # user_agents_dir() as of the last build (False: none yet)

    # -- file access ---------------------------------------------------------

    def rescan(self) -> None:
        self.listings.clear()

    def walked(self, folder: Path, helpers: int = 0) -> Listing:
        """The walk of folder, kept until rescan() (walked again when the open or named files it keeps
        change); helpers: the processes the walk may fork (discovery.walk)."""
        cached = self.listings.get(folder)
        named = [*self.named, *self.overlays]
        if cached is not None and not named and not self.kept.get(folder):
            return cached
        exclude = walk_exclude(folder, self.settings)
        # an open file in an excluded folder is checked with the roots and agents around it: its
        # excluded subtree is walked too (and walked again when that changes)
        keep = kept_from_exclusion(folder, exclude, named) if exclude and named else ()
        if cached is None or self.kept.get(folder, ()) != keep:
            with phase("walk"):
                self.listings[folder] = walk(folder, exclude, helpers, keep=keep)
            self.kept[folder] = keep
        return self.listings[folder]

    def adopt_listing(self, folder: Path, listing: Listing, keep: tuple[str, ...] = ()) -> None:
        """A walk of folder done before this workspace was made (check walks while it imports), with
        the excluded paths it walked all the same."""
        self.listings[Path(os.path.abspath(folder))] = listing
        self.kept[Path(os.path.abspath(folder))] = keep

    def text_of(self, path: Path) -> str:
        """Raises OSError / FileTooLarge when the file cannot be read."""
        if path in self.overlays:
            return check_size(self.overlays[path], path.name)
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._disk_texts.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = read_text(path)
        self._disk_texts[path] = (stamp, text)
        return text

    def parse(self, path: Path, text: str, python: bool) -> object:
        """The parse of path's text (a PySource when python, else a SkillFile), kept while the text is
        the same: the build's and the server's requests share it."""
        cached = self._cache.get(path)
        if cached is not None and cached.text == text:
            return cached.value
        value: object = parse_code(text, PurePath(path)) if python else parse_skill(text)
        self._cache[path] = _Parsed(text, value)
        return value

    def last_parse(self, path: Path) -> tuple[str, object] | None:
        """The parse kept for path and the text it was made from, whichever that was."""
        cached = self._cache.get(path)
        return (cached.text, cached.value) if cached is not None else None

    def parsed(self, path: Path, text: str) -> object | None:
        """The parse of path made from this very text (the same string), if one is kept."""
        cached = self._cache.get(path)
        return cached.value if cached is not None and cached.text is text else None

    def forget(self, path: Path) -> None:
        self._cache.pop(path, None)
        self._disk_texts.pop(path, None)

    # -- building ------------------------------------------------------------

    def build(self, loader: Loader = READS) -> Model:
        """A new model of the folders, its files read by loader (builder.build says the steps)."""
        self.builder = build(self, loader)
        self.model = self.builder.model
        return self.model

    def built(self) -> None:
        """A build ended: the skill paths it cut are let go."""
        self._cut = None

    def gather(self, loader: Loader = READS) -> tuple[Model, list[tuple[Path, Path]], list[tuple[Path, Path]], set[str]]:
        """A build's first step: the folders walked, their pyproject.toml files read, and the skill and
        code files to read (with their folders), open buffers and the user's subagents included."""
        model = Model(folders=self.folders)
        skill_paths: list[tuple[Path, Path]] = []
        python_paths: list[tuple[Path, Path]] = []
        directories: set[str] = set()
        for folder in self.folders:
            listing = loader.listing(self, folder)
            directories |= listing.directories
            model.unreadable.update(listing.unreadable)
            model.aliases.update(listing.aliases)
            for pyproject in listing.pyprojects:  # and skill-lsp.toml files
                loaded = load_config(pyproject)
                if loaded is not None:
                    model.configs[pyproject] = loaded
            skill_paths += [(path, folder) for path in listing.skill_files]
            python_paths += [(path, folder) for path in listing.python_files]
        shadow(model.configs)
        user_agents = self._user_agents = model.user_agents = self.user_agents_dir()
        # the user's subagents: all of them when a folder is (inside) their directory, and otherwise
        # those open or named on the command line only: they are not the project's
        user_files: list[Path] = []
        if user_agents is not None:
            for folder in self.folders:
                if within(folder, user_agents):
                    user_files += _markdown_files(folder)
        # open buffers of files the walk did not find (not saved yet)
        listed = {p for p, _ in skill_paths} | {p for p, _ in python_paths} if self.overlays or user_files or self.named else set()
        extra = {path for path in [*self.overlays, *self.named, *user_files] if path not in listed}
        for path in sorted(extra):
            if user_agents is not None and is_user_agent_path(path, user_agents):
                python_paths.append((path, user_agents))
                continue
            if path not in self.overlays:
                continue
            folder = model.folder_of(path)
            if not within(path, folder):
                continue
            if is_skill_filename(path.name):
                skill_paths.append((path, folder))
            elif is_code_path(path):
                python_paths.append((path, folder))
        return model, skill_paths, python_paths, directories

    def cut_skill_paths(self, skill_paths: list[tuple[Path, Path]]) -> list[tuple[str, str, str]]:
        """Each skill path's text, its root's text (the directory above its directory) and its name:
        cut once in a build, however many builders place the skills (check's early jobs, the model)."""
        if self._cut is not None and self._cut[0] is skill_paths and len(self._cut[1]) == len(skill_paths):
            return self._cut[1]
        cuts = []
        for path, _ in skill_paths:
            text = str(path)
            root_text, _, _, name = split_skill_text(text)
            cuts.append((text, root_text, name))
        self._cut = skill_paths, cuts
        return cuts

    def read_pythons(self, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
        """Read and parse each code file (the parse kept); those that make a call we know enter the model."""
        for path, folder in python_paths:
            try:
                text = self.text_of(path)
            except (OSError, FileTooLarge) as error:  # skipped, and the CLI says why
                model.unreadable[path] = unreadable_reason(error)
                continue
            source = self.parse(path, text, python=True)
            assert isinstance(source, PySource)
            if source.calls or source.notes:
                model.pythons[path] = PythonEntry(path, source, folder)

    def read_skills(self, model: Model, jobs: list[SkillJob]) -> None:
        """Read and parse each SKILL.md the roots placed (the parse kept); the unreadable ones are noted."""
        for job in jobs:
            try:
                text = self.text_of(job.path)
            except (OSError, FileTooLarge) as error:
                model.unreadable[job.path] = unreadable_reason(error)
                continue
            parsed = self.parse(job.path, text, python=False)
            assert isinstance(parsed, SkillFile)
            model.skills[job.path] = SkillEntry(job.path, parsed, job.root, job.profile, misnamed=job.misnamed,
                                                external=job.external)

    def analysed_entry(self, job: SkillJob, facts: SkillFacts, findings: list[Finding]) -> SkillEntry:
        """A skill entry made from its analysis (facts and the findings of its own rules, as check's
        cache and the server keep them): its parse is read again only when a feature needs it.

        Its description's terms, which SK310 compares once the model is built (overlap.terms_of, kept by the
        description's text), are worked out now: a pool's analyses arrive here while its workers still work,
        and this process then takes less of their work, where after the build it would work alone. Only for a
        skill a choice can hold: a collection's skills are in no registry and no session's root, nor is a
        misnamed or unrooted one."""
        root = job.root
        if root is not None and root.origin != "collection" and not job.misnamed:
            terms_of(facts.description)
        return SkillEntry.analysed(job, facts, findings, self._reparse)

    def reparse(self, path: Path) -> SkillFile:
        """A skill's parse, read again (an entry made from its analysis holds none)."""
        try:
            return parse_skill(self.text_of(path))
        except (OSError, FileTooLarge):
            return parse_skill("")

    def user_skills_dir(self) -> Path | None:
        return user_skills_dir(self.settings, self.folders)

    def user_agents_dir(self) -> Path | None:
        return user_agents_dir(self.settings, self.folders)

    def is_user_agent(self, path: Path) -> bool:
        """Whether path is a Markdown file in the user's subagents directory (as of the last build)."""
        directory = self._user_agents if self._user_agents is not False else self.user_agents_dir()
        return isinstance(directory, Path) and is_user_agent_path(path, directory)


# a user subagents directory holds a few dozen files; one pointed at a larger tree is read this far
_USER_AGENT_FILES = 5_000


def _markdown_files(directory: Path) -> list[Path]:
    """The Markdown files below directory (a user subagents directory), skipping hidden and tool directories."""
    found: list[Path] = []
    for current, subdirectories, files in os.walk(directory):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith(".") and name != "node_modules")
        found += [Path(current) / name for name in sorted(files) if name.endswith(".md") and not is_skill_filename(name)]
        if len(found) >= _USER_AGENT_FILES:
            break
    return found[:_USER_AGENT_FILES]


