"""AD1xx (AgentDeck Agent/Deck calls) and CL1xx (ClaudeAgentOptions) rules."""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..codecalls import PySource, PyValue
from ..index import AgentEntry, DeckEntry, DefinitionEntry, Model, OptionsEntry, Registry, Root, SkillEntry
from ..model import CreateFile, Fix, Position, Related, Span, TextEdit, relative_text
from ..pathtext import within
from ..tssource import TS_SDK
from .report import Reporter, did_you_mean


def _replace_fixes(path: Path, items: list[PyValue], position: int, names: list[str], listed: set[str]) -> list[Fix]:
    """Replace the entry with each close name; when a close name is listed already, replacing would only
    trade this finding for a duplicate (AD104), so removing the entry is offered instead."""
    item = items[position]
    span = item.content_span or item.span
    fixes = [
        Fix(f"Replace with '{name}'", edits=(TextEdit(path, span, name),), preferred=index == 0 and len(names) == 1)
        for index, name in enumerate(names) if name not in listed
    ]
    already = next((name for name in names if name in listed), None)
    if already is not None:
        fixes.append(Fix(f"Remove '{item.text}' ('{already}' is listed already)",
                         edits=(TextEdit(path, _entry_removal(items, position), ""),), preferred=len(names) == 1))
    return fixes


@dataclass
class _RegistryFacts:
    """What every unknown name checked against one registry needs: computed once per call, not per name
    (a skills list can hold 20,000 names)."""

    roots: str  # the existing roots, absolute: each shell shows them relative to its base (Finding.shown_message)
    creatable: Root | None  # where "create the skill" may write: never outside the workspace
    creatable_label: str  # that root as the user knows it, relative to the folder: .claude/skills
    root_paths: list[str]  # the roots' paths in the message (Finding.data["paths"])


def _facts(model: Model, registry: Registry, folder: Path, cache: dict[int, _RegistryFacts]) -> _RegistryFacts:
    facts = cache.get(id(registry))
    if facts is None:
        # root paths are normalised; the server also checks each edit with symlinks resolved
        creatable = next((root for root in registry.roots
                          if root.prefix == "" and any(within(root.path, f) for f in model.folders)), None)
        shown = [root.path for root in registry.roots if root.path.is_dir()]
        facts = _RegistryFacts(
            ", ".join(str(path) for path in shown), creatable,
            relative_text(creatable.path, folder) if creatable is not None else "", [str(path) for path in shown],
        )
        cache[id(registry)] = facts
    return facts


def _in_directory(model: Model, registry: Registry, name: str) -> SkillEntry | None:
    """The registry's first skill (in the order of its table) whose directory is named name."""
    table = registry.skills
    found = [skill for skill in model.skills_in_directory(name)
             if any(entry is skill for entry in table.get(skill.key, []))]
    if len(found) <= 1:
        return found[0] if found else None
    # the same directory name under two roots of the registry
    order = {key: index for index, key in enumerate(table)}
    return min(found, key=lambda skill: (order[skill.key], next(index for index, entry in enumerate(table[skill.key])
                                                                  if entry is skill)))


def _create_fix(facts: _RegistryFacts, name: str) -> list[Fix]:
    """A new skill the user completes: its description is left empty (SK107 says it must be written, and
    the editor puts the cursor there), a heading starts the body."""
    root = facts.creatable
    if root is None or not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", name):
        return []
    title = " ".join(part.capitalize() for part in name.split("-"))
    content = f"---\nname: {name}\ndescription: \n---\n\n# {title}\n\n"
    # one Path made from a string, not two joins: a skills list can hold 20,000 unknown names
    path = Path(f"{root.path}{os.sep}{name}{os.sep}SKILL.md")
    return [Fix(f"Create skill '{name}' in {facts.creatable_label}/", creates=(CreateFile(path, content),),
                focus=(path, Position(2, len("description: "))))]


# "Did you mean" searches per list of skill names: each scores the registry's names (a list of
# 20,000 unknown names against 18,000 skills took 21 s, measured in a workspace of /). Past this
# many, an unknown name's finding suggests nothing (SECURITY.md, Bounds).
SUGGESTIONS_PER_LIST = 1000


