"""SK301-SK303: a skill's place in its registry — a name under two roots, no root discovering it, no agent listing it."""

from __future__ import annotations

import re

from ..discovery import CONVENTIONAL_ROOTS
from ..index import Model, SkillEntry
from ..model import Related, Severity
from .report import Reporter


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
            data={"paths": [str(others[0].path)]},
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


def registry_quiet(model: Model, skill: SkillEntry, unlisted: bool, shared: set[int]) -> bool:
    """check_skill_registry would report nothing on skill (unlisted: whether its configuration enables SK303;
    shared: sharing_a_key's), told without a Reporter or a look through every Deck: run_rules asks it of every
    skill. Keep it in step."""
    return (skill.external or (skill.root is not None and id(skill) not in shared
                               and (skill.misnamed or not unlisted or skill.key in model.listings)))


# A SKILL.md that is a template to copy, not a skill: its directory says so, or its description is a
# placeholder ("Replace with description of the skill ...", "TODO", "{{description}}").
_TEMPLATE_WORDS = frozenset({"template", "templates", "skeleton", "boilerplate", "scaffold", "example-skill"})
_PLACEHOLDER_TEXT = re.compile(r"(?i)^\s*(?:replace (?:with|this)|todo\b|tbd\b|fill (?:in|me)\b|\[?your description)|\{\{")


def is_template(skill: SkillEntry) -> bool:
    """Whether an undiscovered SKILL.md is a template to copy rather than a skill to load."""
    words = set(re.split(r"[-_.\s]+", skill.dir_name.lower()))
    if skill.dir_name.lower() in _TEMPLATE_WORDS or words & {"template", "templates", "skeleton", "boilerplate"}:
        return True
    description = skill.description
    return description is not None and _PLACEHOLDER_TEXT.search(description) is not None


def _report_undiscovered(model: Model, skill: SkillEntry, reporter: Reporter) -> None:
    if is_template(skill):
        return  # a template is copied into a root, never loaded where it is
    # the nearest root above, for "one level too deep"
    ancestor = skill.directory.parent
    hint = ""
    paths: list[str] = []
    while ancestor != ancestor.parent:
        root = model.roots.get(ancestor)
        # a conventional root counts even when no skill sits directly in it yet
        conventional = ancestor.name == "skills" and ancestor.parent.name in CONVENTIONAL_ROOTS
        if root is not None and root.origin == "plugin" and root.listed:
            # mattpocock/skills: plugin.json names the 22 skills the plugin ships; deprecated/ and personal/ are
            # installed one by one. Claude Code does not load them, as the author chose: nothing to move
            hint = ("; the plugin names the skills it ships in its plugin.json and this is not one of them, so Claude "
                    "Code does not load it as a plugin skill")
            reporter.report("SK302", skill.path, skill.facts.first_line, f"no skill root discovers this SKILL.md{hint}",
                            profile=skill.profile, severity=Severity.INFORMATION)
            return
        if root is not None or conventional:
            where = root.path if root is not None else ancestor
            hint = (f"; it is nested below the root {where}/ — roots are scanned direct-child "
                    f"only, so move it to {where / skill.dir_name / 'SKILL.md'}")
            paths = [str(where), str(where / skill.dir_name / "SKILL.md")]
            break
        if ancestor == model.folder_of(skill.path):
            break
        ancestor = ancestor.parent
    severity = None
    if not hint:
        # outside every root: a skill installed by copying, or kept for reference; only a root below which it
        # sits says for sure that it was meant to load there
        hint = ("; put the skill directory directly under a skill root (.agentdeck/skills/, .claude/skills/, "
                ".agents/skills/ or a Deck(skills=...) root) or add its parent to [tool.skill-lsp] roots")
        severity = Severity.INFORMATION
    reporter.report("SK302", skill.path, skill.facts.first_line, f"no skill root discovers this SKILL.md{hint}",
                    profile=skill.profile, severity=severity, data={"paths": paths})
