"""Building the model: a build's steps in order (walk, read the code, place the skills, load them, registries and listings), and the model's incremental updates after an edit.

`build(workspace, loader)` is the one way a model is made: the core walks and places, and the
`loader` (workspace.Loader) is handed the steps that read files — check's persistent cache and pool
(cache.CheckLoader), the server's kept analyses (server/indexing.ServerLoader), or plain reads and
parses (workspace.Reads). Nothing overrides a step: each shell passes what it reads with. `Builder`
keeps what the build found (Deck membership, shared registries) for `update_python` and `rekey`,
which change the model in place after an edit, or say that it must be built again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from .codecalls import Call, PySource, PyValue
from .index import (
    AgentEntry,
    DeckEntry,
    DefinitionEntry,
    Model,
    OptionsEntry,
    Owner,
    PythonEntry,
    Registry,
    Root,
    SkillEntry,
    SkillJob,
    SkillTable,
    listing_order,
)
from .model import Profile, Span
from .pathtext import within
from .roots import ORIGIN_RANK, Places
from .trace import phase

if TYPE_CHECKING:
    from .workspace import Loader, Workspace

T = TypeVar("T")


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


def _add_listings(model: Model, owner: Owner, sort: bool = False) -> None:
    for item in _listed_items(owner):
        assert item.text is not None
        entries = model.listings.setdefault(item.text, [])
        entries.append((owner.path, item.span, owner))
        if sort and len(entries) > 1:
            entries.sort(key=listing_order)


def _remove_listings(model: Model, owner: Owner) -> None:
    for item in _listed_items(owner):
        assert item.text is not None
        entries = model.listings.get(item.text)
        if entries is None:
            continue
        entries[:] = [entry for entry in entries if entry[2] is not owner]
        if not entries:
            del model.listings[item.text]


class Builder:
    """One build's model in the making, and what it keeps for the model's incremental updates."""

    def __init__(self, workspace: Workspace, model: Model, directories: set[str]) -> None:
        self.workspace = workspace
        self.model = model
        self.places = Places(workspace, model, directories)
        self.tables: dict[tuple[Path, ...], SkillTable] = {}
        self.members: dict[str, list[DeckEntry]] = {}
        self.inline: dict[int, list[DeckEntry]] = {}
        self.variables: dict[Path, tuple[PySource, set[str]]] = {}  # (agent_variables)
        self.members_in: dict[tuple[str, Path], list[DeckEntry]] = {}  # (assign_decks)
        self.members_elsewhere: dict[str, list[DeckEntry]] = {}
        self.deck_order: dict[int, int] = {}
        # the registry of agent definitions on their own, by workspace folder (folder_claude_registry)
        self.folder_registries: dict[Path, Registry] = {}
        # the files of AgentDefinitions used by options in another file (link_imported_definitions)
        self.cross_linked: set[Path] = set()
        self.by_root: dict[Path, list[SkillEntry]] = {}

    @property
    def consulted(self) -> set[str]:
        """The paths the model depends on beyond the walked tree (Places.consulted)."""
        return self.places.consulted

    def run(self, skill_paths: list[tuple[Path, Path]], load_skills: Callable[[list[SkillJob]], None]) -> None:
        """Roots, then the skills placed and handed to load_skills, then registries and listings."""
        model = self.model
        self.places.base_roots(skill_paths)
        # 3. roots and registries from code
        for entry in model.pythons.values():
            for call in entry.source.calls:
                if call.kind in ("deck", "deck_from_project"):
                    model.decks.append(self.deck(entry, call))
        user_dir = self.workspace.user_skills_dir()
        user_skills: list[tuple[Path, Path]] = []
        if user_dir is not None and self.places.exists(user_dir) and not any(within(user_dir, f) for f in model.folders):
            self.places.add_root(Root(user_dir, Profile.CLAUDE, "user"))
            user_skills = self.places.list_skill_files(user_dir)

        options_calls = [
            (entry, call) for entry in model.pythons.values() for call in entry.source.calls
            if call.kind == "claude_options"
        ]
        plugin_skills: list[tuple[Path, Path]] = []
        for entry, call in options_calls:
            for plugin_dir in self.plugin_dirs(entry, call):
                name = self.places.plugin_name(plugin_dir)
                root = self.places.add_root(Root(plugin_dir / "skills", Profile.CLAUDE, "plugin", f"{name}:"))
                if not any(within(root.path, f) for f in model.folders):
                    plugin_skills += self.places.list_skill_files(root.path)

        # 4. skills; the agents and the names they list need none, and are indexed first (in check,
        # while a child still analyses skills)
        jobs = self.places.make_jobs(skill_paths, user_skills + plugin_skills)
        for entry in model.pythons.values():
            for call in entry.source.calls:
                if call.kind == "agent":
                    model.agents.append(AgentEntry(entry.path, call, entry.folder))
        for agent in model.agents:
            _add_listings(model, agent)
        load_skills(jobs)

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
        self.places.project_dirs.clear()  # answers for this build: an edit later asks the file system again

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
            project = self.places.project_dir(entry.path, folder, ".agentdeck")
            default = project / ".agentdeck" / "skills"
            roots.append(self.places.add_root(Root(default, Profile.AGENTDECK, "agentdeck")))
            has_skills = True
        if value is not None and value.kind != "none":
            items = value.items if value.kind in ("list", "tuple") else [value]
            for item in items:
                if item.path is None:
                    dynamic = True
                    continue
                resolved, exists = self.places.resolve(item.path, entry.path, folder)
                declared.append((resolved, item.span, exists))
                roots.append(self.places.add_root(Root(resolved, Profile.AGENTDECK, "deck")))
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
                resolved, _ = self.places.resolve(path.path, entry.path, entry.folder)
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
                    bases.append(self.places.resolve(cwd.path, entry.path, entry.folder)[0])
                else:
                    complete = False
            else:
                bases.append(entry.folder)
                bases.append(self.places.project_dir(entry.path, entry.folder, ".claude"))
            add_dirs = call.keyword("add_dirs")
            if add_dirs is not None and add_dirs.kind in ("list", "tuple"):
                for item in add_dirs.items:
                    if item.path is None:
                        complete = False
                        continue
                    bases.append(self.places.resolve(item.path, entry.path, entry.folder)[0])
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
            roots.sort(key=lambda root: (ORIGIN_RANK[root.origin], root.path.parts))
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
                entries.sort(key=listing_order)

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



def build(workspace: Workspace, loader: Loader) -> Builder:
    """A build's steps, in order: the folders walked and their files gathered (the loader walks them),
    the loader's early start (prepare), the code files read (load_pythons), the roots found and every
    skill placed, the skills read (load_skills), then registries and listings. The builder it returns
    holds the model and what incremental updates need."""
    model, skill_paths, python_paths, directories = workspace.gather(loader)
    try:
        loader.prepare(workspace, model, skill_paths, directories)
        loader.load_pythons(workspace, model, python_paths)
        with phase("build model"):
            builder = Builder(workspace, model, directories)
            builder.run(skill_paths, lambda jobs: loader.load_skills(workspace, model, jobs))
    finally:
        workspace.built()
    return builder