class _Suggestions:
    """The nearest names of a registry, for the first SUGGESTIONS_PER_LIST unknown names of a list."""

    def __init__(self) -> None:
        self.left = SUGGESTIONS_PER_LIST

    def __call__(self, registry: Registry, name: str) -> list[str]:
        if self.left <= 0:
            return []
        self.left -= 1
        return registry.skills.index().closest(name)


def check_agent(model: Model, agent: AgentEntry, reporter: Reporter) -> None:
    value = agent.call.keyword("skills")
    if value is None or value.kind == "none":
        return
    path = agent.path
    if value.kind not in ("list", "tuple"):
        reporter.report(
            "AD105", path, value.span,
            "skills= is not a literal list, so its names cannot be checked without running the code",
        )
        return
    seen: dict[str, PyValue] = {}
    suggest = _Suggestions()
    cache: dict[int, _RegistryFacts] = {}
    listed = {entry.text for entry in value.items if entry.kind == "str" and entry.text is not None}
    registries = agent.registries()
    for index, item in enumerate(value.items):
        if item.kind != "str" or item.text is None:
            reporter.report("AD105", path, item.span, "this entry is not a string literal and cannot be checked")
            continue
        name = item.text
        if name in seen:
            reporter.report(
                "AD104", path, item.span, f"'{name}' is listed twice in skills=[...]",
                fixes=[Fix("Remove the duplicate", edits=(TextEdit(path, _entry_removal(value.items, index), ""),), preferred=True)],
                related=[Related(path, seen[name].span, "first listed here")],
            )
            continue
        seen[name] = item
        for deck, registry in registries:
            if registry is None:
                assert deck is not None
                reporter.report(
                    "AD102", path, item.span,
                    f"'{name}' cannot be resolved: the Deck at {_at(deck, path)} has no "
                    "skills=, so its registry is empty and build() fails; give the Deck skills=\"./skills\" or use "
                    "Deck.from_project()",
                    related=[Related(deck.path, deck.call.callee_span, "the Deck without skills=")],
                    data={"paths": [str(deck.path)]},
                )
                continue
            if registry.lookup(name) is not None or not registry.complete:
                continue
            facts = _facts(model, registry, agent.folder, cache)
            where = f"the Deck at {_at(deck, path)}" if deck else "any AgentDeck root of the project"
            mislabelled = _in_directory(model, registry, name)
            if mislabelled is not None:
                near = [mislabelled.key]
                detail = (f"the skill in {mislabelled.directory}/ is named '{mislabelled.key}' in its frontmatter, and the registry is keyed "
                          "by that name; fix the name in its SKILL.md (SK108)")
                named = [str(mislabelled.directory)]
            else:
                near = suggest(registry, name)
                roots = facts.roots or "none exist"
                detail = f"no skill of {where} has that name (roots: {roots}){did_you_mean(near)}"
                named = facts.root_paths + ([str(deck.path)] if deck else [])
            reporter.report(
                "AD101", path, item.span,
                f"unknown skill '{name}': {detail}",
                fixes=(_replace_fixes(path, value.items, index, near, listed) + _create_fix(facts, name)) if mislabelled is None else [],
                data={"closest": near, "name": name, "paths": named},
            )
            break


def _at(deck: DeckEntry, path: Path) -> str:
    """Where a Deck is written, for a finding in path: its line in the same file, else path:line (the path
    absolute in the message, shown relative by the shells)."""
    line = deck.call.span.start.line + 1
    return f"line {line}" if deck.path == path else f"{deck.path}:{line}"


def _entry_removal(items: list[PyValue], index: int) -> Span:
    """The span of ', "name"' (or '"name", ' for the first entry) so that removing it leaves a valid list
    (by index: a search per duplicate made a list of 20,000 copies of one name quadratic)."""
    item = items[index]
    if index > 0:
        return Span(items[index - 1].span.end, item.span.end)
    if len(items) > 1:
        return Span(item.span.start, items[1].span.start)
    return item.span


def check_deck(model: Model, deck: DeckEntry, reporter: Reporter) -> None:
    value = deck.call.keyword("skills")
    for root_path, span, exists in deck.declared_roots:
        if exists:
            continue
        reporter.report(
            "AD103", deck.path, span,
            f"the skill root '{root_path}' does not exist (resolved against "
            f"{deck.path.parent}/ and the workspace); the Deck finds no skills there",
            data={"paths": [str(root_path), str(deck.path.parent)]},
        )
    if deck.dynamic and value is not None:
        reporter.report("AD105", deck.path, value.span, "skills= is not a literal path and cannot be checked")


