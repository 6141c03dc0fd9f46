"""SK1xx / SK2xx / SK3xx: a SKILL.md's frontmatter, body and place in its registry."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

from ..catalogue import BY_CODE
from ..config import Config
from ..discovery import split_text, within
from ..fields import (
    BODY_LINE_LIMIT,
    CLAUDE_LISTING_LIMIT,
    COMPATIBILITY_LIMIT,
    DESCRIPTION_LIMIT,
    FIELDS,
    NAME_LIMIT,
)
from ..index import Model, SkillEntry
from ..model import CreateFile, Fix, Profile, Related, RenamePath, Span, TextEdit
from ..skillfile import Field, quote_yaml_value
from ..textutil import MAX_FILE_BYTES
from .report import Reporter, closest, did_you_mean

# Names that break no rule and need no normalising: most names, checked in one match.
_PLAIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def name_problem(name: str) -> str | None:
    """Which of the specification's naming rules name breaks, or None."""
    if len(name) <= NAME_LIMIT and _PLAIN_NAME.fullmatch(name):
        return None
    normalized = unicodedata.normalize("NFKC", name)
    if not normalized:
        return "it is empty"
    if len(normalized) > NAME_LIMIT:
        return f"it is {len(normalized)} characters long; at most {NAME_LIMIT} are allowed"
    if normalized != normalized.lower():
        return "it must be lowercase"
    if normalized.startswith("-") or normalized.endswith("-"):
        return "it must not start or end with '-'"
    if "--" in normalized:
        return "it must not contain consecutive hyphens '--'"
    bad = sorted({ch for ch in normalized if not (ch.isalnum() or ch == "-")})
    if bad:
        shown = ", ".join(repr(ch) for ch in bad[:5])
        return f"only lowercase letters, digits and '-' are allowed, not {shown}"
    return None


def suggest_name(text: str) -> str:
    """A name that follows the rules, derived from text."""
    out = []
    for ch in unicodedata.normalize("NFKC", text).lower():
        out.append(ch if ch.isalnum() else "-")
    name = "-".join(part for part in "".join(out).split("-") if part)
    return name[:NAME_LIMIT].strip("-")


def check_skill(model: Model | None, skill: SkillEntry, reporter: Reporter, dir_cache: dict[str, set[str] | None]) -> None:
    file = skill.file
    path = skill.path
    profile = skill.profile
    if skill.misnamed:
        reporter.report(
            "SK115", path, file.line_span(0),
            f"the skill file is named '{path.name}'; runtimes look for 'SKILL.md' exactly, so this skill is not found",
            profile=profile,
            fixes=[Fix(f"Rename {path.name} to SKILL.md", renames=(RenamePath(path, path.with_name("SKILL.md")),), preferred=True)],
        )
    if not file.has_frontmatter:
        name = skill.dir_name if name_problem(skill.dir_name) is None else suggest_name(skill.dir_name) or "my-skill"
        template = f"---\nname: {name}\ndescription: \n---\n\n"
        reporter.report(
            "SK101", path, file.line_span(0),
            "SKILL.md does not start with a '---' frontmatter line; without it the skill has no name and no description",
            profile=profile,
            fixes=[Fix("Add frontmatter", edits=(TextEdit(path, Span.of(0, 0, 0, 0), template),), preferred=True)],
            data={"expected_name": name},
        )
        _check_body(model, skill, reporter, dir_cache)
        return
    if not file.closed:
        end = file.end_position()
        reporter.report(
            "SK102", path, file.line_span(0),
            "the frontmatter opened here has no closing '---' line, so the whole file is read as metadata",
            profile=profile,
        )
        del end
        return
    if file.yaml_problem is not None:
        problem = file.yaml_problem
        fixes = []
        if problem.quote_line is not None:
            line = file.lines[problem.quote_line]
            key, _, value = line.partition(":")
            stripped = value.strip()
            start = len(key) + 1 + (len(value) - len(value.lstrip()))
            fixes.append(Fix(
                "Quote the value",
                edits=(TextEdit(path, Span.of(problem.quote_line, start, problem.quote_line, start + len(stripped)),
                                quote_yaml_value(stripped)),),
                preferred=True,
            ))
        reporter.report("SK103", path, problem.span, problem.message, profile=profile, fixes=fixes)
        _check_body(model, skill, reporter, dir_cache)
        return
    if file.not_mapping is not None:
        reporter.report(
            "SK104", path, file.not_mapping,
            "the frontmatter must be a mapping of keys to values (name: ..., description: ...)",
            profile=profile,
        )
        _check_body(model, skill, reporter, dir_cache)
        return
    _check_fields(skill, reporter)
    _check_body(model, skill, reporter, dir_cache)


