"""SK1xx: a SKILL.md's frontmatter as each runtime that discovers it reads it; the body's rules are in body.py, the registry's in registry.py, allowed-tools' names in tools.py."""

from __future__ import annotations

import functools
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

from ..catalogue import BY_CODE
from ..config import Config
from ..fixtext import description_from_body, yaml_value
from ..index import Model, SkillEntry
from ..listing import settings_text
from ..model import Fix, Position, RenamePath, Severity, Span, TextEdit
from ..pathtext import split_text
from ..runtimes import (
    STRICT_LOADERS,
    Consequence,
    FieldSpec,
    Outcome,
    Runtime,
    altered,
    claude_code,
    join_labels,
    judge,
    runtime,
    type_name,
    typo_of,
    value_problem,
)
from ..runtimes.spec import name_problem, suggest_name
from ..skillfile import Field, SkillFile, quote_yaml_value
from ..textutil import encoding_problem
from .body import check_body, list_shared
from .encoding import check_encoding
from .hidden import check_hidden
from .readers import Readers, readers_of
from .registry import is_template
from .report import Reporter, closest, did_you_mean
from .tools import check_tools

# name_problem and suggest_name are the specification's (runtimes.spec); imported here by their old users
__all__ = ["check_skill", "name_problem", "suggest_name"]

# what a finding's data says about each runtime that discovers the file: label -> [consequence, what it does]
Verdicts = dict[str, list[object]]


class _Judged:
    """One skill's frontmatter rules: the runtimes that discover it, and how each finding is worded and
    weighed from their outcomes."""

    __slots__ = ("claude", "readers", "reporter", "runtimes", "skill")

    def __init__(self, skill: SkillEntry, reporter: Reporter, readers: Readers) -> None:
        self.skill = skill
        self.reporter = reporter
        self.readers = readers
        self.runtimes = readers.runtimes
        # Claude Code among them: its listing cap and tool names are asked of it
        self.claude = readers.claude

    def report(self, code: str, span: Span, problem: str, pick: Callable[[Runtime], Outcome | None], *,
               advice: str = "", fixes: list[Fix] | None = None, data: dict[str, object] | None = None,
               runtimes: tuple[Runtime, ...] | None = None) -> bool:
        """Report problem when a runtime that discovers the skill minds it: 'problem; Codex skips the
        skill; VS Code Copilot warns and loads it — advice'. Whether it was reported."""
        among = self.runtimes if runtimes is None else runtimes
        verdict = judge(among, pick)
        if verdict is None:
            return False
        severity, account = verdict
        verdicts: Verdicts = {}
        for each in among:
            outcome = pick(each)
            if outcome is not None:
                verdicts[each.label] = [int(outcome.consequence), outcome.does]
        message = f"{problem}; {account}" + (f" — {advice}" if advice else "")
        if self.skill.root is None and not self.skill.external and severity < Severity.INFORMATION:
            # no runtime discovers the file where it is (SK302 says so): what the specification would say of
            # it is a note until it is put in a root (`.claude/skills/group/<name>/`, a loose SKILL.md)
            severity = Severity.INFORMATION
        self.reporter.report(code, self.skill.path, span, message, profile=self.skill.profile, fixes=fixes,
                             data={**(data or {}), "verdicts": verdicts}, severity=severity)
        return True


