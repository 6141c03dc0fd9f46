"""The skills view's request, `skillLsp/skills`: the workspace's roots, a root's skills, and one skill's load verdict per runtime, listing sizes, alike skills, findings and the agents, sessions and subagents that list it.

Any client can ask it (VS Code's tree view does, vscode-client/src/skillsView.ts; a Neovim user can too):

- `{}` → `{"roots": [...], "indexing": bool}`: each root's `uri`, `label`, `origin`, the `runtimes` that read it,
  its number of `skills`, of findings by severity (`counts`), and the `listing` a runtime makes of it whole (Claude
  Code's of a project's `.claude/skills`, Codex's: listing.py's summary, "12 skills · 9,400 characters of 8,000 ·
  2 at risk"; null for none);
- `{"root": uri}` → `{"skills": [...]}`: each skill's `uri`, `name`, `path`, `range` (its name), `counts` and the
  number of rows that list it (`listedBy`);
- `{"skill": uri}` → the skill with its `verdicts` (per runtime: `runtime`, `loads`, `consequence`, `does`),
  `listedBy` (each: `kind`, `name`, `runtime`, `uri`, `range`), `listings` (each listing it is an entry of:
  `title`, `runtime`, its entry's `size` in the listing's `unit`, `cut`, `atRisk`, `leftOut`, the listing's
  `summary`, and `uri`, `path`, `range` when it is reported in a file), `alike` (the skills whose descriptions
  are alike its own, SK310: `name`, `uri`, `path`, `range`, `score`, the shared `wording`, and the `choices` both
  are in) and `findings` (`code`, `severity`, `message`, `range`); null for a file that is no skill of the model.

Once a client has asked, the server tells it after each analysis that the answers may have changed
(the `skillLsp/skillsChanged` notification: no params worth reading), so that a view refreshes what it shows.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pygls.exceptions import JsonRpcInvalidParams

from ..index import Model, Root, SkillEntry
from ..listing import Entry, Listing, codex_listings, project_listing, skill_listings
from ..model import Finding, Severity, Span
from ..overlap import choices_of
from ..overview import Row, listers, rows
from ..rules.skills import load_verdicts
from ..runtimes import discovering, runtime
from .convert import uri_of
from .cursor import relative
from .protocol import Serialized

if TYPE_CHECKING:
    from .server import SkillLanguageServer

log = logging.getLogger("skill_lsp.server")

REQUEST = "skillLsp/skills"
CHANGED = "skillLsp/skillsChanged"


async def skills_request(ls: SkillLanguageServer, params: Any) -> Serialized | None:
    """The answer to `skillLsp/skills` (see the module's docstring), once the pending analyses are done (for
    the bounded time every request waits)."""
    # (pygls gives the params of a method it does not know as named tuples)
    asked = params if isinstance(params, Mapping) else params._asdict() if hasattr(params, "_asdict") else {}
    root, skill = asked.get("root"), asked.get("skill")
    if any(value is not None and not isinstance(value, str) for value in (root, skill)):
        raise JsonRpcInvalidParams(f"{REQUEST} takes {{}}, {{root: uri}} or {{skill: uri}}")
    # set before the model is read: an index that ends meanwhile tells the client (tell_view)
    ls.skills_view = True
    if ls.scheduler.indexed.is_set():
        await ls.scheduler.flush()
    model = ls.model()
    if model is None or not ls.scheduler.indexed.is_set():
        return Serialized(None if skill is not None else {"skills": []} if root is not None else
                          {"roots": [], "indexing": True})
    # made on the thread that answers requests beside the worker (skillLsp/skills of a root of 3,000 skills
    # takes a tenth of a second): the loop goes on answering meanwhile
    if skill is not None:
        path = ls.path_of(skill)
        entry = model.skills.get(path) if path is not None else None
        return Serialized(await ls.run_aside(_skill_details, ls, model, entry) if entry is not None else None)
    if root is not None:
        path = ls.path_of(root)
        return Serialized({"skills": await ls.run_aside(_root_skills, ls, model, path) if path is not None else []})
    return Serialized({"roots": await ls.run_aside(_roots, model, _findings(ls)), "indexing": False})


def _findings(ls: SkillLanguageServer) -> Mapping[Path, list[Finding]]:
    return ls.session.findings if ls.session is not None else {}


# the rows that list each skill, with the model and the count of analyses done they were made for: the
# requests of one refresh of a view (its roots, then each root opened) share them
_LISTED: tuple[tuple[int, int], dict[Path, list[tuple[Row, Span]]]] | None = None


def _listed(ls: SkillLanguageServer, model: Model) -> dict[Path, list[tuple[Row, Span]]]:
    global _LISTED
    key = (id(model), ls.scheduler.completed)
    known = _LISTED
    if known is not None and known[0] == key:
        return known[1]
    listed = listers(rows(model))
    _LISTED = (key, listed)
    return listed


def _root_skills(ls: SkillLanguageServer, model: Model, root: Path) -> list[dict[str, Any]]:
    findings = _findings(ls)
    listed = _listed(ls, model)
    chosen = sorted((each for each in model.skills.values() if _root_path(each) == root),
                    key=lambda each: (each.key, each.path.parts))
    base = (uri_of(root), str(root) + os.sep)
    return [_skill_json(ls, model, each, findings, len(listed.get(each.path, [])), base) for each in chosen]


def tell_view(ls: SkillLanguageServer) -> None:
    """On the worker thread, after an analysis: tell a client that showed the view that it may have changed."""
    if not ls.skills_view or getattr(ls.protocol, "_shutdown", False):
        return
    try:
        ls.protocol.notify(CHANGED, {})
    except Exception:  # a client gone: nothing to tell
        log.debug("could not notify %s", CHANGED, exc_info=True)


def _root_path(skill: SkillEntry) -> Path:
    """The root a skill is shown under: its root, or the directory above its own when it has none."""
    return skill.root.path if skill.root is not None else skill.directory.parent


def _roots(model: Model, findings: Mapping[Path, list[Finding]]) -> list[dict[str, Any]]:
    grouped: dict[Path, list[SkillEntry]] = {}
    for skill in model.skills.values():
        grouped.setdefault(_root_path(skill), []).append(skill)
    # the listing a runtime makes of a whole root: Claude Code's of a project's .claude/skills, Codex's
    summaries = {listing.path: listing.summary() for listing in codex_listings(model)}
    for folder in model.folders:
        project = project_listing(model, folder)
        if project is not None:
            summaries[folder / ".claude" / "skills"] = project.summary()
    answer = []
    for path, skills in grouped.items():
        root = skills[0].root
        runtimes = _runtime_labels(root, skills[0])
        counts = _counts([finding for skill in skills for finding in findings.get(skill.path, [])])
        label = relative(path, model) if not skills[0].external else _home(path)
        answer.append({"uri": uri_of(path), "label": label, "origin": root.origin if root is not None else None,
                       "runtimes": runtimes, "skills": len(skills), "counts": counts,
                       "listing": summaries.get(path), "external": skills[0].external})
    answer.sort(key=lambda each: (each["external"], each["label"]))
    return answer


def _runtime_labels(root: Root | None, skill: SkillEntry) -> list[str]:
    if root is None:
        return [each.label for each in skill.runtimes]
    found = discovering(root.origin, root.path, root.profile)
    for origin in root.also:
        found += discovering(origin, None, root.profile)
    return list(dict.fromkeys(each.label for each in found))


def _home(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if text == home or text.startswith(home + "/") else text


def _range(ls: SkillLanguageServer, path: Path, span: Span, plain: bool = False) -> dict[str, dict[str, int]]:
    """span as the client counts positions, in path's text (as code points when the server has no text of it,
    or when plain says that its lines are ASCII up to the span's end: the same in every encoding)."""
    lines = None if plain else ls.lines_for(path)
    if lines is not None:
        return lines.range_json(ls.codec, span)
    return {"start": {"line": span.start.line, "character": span.start.column},
            "end": {"line": span.end.line, "character": span.end.column}}


