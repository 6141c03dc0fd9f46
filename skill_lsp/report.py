"""`skill-lsp report`: one row per agent, Claude session, subagent and project listing — its skills, the names it lists that resolve to none, its listing's size against its budget, the skills at risk and the pairs of alike descriptions — as text or JSON.

The rows are overview.py's (who chooses from which skills) with listing.py's `Listing` of each (what the model is
shown, against the runtime's budget) and overlap.py's alike pairs (SK310); a project's listing (Claude Code in
the folder, Codex's `.agents/skills`) is a row of its own. This module builds the model of the paths named (check's cache and process pool reused:
`cache.CheckLoader`) and prints the rows. A report is information: it exits 0 whatever it shows, and 2 for a
mistake in the command line (as `check` does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import Config, walk_exclude
from .exclusion import kept_from_exclusion
from .index import AgentEntry, Model, OptionsEntry, SkillEntry
from .listing import Listing, agentdeck_listing, codex_listings, project_listing, session_listing, subagent_listing
from .output import display_path
from .overlap import Overlap, choices_of, overlapping_pairs
from .overview import Row, rows
from .runtimes import runtime
from .targets import selected, workspaces

# the skills named on one line of the text, at most (`--format json` gives them all)
SHOWN_SKILLS = 12
# the pairs of alike descriptions named on one line of the text, at most
SHOWN_PAIRS = 6


@dataclass
class Reported:
    """A row of the report: an agent, session or subagent (row) with its listing, or a project's listing alone."""

    row: Row | None
    listing: Listing | None
    # the pairs of its skills whose descriptions are alike (overlap.py, SK310), best first
    overlaps: list[Overlap]

    @property
    def path(self) -> Path:
        return self.row.path if self.row is not None else self._listing().path

    @property
    def line(self) -> int | None:
        """The 1-based line it is at; None for a project listed at its skills directory."""
        if self.row is not None:
            return self.row.line
        listing = self._listing()
        return None if listing.path.is_dir() else listing.span.start.line + 1

    @property
    def kind(self) -> str:
        return self.row.kind if self.row is not None else "project"

    @property
    def name(self) -> str:
        return self.row.name if self.row is not None else self._listing().title

    @property
    def runtime(self) -> str:
        return self.row.runtime if self.row is not None else runtime(self._listing().runtime).label

    def _listing(self) -> Listing:
        assert self.listing is not None
        return self.listing


def counted(count: int, what: str) -> str:
    """'1 skill', '3 skills'."""
    return f"{count:,} {what}{'' if count == 1 else 's'}"


