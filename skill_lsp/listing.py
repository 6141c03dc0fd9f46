"""What each agent's model is shown of its skills, measured against its runtime's budget: one `Listing` per
Claude session (a ClaudeAgentOptions / query() options call), subagent, project (`.claude/skills`, Codex's
`.agents/skills`) and AgentDeck agent, with its entries, characters, budget and the entries at risk.

The runtimes' rules are in `runtimes/claude_code.py` and `runtimes/codex.py`, with their evidence. The public
API (rules, hovers, code lenses, `skill-lsp report` and the VS Code skills view read it, never the internals):

- `listings(model)`: every listing of the workspace, in a stable order.
- `listings_in(model, path)`: the listings reported in one file (an options call's, a subagent's, a settings file's).
- `skill_listings(model, skill)`: the listings a skill is an entry of, each with its entry.
- `Listing`: `runtime`, `kind`, `title`, `path`, `span`, `entries`, `hidden`, `characters`, `budget` (a `Budget`:
  `smallest`, `largest`, `unit`, `how`), `over`, `at_risk`, `dropped_at_least`, `left_out`, `shortened`, `cap`,
  `summary()`; `Entry`: `skill`, `name`, `text`, `size`, `bare`, `cut`, `fixed`.

Claude Code drops the descriptions of the least-used skills first, which depends on each user's use: a
listing names the skills whose description *can* be dropped (`at_risk`) and how many at least are, never which.
What skill-lsp sees is a lower bound of what the runtime lists (Claude Code adds its own bundled skills, the
user's skills and plugins; Codex its system skills), so a listing under its budget is never reported as over.
"""

from __future__ import annotations

import itertools
import operator
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from .codecalls import Call
from .disclosure import agent_skills, agentdeck_block, options_skills
from .index import AgentEntry, DefinitionEntry, Model, OptionsEntry, Registry, SkillEntry, SkillFacts
from .listingmath import at_risk, dropped_at_least, utf16_cut, utf16_length, width
from .model import Profile, Span
from .runtimes import claude_code, codex, discovering
from .textutil import FileTooLarge, read_text

SETTINGS_LIMIT = 1024 * 1024  # a settings file larger than this is not read


@dataclass(frozen=True)
class Entry:
    """One skill's line in a listing."""

    skill: SkillEntry
    name: str  # the name the listing shows
    text: str  # the line as the runtime renders it (Claude Code: cut at skillListingMaxDescChars)
    size: int  # its cost in the budget's unit (Claude Code: display columns; Codex: tokens)
    bare: int  # its cost without the description (Claude Code: `- NAME`; Codex: `- NAME: (file: PATH)`)
    cut: int = 0  # characters of description and when_to_use beyond the per-entry cap (Claude Code)
    fixed: bool = False  # listed by name only whatever the budget (skillOverrides "name-only")


@dataclass(frozen=True)
class Budget:
    """A listing's budget: one number when the runtime and its settings fix it, a range when it depends on the
    model in use (the smallest for the at-risk figures, the largest for a certain overflow); None: none stated."""

    smallest: int | None
    largest: int | None
    unit: str  # "characters" | "tokens"
    how: str  # where the number comes from, in words

    def text(self) -> str:
        if self.smallest is None:
            return "no stated budget"
        if self.smallest == self.largest:
            return f"{self.smallest:,}"
        return f"{self.smallest:,}–{self.largest:,}"


