"""The runtimes that load skills: which of them discover a SKILL.md, and what each one's loader makes of it.

One module per runtime holds its roots, its loader (parse, recovery, coercions, ignored keys), its fields,
limits and wording, each fact with the source and version it comes from. The SK1xx rules ask every runtime
that discovers a skill what it does with what the author wrote (an `Outcome`) and report the difference in
that runtime's terms; the worst consequence among them decides the severity.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from rapidfuzz.distance import OSA

from ..model import Profile, Severity


class Consequence(enum.IntEnum):
    """What a runtime does with something the author wrote, from harmless to fatal."""

    PORTABILITY = 1  # this runtime is fine; another runtime (one that does not read this root) is not
    ALTERED = 2  # it loads something other than what was written (a cut text, an ignored field, lost metadata)
    DROPPED = 3  # it refuses or skips the skill, or Deck.build() fails

    @property
    def severity(self) -> Severity:
        return {Consequence.DROPPED: Severity.ERROR, Consequence.ALTERED: Severity.WARNING,
                Consequence.PORTABILITY: Severity.INFORMATION}[self]


@dataclass(frozen=True)
class Outcome:
    """One runtime's answer: how bad it is, and what it does in its own words ("skips the skill")."""

    consequence: Consequence
    does: str


def dropped(does: str) -> Outcome:
    return Outcome(Consequence.DROPPED, does)


def altered(does: str) -> Outcome:
    return Outcome(Consequence.ALTERED, does)


_DROPS = Outcome(Consequence.DROPPED, "drops the skill")
_REJECTS = Outcome(Consequence.DROPPED, "rejects the skill")


@dataclass(frozen=True)
class FieldSpec:
    """A frontmatter key a runtime reads: its kind and its documentation (hover, completion)."""

    key: str
    # str, bool, str|list, mapping, str-map, any, hint (a string, a list is joined), shell, effort, context
    kind: str
    doc: str
    required: bool = False
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class Runtime:
    """A runtime's loader as data. Each attribute is what it does, cited in its module."""

    key: str  # agentdeck | claude-code | vscode | codex | spec
    label: str  # how messages name it: "Claude Code"
    fields: Mapping[str, FieldSpec]
    # keys it parses or tolerates without reading them as fields (never reported as unknown)
    silent_keys: frozenset[str] = frozenset()
    # key -> the field it is read as (Claude Code's `disallowedTools`)
    aliases: Mapping[str, str] = field(default_factory=dict)
    # the YAML does not parse: what it does (after its own recovery, when it has one)
    yaml_error: Outcome = _DROPS
    # whether it retries a failed parse after quoting values (Claude Code)
    recovers_yaml: bool = False
    # whether that retry also replaces leading tabs (Claude Code's does; Codex 0.171.0 loads no frontmatter
    # indented with a tab)
    recovery_replaces_tabs: bool = True
    missing_name: Outcome | None = None
    missing_description: Outcome | None = None
    not_a_mapping: Outcome = _DROPS
    # the file has no frontmatter at all (None: as not_a_mapping)
    no_frontmatter: Outcome | None = None
    # name or description not a non-empty string
    bad_text: Outcome = _REJECTS
    name_mismatch: Outcome | None = None
    # the name breaks this runtime's naming rule (name_rule says which)
    invalid_name: Outcome | None = None
    name_rule: Callable[[str], str | None] | None = None
    description_limit: int | None = None
    long_description: Outcome | None = None
    compatibility_limit: int | None = None
    long_compatibility: Outcome | None = None
    # a field whose value has the wrong type (None: it does not read the field, or takes any value)
    wrong_type: Outcome | None = _REJECTS
    # a metadata mapping with values that are not strings (None: as wrong_type)
    metadata_values: Outcome | None = None
    # booleans read from yes/no/on/off/1/0 and quoted forms, case-insensitive
    lenient_booleans: bool = False
    # a bare number as name or description is read as its text
    numbers_as_text: bool = False
    duplicate_key: Outcome = _REJECTS
    # where a message points for the facts (its module docstring says more)
    source: str = ""

    def knows(self, key: str) -> bool:
        return key in self.fields or key in self.silent_keys or key in self.aliases

    def field(self, key: str) -> FieldSpec | None:
        return self.fields.get(self.aliases.get(key, key))


# -- which runtimes discover a skill ----------------------------------------------------------------