def check_skill(model: Model | None, skill: SkillEntry, reporter: Reporter, dir_cache: dict[str, set[str] | None],
                body: bool = True) -> None:
    """The rules of one SKILL.md; those of its body (links, references) unless not body."""
    file = skill.file
    path = skill.path
    profile = skill.profile
    runtimes = skill.runtimes  # once: the entry works them out from its root at each use
    # what the rules ask of the runtimes, worked out once for every skill of the root
    judged = _Judged(skill, reporter, readers_of(runtimes))
    text = file.text
    if type(text) is not str:  # a Decoded text, of a file that is not valid UTF-8 (every other text is a str)
        problem = encoding_problem(text)
        if problem is not None:
            check_encoding(reporter, path, problem, python=False, profile=profile)
    if skill.misnamed:
        _report_misnamed(skill, reporter)
    if not file.has_frontmatter:
        name = skill.dir_name if name_problem(skill.dir_name) is None else suggest_name(skill.dir_name) or "my-skill"
        judged.report(
            "SK101", file.line_span(0),
            "SKILL.md does not start with a '---' frontmatter line",
            lambda runtime: runtime.no_frontmatter or runtime.not_a_mapping,
            fixes=_frontmatter_fixes(judged, file.lines), data={"expected_name": name},
        )
        if body:
            check_body(model, skill, reporter, dir_cache)
            check_hidden(skill, reporter)
        return
    if not file.closed:
        judged.report(
            "SK102", file.line_span(0),
            "the frontmatter opened here has no closing '---' line, so the whole file is read as metadata",
            lambda runtime: runtime.not_a_mapping, advice="add a '---' line after the last key",
        )
        return
    fields, duplicates = file.fields, file.duplicate_keys
    loaders = runtimes
    if file.yaml_problem is not None:
        loaders = _check_yaml(judged, file)
        if file.recovered is not None:
            fields, duplicates = file.recovered.fields, file.recovered.duplicate_keys
    elif file.not_mapping is not None:
        judged.report(
            "SK104", file.not_mapping,
            "the frontmatter must be a mapping of keys to values (name: ..., description: ...)",
            lambda runtime: runtime.not_a_mapping,
        )
        loaders = ()
    if loaders:
        # every other check runs on what the runtimes that loaded the frontmatter read
        _check_fields(judged if loaders is runtimes else _Judged(skill, reporter, Readers(loaders)), fields, duplicates,
                      dir_cache)
        if judged.claude:
            check_tools(skill, fields, reporter)
    if body:
        check_body(model, skill, reporter, dir_cache)
        check_hidden(skill, reporter)


def _check_yaml(judged: _Judged, file: SkillFile) -> tuple[Runtime, ...]:
    """SK103 for a frontmatter that does not parse, weighed by what each runtime does then; the runtimes
    that still read its fields (Claude Code after its recovery)."""
    problem = file.yaml_problem
    assert problem is not None
    path = judged.skill.path
    recovered = file.recovered
    repaired = sorted(recovered.quoted) if recovered is not None else []
    shifted = recovered.shifted if recovered is not None else []

    def what_it_did() -> str:
        parts = []
        if repaired:
            parts.append("quoting " + _lines(repaired))
        if shifted:
            parts.append("replacing the tabs on " + _lines(shifted))
        return " and ".join(parts)

    def recovers(runtime: Runtime) -> bool:
        return runtime.recovers_yaml and recovered is not None and (runtime.recovery_replaces_tabs or not shifted)

    def pick(runtime: Runtime) -> Outcome | None:
        return altered(f"loads it after {what_it_did()}") if recovers(runtime) else runtime.yaml_error

    fixes = []
    for line, (start, end) in (recovered.quoted.items() if recovered is not None else ()):
        value = file.lines[line][start:end]
        fixes.append(TextEdit(path, Span.of(line, start, line, end), quote_yaml_value(value)))
    if not fixes and problem.quote_line is not None:
        text = file.lines[problem.quote_line]
        key, _, rest = text.partition(":")
        stripped = rest.strip()
        start = len(key) + 1 + (len(rest) - len(rest.lstrip()))
        fixes.append(TextEdit(path, Span.of(problem.quote_line, start, problem.quote_line, start + len(stripped)),
                              quote_yaml_value(stripped)))
    offered = [Fix("Quote the value" if len(fixes) == 1 else "Quote the values (as Claude Code's recovery does)",
                   edits=tuple(fixes), preferred=True)] if fixes else []
    worst = max((outcome.consequence for outcome in (pick(each) for each in judged.runtimes) if outcome is not None),
                default=Consequence.DROPPED)
    # a runtime that discovers the skill loads it: say who does not (information for portability)
    strict = "" if worst == Consequence.DROPPED else f"{STRICT_LOADERS} drop the skill; "
    judged.report("SK103", problem.span, problem.message, pick, advice=strict + problem.advice, fixes=offered,
                  data={"recovered": recovered is not None})
    return tuple(each for each in judged.runtimes if recovers(each))


