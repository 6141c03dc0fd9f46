"""The workspace model: roots, registries, skills and agents, built from parsed files.

`Workspace` owns the file contents (disk, or an editor's open buffer over it)
and their parses, cached by content, so re-analysis after an edit reparses only
the edited file. `Model` is what the rules, hovers and disclosures read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from .config import Config, LoadedConfig, load_pyproject, merge
from .discovery import Listing, is_skill_filename, walk, within
from .model import Profile, Span
from .pysource import Call, PySource, PyValue, parse_python
from .skillfile import SkillFile, parse_skill
from .textutil import FileTooLarge, read_text

USER_SKILLS_ENV = "SKILL_LSP_USER_SKILLS_DIR"


@dataclass(frozen=True)
class Root:
    path: Path
    profile: Profile
    origin: str  # agentdeck | deck | claude | plugin | user | spec | collection | config
    prefix: str = ""

    def describe(self) -> str:
        return f"{self.path} ({self.origin})"


@dataclass(eq=False)  # an entry is itself: registries and listings compare by identity
class SkillEntry:
    path: Path
    file: SkillFile
    root: Root | None
    profile: Profile
    # the file is named skill.md (or another case) instead of SKILL.md
    misnamed: bool = False
    external: bool = False  # outside the workspace (user skills directory)
    directory: Path = field(init=False, repr=False)
    dir_name: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.directory = self.path.parent
        self.dir_name = self.directory.name

    @property
    def key(self) -> str:
        """The name agents list it by: AgentDeck's registry is keyed by the frontmatter name,
        Claude's by the directory name (with a plugin's prefix)."""
        if self.profile == Profile.AGENTDECK:
            name = self.name
            if name is not None and name.strip():
                return name
        return (self.root.prefix if self.root else "") + self.dir_name

    @property
    def name(self) -> str | None:
        return self.file.get_str("name")

    @property
    def description(self) -> str | None:
        return self.file.get_str("description")

    def body_preview(self, lines: int = 8) -> str:
        body = [line for line in self.file.lines[self.file.body_start :]]
        while body and not body[0].strip():
            body.pop(0)
        return "\n".join(body[:lines]).rstrip()


@dataclass
class Registry:
    label: str
    roots: list[Root]
    skills: dict[str, list[SkillEntry]] = field(default_factory=dict)
    # False when a root could not be evaluated statically: unknown names are not reported
    complete: bool = True

    def add(self, skill: SkillEntry) -> None:
        bucket = self.skills.setdefault(skill.key, [])
        if not any(entry is skill for entry in bucket):
            bucket.append(skill)

    def lookup(self, name: str) -> SkillEntry | None:
        found = self.skills.get(name)
        return found[0] if found else None

    def names(self) -> list[str]:
        return sorted(self.skills)


@dataclass
class PythonEntry:
    path: Path
    source: PySource
    folder: Path


@dataclass
class DeckEntry:
    path: Path
    call: Call
    folder: Path
    # None: the Deck has no skills= at all
    registry: Registry | None
    # (root path, value span, exists) for every statically known root
    declared_roots: list[tuple[Path, Span, bool]] = field(default_factory=list)
    dynamic: bool = False


@dataclass
class AgentEntry:
    path: Path
    call: Call
    folder: Path
    decks: list[DeckEntry] = field(default_factory=list)
    # used when the agent is in no Deck: the project's default root + every Deck root
    fallback: Registry | None = None

    @property
    def variable(self) -> str | None:
        return self.call.assigned_to

    @property
    def display_name(self) -> str:
        return self.call.string_arg("name") or self.call.assigned_to or f"agent at line {self.call.span.start.line + 1}"

    def registries(self) -> list[tuple[DeckEntry | None, Registry | None]]:
        if self.decks:
            return [(deck, deck.registry) for deck in self.decks]
        return [(None, self.fallback)]

    def skill_values(self) -> list[PyValue]:
        value = self.call.keyword("skills")
        if value is None or value.kind not in ("list", "tuple"):
            return []
        return value.items


@dataclass
class OptionsEntry:
    path: Path
    call: Call
    folder: Path
    registry: Registry


@dataclass
class Model:
    folders: list[Path]
    skills: dict[Path, SkillEntry] = field(default_factory=dict)
    roots: dict[Path, Root] = field(default_factory=dict)
    pythons: dict[Path, PythonEntry] = field(default_factory=dict)
    decks: list[DeckEntry] = field(default_factory=list)
    agents: list[AgentEntry] = field(default_factory=list)
    options: list[OptionsEntry] = field(default_factory=list)
    configs: dict[Path, LoadedConfig] = field(default_factory=dict)
    unreadable: dict[Path, str] = field(default_factory=dict)
    # skill key -> agents / options that list it (with the listing's span)
    listings: dict[str, list[tuple[Path, Span, AgentEntry | OptionsEntry]]] = field(default_factory=dict)
    project_registries: dict[Path, Registry] = field(default_factory=dict)
    # the nearest pyproject.toml holding [tool.skill-lsp] for a directory (None: none), filled as asked
    _config_dirs: dict[Path, Path | None] = field(default_factory=dict, repr=False)
    # path -> the Decks, agents and ClaudeAgentOptions it defines; rebuilt after `entries_changed()`
    _entries: dict[Path, tuple[list[DeckEntry], list[AgentEntry], list[OptionsEntry]]] | None = field(default=None, repr=False)

    def entries_in(self, path: Path) -> tuple[list[DeckEntry], list[AgentEntry], list[OptionsEntry]]:
        if self._entries is None:
            entries: dict[Path, tuple[list[DeckEntry], list[AgentEntry], list[OptionsEntry]]] = {}
            for deck in self.decks:
                entries.setdefault(deck.path, ([], [], []))[0].append(deck)
            for agent in self.agents:
                entries.setdefault(agent.path, ([], [], []))[1].append(agent)
            for options in self.options:
                entries.setdefault(options.path, ([], [], []))[2].append(options)
            self._entries = entries
        return self._entries.get(path, ([], [], []))

    def entries_changed(self) -> None:
        self._entries = None

    def folder_of(self, path: Path) -> Path:
        best = self.folders[0]
        for folder in self.folders:
            if within(path, folder) and len(folder.parts) >= len(best.parts):
                best = folder
        return best

    def config_for(self, path: Path, base: Config) -> Config:
        """The nearest [tool.skill-lsp] at or above path, under the editor/CLI settings."""
        directory = path.parent
        if directory not in self._config_dirs:
            self._config_dirs[directory] = self._nearest_config(directory, self.folder_of(path))
        found = self._config_dirs[directory]
        return merge(self.configs[found].config, base) if found is not None else base

    def _nearest_config(self, directory: Path, folder: Path) -> Path | None:
        while True:
            candidate = directory / "pyproject.toml"
            if candidate in self.configs:
                return candidate
            if directory == folder or directory.parent == directory or not within(directory, folder):
                return None
            directory = directory.parent

    def skills_in(self, registry: Registry) -> list[SkillEntry]:
        return [skill for bucket in registry.skills.values() for skill in bucket]

    def agents_using(self, skill: SkillEntry) -> list[tuple[Path, Span, AgentEntry | OptionsEntry]]:
        result = []
        for path, span, owner in self.listings.get(skill.key, []):
            if isinstance(owner, AgentEntry):
                registries = [registry for _, registry in owner.registries() if registry is not None]
            else:
                registries = [owner.registry]
            if any(skill in registry.skills.get(skill.key, []) for registry in registries):
                result.append((path, span, owner))
        return result


# -- the workspace: files, their parses, and building the model ---------------


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
        self._listings: dict[Path, Listing] = {}
        self._disk_texts: dict[Path, tuple[tuple[int, int], str]] = {}
        self.model: Model | None = None

    # -- file access ---------------------------------------------------------

    def rescan(self) -> None:
        self._listings.clear()

    def _listing(self, folder: Path) -> Listing:
        if folder not in self._listings:
            loaded = load_pyproject(folder / "pyproject.toml")
            exclude = self.settings.exclude + (loaded.config.exclude if loaded else ())
            self._listings[folder] = walk(folder, exclude)
        return self._listings[folder]

    def text_of(self, path: Path) -> str:
        """Raises OSError / FileTooLarge when the file cannot be read."""
        if path in self.overlays:
            return self.overlays[path]
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._disk_texts.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = read_text(path)
        self._disk_texts[path] = (stamp, text)
        return text

    def _parse(self, path: Path, text: str, python: bool) -> object:
        cached = self._cache.get(path)
        if cached is not None and cached.text == text:
            return cached.value
        value: object = parse_python(text, PurePath(path)) if python else parse_skill(text)
        self._cache[path] = _Parsed(text, value)
        return value

    def forget(self, path: Path) -> None:
        self._cache.pop(path, None)
        self._disk_texts.pop(path, None)

    # -- building ------------------------------------------------------------

    def build(self) -> Model:
        model = Model(folders=self.folders)
        skill_paths: list[tuple[Path, Path]] = []
        python_paths: list[tuple[Path, Path]] = []
        directories: set[Path] = set()
        for folder in self.folders:
            listing = self._listing(folder)
            directories |= listing.directories
            for pyproject in listing.pyprojects:
                loaded = load_pyproject(pyproject)
                if loaded is not None:
                    model.configs[pyproject] = loaded
            skill_paths += [(path, folder) for path in listing.skill_files]
            python_paths += [(path, folder) for path in listing.python_files]
        listed = {p for p, _ in skill_paths} | {p for p, _ in python_paths}
        extra = {path for path in self.overlays if path not in listed}
        for path in sorted(extra):
            folder = model.folder_of(path)
            if not within(path, folder):
                continue
            if is_skill_filename(path.name):
                skill_paths.append((path, folder))
            elif path.suffix == ".py":
                python_paths.append((path, folder))

        for path, folder in python_paths:
            try:
                text = self.text_of(path)
            except (OSError, FileTooLarge):
                continue
            source = self._parse(path, text, python=True)
            assert isinstance(source, PySource)
            if source.calls:
                model.pythons[path] = PythonEntry(path, source, folder)

        _Builder(self, model, directories).run(skill_paths)
        self.model = model
        return model

    def user_skills_dir(self) -> Path | None:
        """Editor/CLI setting, then `user-skills-dir` of a folder's pyproject.toml, then the environment."""
        configured = self.settings.user_skills_dir
        if configured is not None:
            return configured
        for folder in self.folders:
            loaded = load_pyproject(folder / "pyproject.toml")
            if loaded is not None and loaded.config.user_skills_dir is not None:
                return loaded.config.user_skills_dir
        env = os.environ.get(USER_SKILLS_ENV)
        if env is not None:
            return Path(env).expanduser() if env else None
        return Path.home() / ".claude" / "skills"