def command_report(args: argparse.Namespace, settings: Config) -> int:
    """The report of args.paths, built with settings (the command line's user skills directory in it)."""
    cwd = Path(os.getcwd())
    paths = args.paths or ["."]
    found: list[Reported] = []
    unreadable: list[str] = []
    for folder, only in workspaces(paths, cwd):
        model_rows, problems = _folder_rows(folder, only, settings, args.no_cache)
        found += model_rows
        unreadable += [display_path(path, cwd) + f": {reason}" for path, reason in problems]
    for problem in unreadable:
        print(f"skill-lsp: {problem}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps({"rows": [row_json(each, cwd) for each in found]}, indent=2, ensure_ascii=False))
        return 0
    if not found:
        where = ", ".join(paths) if len(paths) <= 3 else f"the {len(paths)} paths given"
        print(f"skill-lsp: no agent, Claude session, subagent or project skills found under {where}", file=sys.stderr)
        return 0
    print(format_text(found, cwd))
    return 0


def _folder_rows(folder: Path, only: set[Path] | None, settings: Config,
                 no_cache: bool) -> tuple[list[Reported], list[tuple[Path, str]]]:
    """The rows of one workspace folder (those in the files or directories named, when only), and what could
    not be read. Built as `check` builds (its cache of each file's analysis, its process pool)."""
    from .cache import CheckLoader
    from .outcome import cache_dir
    from .workspace import Workspace

    workspace = Workspace([folder], settings)
    workspace.named = sorted(only) if only else []
    # a file named in an excluded folder is read with the subtree around it, a run check does not cache either
    kept = kept_from_exclusion(folder, walk_exclude(folder, settings), workspace.named) if workspace.named else ()
    loader = CheckLoader(workspace, None if no_cache or kept else cache_dir())
    model = loader.build()
    loader.save()
    found = [each for each in reported(model) if selected(each.path, only)]
    return found, sorted((path, reason) for path, reason in model.unreadable.items() if selected(path, only))


def reported(model: Model) -> list[Reported]:
    """Every row of the model: each agent, session and subagent with its listing, and each project's listing."""
    found = [Reported(row, _listing_of(model, row), _overlaps_of(model, row)) for row in rows(model)]
    projects = [project_listing(model, folder) for folder in model.folders]
    found += [Reported(None, listing, _root_pairs(model, [entry.skill for entry in listing.entries]))
              for listing in [*projects, *codex_listings(model)] if listing is not None]
    found.sort(key=lambda each: (each.path.parts, each.line or 0, each.kind))
    return found


def _listing_of(model: Model, row: Row) -> Listing | None:
    """What the model of the row's agent is shown (a subagent: the skills of the session it runs in; None when that
    session is not known: listing.subagent_listing)."""
    owner = row.owner
    if isinstance(owner, AgentEntry):
        return agentdeck_listing(model, owner)
    if isinstance(owner, OptionsEntry):
        return session_listing(model, owner)
    return subagent_listing(model, owner)


def _overlaps_of(model: Model, row: Row) -> list[Overlap]:
    """The alike pairs among what the row chooses from: its list's (overlap.overlapping_pairs), or for a session
    without a filter the pairs of the roots its skills come from (each root a choice of its own)."""
    owner = row.owner
    value = owner.call.keyword("skills")
    if isinstance(owner, OptionsEntry) and (value is None or value.kind == "none" or (
            value.kind == "str" and value.text == "all")):
        return _root_pairs(model, [listed.skill for listed in row.skills])
    return overlapping_pairs(model, owner)


def _root_pairs(model: Model, skills: list[SkillEntry]) -> list[Overlap]:
    roots = choices_of(model).roots()
    paths = sorted({skill.root.path for skill in skills if skill.root is not None}, key=lambda path: path.parts)
    return [pair for path in paths if path in roots for pair in roots[path].pairs()]


def overlap_json(overlap: Overlap, cwd: Path) -> dict[str, Any]:
    return {"skills": [overlap.first.key, overlap.second.key],
            "paths": [display_path(overlap.first.path, cwd), display_path(overlap.second.path, cwd)],
            "score": round(overlap.score, 3), "phrase": overlap.phrase or None, "words": list(overlap.words)}


def listing_json(listing: Listing) -> dict[str, Any]:
    budget = listing.budget
    return {
        "runtime": runtime(listing.runtime).label,
        "skills": len(listing.entries),
        "size": listing.characters,
        "unit": budget.unit,
        "budget": {"smallest": budget.smallest, "largest": budget.largest, "how": budget.how},
        "over": listing.over,
        "at_risk": [entry.name for entry in listing.at_risk],
        "dropped_at_least": listing.dropped_at_least,
        "left_out": [entry.name for entry in listing.left_out],
        "complete": listing.complete,
        "summary": listing.summary(),
    }


def row_json(each: Reported, cwd: Path) -> dict[str, Any]:
    row = each.row
    return {
        "path": display_path(each.path, cwd),
        "line": each.line,
        "kind": each.kind,
        "name": each.name,
        "runtime": each.runtime,
        "skills_known": row.known if row is not None else True,
        "skills": ([{"name": listed.skill.key, "path": display_path(listed.skill.path, cwd)} for listed in row.skills]
                   if row is not None else [{"name": entry.skill.key, "path": display_path(entry.skill.path, cwd)}
                                            for entry in each._listing().entries]),
        "not_found": [name for name, _ in row.missing] if row is not None else [],
        "unknown_entries": row.unknown_entries if row is not None else 0,
        "listing": listing_json(each.listing) if each.listing is not None else None,
        "overlaps": [overlap_json(overlap, cwd) for overlap in each.overlaps],
    }


def _names(names: list[str]) -> str:
    more = len(names) - SHOWN_SKILLS
    return ", ".join(names[:SHOWN_SKILLS]) + (f" and {more:,} more" if more > 0 else "")


def format_text(found: list[Reported], cwd: Path) -> str:
    """Each row: where it is and what it is; then its skills (a subagent's: those it preloads), what it lists that
    is no skill, its listing against its budget with the skills at risk, and the pairs of alike descriptions."""
    blocks = []
    for each in found:
        where = display_path(each.path, cwd) + (f":{each.line}" if each.line is not None else "")
        lines = [f"{where}  {each.kind} {each.name} ({each.runtime})"]
        row = each.row
        if row is not None and not row.known:
            lines.append("    skills: not known statically (skills= is not a literal)")
        elif row is not None and (row.skills or each.kind != "subagent"):
            lines.append(f"    {'preloads' if each.kind == 'subagent' else 'skills'}: "
                         + (_names(row.keys) if row.skills else "none"))
        if row is not None and row.missing:
            lines.append("    not found: " + ", ".join(name for name, _ in row.missing))
        if row is not None and row.unknown_entries:
            lines.append(f"    {counted(row.unknown_entries, 'entry').replace('entrys', 'entries')} not a string "
                         "literal, not known statically")
        listing = each.listing
        if listing is not None and (row is None or row.known):
            lines += _listing_lines(listing, each.kind)
        elif listing is None and each.kind == "subagent":
            lines.append("    listing: not known (the session it runs in is not known statically)")
        if each.overlaps:
            shown = [f"{pair.first.key} ~ {pair.second.key} ({pair.wording()})" for pair in each.overlaps[:SHOWN_PAIRS]]
            more = len(each.overlaps) - SHOWN_PAIRS
            lines.append("    alike descriptions: " + "; ".join(shown) + (f"; and {more:,} more" if more > 0 else ""))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _listing_lines(listing: Listing, kind: str) -> list[str]:
    if kind == "project":
        lines = ["    skills: " + _names([entry.name for entry in listing.entries])]
    else:
        lines = []
    whose = " (its session's skills)" if kind == "subagent" else ""
    lines.append(f"    listing: {listing.summary()}{whose}")
    if listing.at_risk:
        dropped = f" (at least {listing.dropped_at_least:,} dropped)" if listing.dropped_at_least else ""
        lines.append(f"    descriptions at risk{dropped}: " + _names([entry.name for entry in listing.at_risk]))
    if listing.left_out:
        lines.append("    left out: " + _names([entry.name for entry in listing.left_out]))
    return lines