def _lines(numbers: list[int]) -> str:
    shown = [str(number + 1) for number in numbers]
    if len(shown) == 1:
        return f"line {shown[0]}"
    return "lines " + ", ".join(shown[:-1]) + " and " + shown[-1]


def _check_fields(judged: _Judged, fields: dict[str, Field], duplicates: list[Field],
                  dir_cache: dict[str, set[str] | None]) -> None:
    skill = judged.skill
    path = skill.path
    readers = judged.readers

    for duplicate in duplicates:
        judged.report("SK103", duplicate.key_span, f"invalid YAML: duplicate key '{duplicate.key}'",
                      lambda runtime: runtime.duplicate_key, advice="keep one of them")

    for entry in fields.values():
        if entry.error is not None:
            judged.report("SK103", entry.value_span, f"invalid YAML in '{entry.key}': {entry.error}",
                          lambda runtime: runtime.wrong_type)

    name_field = fields.get("name")
    expected = skill.dir_name
    if name_field is None:
        judged.report(
            "SK105", skill.file.line_span(0), "the frontmatter has no 'name'", lambda runtime: runtime.missing_name,
            advice=f"add name: {expected} (the directory name)",
            fixes=[Fix(f"Add name: {expected}", edits=(TextEdit(path, Span.of(1, 0, 1, 0), f"name: {expected}\n"),), preferred=True)]
            if _fits_name(judged, expected) else [],
            data={"expected_name": expected},
        )
    elif name_field.error is None:
        _check_name(judged, name_field)

    description = fields.get("description")
    if description is None:
        line = (name_field.value_span.end.line + 1) if name_field is not None else 1
        # the body's first paragraph, which Claude Code lists in its place; no fix when there is none
        derived = description_from_body(skill.file.lines[skill.file.body_start:])
        judged.report(
            "SK106", skill.file.line_span(0),
            "the frontmatter has no 'description', the text the model decides from whether the skill applies",
            lambda runtime: runtime.missing_description,
            fixes=[Fix("Add the body's first paragraph as the description", edits=(
                TextEdit(path, Span.of(line, 0, line, 0), f"description: {yaml_value(derived)}\n"),))] if derived else [],
        )
    elif description.error is None:
        _check_description(judged, description, fields, dir_cache)

    for entry in fields.values():
        key = entry.key
        if key == "name" or key == "description" or entry.error is not None:
            continue
        # each runtime that reads the key, with the field it reads it as; whether none knows it
        specs, unknown = readers.of_key(key)
        if unknown:
            _unknown_key(judged, entry, fields)
            continue
        _check_type(judged, entry, specs)

    compatibility = fields.get("compatibility")
    if compatibility is not None and isinstance(compatibility.value, str):
        size = len(compatibility.value)
        judged.report(
            "SK112", compatibility.value_span, f"'compatibility' is {size} characters long",
            lambda runtime: runtime.long_compatibility
            if runtime.compatibility_limit is not None and size > runtime.compatibility_limit else None,
        )


