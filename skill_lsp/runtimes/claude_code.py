"""Claude Code and the Claude Agent SDK as a runtime: what their SKILL.md loader accepts, recovers and ignores.

Facts from Claude Code's CHANGELOG (anthropics/claude-code, read at 2.1.240) and its 2.1.3xx npm release;
the Agent SDK (Python 0.2.143, TypeScript 0.3.333) starts Claude Code and loads skills through it:

- 2.1.69: "Fixed skill descriptions with colons (e.g., "Triggers include: X, Y, Z") failing to load" — on a
  YAML error the loader retries after quoting single-line `key: value` lines whose value holds `: ` or a YAML
  indicator character, and after replacing leading tabs (see `recover_lines`).
- 2.1.186: "Improved malformed SKILL.md YAML frontmatter handling: loads the skill body with empty metadata
  instead of failing silently"; `claude plugin validate` (2.1.233): "At runtime the skill loads with empty
  metadata". Also 2.1.186: `display-name`, `default-enabled`, `fallback` and `metadata.*` keys accept
  kebab-case, snake_case and camelCase.
- 2.1.69: "Fixed project skills without a `description:` frontmatter field not appearing in Claude's
  available skills list" — a skill without a description is listed.
- 2.1.218: `yes`/`no`/`on`/`off`/`1`/`0` (case-insensitive) accepted for skill frontmatter booleans, alongside
  `true`/`false`; `context: fork` skills run in the background by default, `background: false` opts out.
- 2.1.47: a bare-number `name` or `description` is coerced to a string; an `argument-hint` written as a YAML
  sequence (`[topic: foo | bar]`) is coerced to a string.
- 2.1.80: `effort` frontmatter for skills; 2.1.152: `disallowed-tools`; 2.1.84: `paths` as a YAML list;
  2.1.0: `context: fork`, `hooks`, `allowed-tools` as a YAML list, `user-invocable`.
- 2.1.105: the listing cap raised to 1,536 characters per description (+ `when_to_use`), with a startup
  warning when descriptions are cut; the cap is the `skillListingMaxDescChars` setting.
- The 2.1.3xx schema (RUNTIMES.md): `effort` is a level or an integer, `context` is `inline` or `fork` (null
  allowed), `shell` is trimmed and lower-cased (an unknown shell warns and falls back to bash),
  `disallowedTools` is an alias of `disallowed-tools`, `metadata` is a free-form map kept on the skill; the
  keys in `INTERNAL_KEYS` are parsed and used internally; every other key is ignored. A `name` over 256
  characters is ignored with a warning.
- Angle brackets and the 1,024-character limit belong to claude.ai / API upload, not to skills loaded from
  disk (they are the checks of `quick_validate.py`, anthropics/skills).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import Consequence, FieldSpec, Outcome, Runtime, altered

LISTING_CAP = 1536  # skillListingMaxDescChars' default (2.1.105)
NAME_CAP = 256  # a longer name is ignored with a warning
SETTINGS_FILES = ("settings.json", "settings.local.json")  # .claude/, the later one wins

FIELDS: dict[str, FieldSpec] = {
    "name": FieldSpec("name", "str", "Display label for the skill; the skill is invoked by its directory name. Optional."),
    "description": FieldSpec("description", "str", "What the skill does and when to use it. Claude decides from it "
                             "whether to load the skill; recommended (a skill without one is still listed)."),
    "metadata": FieldSpec("metadata", "mapping", "A free-form mapping kept on the loaded skill."),
    "when_to_use": FieldSpec("when_to_use", "str", "Extra guidance on when Claude should use the skill; appended to the "
                             "description (the two are cut at 1,536 characters together)."),
    "argument-hint": FieldSpec("argument-hint", "hint", "Hint shown in autocomplete for the arguments, e.g. `[issue-number]` "
                               "(a YAML list is joined into a string, 2.1.47)."),
    "arguments": FieldSpec("arguments", "any", "Named positional arguments for `$name` substitution in the body."),
    "disable-model-invocation": FieldSpec("disable-model-invocation", "bool", "`true` stops Claude from loading the skill "
                                          "by itself; only the user can invoke it."),
    "user-invocable": FieldSpec("user-invocable", "bool", "`false` hides the skill from the `/` menu; Claude can still load it."),
    "allowed-tools": FieldSpec("allowed-tools", "str|list", "Tools Claude may use without asking while the skill is active "
                               "(string or list)."),
    "disallowed-tools": FieldSpec("disallowed-tools", "str|list", "Tools removed from the model while the skill is active "
                                  "(string or list; `disallowedTools` is an alias)."),
    "model": FieldSpec("model", "str", "The model to use while the skill is active (`inherit` or a model id)."),
    "effort": FieldSpec("effort", "effort", "Effort level while the skill is active: a level or an integer.",
                        enum=("low", "medium", "high", "xhigh", "max")),
    "context": FieldSpec("context", "context", "`fork` runs the skill in a forked sub-agent context; `inline` (the "
                         "default) runs it in the conversation.", enum=("inline", "fork")),
    "agent": FieldSpec("agent", "str", "The sub-agent type to use with `context: fork`."),
    "background": FieldSpec("background", "bool", "With `context: fork`: whether the forked skill runs in the background "
                            "(the default since 2.1.218; `false` opts out)."),
    "hooks": FieldSpec("hooks", "mapping", "Hooks scoped to the skill's lifecycle."),
    "paths": FieldSpec("paths", "str|list", "Glob patterns that limit when the skill is activated automatically."),
    "shell": FieldSpec("shell", "shell", "Shell for `!` command blocks in the body (trimmed and lower-cased; an unknown "
                       "shell falls back to bash).", enum=("bash", "powershell")),
}

# Parsed and used internally (plugin and marketplace machinery), never reported as unknown.
INTERNAL_KEYS = frozenset({
    "version", "fallback", "created_by", "improved_by", "mcpServers", "lspServers", "agents", "outputStyles", "themes",
    "workflows", "channels", "monitors", "settings", "userConfig", "defaultEnabled", "experimental", "dependencies",
    "displayName", "author", "homepage", "repository", "license", "keywords",
    # 2.1.186: these accept kebab-case, snake_case and camelCase
    "display-name", "display_name", "default-enabled", "default_enabled",
    # the specification's fields: not in Claude Code's schema, ignored without harm (portable skills carry them)
    "compatibility",
})

ALIASES = {"disallowedTools": "disallowed-tools"}

# Keys of other file kinds that authors put in a skill expecting them to work: a warning naming the skill's
# nearest key and what it does ('tools' limits a subagent's tools, .claude/agents/*.md, sub-agents docs).
MISPLACED = {"tools": ("allowed-tools", "'tools' is a subagent's key (.claude/agents); in a skill Claude Code ignores it "
                       "— a skill's 'allowed-tools' pre-approves tools and 'disallowed-tools' removes them")}

_CONTROL = re.compile(r"[\x00-\x1f\x7f<>]")


def name_problem(name: str) -> str | None:
    """Why Claude Code does not use a frontmatter name as the display label, or None: a name over 256
    characters is ignored with a warning; control characters and angle brackets are rejected."""
    if len(name) > NAME_CAP:
        return f"it is {len(name)} characters long; Claude Code ignores names over {NAME_CAP}"
    if _CONTROL.search(name):
        return "Claude Code rejects control characters and '<' or '>' in a name"
    return None


# -- the parse's recovery (2.1.69) ----------------------------------------------------------------

_LINE = re.compile(r"^([ \t]*)([^\s#:'\"\-][^:]*?|-[^\s:][^:]*?):[ \t]+(\S.*?)[ \t]*$")
_INDICATORS = frozenset("{}[]*&#!|>%@`")
_BLOCK = re.compile(r"^[|>][+-]?\d?$")
TAB_WIDTH = 2  # the width a leading tab is replaced with (not documented; two spaces)


@dataclass(frozen=True)
class Recovery:
    """The frontmatter lines after Claude Code's repair: which lines were quoted (the original value's
    columns, start and end), and how many columns a line's leading tabs moved it."""

    lines: list[str]
    quoted: dict[int, tuple[int, int]]
    shifted: dict[int, int]