@dataclass
class Listing:
    runtime: str  # "claude-code" | "codex" | "agentdeck"
    kind: str  # "session" | "subagent" | "project" | "agent"
    title: str
    path: Path  # the file it is reported in
    span: Span  # where in that file
    entries: list[Entry]
    budget: Budget
    characters: int = 0  # the whole listing's cost, in the budget's unit
    # skills of the set the runtime leaves out of the model's listing, with why
    hidden: list[tuple[SkillEntry, str]] = field(default_factory=list)
    at_risk: list[Entry] = field(default_factory=list)  # Claude Code: descriptions that can be dropped
    dropped_at_least: int = 0  # Claude Code: how many descriptions are dropped whatever the use
    left_out: list[Entry] = field(default_factory=list)  # Codex: skills left out whole
    shortened: int = 0  # Codex: characters of description removed to fit
    complete: bool = True  # False when the set of skills is not statically known
    cap: int = 0  # Claude Code: skillListingMaxDescChars, each entry's cut
    model: str | None = None  # the model the budget is of, when known (its own for a subagent)

    @property
    def over(self) -> int:
        """How far over its smallest budget the listing is (0: it fits)."""
        if self.budget.smallest is None:
            return 0
        return max(0, self.characters - self.budget.smallest)

    @property
    def over_every_budget(self) -> bool:
        return self.budget.largest is not None and self.characters > self.budget.largest

    def summary(self) -> str:
        """The code lens's title: "12 skills · 9,400 characters of 8,000 · 2 at risk"."""
        count = len(self.entries)
        parts = [f"{count} skill{'s' if count != 1 else ''}"]
        unit = self.budget.unit
        if self.budget.smallest is None:
            parts.append(f"{self.characters:,} {unit}")
        else:
            parts.append(f"{self.characters:,} {unit} of {self.budget.text()}")
        if self.runtime == "claude-code" and self.at_risk:
            parts.append(f"{len(self.at_risk)} at risk")
        if self.left_out:
            parts.append(f"{len(self.left_out)} left out")
        elif self.shortened:
            parts.append("descriptions shortened")
        return " · ".join(parts)


# -- Claude Code ---------------------------------------------------------------------------------


def _shown_name(skill: SkillEntry, names: set[str]) -> str:
    """`NAME (display name)` when the frontmatter name differs from the name the skill is invoked by and names no
    other skill (rBn); the name alone otherwise."""
    key = skill.key
    display = (skill.facts.name or "").strip()
    if (not display or display == key or key.endswith(f":{display}") or display in names
            or not all(char.isalnum() or char in "_:.-" or unicodedata.category(char).startswith("M") for char in display)):
        return key
    return f"{key} ({display})"


# skill -> (its facts, cap, override, whether its display name names another skill, its entry), and a list of
# skills -> (their facts, each one's entry or why it is left out): an edit measures the listings of thousands of
# skills again, and only the edited one's entry changes
_entries: dict[int, tuple[SkillEntry, SkillFacts, int, str | None, bool, Entry]] = {}
_lists: dict[tuple[object, ...], tuple[list[SkillEntry], tuple[SkillFacts, ...], list[Entry | str]]] = {}
ENTRIES_KEPT = 200_000
LISTS_KEPT = 16
_FACTS = operator.attrgetter("facts")


def claude_entries(skills: list[SkillEntry], settings: claude_code.ListingSettings
                   ) -> tuple[list[Entry], list[tuple[SkillEntry, str]]]:
    """The listing's entries for these skills, and the skills it leaves out with why."""
    if len(_entries) > ENTRIES_KEPT:
        _entries.clear()
    key = (tuple(map(id, skills)), settings.max_desc_chars, tuple(sorted(settings.overrides.items())))
    facts = tuple(map(_FACTS, skills))
    kept = _lists.get(key)
    names: list[set[str]] = []  # every key, gathered when a display name differs from its directory's

    def one(skill: SkillEntry) -> Entry | str:
        return _claude_entry(skill, settings, skills, names)

    if kept is not None:
        aligned = list(kept[2])
        for index in itertools.compress(range(len(facts)), map(operator.is_not, kept[1], facts)):
            aligned[index] = one(skills[index])
    else:
        aligned = [one(skill) for skill in skills]
    if len(_lists) >= LISTS_KEPT and key not in _lists:
        del _lists[next(iter(_lists))]
    _lists[key] = (skills, facts, aligned)  # (the skills kept: their identities are the key)
    if str not in set(map(type, aligned)):
        return cast(list[Entry], aligned), []  # (a new list: the kept one is copied above)
    entries = [item for item in aligned if not isinstance(item, str)]
    hidden = [(skill, item) for skill, item in zip(skills, aligned, strict=True) if isinstance(item, str)]
    return entries, hidden