def _unknown_key(judged: _Judged, entry: Field, fields: dict[str, Field]) -> None:
    """SK111: a key no runtime that discovers the skill reads. A typo of a real field (a close known key,
    or a key of another file kind such as a subagent's 'tools') is a warning with its fix; any other key is
    the author's own (information: it is ignored, or belongs under 'metadata:')."""
    runtimes = judged.runtimes
    key = entry.key
    near: list[str] = []
    explained = ""
    for each in runtimes:
        guess: str | None
        if each.key == "claude-code" and key in claude_code.MISPLACED:
            guess, explained = claude_code.MISPLACED[key]
        else:
            guess = typo_of(key, each.fields)
        if guess is not None:
            near = [guess]
            break
    names = join_labels((each.label for each in runtimes), "or")
    # no fix onto a key the frontmatter has already: it would be a duplicate key (SK103)
    fixable = bool(near) and near[0] not in fields
    if explained:
        severity, problem = Severity.WARNING, explained
        fixes = [Fix(f"Change to '{near[0]}'", edits=(TextEdit(judged.skill.path, entry.key_span, near[0]),))] if fixable else []
    elif near:
        severity, problem = Severity.WARNING, f"'{key}' is not a field {names} reads{did_you_mean(near)}"
        fixes = [Fix(f"Change to '{near[0]}'", edits=(TextEdit(judged.skill.path, entry.key_span, near[0]),),
                     preferred=True)] if fixable else []
        if near == ["name"] and entry.value == judged.skill.dir_name and all(each.missing_name is None for each in runtimes):
            # `Name: <the directory's name>`: every runtime of the skill names it after its directory without a
            # name, so the ignored key changes nothing they load
            severity = Severity.INFORMATION
            problem += "; the value is the directory's name, which they use anyway"
    elif all(each.key == "spec" for each in runtimes):
        # a collection, installed into runtimes that may read the key: skills-ref 0.1.1 rejects every key the
        # specification does not define ("Unexpected fields in frontmatter"), which no runtime does
        severity, fixes = Severity.INFORMATION, []
        readers = [each.label for each in (runtime("claude-code"), runtime("vscode")) if each.knows(key)]
        problem = (f"'{key}' is not a field of the Agent Skills specification, and skills-ref rejects keys it does not "
                   "define; " + (f"{join_labels(readers)} read{'s' if len(readers) == 1 else ''} it" if readers else
                                 "runtimes ignore it (custom keys belong under 'metadata:')"))
    else:
        custom = any(each.key in ("spec", "codex", "agentdeck", "vscode") for each in runtimes)
        severity = Severity.INFORMATION
        problem = f"'{key}' is not a field {names} reads; it is ignored" + (
            " (custom keys belong under 'metadata:')" if custom else "")
        fixes = []
    judged.reporter.report("SK111", judged.skill.path, entry.key_span, problem, profile=judged.skill.profile,
                           fixes=fixes, data={"closest": near}, severity=severity)


def _fits_name(judged: _Judged, name: str) -> bool:
    """Whether every runtime that discovers the skill accepts name (a fix that writes it leaves no SK109)."""
    return not any(each.name_rule(name) for each in judged.runtimes if each.name_rule is not None)


def _frontmatter_fixes(judged: _Judged, lines: list[str]) -> list[Fix]:
    """SK101's fix: frontmatter with the directory's name and the body's first paragraph as the description
    (what Claude Code lists the skill with). Without such a paragraph the editor's fix leaves the cursor
    on the description to write (focus: never applied by `check --fix`); with a directory name that is no
    valid name, no fix."""
    name = judged.skill.dir_name
    if not _fits_name(judged, name):
        return []
    derived = description_from_body(lines)
    path = judged.skill.path
    template = f"---\nname: {name}\ndescription: {yaml_value(derived) if derived else ''}\n---\n\n"
    return [Fix("Add frontmatter", edits=(TextEdit(path, Span.of(0, 0, 0, 0), template),), preferred=True,
                focus=None if derived else (path, Position(2, len("description: "))))]