_ORIGIN_RANK = {"config": 0, "deck": 1, "agentdeck": 1, "plugin": 2, "claude": 3, "user": 3, "spec": 4, "collection": 5}


class _Builder:
    def __init__(self, workspace: Workspace, model: Model, directories: set[Path]) -> None:
        self.workspace = workspace
        self.model = model
        self.directories = directories
        self.plugin_names: dict[Path, str] = {}
        self.tables: dict[tuple[Path, ...], dict[str, list[SkillEntry]]] = {}

    def exists(self, path: Path) -> bool:
        if path in self.directories:
            return True
        try:
            return path.is_dir()
        except OSError:
            return False

    def add_root(self, root: Root) -> Root:
        current = self.model.roots.get(root.path)
        if current is None or _ORIGIN_RANK[root.origin] < _ORIGIN_RANK[current.origin]:
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
        """The nearest directory at or above path's directory that holds marker (e.g. .agentdeck)."""
        directory = path.parent
        while within(directory, folder):
            if (directory / marker) in self.directories or self.exists(directory / marker):
                return directory
            if directory == folder or directory.parent == directory:
                break
            directory = directory.parent
        return folder

    def run(self, skill_paths: list[tuple[Path, Path]]) -> None:
        model = self.model
        # 1. roots from configuration
        base = self.workspace.settings
        for loaded in model.configs.values():
            for setting in loaded.config.roots:
                self.add_root(Root(Path(os.path.normpath(setting.path)), setting.profile, "config"))
        for setting in base.roots:
            self.add_root(Root(Path(os.path.normpath(setting.path)), setting.profile, "config"))

        # 2. roots by convention, from where SKILL.md files are
        for path, _ in skill_paths:
            root_dir = path.parent.parent
            parent = root_dir.parent.name
            if root_dir.name == "skills":
                if parent == ".agentdeck":
                    self.add_root(Root(root_dir, Profile.AGENTDECK, "agentdeck"))
                elif parent == ".claude":
                    self.add_root(Root(root_dir, Profile.CLAUDE, "claude"))
                elif parent in (".agents", ".github"):
                    self.add_root(Root(root_dir, Profile.SPEC, "spec"))
                elif self.exists(root_dir.parent / ".claude-plugin"):
                    name = self.plugin_name(root_dir.parent)
                    self.add_root(Root(root_dir, Profile.CLAUDE, "plugin", f"{name}:"))
                else:
                    self.add_root(Root(root_dir, Profile.SPEC, "collection"))

        # 3. roots and registries from code
        for entry in model.pythons.values():
            for call in entry.source.calls:
                if call.kind in ("deck", "deck_from_project"):
                    model.decks.append(self.deck(entry, call))
        user_dir = self.workspace.user_skills_dir()
        user_skills: list[tuple[Path, Path]] = []
        if user_dir is not None and self.exists(user_dir) and not any(within(user_dir, f) for f in model.folders):
            self.add_root(Root(user_dir, Profile.CLAUDE, "user"))
            user_skills = self.list_skill_files(user_dir)

        options_calls = [
            (entry, call) for entry in model.pythons.values() for call in entry.source.calls
            if call.kind == "claude_options"
        ]
        plugin_skills: list[tuple[Path, Path]] = []
        for entry, call in options_calls:
            for plugin_dir in self.plugin_dirs(entry, call):
                name = self.plugin_name(plugin_dir)
                root = self.add_root(Root(plugin_dir / "skills", Profile.CLAUDE, "plugin", f"{name}:"))
                if not any(within(root.path, f) for f in model.folders):
                    plugin_skills += self.list_skill_files(root.path)

        # 4. skills
        known_paths = {path for path, _ in skill_paths}
        folders = model.folders
        for path, folder in skill_paths + user_skills + plugin_skills:
            if path in model.skills:
                continue
            if path.name != "SKILL.md" and (path.parent / "SKILL.md") in known_paths:
                continue  # a stray lowercase copy beside the real file
            try:
                text = self.workspace.text_of(path)
            except (OSError, FileTooLarge) as error:
                model.unreadable[path] = str(error) if isinstance(error, FileTooLarge) else f"cannot be read: {error.strerror or error}"
                continue
            parsed = self.workspace._parse(path, text, python=False)
            assert isinstance(parsed, SkillFile)
            owner = model.roots.get(path.parent.parent)
            external = not (folder in folders and within(path, folder)) and not any(within(path, f) for f in folders)
            model.skills[path] = SkillEntry(
                path, parsed, owner, owner.profile if owner else Profile.SPEC, misnamed=path.name != "SKILL.md",
                external=external,
            )

        # 5. registries
        by_root: dict[Path, list[SkillEntry]] = {}
        for skill in model.skills.values():
            if skill.root is not None and not skill.misnamed:
                by_root.setdefault(skill.root.path, []).append(skill)
        self.by_root = by_root
        for deck in model.decks:
            if deck.registry is not None:
                self.fill(deck.registry)
        for entry in model.pythons.values():
            for call in entry.source.calls:
                if call.kind == "agent":
                    model.agents.append(AgentEntry(entry.path, call, entry.folder))
        self.assign_decks()
        for entry, call in options_calls:
            model.options.append(OptionsEntry(entry.path, call, entry.folder, self.claude_registry(entry, call, user_dir)))
        self.index_listings()

    def list_skill_files(self, root: Path) -> list[tuple[Path, Path]]:
        found = []
        try:
            for child in sorted(root.iterdir()):
                candidate = child / "SKILL.md"
                if candidate.is_file():
                    found.append((candidate, root))
        except OSError:
            pass
        return found

    def plugin_name(self, plugin_dir: Path) -> str:
        if plugin_dir in self.plugin_names:
            return self.plugin_names[plugin_dir]
        name = plugin_dir.name
        manifest = plugin_dir / ".claude-plugin" / "plugin.json"
        try:
            data = json.loads(read_text(manifest, 1024 * 1024))
            if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"].strip():
                name = data["name"].strip()
        except (OSError, FileTooLarge, ValueError):
            pass
        self.plugin_names[plugin_dir] = name
        return name

    def fill(self, registry: Registry) -> None:
        """Add the skills of the registry's roots; registries over the same roots share one table."""
        key = tuple(root.path for root in registry.roots)
        shared = self.tables.get(key)
        if shared is not None:
            registry.skills = shared
            return
        for root in registry.roots:
            for skill in self.by_root.get(root.path, []):
                registry.add(skill)
        self.tables[key] = registry.skills

    def deck(self, entry: PythonEntry, call: Call) -> DeckEntry:
        folder = entry.folder
        value = call.keyword("skills")
        roots: list[Root] = []
        declared: list[tuple[Path, Span, bool]] = []
        dynamic = False
        has_skills = value is not None and value.kind != "none"
        if call.kind == "deck_from_project":
            project = self.project_dir(entry.path, folder, ".agentdeck")
            default = project / ".agentdeck" / "skills"
            roots.append(self.add_root(Root(default, Profile.AGENTDECK, "agentdeck")))
            has_skills = True
        if value is not None and value.kind != "none":
            items = value.items if value.kind in ("list", "tuple") else [value]
            for item in items:
                if item.path is None:
                    dynamic = True
                    continue
                resolved, exists = self.resolve(item.path, entry.path, folder)
                declared.append((resolved, item.span, exists))
                roots.append(self.add_root(Root(resolved, Profile.AGENTDECK, "deck")))
        registry = None
        if has_skills:
            label = f"Deck at {entry.path.name}:{call.span.start.line + 1}"
            registry = Registry(label, roots, complete=not dynamic)
        return DeckEntry(entry.path, call, folder, registry, declared, dynamic)

    def assign_decks(self) -> None:
        model = self.model
        members: dict[str, list[DeckEntry]] = {}
        inline: dict[int, list[DeckEntry]] = {}
        for deck in model.decks:
            agents = deck.call.keyword("agents")
            if agents is None or agents.kind not in ("list", "tuple"):
                continue
            for item in agents.items:
                if item.call is not None:
                    inline.setdefault(id(item.call), []).append(deck)
                elif item.name:
                    members.setdefault(item.name, []).append(deck)
        fallbacks: dict[Path, Registry] = {}
        for agent in model.agents:
            decks = list(inline.get(id(agent.call), []))
            if agent.variable:
                for deck in members.get(agent.variable, []):
                    if deck not in decks and self.same_module_or_imported(agent, deck):
                        decks.append(deck)
            agent.decks = decks
            if not decks:
                folder = agent.folder
                if folder not in fallbacks:
                    fallbacks[folder] = self.project_registry(folder)
                agent.fallback = fallbacks[folder]
        model.project_registries = fallbacks

    def same_module_or_imported(self, agent: AgentEntry, deck: DeckEntry) -> bool:
        """A Deck's agents=[x] names this agent when x is defined in the Deck's file or imported there."""
        if agent.path == deck.path:
            return True
        source = self.model.pythons[deck.path].source
        imported = source.imports.get(agent.variable or "")
        if imported is None:
            # not a plain import we can follow (star import, attribute access): match by name
            return not any(other.variable == agent.variable and other.path == deck.path for other in self.model.agents)
        module, name = imported
        if name != agent.variable:
            return False
        stem = module.rsplit(".", 1)[-1]
        return agent.path.stem == stem or (agent.path.name == "__init__.py" and agent.path.parent.name == stem) or module.startswith(".")

    def project_registry(self, folder: Path) -> Registry:
        """For an agent in no Deck: every AgentDeck root of the project."""
        roots = [root for root in self.model.roots.values()
                 if root.profile == Profile.AGENTDECK and root.origin in ("agentdeck", "deck") and within(root.path, folder)]
        registry = Registry(f"the AgentDeck roots of {folder.name}", roots)
        if any(deck.dynamic for deck in self.model.decks if deck.folder == folder):
            registry.complete = False
        self.fill(registry)
        return registry

    def plugin_dirs(self, entry: PythonEntry, call: Call) -> list[Path]:
        value = call.keyword("plugins")
        found: list[Path] = []
        if value is None or value.kind not in ("list", "tuple"):
            return found
        for item in value.items:
            if item.kind != "dict":
                continue
            fields = {key.text: val for key, val in item.pairs if key.kind == "str"}
            kind = fields.get("type")
            path = fields.get("path")
            if kind is not None and kind.text != "local":
                continue
            if path is not None and path.path is not None:
                resolved, _ = self.resolve(path.path, entry.path, entry.folder)
                found.append(resolved)
        return found

    def claude_registry(self, entry: PythonEntry, call: Call, user_dir: Path | None) -> Registry:
        complete = True
        sources: set[str] = {"user", "project"}
        setting = call.keyword("setting_sources")
        if setting is not None and setting.kind in ("list", "tuple"):
            if all(item.kind == "str" and item.text is not None for item in setting.items):
                sources = {item.text for item in setting.items if item.text}
            else:
                complete = False
        elif setting is not None and setting.kind != "none":
            complete = False
        roots: list[Root] = []
        if "project" in sources:
            bases: list[Path] = []
            cwd = call.keyword("cwd")
            if cwd is not None and cwd.kind != "none":
                if cwd.path is not None:
                    bases.append(self.resolve(cwd.path, entry.path, entry.folder)[0])
                else:
                    complete = False
            else:
                bases.append(entry.folder)
                bases.append(self.project_dir(entry.path, entry.folder, ".claude"))
            add_dirs = call.keyword("add_dirs")
            if add_dirs is not None and add_dirs.kind in ("list", "tuple"):
                for item in add_dirs.items:
                    if item.path is None:
                        complete = False
                        continue
                    bases.append(self.resolve(item.path, entry.path, entry.folder)[0])
            elif add_dirs is not None and add_dirs.kind != "none":
                complete = False
            for base in bases:
                where = base / ".claude" / "skills"
                roots.append(self.model.roots.get(where) or Root(where, Profile.CLAUDE, "claude"))
        if "user" in sources and user_dir is not None:
            roots.append(self.model.roots.get(user_dir) or Root(user_dir, Profile.CLAUDE, "user"))
        plugins = call.keyword("plugins")
        if plugins is not None and plugins.kind not in ("list", "tuple", "none"):
            complete = False
        for plugin_dir in self.plugin_dirs(entry, call):
            plugin_root = self.model.roots.get(plugin_dir / "skills")
            if plugin_root is not None:
                roots.append(plugin_root)
        unique: list[Root] = []
        for root in roots:
            if root not in unique:
                unique.append(root)
        registry = Registry(f"ClaudeAgentOptions at {entry.path.name}:{call.span.start.line + 1}", unique, complete=complete)
        # keyed by the directory name, prefixed for plugins
        self.fill(registry)
        return registry

    def index_listings(self) -> None:
        model = self.model
        for agent in model.agents:
            for item in agent.skill_values():
                if item.kind == "str" and item.text is not None:
                    model.listings.setdefault(item.text, []).append((agent.path, item.span, agent))
        for options in model.options:
            value = options.call.keyword("skills")
            if value is not None and value.kind in ("list", "tuple"):
                for item in value.items:
                    if item.kind == "str" and item.text is not None:
                        model.listings.setdefault(item.text, []).append((options.path, item.span, options))