def _check_fields(skill: SkillEntry, reporter: Reporter) -> None:
    file = skill.file
    path = skill.path
    profile = skill.profile
    known = FIELDS[profile]

    for duplicate in file.duplicate_keys:
        reporter.report(
            "SK103", path, duplicate.key_span,
            f"invalid YAML: duplicate key '{duplicate.key}'; strict loaders reject the file and others keep only the last value",
            profile=profile,
        )

    for entry in file.fields.values():
        if entry.error is not None:
            reporter.report("SK103", path, entry.value_span, f"invalid YAML in '{entry.key}': {entry.error}", profile=profile)

    name_field = file.fields.get("name")
    expected = skill.dir_name
    if name_field is None:
        reporter.report(
            "SK105", path, file.line_span(0),
            f"the frontmatter has no 'name'; add name: {expected} (it must equal the directory name)",
            profile=profile,
            fixes=[Fix(f"Add name: {expected}", edits=(TextEdit(path, Span.of(1, 0, 1, 0), f"name: {expected}\n"),), preferred=True)],
            data={"expected_name": expected},
        )
    elif name_field.error is None:
        _check_name(skill, name_field, reporter)

    description = file.fields.get("description")
    if description is None:
        message = "the frontmatter has no 'description'; it is what the model decides from whether the skill applies"
        line = (name_field.value_span.end.line + 1) if name_field is not None else 1
        reporter.report(
            "SK106", path, file.line_span(0), message, profile=profile,
            fixes=[Fix("Add description", edits=(TextEdit(path, Span.of(line, 0, line, 0), "description: \n"),))],
        )
    elif description.error is None:
        _check_description(skill, description, reporter)

    for entry in file.fields.values():
        if entry.key in ("name", "description") or entry.error is not None:
            continue
        spec = known.get(entry.key)
        if spec is None:
            near = closest(entry.key, list(known), 1)
            if not near:
                near = [k for k in known if k.replace("-", "_") == entry.key.replace("-", "_")][:1]
            hint = did_you_mean(near) if near else ""
            advice = "" if near else (
                "; custom keys belong under 'metadata:'" if profile != Profile.CLAUDE else
                f"; the {profile.value} profile knows {', '.join(sorted(known))}"
            )
            fixes = [Fix(f"Change to '{near[0]}'", edits=(TextEdit(path, entry.key_span, near[0]),), preferred=True)] if near else []
            reporter.report(
                "SK111", path, entry.key_span,
                f"unknown field '{entry.key}' for {_profile_label(profile)} skill{hint}{advice}",
                profile=profile, fixes=fixes, data={"closest": near},
            )
            continue
        _check_type(skill, entry, spec.kind, spec.enum, reporter)

    compatibility = file.fields.get("compatibility")
    if compatibility is not None and isinstance(compatibility.value, str) and len(compatibility.value) > COMPATIBILITY_LIMIT:
        reporter.report(
            "SK112", path, compatibility.value_span,
            f"'compatibility' is {len(compatibility.value)} characters long; at most {COMPATIBILITY_LIMIT} are allowed",
            profile=profile,
        )


def _profile_label(profile: Profile) -> str:
    return {Profile.AGENTDECK: "an AgentDeck", Profile.CLAUDE: "a Claude Code", Profile.SPEC: "an Agent Skills"}[profile]