def _check_name(judged: _Judged, entry: Field) -> None:
    skill = judged.skill
    path = skill.path
    value = entry.value
    expected = skill.dir_name

    if not isinstance(value, str) or not value or value.isspace():  # (not value.strip(), without the copy)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        shown = "empty" if isinstance(value, str) or value is None else f"a {type_name(value)}"
        judged.report(
            "SK107", entry.value_span if value is not None else entry.key_span, f"'name' must be a non-empty string, not {shown}",
            lambda runtime: None if number and runtime.numbers_as_text else runtime.bad_text,
            advice=f"write name: {expected}", fixes=_set_name_fix(judged, entry), data={"expected_name": expected},
        )
        if not number:
            return
        value = str(value)
    # most names break no runtime's rule: the rules' answers are gathered only for one that does
    if any(rule(value) for rule in judged.readers.name_rules):
        problems = {each.key: each.name_rule(value) for each in judged.runtimes if each.name_rule is not None}
        found = [problem for problem in problems.values() if problem]
        suggestion = suggest_name(value)
        fixes = [Fix(f"Change to '{suggestion}'", edits=(TextEdit(path, entry.value_span, suggestion),),
                     preferred=suggestion == expected)] if suggestion else []
        judged.report(
            "SK109", entry.value_span, f"invalid name '{value}': {found[0]}",
            lambda runtime: runtime.invalid_name if problems.get(runtime.key) else None,
            advice=f"for example '{suggestion}'" if suggestion else "", fixes=fixes, data={"suggestion": suggestion},
        )
    # a template no root discovers (template/SKILL.md, name: template-skill) is copied into a root under
    # the name it gets there: its directory name is not the one it will have (asked only of a name that differs)
    if value != expected and not (skill.root is None and is_template(skill)) \
            and unicodedata.normalize("NFKC", value) != unicodedata.normalize("NFKC", expected):
        fixes = _set_name_fix(judged, entry)
        if skill.root is not None and name_problem(value) is None and skill.root.prefix == "":
            target = skill.directory.with_name(value)
            if not target.exists():
                fixes.append(Fix(f"Rename the directory to '{value}'", renames=(RenamePath(skill.directory, target),)))
        def mismatch(runtime: Runtime) -> Outcome | None:
            said = runtime.name_mismatch
            if said is None or (runtime.key == "claude-code" and skill.root is not None and skill.root.whole):
                return None  # a plugin that is one skill is named by its frontmatter (CHANGELOG 2.1.94)
            return Outcome(said.consequence, said.does.replace("{key}", skill.key))
        judged.report("SK108", entry.value_span, f"name '{value}' differs from the directory name '{expected}'",
                      mismatch, fixes=fixes, data={"expected_name": expected})


def _set_name_fix(judged: _Judged, entry: Field) -> list[Fix]:
    """The fix that sets the name to the directory's, unless a runtime refuses that as a name (it would
    trade the finding for SK109)."""
    expected = judged.skill.dir_name
    return [Fix(f"Set name to '{expected}'", edits=(TextEdit(judged.skill.path, entry.value_span, expected),),
                preferred=True)] if _fits_name(judged, expected) else []


def _listing_cap(skill: SkillEntry, dir_cache: dict[str, set[str] | None]) -> int:
    """Claude Code's skillListingMaxDescChars for the project of a `.claude/skills` root (its
    .claude/settings.json, then settings.local.json); the default elsewhere. The files are looked at
    through dir_cache, so that check's cache keeps an analysis only while they are unchanged."""
    root = skill.root
    if root is None or root.origin != "claude":
        return claude_code.LISTING_CAP
    # root.path.parent as text, without making a Path (or os.path's generality) for each skill
    settings_dir = split_text(str(root.path))[0] or "."
    # the directory's listing is a dependency (a settings file created or deleted), and so is each file
    # that exists (edited in place, it changes its own mtime, not the directory's)
    names = list_shared(settings_dir, dir_cache)
    if names is None:
        return claude_code.LISTING_CAP
    texts = []
    for name in claude_code.SETTINGS_FILES:
        if name not in names:
            continue
        target = os.path.join(settings_dir, name)
        list_shared(target, dir_cache)  # not a directory: recorded, with its mtime, among the dependencies
        text = settings_text(Path(target))  # the listings' reader: read once per file and version, not per skill
        if text is not None:
            texts.append(text)
    # most projects have no settings file: the default, without merging nothing
    return _cap_of(tuple(texts)) if texts else claude_code.LISTING_CAP


@functools.lru_cache(maxsize=64)
def _cap_of(texts: tuple[str, ...]) -> int:
    """claude_code.listing_cap of these texts, parsed once for all the skills of a project (keyed by the texts)."""
    return claude_code.listing_cap(list(texts))


