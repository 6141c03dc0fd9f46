"""SK310: descriptions so alike that the model cannot tell which skill applies — a warning on the entries of an agent's list, information on both SKILL.md files (the comparison is overlap.py's)."""

from __future__ import annotations

from ..index import Model, Owner, SkillEntry
from ..model import Related, Severity, Span
from ..overlap import Choice, Overlap, choices_of, listed_skills
from .report import Reporter


def _percent(overlap: Overlap) -> str:
    return f"{round(overlap.score * 100)} %"


def description_span(skill: SkillEntry) -> Span:
    """The description's value, else the first line."""
    try:
        entry = skill.file.lenient_fields.get("description")
    except (OSError, ValueError):
        entry = None
    return Span.of(*entry.value_raw()) if entry is not None else skill.facts.first_line


def check_list_overlaps(model: Model, owner: Owner, reporter: Reporter) -> None:
    """SK310 on the entries of one agent's, session's or subagent's skills list."""
    if not reporter.wants("SK310"):
        return
    choice = choices_of(model).of_owner(owner)
    if not choice.alike:
        return
    items = {id(skill): item for item, skill in listed_skills(owner)}
    for overlap in choice.pairs():
        for skill in (overlap.first, overlap.second):
            other = overlap.other(skill)
            item, other_item = items.get(id(skill)), items.get(id(other))
            if item is None or other_item is None:
                continue
            reporter.report(
                "SK310", owner.path, item.span,
                f"'{skill.key}' and '{other.key}' (line {other_item.span.start.line + 1}) have descriptions so alike "
                f"({_percent(overlap)}) that the model may not tell which one applies: both say {overlap.wording()}; "
                "make each description say what sets it apart, or list one of them",
                related=[Related(owner.path, other_item.span, f"'{other.key}' is listed here"),
                         Related(skill.path, skill.facts.first_line, f"the description of '{skill.key}'"),
                         Related(other.path, other.facts.first_line, f"the description of '{other.key}'")],
                data={"other": other.key},
            )


def check_skill_overlaps(model: Model, skill: SkillEntry, reporter: Reporter) -> None:
    """SK310 on a SKILL.md: every skill it shares a choice with whose description is alike."""
    if not reporter.wants("SK310"):
        return
    choices = choices_of(model)
    if id(skill) not in choices.involved():
        return
    found: dict[int, tuple[Overlap, list[Choice]]] = {}
    for choice in choices.of_skill(skill):
        for overlap in choice.partners(skill):
            other = overlap.other(skill)
            kept = found.get(id(other))
            if kept is None or overlap.score > kept[0].score:
                found[id(other)] = (overlap, (kept[1] if kept else []) + [choice])
            else:
                kept[1].append(choice)
    if not found:
        return
    span = description_span(skill)
    for overlap, holding in sorted(found.values(), key=lambda kept: (-kept[0].score, str(kept[0].other(skill).path))):
        other = overlap.other(skill)
        where = " and ".join(sorted({choice.label for choice in holding}))
        reporter.report(
            "SK310", skill.path, span,
            f"the description is alike that of '{other.key}' ({other.path}, {_percent(overlap)}), "
            f"a skill offered beside it in {where}: both say {overlap.wording()}; the model may not tell which one "
            "applies",
            profile=skill.profile, severity=Severity.INFORMATION,
            related=[Related(other.path, other.facts.first_line, f"the description of '{other.key}'")],
            data={"other": other.key, "paths": [str(other.path)]},
        )


def overlap_quiet(skill: SkillEntry, alike: bool, involved: set[int]) -> bool:
    """check_skill_overlaps would report nothing on skill (alike: whether its configuration enables SK310;
    involved: overlap.overlapping_skills'), told without a Reporter: run_rules asks it of every skill."""
    return not alike or id(skill) not in involved