def _check_name(skill: SkillEntry, entry: Field, reporter: Reporter) -> None:
    path = skill.path
    profile = skill.profile
    value = entry.value
    expected = skill.dir_name

    def set_fix() -> Fix:
        return Fix(f"Set name to '{expected}'", edits=(TextEdit(path, entry.value_span, expected),), preferred=True)
    if not isinstance(value, str) or not value.strip():
        shown = "empty" if isinstance(value, str) or value is None else f"a {_type_name(value)}"
        reporter.report(
            "SK107", path, entry.value_span if value is not None else entry.key_span,
            f"'name' must be a non-empty string, not {shown}; write name: {expected}",
            profile=profile, fixes=[set_fix()], data={"expected_name": expected},
        )
        return
    problem = name_problem(value)
    if problem is not None:
        suggestion = suggest_name(value)
        fixes = [Fix(f"Change to '{suggestion}'", edits=(TextEdit(path, entry.value_span, suggestion),),
                     preferred=suggestion == expected)] if suggestion else []
        reporter.report(
            "SK109", path, entry.value_span,
            f"invalid name '{value}': {problem}" + (f"; for example '{suggestion}'" if suggestion else ""),
            profile=profile, fixes=fixes, data={"suggestion": suggestion},
        )
    if value != expected and unicodedata.normalize("NFKC", value) != unicodedata.normalize("NFKC", expected):
        fixes = [set_fix()]
        if skill.root is not None and name_problem(value) is None and skill.root.prefix == "":
            target = skill.directory.with_name(value)
            if not target.exists():
                fixes.append(Fix(f"Rename the directory to '{value}'", renames=(RenamePath(skill.directory, target),)))
        if profile == Profile.CLAUDE:
            message = (f"invoked as '{skill.key}' (the directory name); frontmatter name '{value}' is a display label, "
                       "so users and agents list a name that differs from the one shown")
        else:
            message = (f"name '{value}' does not match the directory name '{expected}'; they must be equal "
                       "or Deck.build() fails naming the bundle" if profile == Profile.AGENTDECK else
                       f"name '{value}' does not match the directory name '{expected}'; the specification requires them to be equal")
        reporter.report("SK108", path, entry.value_span, message, profile=profile, fixes=fixes,
                        data={"expected_name": expected})


def _check_description(skill: SkillEntry, entry: Field, reporter: Reporter) -> None:
    path = skill.path
    profile = skill.profile
    value = entry.value
    if not isinstance(value, str) or not value.strip():
        shown = "empty" if isinstance(value, str) or value is None else f"a {_type_name(value)}"
        hint = "; quote it" if value is not None and not isinstance(value, (dict, list)) else ""
        reporter.report(
            "SK107", path, entry.value_span if value is not None else entry.key_span,
            f"'description' must be a non-empty string, not {shown}{hint}", profile=profile,
        )
        return
    if profile == Profile.CLAUDE:
        extra = skill.file.get_str("when_to_use") or ""
        total = len(value) + len(extra)
        if total > CLAUDE_LISTING_LIMIT:
            what = "description and when_to_use are" if extra else "description is"
            reporter.report(
                "SK110", path, entry.value_span,
                f"{what} {total} characters long; Claude Code cuts them at {CLAUDE_LISTING_LIMIT}, "
                "so the rest never reaches the model", profile=profile,
            )
    elif len(value) > DESCRIPTION_LIMIT:
        reporter.report(
            "SK110", path, entry.value_span,
            f"the description is {len(value)} characters long; at most {DESCRIPTION_LIMIT} are allowed",
            profile=profile,
        )
    if "\n" in value.strip("\n"):
        reporter.report(
            "SK113", path, entry.value_span,
            "the description spans several lines; disclosure lists show one '- name: description' entry per line, "
            "so use a folded scalar ('>') or a single line",
            profile=profile,
        )
    if "<" in value or ">" in value:
        reporter.report(
            "SK114", path, entry.value_span,
            "the description contains '<' or '>'; Anthropic's packager rejects angle brackets in descriptions",
            profile=profile,
        )


def _type_name(value: object) -> str:
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


def _check_type(skill: SkillEntry, entry: Field, kind: str, enum: tuple[str, ...], reporter: Reporter) -> None:
    value = entry.value
    problem: str | None = None
    if kind == "str" and not isinstance(value, str):
        problem = f"'{entry.key}' must be a string, not a {_type_name(value)}"
    elif kind == "bool" and not isinstance(value, bool):
        problem = f"'{entry.key}' must be true or false, not {value!r}"
    elif kind == "str|list":
        if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
            problem = f"'{entry.key}' must be a string or a list of strings, not a {_type_name(value)}"
    elif kind == "mapping" and not isinstance(value, dict):
        problem = f"'{entry.key}' must be a mapping, not a {_type_name(value)}"
    elif kind == "str-map":
        if not isinstance(value, dict):
            problem = f"'{entry.key}' must be a mapping of string keys to string values, not a {_type_name(value)}"
        else:
            for key, item in value.items():
                if not isinstance(key, str) or not isinstance(item, str):
                    bad = key if not isinstance(key, str) else item
                    problem = (f"'{entry.key}' values must be strings; '{key}' is a {_type_name(bad)} — quote it"
                               if isinstance(key, str) else f"'{entry.key}' keys must be strings, not {key!r}")
                    break
    if problem is None and enum and isinstance(value, str) and value not in enum:
        problem = f"'{entry.key}' must be one of {', '.join(enum)}; got '{value}'"
    if problem is not None:
        fixes = []
        if kind == "bool" and isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
            literal = "true" if value.strip().lower() in ("true", "yes") else "false"
            fixes.append(Fix(f"Change to {literal}", edits=(TextEdit(skill.path, entry.value_span, literal),), preferred=True))
        if enum and isinstance(value, str):
            near = closest(value, list(enum), 1)
            if near:
                fixes.append(Fix(f"Change to '{near[0]}'", edits=(TextEdit(skill.path, entry.value_span, near[0]),), preferred=True))
        reporter.report("SK107", skill.path, entry.value_span, problem, profile=skill.profile, fixes=fixes)


