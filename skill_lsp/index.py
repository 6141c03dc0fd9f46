"""The workspace model: roots, registries, skills and agents, built from parsed files.

`Workspace` owns the file contents (disk, or an editor's open buffer over it)
and their parses, cached by content, so re-analysis after an edit reparses only
the edited file. `Model` is what the rules, hovers and disclosures read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import NamedTuple, TypeVar

from .codefiles import is_code_path, parse_code
from .config import Config, LoadedConfig, load_pyproject, merge, user_agents_dir, user_skills_dir, walk_exclude
from .discovery import (
    CONVENTIONAL_ROOTS,
    Listing,
    is_skill_filename,
    is_user_agent_path,
    kept_from_exclusion,
    split_skill_text,
    split_text,
    walk,
    within,
)
from .model import Finding, Profile, Span
from .nearest import NameIndex
from .pysource import Call, PySource, PyValue
from .runtimes import Runtime, discovering
from .skillfile import SkillFile, parse_skill
from .textutil import FileTooLarge, check_size, read_text, unreadable_reason
from .trace import phase

T = TypeVar("T")


@dataclass(frozen=True)
class Root:
    path: Path
    profile: Profile
    origin: str  # agentdeck | deck | claude | plugin | user | spec | collection | config
    prefix: str = ""
    # the origins of the other roots that see this root's skills through a symlinked directory
    # (`.claude/skills -> ../skills`): their runtimes load the skills too
    also: tuple[str, ...] = ()
    # a plugin that is one skill (its SKILL.md at the plugin's top, `"skills": ["./"]`): Claude Code names
    # the skill by its frontmatter name (CHANGELOG 2.1.94), not by its directory
    whole: bool = False

    def describe(self) -> str:
        return f"{self.path} ({self.origin})"


RawSpan = tuple[int, int, int, int]  # a span as four numbers: start line and column, end line and column


class SkillFacts:
    """What registries and cross-file rules read of a SKILL.md: small and picklable, so that
    `check` can take it from its cache or a worker process instead of parsing the file.

    Its spans are kept as four numbers and made Spans when first read: only the findings other
    files' rules put on this one read them, and making them cost more than the rest of the facts."""

    __slots__ = ("_first_line", "_name_span", "description", "first_line_raw", "ignores", "name", "name_span_raw",
                 "plain")

    def __init__(self, name: str | None, name_span_raw: RawSpan | None, first_line_raw: RawSpan,
                 ignores: dict[int, set[str]], description: str | None = None, plain: bool = False) -> None:
        self.name = name  # the frontmatter name, when it is a string
        self.name_span_raw = name_span_raw  # the value span of `name:`, when the key is there
        self.first_line_raw = first_line_raw
        self.ignores = ignores
        # the frontmatter description, when it is a string: completion and hovers show it for every
        # skill they offer, which should not mean reading every file again
        self.description = description
        # the lines of both spans are ASCII up to the spans' ends: their columns are the same in every
        # position encoding, and a workspace symbol is placed without reading the file again
        self.plain = plain
        self._name_span: Span | None = None
        self._first_line: Span | None = None

    @classmethod
    def of(cls, file: SkillFile) -> SkillFacts:
        # what a lenient loader reads (Claude Code's recovery of a YAML error): the name and description
        # its listing shows; strict loaders' verdicts come from the file's own rules
        fields = file.lenient_fields
        entry = fields.get("name")
        name_span = entry.value_raw() if entry is not None else None
        plain = file.lines[0].isascii() and (name_span is None or all(
            file.lines[line][: name_span[3] if line == name_span[2] else None].isascii()
            for line in range(name_span[0], min(name_span[2] + 1, len(file.lines)))))
        return cls(file.lenient_str("name"), name_span, (0, 0, 0, len(file.lines[0])), file.ignores,  # file.line_span(0)
                   file.lenient_str("description"), plain)

    @property
    def name_span(self) -> Span | None:
        if self._name_span is None and self.name_span_raw is not None:
            self._name_span = Span.of(*self.name_span_raw)
        return self._name_span

    @property
    def first_line(self) -> Span:
        if self._first_line is None:
            self._first_line = Span.of(*self.first_line_raw)
        return self._first_line

    def _key(self) -> tuple[object, ...]:
        return self.name, self.name_span_raw, self.first_line_raw, self.ignores, self.description, self.plain

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SkillFacts) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"SkillFacts(name={self.name!r}, name_span={self.name_span!r}, first_line={self.first_line!r}, "
                f"ignores={self.ignores!r}, description={self.description!r})")


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
    def analysed(cls, job: SkillJob, facts: SkillFacts, findings: list[Finding],
                 load: Callable[[Path], SkillFile]) -> SkillEntry:
        """__init__'s entry from a skill's analysis (facts and its own findings), made without the call:
        check makes one for each of tens of thousands of skills as their analyses arrive."""
        skill = object.__new__(cls)
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
        found = discovering(root.origin if root else None, root.path if root else None, self.profile)
        if root is None or not root.also:
            return found
        for origin in root.also:
            found += discovering(origin, None, self.profile)
        return tuple({each.key: each for each in found}.values())

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
    # the nearest pyproject.toml holding [tool.skill-lsp] for a directory (None: none), filled as asked
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
        if self._config_files is None:
            self._config_files = {str(config): config for config in self.configs}
        trail: list[str] = []
        found: Path | None = None
        while True:
            if directory in self._config_dirs:
                found = self._config_dirs[directory]
                break
            trail.append(directory)
            candidate = self._config_files.get(os.path.join(directory, "pyproject.toml"))
            if candidate is not None:
                found = candidate
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
            result.sort(key=_listing_order)
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
        self._kept: dict[Path, tuple[str, ...]] = {}  # the excluded paths each listing walked all the same
        # files named explicitly (check's command line): checked even in an excluded folder, like open ones
        self.named: list[Path] = []
        self._disk_texts: dict[Path, tuple[tuple[int, int], str]] = {}
        self.model: Model | None = None
        # processes a walk may fork (check: one per core but one; never the threaded server)
        self.walk_helpers = 0
        # what built the model, kept for incremental updates
        self.builder: _Builder | None = None
        self._reparse = self.reparse  # one bound method for every entry made from an analysis
        # the skill paths of the build under way, cut once for the builders that place them
        self._cut: tuple[list[tuple[Path, Path]], list[tuple[str, str, str]]] | None = None
        self._user_agents: Path | bool | None = False  # user_agents_dir() as of the last build (False: none yet)

    # -- file access ---------------------------------------------------------

    def rescan(self) -> None:
        self._listings.clear()

    def _listing(self, folder: Path) -> Listing:
        cached = self._listings.get(folder)
        named = [*self.named, *self.overlays]
        if cached is not None and not named and not self._kept.get(folder):
            return cached
        exclude = walk_exclude(folder, self.settings)
        # an open file in an excluded folder is checked with the roots and agents around it: its
        # excluded subtree is walked too (and walked again when that changes)
        keep = kept_from_exclusion(folder, exclude, named) if exclude and named else ()
        if cached is None or self._kept.get(folder, ()) != keep:
            with phase("walk"):
                self._listings[folder] = walk(folder, exclude, self.walk_helpers, keep=keep)
            self._kept[folder] = keep
        return self._listings[folder]

    def adopt_listing(self, folder: Path, listing: Listing, keep: tuple[str, ...] = ()) -> None:
        """A walk of folder done before this workspace was made (check walks while it imports), with
        the excluded paths it walked all the same."""
        self._listings[Path(os.path.abspath(folder))] = listing
        self._kept[Path(os.path.abspath(folder))] = keep

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

    def build(self) -> Model:
        model, skill_paths, python_paths, directories = self.gather()
        try:
            self.prepare(model, skill_paths, directories)
            self.load_pythons(model, python_paths)
            with phase("build model"):
                self.builder = _Builder(self, model, directories)
                self.builder.run(skill_paths)
        finally:
            self._cut = None
        self.model = model
        return model

    def gather(self) -> tuple[Model, list[tuple[Path, Path]], list[tuple[Path, Path]], set[str]]:
        """A build's first step: the folders walked, their pyproject.toml files read, and the skill and
        code files to read (with their folders), open buffers and the user's subagents included."""
        model = Model(folders=self.folders)
        skill_paths: list[tuple[Path, Path]] = []
        python_paths: list[tuple[Path, Path]] = []
        directories: set[str] = set()
        for folder in self.folders:
            listing = self._listing(folder)
            directories |= listing.directories
            model.unreadable.update(listing.unreadable)
            model.aliases.update(listing.aliases)
            for pyproject in listing.pyprojects:
                loaded = load_pyproject(pyproject)
                if loaded is not None:
                    model.configs[pyproject] = loaded
            skill_paths += [(path, folder) for path in listing.skill_files]
            python_paths += [(path, folder) for path in listing.python_files]
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

    def prepare(self, model: Model, skill_paths: list[tuple[Path, Path]], directories: set[str]) -> None:
        """Called once the tree is walked and before any file is read (check starts work early here)."""

    def speculative_jobs(self, model: Model, skill_paths: list[tuple[Path, Path]], directories: set[str]) -> list[SkillJob]:
        """The jobs of the skills under roots that code is unlikely to claim (configured roots and the
        conventional .agentdeck, .claude, .agents and .github ones), placed as they will be unless a
        Deck or plugin in the Python files says otherwise: load_skills gets the final jobs to compare."""
        builder = _Builder(self, Model(folders=model.folders, configs=model.configs, aliases=model.aliases), directories)
        builder.base_roots(skill_paths)
        return [job for job in builder.make_jobs(skill_paths, [])
                if job.root is not None and job.root.origin in ("config", "agentdeck", "claude", "spec")]

    def load_pythons(self, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
        """Parse each Python file; those that make a call we know enter the model."""
        with phase("parse python"):
            self._load_pythons(model, python_paths)

    def _load_pythons(self, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
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

    def load_skills(self, model: Model, jobs: list[SkillJob]) -> None:
        """Read and parse each SKILL.md the roots placed; the unreadable ones are noted."""
        with phase("parse skills"):
            self._load_skills(model, jobs)

    def _load_skills(self, model: Model, jobs: list[SkillJob]) -> None:
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
        cache and the server keep them): its parse is read again only when a feature needs it."""

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


_ORIGIN_RANK = {"config": 0, "deck": 1, "agentdeck": 1, "plugin": 2, "claude": 3, "user": 3, "spec": 4, "collection": 5}
# Which root a skill seen through several (symlinked) roots is checked under: the strictest loader's.
_ALIAS_RANK = {"config": 0, "deck": 1, "agentdeck": 1, "spec": 2, "plugin": 3, "claude": 3, "user": 3, "collection": 5}


def _conventional_root(directory: Path) -> Root | None:
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
    return any(_conventional_root(parent) is not None for parent in directory.parents)


def _json_object(path: Path, consulted: set[str]) -> dict[str, object]:
    """A small JSON file's top-level object ({} when it is missing, unreadable, not JSON or not an object)."""
    consulted.add(str(path))
    try:
        data = json.loads(read_text(path, 1024 * 1024))
    except (OSError, FileTooLarge, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _without(entries: list[T], gone: list[T]) -> list[T]:
    """entries without those gone, by identity: comparing every agent's path costs more than the rest of an edit."""
    if not gone:
        return entries
    dropped = {id(entry) for entry in gone}
    return [entry for entry in entries if id(entry) not in dropped]


def _listed_items(owner: Owner) -> list[PyValue]:
    if isinstance(owner, (AgentEntry, DefinitionEntry)):
        items = owner.skill_values()
    else:
        value = owner.call.keyword("skills")
        items = value.items if value is not None and value.kind in ("list", "tuple") else []
    return [item for item in items if item.kind == "str" and item.text is not None]


def _listing_order(entry: tuple[Path, Span, Owner]) -> tuple[tuple[str, ...], Span]:
    return entry[0].parts, entry[1]


def _add_listings(model: Model, owner: Owner, sort: bool = False) -> None:
    for item in _listed_items(owner):
        assert item.text is not None
        entries = model.listings.setdefault(item.text, [])
        entries.append((owner.path, item.span, owner))
        if sort and len(entries) > 1:
            entries.sort(key=_listing_order)


def _remove_listings(model: Model, owner: Owner) -> None:
    for item in _listed_items(owner):
        assert item.text is not None
        entries = model.listings.get(item.text)
        if entries is None:
            continue
        entries[:] = [entry for entry in entries if entry[2] is not owner]
        if not entries:
            del model.listings[item.text]


class _Builder:
    def __init__(self, workspace: Workspace, model: Model, directories: set[str]) -> None:
        self.workspace = workspace
        self.model = model
        self.directories = directories
        self.plugin_names: dict[Path, str] = {}
        # skill directories a plugin names one by one -> the root (with that plugin's prefix) they belong to
        self.listed_skills: dict[str, Root] = {}
        self.tables: dict[tuple[Path, ...], SkillTable] = {}
        self.members: dict[str, list[DeckEntry]] = {}
        self.inline: dict[int, list[DeckEntry]] = {}
        self.variables: dict[Path, tuple[PySource, set[str]]] = {}  # (agent_variables)
        self.members_in: dict[tuple[str, Path], list[DeckEntry]] = {}  # (assign_decks)
        self.members_elsewhere: dict[str, list[DeckEntry]] = {}
        self.deck_order: dict[int, int] = {}
        # what the model depends on beyond the walked tree: paths looked up on disk (check's
        # cache of whole results compares them next time)
        self.consulted: set[str] = set()
        # the registry of agent definitions on their own, by workspace folder (folder_claude_registry)
        self.folder_registries: dict[Path, Registry] = {}
        # the files of AgentDefinitions used by options in another file (link_imported_definitions)
        self.cross_linked: set[Path] = set()
        # project_dir's answers while the model is built (run), by directory
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

    def run(self, skill_paths: list[tuple[Path, Path]]) -> None:
        model = self.model
        self.base_roots(skill_paths)
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

        # 4. skills; the agents and the names they list need none, and are indexed first (in check,
        # while a child still analyses skills)
        jobs = self.make_jobs(skill_paths, user_skills + plugin_skills)
        for entry in model.pythons.values():
            for call in entry.source.calls:
                if call.kind == "agent":
                    model.agents.append(AgentEntry(entry.path, call, entry.folder))
        for agent in model.agents:
            _add_listings(model, agent)
        self.workspace.load_skills(model, jobs)

        # 5. registries
        by_root: dict[Path, list[SkillEntry]] = {}
        for skill in model.skills.values():
            if skill.root is not None and not skill.misnamed:
                by_root.setdefault(skill.root.path, []).append(skill)
        self.by_root = by_root
        for deck in model.decks:
            if deck.registry is not None:
                self.fill(deck.registry)
        self.assign_decks()
        for entry, call in options_calls:
            model.options.append(OptionsEntry(entry.path, call, entry.folder, self.claude_registry(entry, call, user_dir)))
        for entry in model.pythons.values():
            model.definitions += self.definitions(entry, model.entries_in(entry.path)[2])
        self.link_imported_definitions()
        self.index_listings()
        self.project_dirs.clear()  # answers for this build: an edit later asks the file system again

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

        # roots by convention, from where SKILL.md files are (each root directory looked at once)
        first_of_root: dict[str, Path] = {}
        skills_of_root: dict[str, int] = {}
        for (path, _), (text, root_text, _) in zip(skill_paths, self.workspace.cut_skill_paths(skill_paths), strict=True):
            if text in self.documents:
                continue
            if root_text not in first_of_root:
                first_of_root[root_text] = path
            skills_of_root[root_text] = skills_of_root.get(root_text, 0) + 1
        for root_text, path in first_of_root.items():
            root_dir = path.parent.parent
            parent = root_dir.parent.name
            root = _conventional_root(root_dir)
            if root is not None:
                self.add_root(root)
            elif root_dir.name == "skills":
                if self.exists(root_dir.parent / ".claude-plugin"):
                    name = self.plugin_name(root_dir.parent)
                    self.add_root(Root(root_dir, Profile.CLAUDE, "plugin", f"{name}:"))
                else:
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
        the strictest to satisfy (_ORIGIN_RANK); model.alias_roots keeps every root that sees it."""
        model = self.model
        for alias, real in sorted(model.aliases.items()):
            root = _conventional_root(alias)
            if root is not None:  # the link is a root: every skill of the directory it leads to
                model.alias_roots.setdefault(real, []).append(root)
                continue
            root = _conventional_root(alias.parent)
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
        skill_dirs = {split_text(text)[0] for text, _, _ in cuts}
        roots = {str(path) for path in self.model.roots}
        found: set[str] = set()
        for (_, folder), (text, root_text, name) in zip(skill_paths, cuts, strict=True):
            if root_text in roots or _conventional_root_text(root_text):
                continue
            if split_text(root_text)[1] == "skills" and name == "SKILL.md":
                continue  # a skills/ collection, even below a repository's own top-level SKILL.md
            if name != "SKILL.md" and split_text(root_text)[1] != "skills":
                found.add(text)  # a page named skill.md (docs/cli/skill.md) outside every root: no skill file
                continue
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
        for (path, folder), (text, root_text, name) in placed:
            if text in jobs or text in self.documents:
                continue
            if name != "SKILL.md":
                if known_paths is None:
                    known_paths = {path for path, _ in skill_paths}
                if (path.parent / "SKILL.md") in known_paths:
                    continue  # a stray lowercase copy beside the real file
            owner = roots_by_text.get(root_text)
            if self.listed_skills and owner is not None and owner.origin == "plugin":
                owner = self.listed_skills.get(split_text(text)[0], owner)
            if aliased:
                owner = self.best_root(owner, root_text, text, aliased)
            prefix = folder_prefixes.get(folder)
            external = not (prefix is not None and text.startswith(prefix)) and not text.startswith(all_prefixes)
            jobs[text] = SkillJob(path, owner, owner.profile if owner else Profile.SPEC, name != "SKILL.md", external)
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
                self.add_root(Root(default, Profile.CLAUDE, "plugin", own + ":"))
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

    def fill(self, registry: Registry) -> None:
        """Add the skills of the registry's roots; registries over the same roots share one table."""
        key = tuple(root.path for root in registry.roots)
        shared = self.tables.get(key)
        if shared is not None:
            registry.skills = shared
            return
        for path in dict.fromkeys(key):  # each root directory once: then no skill comes twice
            registry.add_new(self.by_root.get(path, ()))
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
        self.members = members
        self.inline = inline
        # The Decks naming each name, by the file they are in, and those that may name an agent of
        # another file: not a Deck whose own file defines the name and imports nothing so named. A
        # monorepo whose 400 projects each have their `agent` and `deck` matched 160,000 pairs.
        self.members_in = {}
        self.members_elsewhere = {}
        self.deck_order = {id(deck): number for number, deck in enumerate(model.decks)}
        for name, decks in members.items():
            for deck in decks:
                self.members_in.setdefault((name, deck.path), []).append(deck)
                source = model.pythons[deck.path].source
                if source.imports.get(name) is not None or name not in self.agent_variables(deck.path, source):
                    self.members_elsewhere.setdefault(name, []).append(deck)
        for agent in model.agents:
            self.place(agent)

    def place(self, agent: AgentEntry) -> None:
        """The Decks an agent belongs to, or the registry it falls back to."""
        decks = list(self.inline.get(id(agent.call), []))
        if agent.variable:
            found = [*self.members_in.get((agent.variable, agent.path), []),
                     *(deck for deck in self.members_elsewhere.get(agent.variable, [])
                       if deck.path != agent.path and self.same_module_or_imported(agent, deck))]
            for deck in sorted(found, key=lambda deck: self.deck_order[id(deck)]):  # (the Decks' order)
                if deck not in decks:
                    decks.append(deck)
        agent.decks = decks
        if not decks:
            fallbacks = self.model.project_registries
            if agent.folder not in fallbacks:
                fallbacks[agent.folder] = self.project_registry(agent.folder)
            agent.fallback = fallbacks[agent.folder]

    def same_module_or_imported(self, agent: AgentEntry, deck: DeckEntry) -> bool:
        """A Deck's agents=[x] names this agent when x is defined in the Deck's file or imported there."""
        if agent.path == deck.path:
            return True
        source = self.model.pythons[deck.path].source
        imported = source.imports.get(agent.variable or "")
        if imported is None:
            # not a plain import we can follow (star import, attribute access): match by name, unless
            # the Deck's own file defines an agent of that name
            return agent.variable not in self.agent_variables(deck.path, source)
        module, name = imported
        if name != agent.variable:
            return False
        stem = module.rsplit(".", 1)[-1]
        return agent.path.stem == stem or (agent.path.name == "__init__.py" and agent.path.parent.name == stem) or module.startswith(".")

    def agent_variables(self, path: Path, source: PySource) -> set[str]:
        """The variables source (path's parse) assigns an Agent(...) to. Kept while the parse is the
        same: every agent named in a Deck of another file asks (a monorepo whose projects each
        have their `agent` and `deck` asked once per agent and Deck, each time scanning every agent)."""
        known = self.variables.get(path)
        if known is None or known[0] is not source:
            known = self.variables[path] = (source, {call.assigned_to for call in source.calls
                                                     if call.kind == "agent" and call.assigned_to})
        return known[1]

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

    def folder_claude_registry(self, folder: Path) -> Registry:
        """For a subagent file or an AgentDefinition in no options: every Claude root of the folder (project
        skills, nested `.claude/skills`, plugins) and the user's skills — the session it runs in is not
        known, so every skill it could preload counts."""
        registries = self.folder_registries
        found = registries.get(folder)
        user_agents = self.model.user_agents
        if found is None and user_agents is not None and within(folder, user_agents):
            # the user's own subagents run in every project: the user's skills are the ones they
            # can count on (a project's skills reach them in that project only)
            user_dir = self.workspace.user_skills_dir()
            user_root = self.model.roots.get(user_dir) if user_dir is not None else None
            found = registries[folder] = Registry("the user's skills", [user_root] if user_root is not None else [])
            self.fill(found)
        if found is None:
            roots = [root for root in self.model.roots.values() if root.profile == Profile.CLAUDE and (
                     (root.origin in ("claude", "plugin") and within(root.path, folder)) or root.origin == "user")]
            roots.sort(key=lambda root: (_ORIGIN_RANK[root.origin], root.path.parts))
            found = registries[folder] = Registry(f"the Claude skills of {folder.name}", roots)
            self.fill(found)
        return found

    def definitions(self, entry: PythonEntry, options_in_file: list[OptionsEntry]) -> list[DefinitionEntry]:
        """The file's agent definitions, each in the options whose agents={...} holds it (inline, or a
        variable / const of the same file) or on its own."""
        calls = [call for call in entry.source.calls if call.kind in ("agent_definition", "agent_file")]
        if not calls:
            return []
        by_variable = {call.assigned_to: call for call in calls if call.assigned_to}
        by_span = {call.span: call for call in calls}
        owners: dict[int, tuple[OptionsEntry, str | None]] = {}
        for options in options_in_file:
            agents = options.call.keyword("agents")
            if agents is None or agents.kind != "dict":
                continue
            for key, value in agents.pairs:
                target = value.call
                if target is None and value.kind == "dict":
                    target = by_span.get(value.span)
                elif target is None and value.kind == "name" and value.name:
                    target = by_variable.get(value.name)
                if target is not None and target.kind == "agent_definition":
                    owners[id(target)] = (options, key.text if key.kind == "str" else None)
        found = []
        for call in calls:
            owner = owners.get(id(call))
            if owner is not None:
                options, name = owner
                found.append(DefinitionEntry(entry.path, call, entry.folder, options.registry, options, name))
            else:
                found.append(DefinitionEntry(entry.path, call, entry.folder, self.folder_claude_registry(entry.folder)))
        return found

    def link_imported_definitions(self) -> None:
        """An AgentDefinition assigned to a variable of one module and put in agents={...} of another through a
        plain import (`from .agents import reviewer`): it belongs to those options (a full build's work; an
        edit to either file builds the model again, see update_python)."""
        model = self.model
        by_variable: dict[str, list[DefinitionEntry]] = {}
        for definition in model.definitions:
            if definition.options is None and definition.call.kind == "agent_definition" and definition.call.assigned_to:
                by_variable.setdefault(definition.call.assigned_to, []).append(definition)
        if not by_variable:
            return
        for options in model.options:
            agents = options.call.keyword("agents")
            python = model.pythons.get(options.path)
            if agents is None or agents.kind != "dict" or python is None:
                continue
            for key, value in agents.pairs:
                imported = python.source.imports.get(value.name or "") if value.kind == "name" else None
                if imported is None:
                    continue
                module, name = imported
                stem = module.rsplit(".", 1)[-1]
                for definition in by_variable.get(name, []):
                    if definition.path != options.path and stem in (definition.path.stem, definition.path.parent.name):
                        definition.options, definition.registry = options, options.registry
                        definition.registered_as = key.text if key.kind == "str" else None
                        self.cross_linked |= {definition.path, options.path}

    def imports_a_definition(self, source: PySource) -> bool:
        """Whether a file's AgentDefinition variables or agents={...} names can reach another file."""
        exported = {call.assigned_to for call in source.calls if call.kind == "agent_definition" and call.assigned_to}
        if exported and any(name in exported for python in self.model.pythons.values()
                            for _, name in python.source.imports.values()):
            return True
        for call in source.calls:
            agents = call.keyword("agents") if call.kind == "claude_options" else None
            if agents is not None and agents.kind == "dict" and any(
                    value.kind == "name" and (value.name or "") in source.imports for _, value in agents.pairs):
                return True
        return False

    def index_listings(self) -> None:
        """The options' listings beside the agents' (indexed before the skills were loaded), in order."""
        model = self.model
        for options in model.options:
            _add_listings(model, options)
        for definition in model.definitions:
            _add_listings(model, definition)
        for entries in model.listings.values():
            if len(entries) > 1:
                entries.sort(key=_listing_order)

    # -- incremental updates -----------------------------------------------------------------

    def update_python(self, path: Path, source: PySource, folder: Path) -> set[Path] | None:
        """A Python file's new parse, applied in place; the files whose findings may change, or None
        when the edit reaches roots or Deck membership and the model must be built again."""
        model = self.model
        old = model.pythons.get(path)
        old_calls = old.source.calls if old is not None else []
        calls = source.calls
        if any(call.kind in ("deck", "deck_from_project") or (call.kind == "claude_options" and "plugins" in call.keywords)
               for call in [*old_calls, *calls]):
            return None  # roots, registries or Deck membership may move
        old_variables = {call.assigned_to for call in old_calls if call.kind == "agent"}
        new_variables = {call.assigned_to for call in calls if call.kind == "agent"}
        if any(name in self.members for name in (old_variables ^ new_variables) if name):
            return None
        if path in self.cross_linked or self.imports_a_definition(source):
            return None  # an AgentDefinition shared between files: linked by a full build
        affected: set[Path] = {path}
        _, gone, gone_options = model.entries_in(path)
        removed: list[AgentEntry | OptionsEntry] = [*gone, *gone_options]
        for old_owner in removed:
            affected |= self.listed_skill_files(old_owner)
            _remove_listings(model, old_owner)
        model.agents = _without(model.agents, gone)
        model.options = _without(model.options, gone_options)
        if calls or source.notes:
            entry = model.pythons[path] = PythonEntry(path, source, folder)
        else:
            model.pythons.pop(path, None)
        user_dir = self.workspace.user_skills_dir()
        agents: list[AgentEntry] = []
        options_calls: list[OptionsEntry] = []
        for call in calls:
            owner: AgentEntry | OptionsEntry
            if call.kind in ("agent_definition", "agent_file"):
                continue  # below, once the file's options are made
            if call.kind == "agent":
                owner = AgentEntry(path, call, folder)
                self.place(owner)
                agents.append(owner)
            else:
                owner = OptionsEntry(path, call, folder, self.claude_registry(entry, call, user_dir))
                options_calls.append(owner)
            _add_listings(model, owner, sort=True)
            affected |= self.listed_skill_files(owner)
        model.agents += agents
        model.options += options_calls
        model.entries_replaced(path, agents, options_calls)
        # the file's agent definitions: their registries are the options' above or the folder's
        gone_definitions = model.definitions_in(path)
        for definition in gone_definitions:
            affected |= self.listed_skill_files(definition)
            _remove_listings(model, definition)
        model.definitions = _without(model.definitions, gone_definitions)
        if calls:
            for definition in self.definitions(entry, options_calls):
                model.definitions.append(definition)
                _add_listings(model, definition, sort=True)
                affected |= self.listed_skill_files(definition)
        return affected

    def listed_skill_files(self, owner: Owner) -> set[Path]:
        """The SKILL.md files an agent lists (SK303 on them depends on it)."""
        found: set[Path] = set()
        if isinstance(owner, DefinitionEntry):
            resolve = owner.resolver()
            return {skill.path for item in _listed_items(owner) if item.text is not None
                    and (skill := resolve(item.text)) is not None}
        registries = [owner.registry] if isinstance(owner, OptionsEntry) else [r for _, r in owner.registries() if r is not None]
        for item in _listed_items(owner):
            if item.text is None:
                continue
            for registry in registries:
                found |= {skill.path for skill in registry.skills.get(item.text, [])}
        return found

    def rekey(self, skill: SkillEntry, old_key: str) -> set[Path]:
        """A skill's registry key changed (its frontmatter name, for AgentDeck): move it in every
        registry that holds it; the files sharing the old or the new key are affected."""
        affected: set[Path] = {skill.path}
        tables: dict[int, tuple[SkillTable, tuple[Path, ...]]] = {}
        for key, table in self.tables.items():
            tables[id(table)] = (table, key)
        for table, roots in tables.values():
            bucket = table.get(old_key)
            if bucket is None or not any(entry is skill for entry in bucket):
                continue
            bucket[:] = [entry for entry in bucket if entry is not skill]
            affected |= {entry.path for entry in bucket}
            if not bucket:
                table.drop(old_key)
            moved = table.bucket(skill.key)
            moved.append(skill)
            moved.sort(key=lambda entry: (roots.index(entry.root.path) if entry.root is not None and entry.root.path in roots
                                          else len(roots), entry.path.parts))
            affected |= {entry.path for entry in moved}
        return affected
