"""The workspace model: roots, registries, skills and agents, and who lists what — what the rules, hovers and disclosures read.

Only the model lives here. The files it is built from and their parses are workspace.py's, where
skills are and which root owns them roots.py's, and building it (and updating it after an edit)
builder.py's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .codecalls import Call, PySource, PyValue
from .config import CONFIG_FILES, Config, LoadedConfig, merge
from .model import Finding, Profile, Span
from .nearest import NameIndex
from .pathtext import split_skill_text, within
from .runtimes import Runtime, discovering
from .skillfacts import RawSpan as RawSpan  # (imported from here too)
from .skillfacts import SkillFacts as SkillFacts
from .skillfile import SkillFile


@dataclass(frozen=True)
class Root:
    path: Path
    profile: Profile
    origin: str  # agentdeck | deck | claude | plugin | codex-plugin | user | spec | collection | config
    prefix: str = ""
    # the origins of the other roots that see this root's skills through a symlinked directory
    # (`.claude/skills -> ../skills`): their runtimes load the skills too
    also: tuple[str, ...] = ()
    # a plugin that is one skill (its SKILL.md at the plugin's top, `"skills": ["./"]`): Claude Code names
    # the skill by its frontmatter name (CHANGELOG 2.1.94), not by its directory
    whole: bool = False
    # a plugin's skills/ whose plugin.json says which skills the plugin ships (`"skills": [...]`): a group below it
    # that the list leaves out is left out on purpose (SK302)
    listed: bool = False

    def describe(self) -> str:
        return f"{self.path} ({self.origin})"


class SkillEntry:
    """A SKILL.md in the model. Its parse (`file`) is loaded on first use when the entry was
    made from facts alone; an entry is itself (registries and listings compare by identity)."""

    # slots: tens of thousands are made on a cold start, and attributes set faster in slots
    __slots__ = ("_directory", "_file", "_load", "dir_name", "directory_text", "external", "facts", "local_findings",
                 "misnamed", "path", "profile", "root")

    def __init__(self, path: Path, file: SkillFile | None, root: Root | None, profile: Profile, *,
                 misnamed: bool = False, external: bool = False, facts: SkillFacts | None = None,
                 load: Callable[[Path], SkillFile] | None = None) -> None:
        self.path = path
        self.root = root
        self.profile = profile
        # the file is named skill.md (or another case) instead of SKILL.md
        self.misnamed = misnamed
        self.external = external  # outside the workspace (user skills directory)
        self._directory: Path | None = None
        # from the path's text: a Path for the directory costs more than the rest of an entry
        _, self.directory_text, self.dir_name, _ = split_skill_text(str(path))
        # the findings of the file's own rules, when they came with the facts (check's cache)
        self.local_findings: list[Finding] | None = None
        self._file = file
        self._load = load
        if facts is None:
            assert file is not None, "a skill entry needs its parse or its facts"
            facts = SkillFacts.of(file)
        self.facts = facts

    @classmethod
    def of_job(cls, job: SkillJob, file: SkillFile) -> SkillEntry:
        """__init__'s entry for a job and its parse, made without the call's keywords (each analysis makes one)."""
        skill = object.__new__(cls)
        skill.path, skill.root, skill.profile, skill.misnamed, skill.external = job
        _, skill.directory_text, skill.dir_name, _ = split_skill_text(str(job.path))
        skill._directory = skill.local_findings = skill._load = None
        skill._file = file
        skill.facts = SkillFacts.of(file)
        return skill

    @classmethod
    def analysed(cls, job: SkillJob, facts: SkillFacts, findings: list[Finding],
                 load: Callable[[Path], SkillFile]) -> SkillEntry:
        """__init__'s entry from a skill's analysis (facts and its own findings), made without the call:
        check makes one for each of tens of thousands of skills as their analyses arrive."""
        skill = object.__new__(cls)  # (written out: the parent makes one per skill as the analyses arrive)
        skill.path, skill.root, skill.profile, skill.misnamed, skill.external = job
        _, skill.directory_text, skill.dir_name, _ = split_skill_text(str(job.path))
        skill._directory = skill._file = None
        skill._load = load
        skill.facts = facts
        skill.local_findings = list(findings)
        return skill

    @property
    def directory(self) -> Path:
        if self._directory is None:
            self._directory = self.path.parent
        return self._directory

    @property
    def file(self) -> SkillFile:
        if self._file is None:
            assert self._load is not None
            self._file = self._load(self.path)
        return self._file

    @file.setter
    def file(self, parsed: SkillFile) -> None:
        self._file = parsed
        self.facts = SkillFacts.of(parsed)
        self.local_findings = None

    def __repr__(self) -> str:
        return f"SkillEntry({self.path}, {self.profile.value})"

    @property
    def key(self) -> str:
        """The name agents list it by: AgentDeck's registry is keyed by the frontmatter name,
        Claude's by the directory name (with a plugin's prefix)."""
        if self.profile == Profile.AGENTDECK or (self.root is not None and self.root.whole):
            name = self.facts.name
            if name is not None and name.strip():
                return (self.root.prefix if self.root is not None and self.root.whole else "") + (
                    name if self.profile == Profile.AGENTDECK else name.strip())
        return (self.root.prefix if self.root else "") + self.dir_name

    @property
    def runtimes(self) -> tuple[Runtime, ...]:
        """The runtimes that discover this skill, by its root (runtimes.discovering), and by the roots that
        see it through a link (Root.also)."""
        root = self.root
        if root is None:
            return discovering(None, None, self.profile)
        # once per root (and profile): every skill of a root shares its tuple, which the rules' facts of the
        # runtimes are kept by (rules.readers)
        kept = _RUNTIMES.get(id(root))
        if kept is not None and kept[0] is root and kept[1] is self.profile:
            return kept[2]
        found = discovering(root.origin, root.path, self.profile)
        if root.also:
            for origin in root.also:
                found += discovering(origin, None, self.profile)
            found = tuple({each.key: each for each in found}.values())
        if len(_RUNTIMES) >= 1024:
            _RUNTIMES.clear()
        _RUNTIMES[id(root)] = root, self.profile, found  # (the root held: its id stays its own)
        return found

    @property
    def name(self) -> str | None:
        return self.facts.name

    @property
    def description(self) -> str | None:
        return self.facts.description

    def body_preview(self, lines: int = 8) -> str:
        body = [line for line in self.file.lines[self.file.body_start :]]
        while body and not body[0].strip():
            body.pop(0)
        return "\n".join(body[:lines]).rstrip()


# id of a root -> (the root, a profile, the runtimes that discover its skills of that profile)
_RUNTIMES: dict[int, tuple[Root, Profile, tuple[Runtime, ...]]] = {}


class SkillTable(dict[str, list[SkillEntry]]):
    """A registry's skills by key (registries over the same roots share one), with an index of its
    keys for "did you mean", built on first use and kept up to date as keys come and go."""

    __slots__ = ("_index", "_sorted", "_suffixes")

    def __init__(self) -> None:
        super().__init__()
        self._index: NameIndex | None = None
        self._sorted: list[str] | None = None
        self._suffixes: dict[str, str] | None = None

    def by_suffix(self, name: str) -> str | None:
        """The first key (in order) whose part after its last ':' is name (`docs:pdf` for `pdf`), or None;
        the suffixes are gathered once until a key comes or goes."""
        if self._suffixes is None:
            suffixes: dict[str, str] = {}
            for key in self.sorted_keys():
                if ":" in key:
                    suffixes.setdefault(key.rpartition(":")[2], key)
            self._suffixes = suffixes
        return self._suffixes.get(name)

    def sorted_keys(self) -> list[str]:
        """The keys in order (kept until a key comes or goes: do not modify)."""
        if self._sorted is None:
            self._sorted = sorted(self)
        return self._sorted

    def index(self) -> NameIndex:
        if self._index is None:
            self._index = NameIndex(self)
        return self._index

    def bucket(self, key: str) -> list[SkillEntry]:
        """The skills under key, an empty bucket added (and indexed) when there is none."""
        found = self.get(key)
        if found is None:
            found = self[key] = []
            self._sorted = self._suffixes = None
            if self._index is not None:
                self._index.add(key)
        return found

    def drop(self, key: str) -> None:
        del self[key]
        self._sorted = self._suffixes = None
        if self._index is not None:
            self._index.discard(key)


@dataclass
class Registry:
    label: str
    roots: list[Root]
    skills: SkillTable = field(default_factory=SkillTable)
    # False when a root could not be evaluated statically: unknown names are not reported
    complete: bool = True

    def add(self, skill: SkillEntry) -> None:
        bucket = self.skills.bucket(skill.key)
        if not any(entry is skill for entry in bucket):
            bucket.append(skill)

    def add_new(self, skills: Iterable[SkillEntry]) -> None:
        """add() for skills the registry does not hold yet, without looking for each one."""
        table = self.skills
        for skill in skills:
            name = skill.key
            bucket = table.get(name)
            if bucket is None:
                bucket = table.bucket(name)
            bucket.append(skill)

    def lookup(self, name: str) -> SkillEntry | None:
        found = self.skills.get(name)
        return found[0] if found else None

    def session_lookup(self, name: str) -> SkillEntry | None:
        """The skill a session's filter (`skills=[...]` of the options) loads for name: the one whose
        canonical name it is, or whose canonical name ends in ':' + name (TypeScript SDK 0.3.335, sdk.d.ts
        on Options.skills: "matching the exact canonical name (e.g. "my-plugin:my-skill") or a ":name"
        suffix of it. Display names and aliases do not match")."""
        found = self.lookup(name)
        if found is not None or ":" in name:
            return found
        key = self.skills.by_suffix(name)
        return self.lookup(key) if key is not None else None

    def names(self) -> list[str]:
        return list(self.skills.sorted_keys())


class SkillJob(NamedTuple):
    """A SKILL.md to load, placed: the root that discovered it decides its profile."""

    path: Path
    root: Root | None
    profile: Profile
    misnamed: bool
    external: bool


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

    def lookup(self, name: str) -> SkillEntry | None:
        """The skill a listed name loads: the first of its Decks' registries, in order, that holds it."""
        return self.resolver()(name)

    def resolver(self) -> Callable[[str], SkillEntry | None]:
        """lookup() for many names: the registries gathered once (one Deck's, the common case: its own lookup)."""
        registries = [registry for _, registry in self.registries() if registry is not None]
        if len(registries) == 1:
            return registries[0].lookup

        def resolve(name: str) -> SkillEntry | None:
            for registry in registries:
                found = registry.lookup(name)
                if found is not None:
                    return found
            return None

        return resolve

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
class DefinitionEntry:
    """A Claude subagent that preloads skills: the SDK's AgentDefinition (Python or TypeScript) or a
    Claude Code subagent file. Its skills come from the registry of the options whose agents={...} hold
    it, or, on its own or in a file, from every Claude root of the workspace folder and the user's."""

    path: Path
    call: Call
    folder: Path
    registry: Registry
    options: OptionsEntry | None = None
    # the key it is registered under in the options' agents={...} (the agent type Claude invokes)
    registered_as: str | None = None

    @property
    def display_name(self) -> str:
        return (self.registered_as or self.call.agent_name or self.call.assigned_to
                or f"agent at line {self.call.span.start.line + 1}")

    @property
    def is_file(self) -> bool:
        return self.call.kind == "agent_file"

    def skill_values(self) -> list[PyValue]:
        value = self.call.keyword("skills")
        if value is None or value.kind not in ("list", "tuple"):
            return []
        return value.items

    def lookup(self, name: str) -> SkillEntry | None:
        return self.resolver()(name)

    def resolver(self) -> Callable[[str], SkillEntry | None]:
        """lookup() for many names: the registry's aliases are gathered once (a list can hold thousands)."""
        registry = self.registry
        aliases: dict[str, SkillEntry] | None = None

        def resolve(name: str) -> SkillEntry | None:
            nonlocal aliases
            found = registry.lookup(name)
            if found is not None:
                return found
            if aliases is None:
                aliases = preload_aliases(registry)
            return aliases.get(name)

        return resolve


def preload_aliases(registry: Registry) -> dict[str, SkillEntry]:
    """The other names a subagent's `skills` entry may preload a skill by. Unlike the session's filter, an
    agent's list also resolves display names (frontmatter `name`) and a plugin skill by its bare name
    (TypeScript SDK 0.3.333, sdk.d.ts on the initialize request's `skills`: "subagents use
    AgentDefinition.skills, which additionally resolves display names and aliases"). The first skill of the
    registry's order wins a name."""
    aliases: dict[str, SkillEntry] = {}
    for key, bucket in registry.skills.items():
        for skill in bucket:
            if skill.facts.name:
                aliases.setdefault(skill.facts.name, skill)
            if ":" in key:
                aliases.setdefault(key.rpartition(":")[2], skill)
    return aliases


Owner = AgentEntry | OptionsEntry | DefinitionEntry


@dataclass
class Model:
    folders: list[Path]
    skills: dict[Path, SkillEntry] = field(default_factory=dict)
    roots: dict[Path, Root] = field(default_factory=dict)
    pythons: dict[Path, PythonEntry] = field(default_factory=dict)
    decks: list[DeckEntry] = field(default_factory=list)
    agents: list[AgentEntry] = field(default_factory=list)
    options: list[OptionsEntry] = field(default_factory=list)
    definitions: list[DefinitionEntry] = field(default_factory=list)
    configs: dict[Path, LoadedConfig] = field(default_factory=dict)
    unreadable: dict[Path, str] = field(default_factory=dict)
    # the user's own subagents directory (~/.claude/agents): its files open in the editor or named on
    # check's command line belong to it, not to a workspace folder
    user_agents: Path | None = None
    # skill key -> agents / options that list it (with the listing's span)
    listings: dict[str, list[tuple[Path, Span, Owner]]] = field(default_factory=dict)
    project_registries: dict[Path, Registry] = field(default_factory=dict)
    # symlinked directories in the folders -> the directories they lead to (.agents/skills -> skills)
    aliases: dict[Path, Path] = field(default_factory=dict)
    # a real root or skill directory -> the roots that see it through such a link, each with the
    # runtime its place says (.claude/skills -> skills: Claude Code reads the skills of skills/ too)
    alias_roots: dict[Path, list[Root]] = field(default_factory=dict)
    # SKILL.md files nested in another skill's directory: its documents, not skills (SPEC 2.6)
    documents: set[Path] = field(default_factory=set)
    # the nearest configuration file (CONFIG_FILES) for a directory (None: none), filled as asked
    _config_dirs: dict[str, Path | None] = field(default_factory=dict, repr=False)
    _config_files: dict[str, Path] | None = field(default=None, repr=False)
    _merged: dict[tuple[Path, Config], Config] = field(default_factory=dict, repr=False)
    # path -> the Decks, agents and ClaudeAgentOptions it defines; rebuilt after `entries_changed()`
    _entries: dict[Path, tuple[list[DeckEntry], list[AgentEntry], list[OptionsEntry]]] | None = field(default=None, repr=False)
    # directory name -> the skills in directories of that name, built on first use (skills are only
    # added or removed by building a new model)
    _by_directory: dict[str, list[SkillEntry]] | None = field(default=None, repr=False)

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

    def definitions_in(self, path: Path) -> list[DefinitionEntry]:
        return [definition for definition in self.definitions if definition.path == path]

    def entries_replaced(self, path: Path, agents: list[AgentEntry], options: list[OptionsEntry]) -> None:
        """path's agents and options are now these (it defines no Deck)."""
        if self._entries is None:
            return
        if agents or options:
            self._entries[path] = ([], agents, options)
        else:
            self._entries.pop(path, None)

    def skills_in_directory(self, name: str) -> list[SkillEntry]:
        """The skills whose directory is named name, in any root."""
        if self._by_directory is None:
            found: dict[str, list[SkillEntry]] = {}
            for skill in self.skills.values():
                found.setdefault(skill.dir_name, []).append(skill)
            self._by_directory = found
        return self._by_directory.get(name, [])

    def folder_of(self, path: Path) -> Path:
        """The workspace folder holding path; for a user subagent outside them all, the user agents directory."""
        best = self.folders[0]
        found = False
        for folder in self.folders:
            if within(path, folder) and len(folder.parts) >= len(best.parts):
                best, found = folder, True
        if not found and self.user_agents is not None and within(path, self.user_agents):
            return self.user_agents
        return best

    def config_for(self, path: Path, base: Config) -> Config:
        """The nearest [tool.skill-lsp] at or above path, under the editor/CLI settings."""
        if not self.configs:
            return base  # no [tool.skill-lsp] anywhere: the common case
        # strings, not Paths: this runs for every file, and a new Path hashes slowly
        directory = os.path.dirname(str(path))
        if directory in self._config_dirs:
            found = self._config_dirs[directory]
        else:
            found = self._nearest_config(directory, str(self.folder_of(path)))
        if found is None:
            return base
        key = (found, base)
        merged = self._merged.get(key)
        if merged is None:
            merged = self._merged[key] = merge(self.configs[found].config, base)
        return merged

    def _nearest_config(self, directory: str, folder: str) -> Path | None:
        """Walk up to the folder; every directory passed on the way remembers the answer."""
        if self._config_files is None:  # the files that apply (config.shadow)
            self._config_files = {str(config): config for config, loaded in self.configs.items() if not loaded.shadowed}
        trail: list[str] = []
        found: Path | None = None
        while True:
            if directory in self._config_dirs:
                found = self._config_dirs[directory]
                break
            trail.append(directory)
            found = next((self._config_files[known] for name in CONFIG_FILES
                          if (known := os.path.join(directory, name)) in self._config_files), None)
            if found is not None:
                break
            parent = os.path.dirname(directory)
            if directory == folder or parent == directory or not within(directory, folder):
                break
            directory = parent
        for passed in trail:
            self._config_dirs[passed] = found
        return found

    def skills_in(self, registry: Registry) -> list[SkillEntry]:
        return [skill for bucket in registry.skills.values() for skill in bucket]

    def agents_using(self, skill: SkillEntry) -> list[tuple[Path, Span, Owner]]:
        result = []
        for path, span, owner in self.listings.get(skill.key, []):
            if isinstance(owner, AgentEntry):
                registries = [registry for _, registry in owner.registries() if registry is not None]
            else:
                registries = [owner.registry]
            if any(skill in registry.skills.get(skill.key, []) for registry in registries):
                result.append((path, span, owner))
        # subagents also name a skill by its display name or a plugin skill by its bare name; a session's
        # filter a plugin skill by its bare name (Registry.session_lookup)
        aliases = {name for name in (skill.facts.name, skill.key.rpartition(":")[2]) if name and name != skill.key}
        for alias in aliases:
            for path, span, owner in self.listings.get(alias, []):
                if (isinstance(owner, DefinitionEntry) and owner.lookup(alias) is skill) or (
                        isinstance(owner, OptionsEntry) and owner.registry.session_lookup(alias) is skill):
                    result.append((path, span, owner))
        if aliases:
            result.sort(key=listing_order)
        return result


def listing_order(entry: tuple[Path, Span, Owner]) -> tuple[tuple[str, ...], Span]:
    return entry[0].parts, entry[1]