def _needs_quotes(value: str) -> bool:
    if value[0] in "'\"" and value[-1] == value[0] and len(value) > 1:
        return False  # already quoted
    if _BLOCK.match(value):
        return False  # a block scalar's indicator (`description: |`)
    return ": " in value or any(ch in _INDICATORS for ch in value)


def quote(value: str) -> str:
    """A double-quoted YAML scalar holding value exactly (what the recovery writes, and the quick fix)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def recover_lines(lines: list[str]) -> Recovery | None:
    """The frontmatter lines (without the `---` lines) Claude Code parses on its second try, or None when
    the repair changes nothing (the second try would fail the same way)."""
    out: list[str] = []
    quoted: dict[int, tuple[int, int]] = {}
    shifted: dict[int, int] = {}
    for number, line in enumerate(lines):
        indent = len(line) - len(line.lstrip("\t"))
        if indent:
            line = " " * (TAB_WIDTH * indent) + line[indent:]
            shifted[number] = (TAB_WIDTH - 1) * indent
        match = _LINE.match(line)
        if match and _needs_quotes(match.group(3)):
            start = match.start(3) - shifted.get(number, 0)
            quoted[number] = (start, start + len(match.group(3)))
            line = line[: match.start(3)] + quote(match.group(3))
        out.append(line)
    if not quoted and not shifted:
        return None
    return Recovery(out, quoted, shifted)


# -- the skill listing ----------------------------------------------------------------------------
# Claude Code 2.1.332's binary (the functions are named as its bundle names them; docs/runtimes.md quotes them):
# - the budget (Cdn): SLASH_COMMAND_TOOL_CHAR_BUDGET when it is a non-zero number, else
#   max(1, floor(context window x characters a token x skillListingBudgetFraction)); the window and the
#   characters a token are the session's model's (Lm, Hw), the window 200,000 and 4 characters when none is
#   known, the fraction 0.01. With no fraction set, a server-side experiment (tengu_typed_pebble) may raise
#   the budget (to at most 100,000), never lower it.
# - an entry (q3n, W3n, Rdn, rBn): `- NAME: TEXT`, TEXT the description plus ` - ` + when_to_use, cut to
#   skillListingMaxDescChars - 1 characters and `…` when longer; NAME the skill's name (a plugin's with its
#   prefix), followed by ` (display name)` when the frontmatter name differs from it; entries are joined by
#   newlines and measured in display columns (Bun.stringWidth).
# - skillOverrides (A$e): "name-only" lists `- NAME` alone, "user-invocable-only" and "off" leave the skill out
#   of the model's listing, as `disable-model-invocation: true` does; keyed by the skill's name.
# - over budget (q3n): name-only entries and Claude Code's own bundled skills keep their entries; the other
#   skills, most used first (usage count decayed by a 7-day half-life, per user), keep their description while
#   it fits; the rest are listed by name alone. Claude Code warns "Skill listing over budget: N skills, X chars
#   > Y budget — descriptions will be truncated" in its debug log.
# - settings (Eqs, ws): user (~/.claude/settings.json) < project (.claude/settings.json) < local
#   (.claude/settings.local.json) < command-line flag < managed policy, merged key by key (lodash mergeWith):
#   a later file wins a key, and skillOverrides merge skill by skill.
LISTING_BUDGET_ENV = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
BUDGET_FRACTION = 0.01  # skillListingBudgetFraction's default (the setting: > 0, <= 1)
CONTEXT_TOKENS = 200_000  # the window when the session's model is not known
CHARS_PER_TOKEN = 4  # for the models of FOUR_CHARS_MODELS; 3 for every other model (Hw)
FOUR_CHARS_MODELS = frozenset({
    "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku", "claude-3-7-sonnet",
    "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4-0", "claude-sonnet-4-5",
    "claude-sonnet-4-6", "claude-haiku-4-5",
})
# the model catalogue's context windows (`window`; a `[1m]` suffix asks for 1,000,000 where a model allows it)
MODEL_WINDOWS = {
    **dict.fromkeys(("claude-haiku-4-5", "claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-opus-4-0",
                     "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6"), 200_000),
    **dict.fromkeys(("claude-haiku-5-5", "claude-sonnet-5", "claude-sonnet-5-5", "claude-opus-4-7", "claude-opus-4-8",
                     "claude-opus-5", "claude-opus-5-5", "claude-fable-5", "claude-fable-5-1", "claude-fable-5-2",
                     "claude-mythos-5", "claude-mythos-5-1", "claude-mythos-5-2"), 1_000_000),
}
LONG_WINDOW = 1_000_000
OVERRIDES = ("on", "name-only", "user-invocable-only", "off")
_MODEL_DATE = re.compile(r"-(?:\d{8}|latest)(?:-v\d+(?::\d+)?)?$")


@dataclass(frozen=True)
class ListingSettings:
    """What the settings files say about the skill listing, merged in Claude Code's order."""

    max_desc_chars: int = LISTING_CAP
    budget_fraction: float | None = None
    overrides: Mapping[str, str] = field(default_factory=dict)
    model: str | None = None
    budget_env: str | None = None  # SLASH_COMMAND_TOOL_CHAR_BUDGET of the settings' `env` (applied to the process)


