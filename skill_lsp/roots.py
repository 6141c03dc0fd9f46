"""Where skills are: the roots of a build (configured, conventional, alias and plugin roots) and each SKILL.md placed under the root that owns it.

`Places` answers for one build: which directories are roots and of which runtime (a root's origin
decides the profile its skills are checked under), which SKILL.md files are another skill's documents
rather than skills, which paths the answer looked up on disk outside the walked tree (`consulted`:
check's outcome cache compares them next time), and each skill's `SkillJob` (make_jobs). The builder
(builder.py) asks it while it builds the model from code; `speculative_jobs` asks it alone, before
any code is read.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from operator import itemgetter
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from .discovery import CONVENTIONAL_ROOTS
from .index import Model, Root, SkillJob
from .model import Profile
from .pathtext import split_skill_text, split_text, within
from .textutil import FileTooLarge, read_text

if TYPE_CHECKING:
    from .workspace import Workspace

ORIGIN_RANK = {"config": 0, "deck": 1, "agentdeck": 1, "plugin": 2, "codex-plugin": 2, "claude": 3, "user": 3, "spec": 4,
               "collection": 5}
# Which root a skill seen through several (symlinked) roots is checked under: the strictest loader's.
_ALIAS_RANK = {"config": 0, "deck": 1, "agentdeck": 1, "spec": 2, "plugin": 3, "codex-plugin": 3, "claude": 3, "user": 3,
               "collection": 5}


def conventional_root(directory: Path) -> Root | None:
    """The root a directory is by its place alone (.agentdeck/skills, .claude/skills, .agents/skills,
    .github/skills), or None."""
    if directory.name != "skills":
        return None
    parent = directory.parent.name
    if parent == ".agentdeck":
        return Root(directory, Profile.AGENTDECK, "agentdeck")
    if parent == ".claude":
        return Root(directory, Profile.CLAUDE, "claude")
    if parent in (".agents", ".github"):
        return Root(directory, Profile.SPEC, "spec")
    return None


def _conventional_root_text(directory: str) -> bool:
    """Whether a directory's text names a runtime's own root (_conventional_root without a Path)."""
    above, name = split_text(directory)
    return name == "skills" and split_text(above)[1] in CONVENTIONAL_ROOTS


def _below_conventional_root(directory: Path) -> bool:
    """Whether directory lies inside a runtime's own root (.claude/skills/group/)."""
    return any(conventional_root(parent) is not None for parent in directory.parents)


def _json_object(path: Path, consulted: set[str]) -> dict[str, object]:
    """A small JSON file's top-level object ({} when it is missing, unreadable, not JSON or not an object)."""
    consulted.add(str(path))
    try:
        data = json.loads(read_text(path, 1024 * 1024))
    except (OSError, FileTooLarge, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}