def _claude_entry(skill: SkillEntry, settings: claude_code.ListingSettings, skills: list[SkillEntry],
                  names: list[set[str]]) -> Entry | str:
    """A skill's entry, or why Claude Code leaves it out of the model's listing."""
    facts = skill.facts
    cap = settings.max_desc_chars
    plugin = skill.root is not None and skill.root.origin == "plugin"
    override = None if plugin or not settings.overrides else settings.overrides.get(skill.key)
    clash = False
    if facts.name and facts.name != skill.dir_name:
        if not names:  # (a key is its directory's name but under a plugin: the property costs more)
            names.append({each.key if each.root is not None and (each.root.prefix or each.root.whole) else each.dir_name
                          for each in skills})
        clash = facts.name in names[0]
    kept = _entries.get(id(skill))
    if kept is not None and kept[0] is skill and kept[1] is facts and kept[2] == cap and kept[3] == override \
            and kept[4] == clash:
        return kept[5]
    if facts.unlisted:
        return "disable-model-invocation: true"
    if override in ("off", "user-invocable-only"):
        return f'skillOverrides "{override}"'
    if plugin and not facts.description and not facts.when_to_use:
        return "a plugin skill without a description"
    if override == "name-only":
        line = f"- {skill.key}"
        entry = Entry(skill, skill.key, line, width(line), width(line), fixed=True)
    else:
        text = facts.description or ""
        if facts.when_to_use:
            text = f"{text} - {facts.when_to_use}"
        cut = 0
        if utf16_length(text) > cap:
            shown = utf16_cut(text, cap - 1)
            cut = len(text) - len(shown)
            text = shown + "\u2026"
        name = _shown_name(skill, names[0] if names else set())  # (display == key first: its own key never counts)
        line = f"- {name}: {text}"
        entry = Entry(skill, name, line, width(line), width(f"- {name}"), cut)
    _entries[id(skill)] = (skill, facts, cap, override, clash, entry)
    return entry


def claude_listing(skills: list[SkillEntry], settings: claude_code.ListingSettings, *, kind: str, title: str,
                   path: Path, span: Span, model: str | None = None, env: str | None = None,
                   complete: bool = True) -> Listing:
    """Claude Code's listing of these skills under these settings, for a session of `model` (None: not known)."""
    entries, hidden = claude_entries(skills, settings)
    smallest, largest, how = claude_code.listing_budget(settings.budget_fraction, model or settings.model,
                                                        env if env is not None else settings.budget_env)
    listing = Listing("claude-code", kind, title, path, span, entries, Budget(smallest, largest, "characters", how),
                      hidden=hidden, complete=complete, cap=settings.max_desc_chars, model=model or settings.model)
    key = (tuple(map(id, entries)), smallest)
    measured = _measured.get(key)
    if measured is None:  # (the stored entries keep their identities from being reused)
        measured = (entries, *_measure(entries, smallest))
        if len(_measured) >= MEASURED_KEPT:
            del _measured[next(iter(_measured))]
        _measured[key] = measured
    listing.characters, listing.at_risk, listing.dropped_at_least = measured[1], list(measured[2]), measured[3]
    return listing


# (entries' identities, budget) -> (the entries, characters, at risk, dropped at least): an edit measures again
# the listings of every file it refreshes, most of them unchanged (entries are kept per skill, _entries)
_measured: dict[tuple[tuple[int, ...], int], tuple[list[Entry], int, list[Entry], int]] = {}
MEASURED_KEPT = 16


_SIZE, _BARE, _FIXED = operator.attrgetter("size"), operator.attrgetter("bare"), operator.attrgetter("fixed")


def _measure(entries: list[Entry], smallest: int) -> tuple[int, list[Entry], int]:
    characters = sum(map(_SIZE, entries)) + max(0, len(entries) - 1)
    if characters <= smallest:
        return characters, [], 0
    movable = [entry for entry in entries if not entry.fixed] if any(map(_FIXED, entries)) else entries
    fixed = sum(entry.size for entry in entries if entry.fixed) if movable is not entries else 0
    room = smallest - (fixed + sum(map(_BARE, movable)) + max(0, len(entries) - 1))
    extras = list(map(operator.sub, map(_SIZE, movable), map(_BARE, movable)))
    risky = [entry for entry, flag in zip(movable, at_risk(extras, room), strict=True) if flag]
    return characters, risky, dropped_at_least(extras, room)