def listing_settings(texts: list[str]) -> ListingSettings:
    """The settings of these settings.json texts, lowest priority first (user, project, local): a later file
    wins a key; skillOverrides merge skill by skill. A value of the wrong type is ignored, as Claude Code's
    schema drops it (`.catch(undefined)`)."""
    cap, fraction, model, env = LISTING_CAP, None, None, None
    overrides: dict[str, str] = {}
    for text in texts:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        value = data.get("skillListingMaxDescChars")
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            cap = value
        value = data.get("skillListingBudgetFraction")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
            fraction = float(value)
        value = data.get("model")
        if isinstance(value, str) and value.strip():
            model = value.strip()
        value = data.get("env")
        if isinstance(value, dict) and isinstance(value.get(LISTING_BUDGET_ENV), (str, int)):
            env = str(value[LISTING_BUDGET_ENV])
        value = data.get("skillOverrides")
        if isinstance(value, dict):
            overrides.update({key: each for key, each in value.items() if isinstance(each, str) and each in OVERRIDES})
    return ListingSettings(cap, fraction, overrides, model, env)


def listing_cap(settings_texts: list[str]) -> int:
    """skillListingMaxDescChars from the project's .claude/settings.json and settings.local.json texts (in
    that order; a later file wins), or the default when neither sets a positive integer."""
    return listing_settings(settings_texts).max_desc_chars