def _list_dir(directory: str, cache: dict[str, set[str] | None]) -> set[str] | None:
    if directory not in cache:
        try:
            cache[directory] = set(os.listdir(directory))
        except OSError:
            cache[directory] = None
    return cache[directory]


def joined(directory: str, target: str) -> str:
    """os.path.normpath(os.path.join(directory, target)) for a normalised directory's text; a plain
    relative target (no '.', '..' or empty part: most references) is appended as it is."""
    if (os.sep == "/" and target and not target.startswith(("/", ".")) and "/." not in target and "//" not in target
            and not target.endswith("/")):
        return directory + "/" + target if directory != "/" else "/" + target
    return os.path.normpath(os.path.join(directory, target))


def _exists(target: str, cache: dict[str, set[str] | None]) -> bool:
    """Whether the normalised path target exists, by a listing of its directory (cached)."""
    directory, name = split_text(target)
    names = _list_dir(directory, cache)
    return names is not None and name in names


def _all_files(directory: Path, limit: int = 500) -> list[str]:
    found: list[str] = []
    for base, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        for name in files:
            found.append(Path(base, name).relative_to(directory).as_posix())
            if len(found) >= limit:
                return found
    return found


def _check_body(model: Model | None, skill: SkillEntry, reporter: Reporter, dir_cache: dict[str, set[str] | None]) -> None:
    file = skill.file
    path = skill.path
    profile = skill.profile
    count = file.body_line_count()  # 0: nothing but whitespace after the frontmatter
    if file.has_frontmatter and file.closed and count == 0:
        span = file.line_span(file.close_line or 0)
        reporter.report(
            "SK201", path, span,
            "the skill has no instructions after the frontmatter; the body is what the agent reads when it loads the skill",
            profile=profile,
        )
    if count > BODY_LINE_LIMIT:
        reporter.report(
            "SK203", path, file.line_span(file.body_start),
            f"the body is {count} lines long; keep it under {BODY_LINE_LIMIT} and move detail into referenced files",
            profile=profile,
        )
    candidates: list[str] | None = None
    seen: set[tuple[int, int]] = set()
    # target -> (its path when it is missing, the closest existing files): a body may repeat a target
    missing: dict[str, tuple[Path | None, list[str]]] = {}
    directory = skill.directory_text  # strings: most references exist, and a Path costs more than the test
    for reference in file.references:
        key = (reference.span.start.line, reference.span.start.column)
        if key in seen:
            continue
        seen.add(key)
        target = unquote(reference.target.split("#", 1)[0].split("?", 1)[0])
        if not target or target in (".", "./"):
            continue
        known = missing.get(target)
        if known is None:
            resolved_text = joined(directory, target)
            if _exists(resolved_text, dir_cache) or (target.endswith("/") and _list_dir(resolved_text, dir_cache) is not None):
                known = missing[target] = None, []
            else:
                if candidates is None:
                    candidates = _all_files(skill.directory)
                known = missing[target] = Path(resolved_text), closest(target.lstrip("./"), candidates, 1)
        resolved_or_none, near = known
        if resolved_or_none is None:
            continue
        resolved = resolved_or_none
        fixes = [Fix(f"Change to '{near[0]}'", edits=(TextEdit(path, reference.span, near[0]),), preferred=True)] if near else []
        if resolved != skill.directory and within(resolved, skill.directory):  # never offer to create a file outside the skill ('../../x')
            fixes.append(Fix(f"Create {target}", creates=(CreateFile(resolved, ""),)))
        reporter.report(
            "SK202", path, reference.span,
            f"'{target}' does not exist in the skill directory {skill.dir_name}/{did_you_mean(near)}",
            profile=profile, fixes=fixes, data={"closest": near},
        )
    for reference in file.machine_paths:
        reporter.report(
            "SK204", path, reference.span,
            f"'{reference.target}' is an absolute or machine-specific path; other machines do not have it — "
            "reference files relative to the skill directory",
            profile=profile,
        )