# -- Codex -------------------------------------------------------------------------------------------


def codex_listing(skills: list[SkillEntry], *, title: str, path: Path, span: Span) -> Listing:
    """Codex's listing of these skills (its `.agents/skills`), in tokens, against 2 % of the catalogue's
    smallest and largest context windows."""
    entries = []
    for skill in sorted(skills, key=lambda each: each.path.parts):
        name = skill.facts.name or skill.dir_name
        description = skill.facts.description or ""
        where = f"r1/{skill.dir_name}/SKILL.md" if skill.root is None else \
            f"r1/{os.path.relpath(skill.path, skill.root.path)}".replace(os.sep, "/")
        bare = f"- {name}: (file: {where})"
        line = f"- {name}: {description} (file: {where})" if description else bare
        entries.append(Entry(skill, name, line, codex.line_tokens(line), codex.line_tokens(bare)))
    low, high = (window * codex.LISTING_PERCENT // 100 for window in codex.CONTEXT_WINDOWS)
    how = (f"{codex.LISTING_PERCENT}% of the model's context in tokens: {low:,} with a "
           f"{codex.CONTEXT_WINDOWS[0]:,}-token model, {high:,} with a {codex.CONTEXT_WINDOWS[1]:,}-token one")
    listing = Listing("codex", "project", title, path, span, entries, Budget(low, high, "tokens", how))
    listing.characters = sum(entry.size for entry in entries)
    if listing.characters > low:
        bare_total = sum(entry.bare for entry in entries)
        if bare_total <= low:
            # about: Codex shares the room left by the bare lines among the descriptions, 4 bytes a token
            written = sum(len(entry.skill.facts.description or "") for entry in entries)
            listing.shortened = max(0, written - (low - bare_total) * codex.BYTES_PER_TOKEN)
        else:
            used = 0
            for entry in entries:
                if used + entry.bare <= low:
                    used += entry.bare
                else:
                    listing.left_out.append(entry)
    return listing


# -- AgentDeck -----------------------------------------------------------------------------------


def agentdeck_listing(model: Model, agent: AgentEntry) -> Listing:
    """The agent's disclosure block as AgentDeck builds it; AgentDeck states no budget for it."""
    block, _, _ = agentdeck_block(model, agent)
    entries = []
    for name, skill in agent_skills(model, agent):
        if skill is None:
            continue
        line = f"- {name}: {skill.description if skill.description is not None else ''}"
        entries.append(Entry(skill, name, line, len(line), len(f"- {name}: ")))
    listing = Listing("agentdeck", "agent", f"agent {agent.display_name}", agent.path, agent.call.callee_span, entries,
                      Budget(None, None, "characters", "AgentDeck states no budget for the skills block"))
    listing.characters = len(block) if entries else 0
    return listing


# -- the workspace's listings ---------------------------------------------------------------------


_settings_cache: dict[tuple[str, int, int], str] = {}


def settings_text(path: Path) -> str | None:
    """A settings file's text (bounded, cached by size and time), None when it cannot be read."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    found = _settings_cache.get(key)
    if found is None:
        try:
            found = read_text(path, SETTINGS_LIMIT)
        except (OSError, FileTooLarge):
            return None
        if len(_settings_cache) > 256:
            _settings_cache.clear()
        _settings_cache[key] = found
    return found


ALL_SOURCES = frozenset({"user", "project", "local"})


def settings_files(model: Model, folder: Path, sources: frozenset[str] = ALL_SOURCES) -> list[Path]:
    """The settings files a Claude Code session in folder reads (of these setting sources), lowest priority
    first, those that exist."""
    candidates = []
    user = next((root.path for root in model.roots.values() if root.origin == "user"), None)
    if user is not None and "user" in sources:
        candidates.append(user.parent / "settings.json")
    candidates += [folder / ".claude" / name for name, source in zip(claude_code.SETTINGS_FILES, ("project", "local"),
                                                                       strict=True) if source in sources]
    return [path for path in candidates if path.is_file()]


def claude_settings(model: Model, folder: Path, sources: frozenset[str] = ALL_SOURCES) -> claude_code.ListingSettings:
    texts = [text for text in (settings_text(path) for path in settings_files(model, folder, sources)) if text is not None]
    return claude_code.listing_settings(texts)


def _sources(call: Call) -> frozenset[str] | None:
    """The setting sources an options call loads (None: not known statically): its literal `setting_sources`;
    without one, the user's and the project's when `skills` is set, none otherwise (Python SDK 0.2.143,
    RUNTIMES.md: "setting_sources defaults to ["user", "project"] only when skills is set"; the SDK's skills
    guide: skills are "loaded from filesystem" only with settingSources / setting_sources)."""
    value = call.keyword("setting_sources")
    if value is None or value.kind == "none":
        skills = call.keyword("skills")
        # (the Python SDK's default; the TypeScript SDK's is not documented for skills: none counted)
        python = call.framework == "claude_agent_sdk"
        return frozenset({"user", "project"}) if python and skills is not None and skills.kind != "none" else frozenset()
    if value.kind in ("list", "tuple") and all(item.text is not None for item in value.items):
        return frozenset(item.text for item in value.items if item.text)
    return None


def _env_budget(call: Call) -> str | None:
    value = call.keyword("env")
    if value is None or value.kind != "dict":
        return None
    for key, item in value.pairs:
        if key.text == claude_code.LISTING_BUDGET_ENV and item.text is not None:
            return item.text
    return None


def session_listing(model: Model, options: OptionsEntry) -> Listing:
    skills, _ = options_skills(options)
    sources = _sources(options.call)
    if not sources:
        # no filesystem settings: only the plugins it is given load skills (not known: none counted either)
        skills = [skill for skill in skills if skill.root is not None and skill.root.origin == "plugin"]
    value = options.call.keyword("skills")
    complete = options.registry.complete and (value is None or value.kind in ("none", "list", "tuple")
                                              or (value.kind == "str" and value.text == "all"))
    title = f"Claude session (options at line {options.call.span.start.line + 1})"
    return claude_listing(skills, claude_settings(model, options.folder, sources or frozenset()), kind="session", title=title,
                          path=options.path, span=options.call.callee_span, model=options.call.string_arg("model"),
                          env=_env_budget(options.call), complete=complete)


def project_skills(model: Model, folder: Path) -> list[SkillEntry]:
    """The skills of folder's `.claude/skills`: what a Claude Code session in the folder lists of the project
    (nested `.claude/skills` are listed only while Claude works in their directory; plugins once installed)."""
    root = model.roots.get(folder / ".claude" / "skills")
    if root is None:
        return []
    # skills come and go only with a new model; in the order of their paths
    kept = _project.get(id(model))
    if kept is None or kept[0] is not model:
        kept = _project[id(model)] = (model, {})
        while len(_project) > 4:
            del _project[next(iter(_project))]
    found = kept[1].get(root.path)
    if found is None:
        found = kept[1][root.path] = sorted((skill for skill in model.skills.values()
                                             if skill.root is root and skill.profile == Profile.CLAUDE),
                                            key=lambda skill: skill.path.parts)
    return list(found)


_project: dict[int, tuple[Model, dict[Path, list[SkillEntry]]]] = {}


def project_listing(model: Model, folder: Path) -> Listing | None:
    skills = project_skills(model, folder)
    if not skills:
        return None
    files = settings_files(model, folder)
    project = [path for path in files if path.parent == folder / ".claude"]
    where = project[0] if project else folder / ".claude" / "skills"
    return claude_listing(skills, claude_settings(model, folder), kind="project",
                          title=f"Claude Code in {folder.name} (.claude/skills)", path=where, span=Span.of(0, 0, 0, 0))


def subagent_listing(model: Model, definition: DefinitionEntry) -> Listing | None:
    """A subagent's listing: the skills of the session it runs in (its options', or the project's for a file of
    the project's `.claude/agents`), at its own model's budget; None when that session is not known (a plugin's
    or the user's subagent, an AgentDefinition in no options). Its `skills` are preloaded whole, not listed."""
    if definition.options is not None:
        skills, _ = options_skills(definition.options)
    elif definition.is_file and definition.path.parent == definition.folder / ".claude" / "agents":
        skills = project_skills(model, definition.folder)
    else:
        return None
    model_name = definition.call.string_arg("model")
    if model_name in (None, "inherit"):
        model_name = definition.options.call.string_arg("model") if definition.options is not None else None
    return claude_listing(skills, claude_settings(model, definition.folder), kind="subagent",
                          title=f"subagent {definition.display_name}", path=definition.path,
                          span=definition.call.callee_span, model=model_name)


def codex_listings(model: Model) -> list[Listing]:
    found = []
    for root in sorted(model.roots.values(), key=lambda root: root.path.parts):
        if not any(runtime.key == "codex" for runtime in discovering(root.origin, root.path, root.profile)):
            continue
        skills = [skill for skill in model.skills.values() if skill.root is root]
        if skills:
            found.append(codex_listing(skills, title=f"Codex ({root.path.name})", path=root.path,
                                       span=Span.of(0, 0, 0, 0)))
    return found


def listings(model: Model) -> list[Listing]:
    """Every listing of the workspace: sessions, subagents, AgentDeck agents, then each folder's projects."""
    found: list[Listing] = [session_listing(model, options) for options in model.options]
    found += [each for each in (subagent_listing(model, definition) for definition in model.definitions) if each]
    found += [agentdeck_listing(model, agent) for agent in model.agents]
    for folder in model.folders:
        project = project_listing(model, folder)
        if project is not None:
            found.append(project)
    found += codex_listings(model)
    return found


def listings_in(model: Model, path: Path, *, agents: bool = True) -> list[Listing]:
    """The listings reported in path: its options calls', subagents' and (unless `agents` is false: LS101 has
    no AgentDeck budget to hold them to, and a disclosure block is the costliest to make) agents', and a
    project's when path is the project's settings file."""
    found: list[Listing] = []
    _, deck_agents, options = model.entries_in(path)
    found += [session_listing(model, each) for each in options]
    found += [each for each in (subagent_listing(model, definition) for definition in model.definitions_in(path)) if each]
    if agents:
        found += [agentdeck_listing(model, each) for each in deck_agents]
    if path.name in claude_code.SETTINGS_FILES and path.parent.name == ".claude":
        project = project_listing(model, path.parent.parent)
        if project is not None and project.path == path:
            found.append(project)
    return found


def skill_listings(model: Model, skill: SkillEntry) -> list[tuple[Listing, Entry]]:
    """The listings skill is an entry of: its project's, and every session, subagent or agent that lists it."""
    found: list[tuple[Listing, Entry]] = []
    candidates: list[Listing] = []
    if skill.root is not None and skill.root.origin == "claude":
        project = project_listing(model, skill.root.path.parent.parent)
        if project is not None:
            candidates.append(project)
    if skill.root is not None and any(runtime.key == "codex" for runtime in skill.runtimes):
        candidates += [each for each in codex_listings(model) if each.path == skill.root.path]
    seen: set[int] = set()
    for options in model.options:  # a session with no skills= filter lists every skill it discovers
        if lists_every_skill(options) and any(each is skill for each in options.registry.skills.get(skill.key, [])):
            seen.add(id(options))
            candidates.append(session_listing(model, options))
    for _, _, owner in model.agents_using(skill):
        if id(owner) in seen:
            continue
        seen.add(id(owner))
        if isinstance(owner, OptionsEntry):
            candidates.append(session_listing(model, owner))
        elif isinstance(owner, AgentEntry):
            candidates.append(agentdeck_listing(model, owner))
    for listing in candidates:
        entry = next((each for each in listing.entries if each.skill is skill), None)
        if entry is not None:
            found.append((listing, entry))
    return found


def lists_every_skill(options: OptionsEntry) -> bool:
    """Whether the session lists every skill it discovers (no skills= filter, or skills="all")."""
    value = options.call.keyword("skills")
    return value is None or value.kind == "none" or (value.kind == "str" and value.text == "all")


def registry_skills(registry: Registry) -> list[SkillEntry]:
    return [bucket[0] for bucket in registry.skills.values() if bucket]