def sdk_name_problem(value: PyValue) -> tuple[str, str] | None:
    """(code, message) in the Claude Agent SDK's own words for a name it rejects."""
    if value.kind != "str":
        # the SDK's TypeError names the type and shows the value: "got int: 3"
        literal: object = ...
        if value.kind == "number" and value.text is not None:
            try:
                literal = ast.literal_eval(value.text)
            except (ValueError, SyntaxError):
                literal = ...
        elif value.kind == "bool":
            literal = value.text == "true"
        elif value.kind == "none":
            literal = None
        shown = type(literal).__name__ if literal is not ... else {"bytes": "bytes"}.get(value.kind, value.kind)
        suffix = f": {literal!r}" if literal is not ... else ""
        return "CL101", f"Skill names must be strings, got {shown}{suffix}"
    return _name_problem(value.text, _PYTHON_RULES)


@dataclass(frozen=True)
class _NameRules:
    """One SDK's checks of a listed skill name, in its own words ({name} is the name's repr)."""

    blank: str
    surrogate: str
    padded: str
    forbidden: re.Pattern[str]
    forbidden_message: str
    star: str
    wildcard_suffixes: tuple[str, ...]
    wildcard: str
    slash: str
    backslashes: str
    trailing_backslash: str
    whitespace: str | None  # what the SDK trims (None: Python's str.strip)


# Python SDK 0.2.143, _internal/transport/subprocess_cli.py (_validate_skill_name)
_PYTHON_RULES = _NameRules(
    blank="Skill names must be non-empty strings",
    surrogate="Invalid skill name {name}: contains a surrogate code point, which can never match a skill the CLI discovered.",
    padded="Invalid skill name {name}: leading or trailing whitespace can never match — the Skill tool trims the invoked name.",
    forbidden=re.compile(r"[(),\x00-\x1f\x7f-\x9f\ufeff]"),
    forbidden_message=("Invalid skill name {name}: parentheses, commas, control characters, and byte-order marks are not "
                       "allowed. Names match the skill's directory name, or 'plugin:skill' for plugin-qualified skills."),
    star="Invalid skill name '*': use skills=\"all\" to enable every skill.",
    wildcard_suffixes=(":*", " *"),
    wildcard="Invalid skill name {name}: wildcard-suffix names are not allowed; list each skill by its exact name.",
    slash=("Invalid skill name {name}: skill names may not start with '/'. The skills option takes the canonical name, "
           "not the slash-command form."),
    backslashes=("Invalid skill name {name}: consecutive backslashes are not allowed — the per-rule parser collapses "
                 "them, so the rule would name a different skill."),
    trailing_backslash="Invalid skill name {name}: names may not end with an unpaired backslash.",
    whitespace=None,
)

# TypeScript SDK 0.3.333, sdk.mjs (the check each `skills` entry passes before it becomes a `Skill(name)` rule): no
# U+FEFF rule (JavaScript's trim() takes it as whitespace), `__*` is a wildcard suffix too, other wording
_TYPESCRIPT_RULES = _NameRules(
    blank="Skill names must be non-empty strings.",
    surrogate=("Invalid skill name {name}: the name contains an unpaired surrogate, which cannot survive the UTF-8 "
               "encoding of the CLI invocation; no skill discovered from the filesystem can have such a name."),
    padded=("Invalid skill name {name}: leading or trailing whitespace is not allowed — the Skill tool trims the invoked "
            "name, so a padded rule can never match. Remove the padding."),
    forbidden=re.compile(r"[(),\x00-\x1f\x7f-\x9f]"),
    forbidden_message=("Invalid skill name {name}: parentheses, commas, and control characters are not allowed in skill "
                       "names. Skill names match the skill's directory name (or 'plugin:skill' for plugin-qualified "
                       "skills); rename the skill if its directory name contains these characters."),
    star="Invalid skill name '*': use skills: 'all' to enable every skill.",
    wildcard_suffixes=(":*", " *", "__*"),
    wildcard="Invalid skill name {name}: wildcard-suffix names are not allowed; list each skill by its exact name.",
    slash=("Invalid skill name {name}: skill names may not start with '/'. Skills are invoked as slash commands, but the "
           "skills option takes the skill's canonical name — the directory name, or 'plugin:skill'."),
    backslashes=("Invalid skill name {name}: consecutive backslashes are not allowed — the permission-rule parser "
                 "collapses escaped backslashes, so the rule would name a different skill. Rename the skill."),
    trailing_backslash="Invalid skill name {name}: names may not end with an unpaired backslash.",
    whitespace=" \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
               "\u2028\u2029\u202f\u205f\u3000\ufeff",
)


