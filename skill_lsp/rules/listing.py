"""LS101: a Claude Code skill listing over its budget, reported where the author can act — the options call,
subagent or project settings file whose set of skills overflows (listing.py measures it)."""

from __future__ import annotations

import heapq
from pathlib import Path

from ..index import Model, OptionsEntry, SkillEntry
from ..listing import Entry, Listing, listings_in, lists_every_skill, project_listing, session_listing, settings_text
from ..listing import settings_files as listing_settings_files
from ..model import Related, Severity, Span
from ..runtimes import claude_code
from .report import Reporter

SHOWN = 8  # at-risk skills named in a message
# related locations: the longest descriptions at risk (each costs the editor a read of its file on every publication)
RELATED = 3


def over_budget(listing: Listing) -> bool:
    return listing.runtime == "claude-code" and listing.budget.smallest is not None and listing.over > 0


def _names(entries: list[Entry]) -> str:
    shown = ", ".join(entry.skill.key for entry in entries[:SHOWN])
    return shown + (f" and {len(entries) - SHOWN} more" if len(entries) > SHOWN else "")


def message(listing: Listing) -> str:
    budget = listing.budget
    count = len(listing.entries)
    if budget.smallest == budget.largest:
        against = f"{budget.smallest:,} ({budget.how})"
    elif listing.over_every_budget:
        against = f"every model's budget ({budget.how})"
    else:
        against = f"the {budget.smallest:,} of a 200,000-token model ({budget.how})"
    what = {"session": "this session's", "subagent": "this subagent's", "project": "the project's"}.get(listing.kind, "its")
    at_risk = listing.at_risk
    return (f"Claude Code's skill listing for {what} {count} skills is {listing.characters:,} characters, over "
            f"{against}: it lists at least {listing.dropped_at_least} of them by name alone, dropping the descriptions "
            f"of the least used (which ones depends on use); {len(at_risk)} at risk: {_names(at_risk)}. Shorten "
            "descriptions, set skillOverrides \"name-only\" for rarely used skills, or raise skillListingBudgetFraction")


def report_listing(listing: Listing, reporter: Reporter, span: Span) -> None:
    if not over_budget(listing):
        return
    # certain when the budget is known or every model's is exceeded; with a larger model's context it may fit
    known = listing.budget.smallest == listing.budget.largest or listing.over_every_budget
    longest = heapq.nsmallest(RELATED, listing.at_risk, key=lambda entry: entry.bare - entry.size)
    related = [Related(entry.skill.path, entry.skill.facts.name_span or entry.skill.facts.first_line,
                       f"at risk, one of the longest: its description ({entry.size - entry.bare:,} characters) can be "
                       "dropped") for entry in longest]
    reporter.report("LS101", listing.path, span, message(listing), related=related,
                    severity=Severity.WARNING if known else Severity.INFORMATION,
                    data={"characters": listing.characters, "budget": listing.budget.smallest,
                          "at_risk": len(listing.at_risk), "dropped_at_least": listing.dropped_at_least})


def check_listings(model: Model, path: Path, reporter: Reporter) -> None:
    """The listings of an options call or subagent file."""
    if not reporter.wants("LS101"):
        return
    for listing in listings_in(model, path, agents=False):
        # a subagent that inherits the session's model has the session's listing: the project's or the
        # options call's finding says it; one of its own model is reported on it
        if listing.kind == "session" or (listing.kind == "subagent" and listing.model is not None
                                         and _own_model(model, path, listing)):
            report_listing(listing, reporter, listing.span)


def _own_model(model: Model, path: Path, listing: Listing) -> bool:
    return any(definition.call.callee_span == listing.span and definition.call.string_arg("model") not in (None, "inherit")
               for definition in model.definitions_in(path))


def _settings_span(path: Path) -> Span:
    """The settings file's first line (the text the listing read, through textutil's bounded reader)."""
    first = (settings_text(path) or "").split("\n", 1)[0].rstrip("\r")
    return Span.of(0, 0, 0, len(first))


def settings_findings(model: Model, path: Path, reporter: Reporter) -> None:
    """The project's listing, on its settings file."""
    if not reporter.wants("LS101") or path.parent.name != ".claude":
        return
    listing = project_listing(model, path.parent.parent)
    if listing is not None and listing.path == path:
        report_listing(listing, reporter, _settings_span(path))


def settings_files(model: Model) -> list[Path]:
    """The project settings files that carry a listing's finding."""
    found = []
    for folder in model.folders:
        if (folder / ".claude" / "skills") not in model.roots:
            continue
        if not any(path.parent == folder / ".claude" for path in listing_settings_files(model, folder)):
            continue  # the project's listing is reported on its settings file: there is none to report it on
        listing = project_listing(model, folder)
        if listing is not None and listing.path.name in claude_code.SETTINGS_FILES and over_budget(listing):
            found.append(listing.path)
    return found


def listing_files(model: Model, skill: SkillEntry) -> set[Path]:
    """The files whose listing findings an edit of skill can change: its project's settings file, the options
    calls whose sessions list every skill they discover and hold it, and the subagents that run in them or in
    its project."""
    found: set[Path] = set()
    project = None
    root = skill.root
    if root is not None and root.origin == "claude" and root.path.name == "skills" and root.path.parent.name == ".claude":
        project = root.path.parent.parent
        files = [path for path in listing_settings_files(model, project) if path.parent == project / ".claude"]
        if files:
            found.add(files[0])
    sessions: list[OptionsEntry] = []
    for options in model.options:
        if lists_every_skill(options) and any(each is skill for each in options.registry.skills.get(skill.key, [])):
            sessions.append(options)
            found.add(options.path)
    for definition in model.definitions:
        if (definition.options is not None and definition.options in sessions) or (
                definition.options is None and project is not None and definition.folder == project):
            found.add(definition.path)
    return found


__all__ = ["check_listings", "listing_files", "session_listing", "settings_files", "settings_findings"]