class Places:
    """The roots of one build and the places of its skills (see the module's docstring)."""

    def __init__(self, workspace: Workspace, model: Model, directories: set[str]) -> None:
        self.workspace = workspace
        self.model = model
        self.directories = directories
        self.plugin_names: dict[Path, str] = {}
        # skill directories a plugin names one by one -> the root (with that plugin's prefix) they belong to
        self.listed_skills: dict[str, Root] = {}
        # what the model depends on beyond the walked tree: paths looked up on disk (check's
        # cache of whole results compares them next time)
        self.consulted: set[str] = set()
        # project_dir's answers while the model is built (Builder.run), by directory
        self.project_dirs: dict[tuple[str, str, str], Path] = {}
        # the texts of the SKILL.md files that are a skill's documents, not skills (sub_documents)
        self.documents: set[str] = set()

    def exists(self, path: Path) -> bool:
        if str(path) in self.directories:
            return True
        self.consulted.add(str(path))
        try:
            return path.is_dir()
        except OSError:
            return False

    def add_root(self, root: Root) -> Root:
        current = self.model.roots.get(root.path)
        if current is None or ORIGIN_RANK[root.origin] < ORIGIN_RANK[current.origin]:
            self.model.roots[root.path] = root
            return root
        return current

    def resolve(self, value: PurePath, call_file: Path, folder: Path) -> tuple[Path, bool]:
        """A path written in code: relative to the calling file's directory, then the workspace."""
        path = Path(value).expanduser()
        if path.is_absolute():
            resolved = Path(os.path.normpath(path))
            return resolved, self.exists(resolved)
        first = Path(os.path.normpath(call_file.parent / path))
        if self.exists(first):
            return first, True
        second = Path(os.path.normpath(folder / path))
        if self.exists(second):
            return second, True
        return first, False

    def project_dir(self, path: Path, folder: Path, marker: str) -> Path:
        """The nearest directory at or above path's directory that holds marker (e.g. .agentdeck);
        asked once per directory (the agent files of one directory share the answer)."""
        key = (split_text(str(path))[0], str(folder), marker)
        found = self.project_dirs.get(key)
        if found is None:
            found = self.project_dirs[key] = self._project_dir(path.parent, folder, marker)
        return found

    def _project_dir(self, directory: Path, folder: Path, marker: str) -> Path:
        while within(directory, folder):
            if self.exists(directory / marker):
                return directory
            if directory == folder or directory.parent == directory:
                break
            directory = directory.parent
        return folder

    def base_roots(self, skill_paths: list[tuple[Path, Path]]) -> None:
        """1. roots from configuration; 2. roots by convention, from where SKILL.md files are."""
        model = self.model
        base = self.workspace.settings
        for loaded in model.configs.values():
            for setting in loaded.config.roots:
                self.add_root(Root(Path(os.path.normpath(setting.path)), setting.profile, "config"))
        for setting in base.roots:
            self.add_root(Root(Path(os.path.normpath(setting.path)), setting.profile, "config"))

        self.plugin_roots()
        self.documents = self.sub_documents(skill_paths)
        model.documents = {Path(text) for text in self.documents}

        # roots by convention, from where SKILL.md files are (each root directory looked at once): the first
        # skill of each root directory and their numbers, counted at C speed (documents are rare)
        cuts = self.workspace.cut_skill_paths(skill_paths)
        placed: Sequence[int]
        if self.documents:
            placed = [index for index, (text, _, _) in enumerate(cuts) if text not in self.documents]
            root_texts = [cuts[index][1] for index in placed]
        else:
            placed = range(len(cuts))
            root_texts = list(map(itemgetter(1), cuts))
        # a root directory's first skill: the last index written for it, walking backwards
        first = dict(zip(reversed(root_texts), reversed(placed), strict=True))
        first_of_root = {root_text: skill_paths[first[root_text]][0] for root_text in dict.fromkeys(root_texts)}
        skills_of_root = Counter(root_texts)
        # first the roots a runtime discovers (its own, a plugin's), then the collections: whether a group is below
        # a plugin's root must not depend on the order the directories come in
        for path in first_of_root.values():
            root_dir = path.parent.parent
            root = conventional_root(root_dir)
            if root is not None:
                self.add_root(root)
            elif root_dir.name == "skills" and self._a_plugin(root_dir.parent):
                name = self.plugin_name(root_dir.parent)
                self.add_root(Root(root_dir, Profile.CLAUDE, "plugin", f"{name}:"))
            elif root_dir.name == "skills" and self._a_codex_plugin(root_dir.parent):
                self.add_root(Root(root_dir, Profile.SPEC, "codex-plugin"))
        for root_text, path in first_of_root.items():
            root_dir = path.parent.parent
            parent = root_dir.parent.name
            if root_dir in model.roots:
                continue
            if root_dir.name == "skills":
                self.add_root(Root(root_dir, Profile.SPEC, "collection"))
            elif root_dir.name.startswith(".") and parent == "skills" and root_dir.name not in (".git", ".github"):
                # a catalog's sections (skills/.curated/<name>/, skills/.system/<name>/ in openai/skills):
                # its skills are installed by copying them into a runtime's root, so they are checked as
                # a collection's, not reported as undiscovered
                self.add_root(Root(root_dir, Profile.SPEC, "collection"))
            elif skills_of_root[root_text] >= 2 and not _below_conventional_root(root_dir) and not self.below_a_root(root_dir):
                # a directory of skill directories by another name (composio-skills/<name>/, a repository's
                # top level): a catalog installed by copying, checked as a collection. Below a runtime's
                # own root (.claude/skills/group/<name>/) it stays undiscovered (SK302): the runtime
                # scans direct children only
                self.add_root(Root(root_dir, Profile.SPEC, "collection"))
        # a catalog's section of one skill (skills/(learning)/<name>/) beside sections of several
        sections = {split_text(str(path))[0] for path, root in model.roots.items() if root.origin == "collection"}
        for root_text, path in first_of_root.items():
            root_dir = path.parent.parent
            if (root_dir not in model.roots and split_text(root_text)[0] in sections and not _below_conventional_root(root_dir)
                    and not self.below_a_root(root_dir)):
                self.add_root(Root(root_dir, Profile.SPEC, "collection"))

        self.alias_roots()

    def alias_roots(self) -> None:
        """The roots that see skills through a symlinked directory: `.agents/skills -> ../skills` makes
        skills/ a root of the runtime .agents/skills belongs to, and `.claude/skills/pdf -> ../../skills/pdf`
        one skill of it. The skill is analysed once, on its real path, under the root whose runtime is
        the strictest to satisfy (ORIGIN_RANK); model.alias_roots keeps every root that sees it."""
        model = self.model
        for alias, real in sorted(model.aliases.items()):
            root = conventional_root(alias)
            if root is not None:  # the link is a root: every skill of the directory it leads to
                model.alias_roots.setdefault(real, []).append(root)
                continue
            root = conventional_root(alias.parent)
            if root is not None:  # the link is one skill directory of a root
                model.alias_roots.setdefault(real, []).append(root)
        for real, roots in model.alias_roots.items():
            for root in roots:
                self.add_root(root)
            self.consulted.add(str(real))

    def below_a_root(self, directory: Path) -> bool:
        """Whether directory lies inside a configured or plugin root (a plugin's skills/expertise/): its runtime
        scans the root's direct children only, so a group below it is no collection of its own."""
        roots = self.model.roots
        return any((root := roots.get(parent)) is not None and root.origin in ("plugin", "config")
                   for parent in directory.parents)

    def sub_documents(self, skill_paths: list[tuple[Path, Path]]) -> set[str]:
        """The SKILL.md files that are documents of another skill, not skills (SPEC 2.6): those in a
        directory below another SKILL.md's directory (`<skill>/<topic>/SKILL.md`, linked from the parent as
        reading material), unless their directory is a direct child of a runtime's root (a configured or
        plugin root, `.claude/skills`, `.agents/skills`, `.github/skills`, `.agentdeck/skills`), which its
        runtime discovers whatever lies above. Claude Code and VS Code Copilot scan a root's direct children
        only (`claude plugin validate` 2.1.332 reports nothing on such a file; VS Code 1.139
        promptFileLocations.ts); Codex scans `.agents/skills` six levels deep (openai/codex
        codex-rs/core/src/skills/loader.rs, MAX_SCAN_DEPTH), see docs/runtimes.md for what that means here.
        A lowercase `skill.md` counts as a skill file only in a root or a `skills/` directory: elsewhere it is
        a page of documentation (`docs/cli/skill.md`)."""
        cuts = self.workspace.cut_skill_paths(skill_paths)
        skill_dirs: set[str] | None = None  # made when a skill is first looked up in them (most never are)
        roots = {str(path) for path in self.model.roots}
        # each root directory's text (a handful): whether it is a root, and whether it is named skills/
        kinds: dict[str, tuple[bool, bool]] = {}
        found: set[str] = set()
        for (_, folder), (text, root_text, name) in zip(skill_paths, cuts, strict=True):
            kind = kinds.get(root_text)
            if kind is None:
                kind = kinds[root_text] = (root_text in roots or _conventional_root_text(root_text),
                                           split_text(root_text)[1] == "skills")
            a_root, in_skills = kind
            if a_root:
                continue
            if in_skills and name == "SKILL.md":
                continue  # a skills/ collection, even below a repository's own top-level SKILL.md
            if name != "SKILL.md" and not in_skills:
                found.add(text)  # a page named skill.md (docs/cli/skill.md) outside every root: no skill file
                continue
            if skill_dirs is None:
                skill_dirs = {split_text(text)[0] for text, _, _ in cuts}
            top = str(folder)
            ancestor = root_text
            while within(ancestor, top):
                if ancestor in skill_dirs:
                    found.add(text)
                    break
                parent = split_text(ancestor)[0]
                if parent == ancestor:
                    break
                ancestor = parent
        return found

    def make_jobs(self, skill_paths: list[tuple[Path, Path]], outside: list[tuple[Path, Path]]) -> list[SkillJob]:
        """Each SKILL.md placed: the root that owns it decides its profile."""
        model = self.model
        known_paths: set[Path] | None = None
        folders = model.folders
        # by the path's text: hashing a Path costs more than the rest of a job
        jobs: dict[str, SkillJob] = {}
        # the root of each root directory, by its text: a Path per skill would cost more than the lookup
        roots_by_text = {str(root_path): root for root_path, root in model.roots.items()}
        # a file lies in a folder when its text starts with the folder's and a separator (see within())
        folder_prefixes = {folder: str(folder).rstrip(os.sep) + os.sep for folder in folders}
        all_prefixes = tuple(folder_prefixes.values())
        placed = list(zip(skill_paths, self.workspace.cut_skill_paths(skill_paths), strict=True))
        aliased = {str(real): roots for real, roots in model.alias_roots.items()}
        for path, folder in outside:
            text = str(path)
            root_text, _, _, name = split_skill_text(text)
            placed.append(((path, folder), (text, root_text, name)))
        documents, listed = self.documents, self.listed_skills
        # the folder's prefix, looked up again only when the folder changes (a Path hashes in Python code)
        last_folder: Path | None = None
        prefix: str | None = None
        for (path, folder), (text, root_text, name) in placed:
            if text in jobs or text in documents:
                continue
            if name != "SKILL.md":
                if known_paths is None:
                    known_paths = {path for path, _ in skill_paths}
                if (path.parent / "SKILL.md") in known_paths:
                    continue  # a stray lowercase copy beside the real file
            owner = roots_by_text.get(root_text)
            if listed and owner is not None and owner.origin == "plugin":
                owner = listed.get(split_text(text)[0], owner)
            if aliased:
                owner = self.best_root(owner, root_text, text, aliased)
            if folder is not last_folder:
                last_folder, prefix = folder, folder_prefixes.get(folder)
            external = not (prefix is not None and text.startswith(prefix)) and not text.startswith(all_prefixes)
            # (a tuple made as SkillJob's constructor makes it, without the call: one per skill, twice in a check)
            jobs[text] = tuple.__new__(SkillJob, (path, owner, owner.profile if owner else Profile.SPEC,
                                                  name != "SKILL.md", external))
        return list(jobs.values())

    def best_root(self, owner: Root | None, root_text: str, text: str, aliased: dict[str, list[Root]]) -> Root | None:
        """The root a skill is analysed under when links let other roots see it too: the one whose
        runtime is the strictest (_ALIAS_RANK: a Deck's, then the spec's, then Claude Code's), so that
        no runtime's refusal is hidden by another's leniency; the others' origins go with it (Root.also)."""
        candidates = [self.model.roots.get(root.path, root) for root in
                      (*aliased.get(root_text, ()), *aliased.get(split_text(text)[0], ()))]
        if not candidates:
            return owner
        seeing = ([owner] if owner is not None else []) + candidates
        best = min(seeing, key=lambda root: _ALIAS_RANK[root.origin])
        also = tuple(sorted({root.origin for root in seeing if root is not best} - {best.origin}))
        return Root(best.path, best.profile, best.origin, best.prefix, also) if also else best

    def list_skill_files(self, root: Path) -> list[tuple[Path, Path]]:
        found = []
        self.consulted.add(str(root))
        try:
            for child in sorted(root.iterdir()):
                candidate = child / "SKILL.md"
                self.consulted.update((str(child), str(candidate)))
                if candidate.is_file():
                    found.append((candidate, root))
        except OSError:
            pass
        return found

    def _a_plugin(self, directory: Path) -> bool:
        """Whether a directory with a `skills/` is a Claude Code plugin by its `.claude-plugin/` folder: one that holds
        a marketplace.json and no plugin.json makes it a marketplace, which is a plugin only where one of its
        entries names it (plugin_roots); any other is a plugin's, whose manifest is optional."""
        marker = directory / ".claude-plugin"
        if not self.exists(marker):
            return False
        self.consulted.update((str(marker / "marketplace.json"), str(marker / "plugin.json")))
        return not (marker / "marketplace.json").is_file() or (marker / "plugin.json").is_file()

    def _a_codex_plugin(self, directory: Path) -> bool:
        """Whether a directory is a Codex plugin (`.codex-plugin/plugin.json`, Codex 0.171.0): its skills are Codex's."""
        manifest = directory / ".codex-plugin" / "plugin.json"
        self.consulted.add(str(manifest))
        return manifest.is_file()

    def plugin_name(self, plugin_dir: Path) -> str:
        """The plugin's name: its manifest's `name`, else its marketplace entry's, else its directory's."""
        if plugin_dir in self.plugin_names:
            return self.plugin_names[plugin_dir]
        manifest = self.plugin_manifest(plugin_dir)
        name = plugin_dir.name
        written = manifest.get("name")
        if isinstance(written, str) and written.strip():
            name = written.strip()
        self.plugin_names[plugin_dir] = name
        return name

    def plugin_manifest(self, plugin_dir: Path) -> dict[str, object]:
        """plugin_dir/.claude-plugin/plugin.json as a mapping ({} when missing or not JSON)."""
        return _json_object(plugin_dir / ".claude-plugin" / "plugin.json", self.consulted)

    def plugin_roots(self) -> None:
        """The skill roots of Claude Code plugins declared in files rather than found by convention.

        A plugin listed in a marketplace (`.claude-plugin/marketplace.json`, entries whose `source` is a
        relative path) is one even without its own `plugin.json`, named by the entry ("plugin manifest
        is optional", Claude Code plugins reference). A plugin's `skills` (in plugin.json or in its
        marketplace entry; a string or a list of paths) names more skill directories, or directories
        of them; the default `skills/` stays (Claude Code 2.1.136: a `skills` entry no longer hides it)."""
        marketplaces = [directory for directory in self.directories if directory.endswith(os.sep + ".claude-plugin")]
        plugins: dict[Path, list[tuple[str | None, object]]] = {}
        for directory in sorted(marketplaces):
            base = Path(directory).parent
            data = _json_object(Path(directory) / "marketplace.json", self.consulted)
            metadata = data.get("metadata")
            plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
            entries = data.get("plugins")
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict):
                    continue
                source = entry.get("source")
                if isinstance(source, dict) and source.get("source") in (None, "local", "directory"):
                    source = source.get("path")
                if not isinstance(source, str) or "://" in source or source.startswith(("/", "~")):
                    continue  # a git, GitHub or URL source: not in this workspace
                if isinstance(plugin_root, str) and not source.startswith(("./", "../")) and source not in (".", ""):
                    source = os.path.join(plugin_root, source)
                plugin_dir = Path(os.path.normpath(base / source))
                if not within(plugin_dir, base) or not self.exists(plugin_dir):
                    continue
                name = entry.get("name")
                named = name.strip() if isinstance(name, str) and name.strip() else None
                if plugin_dir not in self.plugin_names and not self.plugin_manifest(plugin_dir).get("name") and named:
                    self.plugin_names[plugin_dir] = named
                # several entries may share a source (anthropics/skills: "./" twice, each naming its skills)
                plugins.setdefault(plugin_dir, []).append((named, entry.get("skills")))
        for directory in marketplaces:  # every .claude-plugin directory: a plugin.json may be in it
            plugins.setdefault(Path(directory).parent, [])
        for plugin_dir, listed in sorted(plugins.items()):
            manifest = self.plugin_manifest(plugin_dir)
            if not (manifest or listed):
                continue  # a .claude-plugin directory with neither file: the convention below decides
            own = self.plugin_name(plugin_dir)
            # (the plugin's name, a path it names): the manifest's under the plugin's own name, an
            # entry's under the entry's
            paths: list[tuple[str, str]] = []
            for name, value in [(own, manifest.get("skills")), *listed]:
                values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
                paths += [(name or own, item) for item in values if isinstance(item, str)]
            default = plugin_dir / "skills"
            top_skill = plugin_dir / "SKILL.md"
            self.consulted.add(str(top_skill))
            if not paths and not self.exists(default) and top_skill.is_file():
                # a plugin whose SKILL.md is at its top, with no skills/ and no `skills` entry: Claude Code
                # 2.1.332 loads it as the plugin's one skill (`claude plugin validate` lists <plugin>:<name>)
                paths = [(own, "./")]
            if self.exists(default):
                self.add_root(Root(default, Profile.CLAUDE, "plugin", own + ":",
                                   listed=isinstance(manifest.get("skills"), (str, list))))
            for name, written in paths:
                prefix = name + ":"
                target = Path(os.path.normpath(plugin_dir / written))
                if not within(target, plugin_dir) or not self.exists(target):
                    continue  # outside the plugin, or a file: Claude Code reports it and loads nothing
                self.consulted.add(str(target / "SKILL.md"))
                # a skill directory itself ("./skills/xlsx", or "./" for a plugin that is one skill), or a
                # directory of them ("./custom")
                if (target / "SKILL.md").is_file():
                    # a skill directory named by one plugin, in a directory other plugins' skills may
                    # share (anthropics/skills: two marketplace entries over one skills/): its name
                    # takes this plugin's prefix, whatever the root's
                    root = Root(target.parent, Profile.CLAUDE, "plugin", prefix)
                    self.listed_skills.setdefault(str(target), Root(target.parent, Profile.CLAUDE, "plugin", prefix,
                                                                    whole=target == plugin_dir))
                    self.add_root(root)
                else:
                    self.add_root(Root(target, Profile.CLAUDE, "plugin", prefix))



# The roots code is unlikely to claim: a skill under one is placed before the code files are read as
# it will be once they are (unless a Deck or plugin says otherwise, which the final jobs show).
SETTLED_ORIGINS = ("config", "agentdeck", "claude", "spec")


def speculative_jobs(workspace: Workspace, model: Model, skill_paths: list[tuple[Path, Path]],
                     directories: set[str]) -> list[SkillJob]:
    """The jobs of the skills under roots that code is unlikely to claim (configured roots and the
    conventional .agentdeck, .claude, .agents and .github ones), placed as they will be unless a
    Deck or plugin in the code files says otherwise: a loader that starts on them early (check's,
    the server's) compares them with the final jobs."""
    places = Places(workspace, Model(folders=model.folders, configs=model.configs, aliases=model.aliases), directories)
    places.base_roots(skill_paths)
    return [job for job in places.make_jobs(skill_paths, []) if job.root is not None and job.root.origin in SETTLED_ORIGINS]