def _runtime_table() -> dict[str, Runtime]:
    from . import agentdeck, claude_code, codex, spec, vscode

    return {runtime.key: runtime for runtime in
            (agentdeck.RUNTIME, claude_code.RUNTIME, vscode.RUNTIME, codex.RUNTIME, spec.RUNTIME)}


_TABLE: dict[str, Runtime] | None = None


def runtime(key: str) -> Runtime:
    global _TABLE
    if _TABLE is None:
        _TABLE = _runtime_table()
    return _TABLE[key]


_BY_PROFILE = {Profile.AGENTDECK: ("agentdeck",), Profile.CLAUDE: ("claude-code",), Profile.SPEC: ("spec",)}


def discovering(origin: str | None, root: PurePath | None, profile: Profile) -> tuple[Runtime, ...]:
    """The runtimes that discover the skills of a root, by the root's origin and place.

    - `.agentdeck/skills` and `Deck(skills=...)` roots: AgentDeck (seed 001).
    - `.claude/skills` of a project: Claude Code and the Agent SDK (setting source "project"), and VS Code
      Copilot, whose DEFAULT_SKILL_SOURCE_FOLDERS list `.claude/skills` (microsoft/vscode,
      `src/vs/workbench/contrib/chat/common/promptSyntax/config/promptFileLocations.ts`, VS Code 1.139).
    - the user's `~/.claude/skills`: Claude Code, and VS Code (`~/.claude/skills` is in the same list).
    - a plugin's `skills/`: Claude Code (plugin reference; VS Code's agent plugins are not modelled).
    - `.github/skills`: VS Code Copilot (same list).
    - a Codex plugin's `skills/` (`.codex-plugin/plugin.json` beside it): Codex (0.171.0 reads them with the loader
      of `.agents/skills`).
    - `.agents/skills`: Codex and the other clients of the Agent Skills client guide
      (agentskills/agentskills `docs/client-implementation/adding-skills-support.mdx`), and VS Code.
    - a generic `skills/` collection (anthropics/skills, openai/skills): no runtime scans it in place; it is
      validated (skills-ref), uploaded to claude.ai or copied into a runtime's root, so the specification
      is its contract.
    - a configured root: the profile it was given.
    """
    if origin in ("agentdeck", "deck"):
        keys: tuple[str, ...] = ("agentdeck",)
    elif origin in ("claude", "user"):
        keys = ("claude-code", "vscode")
    elif origin == "plugin":
        keys = ("claude-code",)
    elif origin == "codex-plugin":
        keys = ("codex",)
    elif origin == "spec" and root is not None and root.parts[-2:-1] == (".github",):  # root.parent.name, without a Path
        keys = ("vscode",)
    elif origin == "spec":
        keys = ("codex", "vscode")
    else:  # collection, config, or no root at all
        keys = _BY_PROFILE[profile]
    found = _DISCOVERING.get(keys)
    if found is None:
        # one tuple per set of runtimes: every skill of a root shares it (a fact of the constant table)
        found = _DISCOVERING[keys] = tuple(runtime(key) for key in keys)
    return found


_DISCOVERING: dict[tuple[str, ...], tuple[Runtime, ...]] = {}


# -- saying it --------------------------------------------------------------------------------------


def join_labels(labels: Iterable[str], conjunction: str = "and") -> str:
    names = list(dict.fromkeys(labels))
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {conjunction} " + names[-1]


def judge(runtimes: Iterable[Runtime], pick: Callable[[Runtime], Outcome | None]) -> tuple[Severity, str] | None:
    """The severity and the runtime-by-runtime account of one problem, or None when no runtime that
    discovers the skill minds it. The worst consequence decides; runtimes that do the same are named
    together: "Codex skips the skill; VS Code Copilot warns and loads it". A note (PORTABILITY) alone is
    reported only when no runtime of the root reads the thing as written."""
    answers: dict[str, tuple[Outcome, list[str]]] = {}
    content = False
    for each in runtimes:
        outcome = pick(each)
        if outcome is None:
            content = True
            continue
        answers.setdefault(outcome.does, (outcome, []))[1].append(each.label)
    if not answers:
        return None
    ordered = sorted(answers.values(), key=lambda pair: -pair[0].consequence)
    worst = ordered[0][0].consequence
    if worst == Consequence.PORTABILITY and content:
        # a note of one runtime (VS Code's validator on a Claude Code display label) on a skill that another
        # runtime of the same root reads as written: nothing loads differently, so nothing to report
        return None
    text = "; ".join(f"{join_labels(labels)} {outcome.does}" for outcome, labels in ordered)
    return worst.severity, text