def check_oversized_skill(model: Model, path: Path, reporter: Reporter) -> None:
    """A SKILL.md over the read limit is not analysed; say so where the user looks (line 1)."""
    root = model.roots.get(path.parent.parent)
    reporter.report(
        "SK203", path, Span.point(0, 0),
        f"this SKILL.md is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB, the most skill-lsp reads, so it was "
        "not analysed; a body this long would not fit a model's context when the skill is loaded either",
        profile=root.profile if root is not None else Profile.SPEC,
    )


def check_skill_registry(model: Model, skill: SkillEntry, reporter: Reporter) -> None:
    """SK301 a name under two roots of one Deck; SK302 undiscovered; SK303 unused."""
    if skill.external:
        return
    if skill.root is None:
        _report_undiscovered(model, skill, reporter)
        return
    if skill.misnamed:
        return
    key = skill.key
    others: list[SkillEntry] = []
    for deck in model.decks:
        registry = deck.registry
        if registry is None:
            continue
        entries = registry.skills.get(key)
        if entries is not None and len(entries) > 1 and skill in entries:
            others += [other for other in entries if other is not skill and other not in others]
    if others:
        span = skill.facts.name_span or skill.facts.first_line
        reporter.report(
            "SK301", skill.path, span,
            f"the skill '{key}' is also defined at {others[0].path}; a Deck merges its roots into one registry "
            "and build() fails on a name found under two roots",
            profile=skill.profile,
            related=[Related(other.path, other.facts.first_line, f"'{key}' is also defined here") for other in others],
        )
    # a subagent may list it by its display name or bare plugin name instead (agents_using finds those)
    if key not in model.listings and reporter.wants("SK303") and not model.agents_using(skill):
        reporter.report(
            "SK303", skill.path, skill.facts.first_line,
            f"no agent lists the skill '{key}'", profile=skill.profile,
        )


def sharing_a_key(model: Model) -> set[int]:
    """The skills (by identity) that share their key with another skill in a Deck's registry: SK301's
    only candidates."""
    shared: set[int] = set()
    for deck in model.decks:
        if deck.registry is not None:
            for entries in deck.registry.skills.values():
                if len(entries) > 1:
                    shared.update(id(entry) for entry in entries)
    return shared


def registry_quiet(model: Model, skill: SkillEntry, config: Config, shared: set[int]) -> bool:
    """check_skill_registry would report nothing on skill (shared: sharing_a_key's), told without a
    Reporter or a look through every Deck: run_rules asks it of every skill. Keep it in step."""
    return (skill.external or (skill.root is not None and id(skill) not in shared
                               and (skill.misnamed or not config.enabled(BY_CODE["SK303"]) or skill.key in model.listings)))


def _report_undiscovered(model: Model, skill: SkillEntry, reporter: Reporter) -> None:
    # the nearest root above, for "one level too deep"
    ancestor = skill.directory.parent
    hint = ""
    while ancestor != ancestor.parent:
        root = model.roots.get(ancestor)
        # a conventional root counts even when no skill sits directly in it yet
        conventional = ancestor.name == "skills" and ancestor.parent.name in (".agentdeck", ".claude", ".agents", ".github")
        if root is not None or conventional:
            where = root.path if root is not None else ancestor
            hint = (f"; it is nested below the root {where.parent.name}/{where.name}/ — roots are scanned direct-child "
                    f"only, so move it to {where / skill.dir_name / 'SKILL.md'}")
            break
        if ancestor == model.folder_of(skill.path):
            break
        ancestor = ancestor.parent
    if not hint:
        hint = ("; put the skill directory directly under a skill root (.agentdeck/skills/, .claude/skills/, "
                ".agents/skills/ or a Deck(skills=...) root) or add its parent to [tool.skill-lsp] roots")
    reporter.report("SK302", skill.path, skill.facts.first_line, f"no skill root discovers this SKILL.md{hint}",
                    profile=skill.profile)