def _check_description(judged: _Judged, entry: Field, fields: dict[str, Field],
                       dir_cache: dict[str, set[str] | None]) -> None:
    skill = judged.skill
    value = entry.value
    if not isinstance(value, str) or not value or value.isspace():  # (not value.strip(), without the copy)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        shown = "empty" if isinstance(value, str) or value is None else f"a {type_name(value)}"
        hint = "quote it" if value is not None and not isinstance(value, (dict, list)) else ""
        empty = value is None or isinstance(value, str)

        def pick(runtime: Runtime) -> Outcome | None:
            if number and runtime.numbers_as_text:
                return None
            # an empty description is a missing one to every loader (the client guide: "missing or empty")
            return runtime.missing_description if empty else runtime.bad_text
        judged.report(
            "SK107", entry.value_span if value is not None else entry.key_span,
            f"'description' must be a non-empty string, not {shown}", pick, advice=hint,
        )
        return
    size = len(value)
    extra_field = fields.get("when_to_use")
    extra = extra_field.value if extra_field is not None and isinstance(extra_field.value, str) else ""
    claude = judged.claude
    cap = _listing_cap(skill, dir_cache) if claude else 0
    # too_long is None for every runtime of most skills: then judge would find nothing to report (limit: the
    # shortest of the runtimes other than Claude Code)
    limit = judged.readers.description_limit
    if (claude and size + len(extra) > cap) or (limit is not None and size > limit):
        def too_long(runtime: Runtime) -> Outcome | None:
            if runtime.key == "claude-code":
                if size + len(extra) > cap:
                    return altered(f"cuts it at {cap} characters in its listing, so the rest never reaches the model")
                return None
            if runtime.description_limit is not None and size > runtime.description_limit:
                return runtime.long_description
            return None
        what = "description and when_to_use are" if extra and claude and size + len(extra) > cap else "the description is"
        judged.report("SK110", entry.value_span, f"{what} {size + (len(extra) if what != 'the description is' else 0)} "
                      "characters long", too_long)
    if "\n" in value and "\n" in value.strip("\n"):
        # AgentDeck's disclosure block is one '- name: description' line per skill (seed 001)
        judged.report(
            "SK113", entry.value_span, "the description spans several lines",
            lambda runtime: Outcome(Consequence.PORTABILITY, "lists one '- name: description' line per skill, so the "
                                    "second line reads as something else") if runtime.key == "agentdeck" else None,
            advice="use a folded scalar ('>') or a single line",
        )
    if ("<" in value or ">" in value) and judged.readers.spec:
        # only an upload checks it: quick_validate.py (anthropics/skills, skill-creator/scripts), which claude.ai
        # and the API apply; skills-ref 0.1.1 and every runtime that loads skills from disk accept it
        judged.reporter.report(
            "SK114", skill.path, entry.value_span,
            "the description contains '<' or '>': Anthropic's upload check (quick_validate.py) rejects it when the "
            "skill is uploaded to claude.ai or the API; skills-ref and the runtimes that load skills from disk accept it",
            profile=skill.profile, severity=Severity.INFORMATION,
        )