STRICT_LOADERS = "strict loaders (AgentDeck, the skills-ref validator, claude.ai upload)"


# -- typos ------------------------------------------------------------------------------------------


def _squashed(key: str) -> str:
    return key.lower().replace("-", "").replace("_", "")


def typo_of(key: str, known: Iterable[str]) -> str | None:
    """The known key that key is most likely a typo of: the same key in another case or with '-' for
    '_' (`whenToUse`, `allowed_tools`), or one or two edits away (`descripton`, `licence`, `hook`); None
    for a key of the author's own (`owner-team`, `requirements`), which is no typo."""
    squashed = _squashed(key)
    limit = 1 if len(squashed) <= 5 else 2
    best: tuple[int, str] | None = None
    for candidate in known:
        other = _squashed(candidate)
        # the edit distance with transpositions (optimal string alignment), in C; past the limit it says limit + 1
        distance = 0 if other == squashed else OSA.distance(squashed, other, score_cutoff=limit)
        if distance <= limit and (best is None or distance < best[0]):
            best = (distance, candidate)
    return best[1] if best is not None else None


# -- field values -----------------------------------------------------------------------------------


def type_name(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null"
    return type(value).__name__


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def lenient_bool(value: object) -> bool | None:
    """A boolean as the lenient loaders read it: true/false, yes/no, on/off, 1/0, quoted or not, in any
    case (Claude Code 2.1.218); None when it is none of them."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, str)):
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def value_problem(runtime: Runtime, spec: FieldSpec, value: object) -> tuple[str, str | None] | None:
    """What is wrong with a field's value for a runtime (None: it reads it), and the literal to write
    instead when there is an obvious one."""
    key, kind = spec.key, spec.kind
    if kind == "any":
        return None
    if kind == "bool":
        if isinstance(value, bool):
            return None
        meant = lenient_bool(value)
        if runtime.lenient_booleans and meant is not None:
            return None
        literal = None if meant is None else ("true" if meant else "false")
        return f"'{key}' must be true or false, not {value!r}", literal
    if kind == "str|list":
        if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return None
        return f"'{key}' must be a string or a list of strings, not a {type_name(value)}", None
    if kind == "hint":  # a list is joined into a string (Claude Code 2.1.47), a number read as text
        if isinstance(value, (str, list, int, float)) and not isinstance(value, bool):
            return None
        return f"'{key}' must be a string, not a {type_name(value)}", None
    if kind == "mapping":
        return None if isinstance(value, dict) else (f"'{key}' must be a mapping, not a {type_name(value)}", None)
    if kind == "str-map":
        if not isinstance(value, dict):
            return f"'{key}' must be a mapping of string keys to string values, not a {type_name(value)}", None
        for item_key, item in value.items():
            if not isinstance(item_key, str):
                return f"'{key}' keys must be strings, not {item_key!r}", None
            if not isinstance(item, str):
                advice = "write it as one string" if isinstance(item, (list, dict)) else "quote it"
                return f"'{key}' values must be strings; '{item_key}' is a {type_name(item)} — {advice}", None
        return None
    if kind == "shell":  # trimmed and lower-cased; an unknown shell warns and falls back to bash
        if isinstance(value, str) and value.strip().lower() in spec.enum:
            return None
        return f"'{key}' must be one of {', '.join(spec.enum)}, not {value!r} (it falls back to bash)", None
    if kind == "effort":  # a level or an integer
        if (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, str) and value in spec.enum):
            return None
        return f"'{key}' must be one of {', '.join(spec.enum)} or an integer, not {value!r}", None
    if kind == "context":  # null allowed
        if value is None or (isinstance(value, str) and value in spec.enum):
            return None
        return f"'{key}' must be one of {', '.join(spec.enum)}, not {value!r}", None
    # str, with or without an enum
    if not isinstance(value, str):
        return f"'{key}' must be a string, not a {type_name(value)}", None
    if spec.enum and value not in spec.enum:
        return f"'{key}' must be one of {', '.join(spec.enum)}; got '{value}'", None
    return None