def _counts(found: list[Finding]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for finding in found:
        counts[finding.severity.label] = counts.get(finding.severity.label, 0) + 1
    return counts


def _uri_below(path: Path, base: tuple[str, str] | None) -> str:
    """path's URI; below a directory whose URI and path (with a separator) base gives, made from them (convert.uri_of
    quotes the whole path, which costs 15 µs a skill)."""
    text = str(path)
    if base is not None and os.sep == "/" and text.startswith(base[1]):
        try:
            return base[0] + "/" + quote(text[len(base[1]):])
        except UnicodeEncodeError:  # a name that is not UTF-8: uri_of's way
            pass
    return uri_of(path)


def _name_range(ls: SkillLanguageServer, skill: SkillEntry) -> dict[str, dict[str, int]]:
    """The range of the skill's name, from its facts (navigation.skill_location's, made without a Location: a root
    holds thousands)."""
    facts = skill.facts
    return _range(ls, skill.path, facts.name_span or facts.first_line, facts.plain)


def _skill_json(ls: SkillLanguageServer, model: Model, skill: SkillEntry, findings: Mapping[Path, list[Finding]],
                listed_by: int, base: tuple[str, str] | None = None) -> dict[str, Any]:
    return {"uri": _uri_below(skill.path, base), "name": skill.key, "path": relative(skill.path, model),
            "range": _name_range(ls, skill),
            "counts": _counts(findings.get(skill.path, [])), "listedBy": listed_by}


def _skill_details(ls: SkillLanguageServer, model: Model, skill: SkillEntry) -> dict[str, Any]:
    findings = _findings(ls)
    rows_listing = _listed(ls, model).get(skill.path, [])
    answer = _skill_json(ls, model, skill, findings, len(rows_listing))
    answer["description"] = skill.description
    answer["verdicts"] = [{"runtime": each.label, "loads": consequence is None or consequence.name != "DROPPED",
                           "consequence": consequence.name.lower() if consequence is not None else None, "does": does}
                          for each, consequence, does in load_verdicts(skill)]
    answer["listedBy"] = [{"kind": row.kind, "name": row.name, "runtime": row.runtime, "uri": uri_of(row.path),
                           "path": relative(row.path, model), "range": _range(ls, row.path, span)}
                          for row, span in rows_listing]
    answer["listings"] = [_listing_json(ls, model, listing, entry) for listing, entry in skill_listings(model, skill)]
    answer["alike"] = _alike(ls, model, skill)
    answer["findings"] = [{"code": finding.code, "severity": finding.severity.label, "message": finding.message,
                           "range": _range(ls, skill.path, finding.span)}
                          for finding in sorted(findings.get(skill.path, []), key=_by_severity)]
    return answer


def _listing_json(ls: SkillLanguageServer, model: Model, listing: Listing, entry: Entry) -> dict[str, Any]:
    """A listing the skill is an entry of: its entry's size, and whether its description may be dropped (Claude
    Code, over budget) or the skill is left out (Codex); where the listing is reported, when that is a file."""
    answer: dict[str, Any] = {
        "title": listing.title, "runtime": runtime(listing.runtime).label, "size": entry.size,
        "unit": listing.budget.unit, "cut": entry.cut, "atRisk": any(each is entry for each in listing.at_risk),
        "leftOut": any(each is entry for each in listing.left_out), "summary": listing.summary()}
    if listing.path.is_file():
        answer.update(uri=uri_of(listing.path), path=relative(listing.path, model),
                      range=_range(ls, listing.path, listing.span))
    return answer


def _alike(ls: SkillLanguageServer, model: Model, skill: SkillEntry) -> list[dict[str, Any]]:
    """The skills whose descriptions are alike this one's (overlap.py, SK310), each once with the choices both are in
    (an agent's list, a session's, a root a session loads whole), best first."""
    found: dict[int, dict[str, Any]] = {}
    for choice in choices_of(model).of_skill(skill):
        for overlap in choice.partners(skill):
            other = overlap.other(skill)
            known = found.get(id(other))
            if known is None:
                found[id(other)] = known = {
                    "name": other.key, "uri": uri_of(other.path), "path": relative(other.path, model),
                    "range": _name_range(ls, other), "score": round(overlap.score, 3), "wording": overlap.wording(),
                    "choices": []}
            known["choices"].append(choice.label)
    return sorted(found.values(), key=lambda each: (-each["score"], each["path"]))


def _by_severity(finding: Finding) -> tuple[int, Span, str]:
    return (int(finding.severity) if isinstance(finding.severity, Severity) else 9, finding.span, finding.code)