def _check_type(judged: _Judged, entry: Field, specs: list[tuple[Runtime, FieldSpec]]) -> None:
    """SK107 for a value of the wrong type, weighed by the runtimes that read the key (specs: each with its field)."""
    problems = {}
    for each, spec in specs:
        found = value_problem(each, spec, entry.value)
        if found is not None:
            problems[each.key] = (found, spec)
    if not problems:
        return
    (problem, literal), spec = next(iter(problems.values()))
    fixes = []
    if literal is not None:
        fixes.append(Fix(f"Change to {literal}", edits=(TextEdit(judged.skill.path, entry.value_span, literal),), preferred=True))
    if spec.enum and isinstance(entry.value, str):
        near = closest(entry.value.strip(), list(spec.enum), 1)
        if near:
            fixes.append(Fix(f"Change to '{near[0]}'", edits=(TextEdit(judged.skill.path, entry.value_span, near[0]),), preferred=True))
    def pick(runtime: Runtime) -> Outcome | None:
        found = problems.get(runtime.key)
        if found is None:
            return None
        value = entry.value
        if found[1].kind == "str-map" and isinstance(value, dict) and runtime.metadata_values is not None:
            item = next((item for item in value.values() if not isinstance(item, str)), None)
            said = runtime.metadata_values
            text = str(item)
            text = text if len(text) <= 40 else text[:37] + "..."
            return Outcome(said.consequence, said.does.replace("{text}", repr(text)))
        return runtime.wrong_type
    judged.report("SK107", entry.value_span, problem, pick, fixes=fixes, runtimes=tuple(each for each, _ in specs))


# the runtimes that look for `SKILL.md` exactly: Claude Code (2.1.332, `claude plugin validate` joins
# "SKILL.md"), Codex (loader.rs: `file_name == "SKILL.md"`), AgentDeck (seed 001); VS Code matches the name in
# any case (promptFileLocations.ts) and skills-ref 0.1.1 accepts `skill.md` (parser.py find_skill_md)
_EXACT_NAME = ("claude-code", "codex", "agentdeck")


def _report_misnamed(skill: SkillEntry, reporter: Reporter) -> None:
    """SK115: a skill file named in another case, where a runtime that looks for `SKILL.md` exactly reads it."""
    path = skill.path
    exact = [each.label for each in skill.runtimes if each.key in _EXACT_NAME]
    lenient = [each for each in skill.runtimes if each.key not in _EXACT_NAME]
    if exact:
        message = (f"the skill file is named '{path.name}'; {join_labels(exact)} look for 'SKILL.md' exactly, so on a "
                   "case-sensitive file system the skill is not found")
        severity = None
    elif any(each.key == "spec" for each in lenient):
        message = (f"the skill file is named '{path.name}'; skills-ref accepts it, but Claude Code and Codex look for "
                   "'SKILL.md' exactly once the skill is installed")
        severity = Severity.INFORMATION
    else:
        return  # VS Code alone: it matches the name in any case
    reporter.report("SK115", path, skill.file.line_span(0), message, profile=skill.profile, severity=severity,
                    fixes=[Fix(f"Rename {path.name} to SKILL.md", renames=(RenamePath(path, path.with_name("SKILL.md")),),
                               preferred=True)])


def load_verdicts(skill: SkillEntry) -> list[tuple[Runtime, Consequence | None, str]]:
    """For each runtime that discovers the skill: the worst consequence of its frontmatter for that runtime
    (None: it loads it as written) and what it does, with the rule that says why ("skips the skill —
    SK105 missing-name"). The hover and the code lens of a SKILL.md show it; the diagnostics say the same.
    A fact about the runtimes: neither the configuration nor a suppression comment changes it. The
    body's rules are not run: none of them weighs a runtime's loading (a body of 5,000 links took
    0.43 s of the loop, for each code lens)."""
    reporter = Reporter(Config())
    check_skill(None, skill, reporter, {}, body=False)
    verdicts: list[tuple[Runtime, Consequence | None, str]] = []
    for each in skill.runtimes:
        worst: tuple[int, str, str] | None = None
        more = 0
        for finding in reporter.findings:
            said = finding.data.get("verdicts")
            if not isinstance(said, dict) or each.label not in said:
                continue
            level, does = said[each.label]
            if level < Consequence.ALTERED:
                continue
            if worst is None or level > worst[0]:
                more += worst is not None
                worst = (int(level), str(does), f"{finding.code} {BY_CODE[finding.code].name}")
            else:
                more += 1
        if worst is None:
            verdicts.append((each, None, "loads it"))
        else:
            extra = f" (and {more} more)" if more else ""
            verdicts.append((each, Consequence(worst[0]), f"{worst[1]} — {worst[2]}{extra}"))
    return verdicts