def _name_problem(name: str | None, rules: _NameRules) -> tuple[str, str] | None:
    if name is None:
        return None
    shown = repr(name)
    if not name.strip(rules.whitespace):
        return "CL101", rules.blank
    if not name.isascii() and any(0xD800 <= ord(ch) <= 0xDFFF for ch in name):
        return "CL101", rules.surrogate.format(name=shown)
    if name != name.strip(rules.whitespace):
        return "CL101", rules.padded.format(name=shown)
    if rules.forbidden.search(name):
        return "CL101", rules.forbidden_message.format(name=shown)
    if name == "*":
        return "CL104", rules.star
    if name.endswith(rules.wildcard_suffixes):
        return "CL101", rules.wildcard.format(name=shown)
    if name.startswith("/"):
        return "CL101", rules.slash.format(name=shown)
    if "\\\\" in name:
        return "CL101", rules.backslashes.format(name=shown)
    if name.endswith("\\"):
        return "CL101", rules.trailing_backslash.format(name=shown)
    return None


def ts_sdk_name_problem(value: PyValue) -> tuple[str, str] | None:
    """(code, message) in the TypeScript SDK's own words for a name it rejects."""
    if value.kind != "str":
        return "CL101", _TYPESCRIPT_RULES.blank
    return _name_problem(value.text, _TYPESCRIPT_RULES)


def check_options(model: Model, options: OptionsEntry, reporter: Reporter) -> None:
    value = options.call.keyword("skills")
    path = options.path
    typescript = options.call.framework == TS_SDK
    label = "options.skills" if typescript else "ClaudeAgentOptions.skills"
    if value is None or value.kind == "none":
        return
    if value.kind == "str":
        if value.text == "all" or value.text is None:
            return
        shown = repr(value.text)
        reporter.report(
            "CL102", path, value.span,
            (f"options.skills must be string[] or 'all', got {shown}; the SDK calls skills.map() on it and throws. "
             f"Did you mean [{shown}]?") if typescript else
            f"ClaudeAgentOptions.skills must be a list of skill names or \"all\", got {shown}. Did you mean [{shown}]?",
            fixes=[Fix(f"Change to [{shown}]", edits=(TextEdit(path, value.span, f"[{_source(value)}]"),), preferred=True)],
        )
        return
    if value.kind != "list":
        if value.kind in ("tuple", "dict", "number", "bool", "bytes"):
            reporter.report(
                "CL102", path, value.span,
                f"options.skills must be string[] or 'all', got {'an object' if value.kind == 'dict' else 'a ' + value.kind}"
                if typescript else
                f"{label} must be a list of skill names or \"all\", got a {value.kind}; "
                "other iterables are dropped from the initialize request, which installs no skill filter at all",
            )
        else:
            reporter.report("AD105", path, value.span, "skills= is not a literal and cannot be checked")
        return
    registry = options.registry
    suggest = _Suggestions()
    cache: dict[int, _RegistryFacts] = {}  # the registry's facts, worked out for the first unknown name
    listed = {entry.text for entry in value.items if entry.kind == "str" and entry.text is not None}
    for index, item in enumerate(value.items):
        if item.kind not in ("str",) and item.kind in ("name", "other"):
            reporter.report("AD105", path, item.span, "this entry is not a literal and cannot be checked")
            continue
        problem = ts_sdk_name_problem(item) if typescript else sdk_name_problem(item)
        if problem is not None:
            code, message = problem
            fixes = []
            if code == "CL104":
                fixes.append(Fix("Replace the list with skills: 'all'" if typescript else 'Replace the list with skills="all"',
                                 edits=(TextEdit(path, value.span, "'all'" if typescript else '"all"'),), preferred=True))
            elif item.text is not None and item.text.strip() != item.text and item.text.strip():
                fixes.append(Fix("Trim the whitespace", edits=(TextEdit(path, item.content_span or item.span, item.text.strip()),), preferred=True))
            reporter.report(code, path, item.span, message, fixes=fixes)
            continue
        name = item.text
        if name is None or registry.session_lookup(name) is not None or not registry.complete:
            continue
        facts = _facts(model, registry, options.folder, cache)
        labelled = _by_display_name(registry, name)
        if labelled is not None:
            # the session filter matches canonical names only (sdk.d.ts 0.3.333: "Display names and aliases
            # do not match"; the SDKs' own messages: "Names match the skill's directory name")
            near = [labelled.key]
            reporter.report(
                "CL103", path, item.span,
                f"'{name}' is the frontmatter name of the skill in {labelled.directory}/, but the session's skills filter "
                f"matches a skill's canonical name — its directory name '{labelled.key}' — so this skill is never "
                f"offered; did you mean '{labelled.key}'?",
                fixes=_replace_fixes(path, value.items, index, near, listed),
                data={"closest": near, "name": name, "paths": [str(labelled.directory)]},
            )
            continue
        near = suggest(registry, name)
        roots = facts.roots
        searched = f"searched {roots}" if roots else "no skill root exists"
        reporter.report(
            "CL103", path, item.span,
            f"no discovered skill is named '{name}' ({searched}); the SDK accepts it but the skill is never "
            f"offered — the Skill tool answers \"Skill {name} is not in this session's skills allowlist\"{did_you_mean(near)}",
            fixes=_replace_fixes(path, value.items, index, near, listed) + _create_fix(facts, name),
            data={"closest": near, "name": name, "paths": facts.root_paths},
        )