def model_window(model: str) -> tuple[int, int] | None:
    """(context window in tokens, characters a token) of a model id, or None when it is not in 2.1.332's
    catalogue (an alias such as `sonnet` depends on the account and provider)."""
    name = model.strip().lower()
    long = name.endswith("[1m]")
    name = _MODEL_DATE.sub("", name.removesuffix("[1m]"))
    window = MODEL_WINDOWS.get(name)
    if window is None:
        return None
    return (LONG_WINDOW if long else window), (CHARS_PER_TOKEN if name in FOUR_CHARS_MODELS else 3)


def listing_budget(fraction: float | None, model: str | None, env: str | None = None) -> tuple[int, int, str]:
    """(smallest, largest, how): the listing's budget in characters. One number when it is known (the
    environment variable, or a model of the catalogue); else the range from a 200,000-token model at 4
    characters a token to a 1,000,000-token one."""
    if env is not None:
        try:
            number = int(float(env.strip()))
        except ValueError:
            number = 0
        if number:
            return number, number, f"{LISTING_BUDGET_ENV}={number}"
    share = BUDGET_FRACTION if fraction is None else fraction
    setting = "" if fraction is None else f" (skillListingBudgetFraction {fraction:g})"
    known = model_window(model) if model else None
    if known is not None:
        window, per_token = known
        budget = max(1, int(window * per_token * share))
        return budget, budget, f"{share * 100:g}% of {model}'s {window:,}-token context at {per_token} characters a token{setting}"
    low = max(1, int(CONTEXT_TOKENS * CHARS_PER_TOKEN * share))
    high = max(1, int(LONG_WINDOW * CHARS_PER_TOKEN * share))
    return low, high, (f"{share * 100:g}% of the model's context: {low:,} characters with a 200,000-token model, up to "
                       f"{high:,} with a 1,000,000-token one{setting}")


RUNTIME = Runtime(
    key="claude-code",
    label="Claude Code",
    fields=FIELDS,
    silent_keys=INTERNAL_KEYS,
    aliases=ALIASES,
    # after the recovery failed too (2.1.186)
    yaml_error=altered("loads the body with empty metadata (no description, no settings)"),
    recovers_yaml=True,
    missing_name=None,  # the directory name is the skill's name
    # the description defaults to the body's first paragraph, the name to the directory (2.1.332's loader;
    # `claude plugin validate` warns "No description in frontmatter" / "No frontmatter block found")
    missing_description=altered("lists it with the body's first paragraph as its description (its validator "
                                "warns: no description in frontmatter)"),
    not_a_mapping=altered("loads the body with empty metadata"),
    no_frontmatter=altered("names it after its directory and lists it with the body's first paragraph as its "
                           "description (its validator warns: no frontmatter block)"),
    bad_text=altered("ignores the value"),
    # {key}: the name it is invoked by (the directory's, with a plugin's prefix). A documented use of the
    # field, which `claude plugin validate` (2.1.332) does not flag: a note, not a warning
    # (a plugin's skill is also offered to users by the frontmatter name, and a lowercase one is an alias
    # of it: the ecosystem check's judging of 2.1.332's plugin loader)
    name_mismatch=Outcome(Consequence.PORTABILITY, "names it '{key}' after its directory (the name a session's "
                          "skills=[...] filter must use) and shows the frontmatter name to users"),
    # a display label: any text but control characters and angle brackets, at most 256 characters
    invalid_name=altered("ignores it and shows the directory name"),
    name_rule=name_problem,
    description_limit=None,  # the listing cap, read per project (listing_cap)
    long_description=None,
    wrong_type=altered("ignores the value"),
    lenient_booleans=True,
    numbers_as_text=True,
    duplicate_key=altered("keeps one of the values (which one is not documented)"),
    source="anthropics/claude-code CHANGELOG (2.1.0-2.1.240)",
)