def _by_display_name(registry: Registry, name: str) -> SkillEntry | None:
    for bucket in registry.skills.values():
        for skill in bucket:
            if skill.facts.name == name:
                return skill
    return None


def check_definition(model: Model, definition: DefinitionEntry, reporter: Reporter) -> None:
    """CL103 on a subagent's `skills`: a name that no skill it can preload has (it starts without it)."""
    value = definition.call.keyword("skills")
    if value is None or value.kind not in ("list", "tuple"):
        return
    path = definition.path
    registry = definition.registry
    if not registry.complete:
        return
    suggest = _Suggestions()
    cache: dict[int, _RegistryFacts] = {}
    listed = {entry.text for entry in value.items if entry.kind == "str" and entry.text is not None}
    who = (f"Claude Code does not preload it into the subagent '{definition.display_name}'" if definition.is_file else
           f"the subagent '{definition.display_name}' starts without it")
    # a user subagent (~/.claude/agents) runs in every project: checked against the user's skills
    users = model.user_agents is not None and within(definition.folder, model.user_agents)
    if users:
        who += " in a project without a skill of that name"
    resolve = definition.resolver()
    for index, item in enumerate(value.items):
        if item.kind != "str" or item.text is None or resolve(item.text) is not None:
            continue
        name = item.text
        if users and ":" in name:
            continue  # a plugin's skill: the plugins installed for the user are not read
        near = suggest(registry, name)
        facts = _facts(model, registry, definition.folder, cache)
        searched = f"searched {facts.roots}" if facts.roots else "no skill root exists"
        if users:
            searched = f"searched the user's skills, {facts.roots}" if facts.roots else "the user's skills directory does not exist"
        reporter.report(
            "CL103", path, item.span,
            f"no discovered skill is named '{name}' ({searched}); {who}{did_you_mean(near)}",
            fixes=_replace_fixes(path, value.items, index, near, listed) + _create_fix(facts, name),
            data={"closest": near, "name": name, "paths": facts.root_paths},
        )


def report_notes(path: Path, source: PySource, reporter: Reporter) -> None:
    """The problems a file's parser found in it (a subagent file's frontmatter, CA1xx)."""
    for code, span, message, replacement in source.notes:
        fixes = [Fix(f"Change to '{replacement}'", edits=(TextEdit(path, span, replacement),), preferred=True)] if replacement else []
        reporter.report(code, path, span, message, fixes=fixes)


def _source(value: PyValue) -> str:
    text = value.text or ""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
