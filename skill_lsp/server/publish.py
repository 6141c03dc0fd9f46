"""Publication: each file's findings as diagnostics, pushed to the client or kept as reports for its pulls.

On the worker thread after each analysis (publish), and on any thread for a pull (report_for).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from lsprotocol import types

from ..model import Finding
from .convert import Lines, diagnostic, uri_of
from .protocol import SkillProtocol
from .session import Publication

if TYPE_CHECKING:
    from .server import SkillLanguageServer

log = logging.getLogger("skill_lsp.server")


@dataclass(frozen=True)
class Report:
    """A file's diagnostics as a pull answers them: their JSON and result id, and what they were
    made from (compared by identity: equal texts are not compared character by character)."""

    findings: list[Finding] | None
    text: str | None
    related: dict[Path, str | None]
    items: str  # the JSON array of the diagnostics
    result_id: str

    @classmethod
    def of(cls, findings: list[Finding] | None, text: str | None, related: dict[Path, str | None], items: str) -> Report:
        return cls(findings, text, related, items, hashlib.sha1(items.encode("utf-8", "surrogatepass")).hexdigest()[:16])

    def made_from(self, findings: list[Finding], text: str | None, related: dict[Path, str | None]) -> bool:
        return (self.findings is findings and self.text is text and self.related.keys() == related.keys()
                and all(self.related[path] is other for path, other in related.items()))


EMPTY_REPORT = Report.of(None, None, {}, "[]")


def diagnostics(ls: SkillLanguageServer, path: Path, publication: Publication) -> list[types.Diagnostic]:
    """path's findings as diagnostics, their positions converted with the texts the session gave with them."""
    if not publication.findings:
        return []
    # a file skipped as too large still shows its finding, on line 1
    text = publication.text
    lines = (ls.lines_for(path, text) if text is not None else None) or Lines("")
    related_lines = {other: known for other, other_text in publication.related.items()
                     if other_text is not None and (known := ls.lines_for(other, other_text)) is not None}
    # the paths a message names, relative to the file's workspace folder, as the editor's explorer shows them
    model = ls.session.model if ls.session is not None else None
    base = model.folder_of(path) if model is not None else path.parent
    return [diagnostic(finding, lines, ls.codec, related_lines, base) for finding in publication.findings]


def report_for(ls: SkillLanguageServer, path: Path) -> Report:
    """path's diagnostics for a pull, as JSON, with their result id: made once for the findings
    and texts they are made from (a pull of 20,000 diagnostics converted, hashed and encoded them
    again each time, 0.5 s of the loop). Kept while the session's findings list of the file and
    the texts their positions are converted with are the very same objects (a changed finding
    makes a new list, an edit a new text); on any thread."""
    session = ls.session
    publication = session.publication(path) if session is not None else None
    if publication is None or not publication.findings:
        with ls.reports_lock:
            ls.reports.pop(path, None)
        return EMPTY_REPORT
    findings, text, related = publication.findings, publication.text, publication.related
    with ls.reports_lock:
        known = ls.reports.get(path)
    if known is not None and known.made_from(findings, text, related):
        return known
    items = diagnostics(ls, path, publication)
    report = Report.of(findings, text, related, json.dumps(cast(SkillProtocol, ls.protocol).converter.unstructure(items)))
    with ls.reports_lock:
        ls.reports[path] = report
    return report


def forget_reports(ls: SkillLanguageServer) -> None:
    """Drop the reports of files that no longer have findings (on any thread)."""
    session = ls.session
    with ls.reports_lock:
        for path in [path for path in ls.reports if session is None or path not in session.findings]:
            del ls.reports[path]


def publish(ls: SkillLanguageServer, paths: set[Path]) -> None:
    """On the worker thread: push the diagnostics of paths, labelled with the document version
    they were computed from; open documents first."""
    if getattr(ls.protocol, "_shutdown", False):
        return  # the client asked the server to stop: it no longer shows what is published
    if ls.pull_mode:
        # the reports of what changed made here, off the loop, for the pulls to come
        forget_reports(ls)
        for path in sorted(paths):
            try:
                report_for(ls, path)
            except Exception:  # (the pull makes it again, and its failure reaches the client)
                log.exception("could not make the diagnostics of %s", path)
        if paths and ls.capability("workspace", "diagnostics", "refresh_support") and ls.loop is not None:
            ls.loop.call_soon_threadsafe(ls.workspace_diagnostic_refresh, None)
        return
    session = ls.session
    if session is None:
        return
    for path in sorted(paths, key=lambda path: (not session.is_open(path), path)):
        try:
            publication = session.publication(path)
            items = diagnostics(ls, path, publication)
            with ls.push_lock:
                if ls.pull_mode:
                    return  # the client began to pull meanwhile (and what was pushed is cleared)
                uri = uri_for(ls, path)
                before = (ls.pushed_as.get(path) or uri_of(path)) if path in ls.pushed else None
                if before is not None and before != uri:
                    # opened, or closed, through a symlinked directory: nothing stays on the other URI
                    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=before, diagnostics=[]))
                    ls.pushed.discard(path)
                if not items and path not in ls.pushed and not publication.open:
                    continue  # (an open document's are always published: an editor may wait for its version's)
                ls.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=publication.version)
                )
                ls.pushed_as.pop(path, None)
                if items:
                    ls.pushed.add(path)
                    if uri != uri_of(path):
                        ls.pushed_as[path] = uri
                else:
                    ls.pushed.discard(path)
        except Exception:  # a bug with one file must not keep every later one's from the editor
            log.exception("could not publish the diagnostics of %s", path)


def uri_for(ls: SkillLanguageServer, path: Path) -> str:
    """The URI path's diagnostics are published and reported on: the one the editor opened it by."""
    return ls.opened_as.get(path) or uri_of(path)


def clear_pushed(ls: SkillLanguageServer) -> None:
    """Empty what was pushed, so that nothing shows twice once the client pulls (after the
    publication under way, if any: the next sees pull_mode and stops)."""
    with ls.push_lock:
        for path in sorted(ls.pushed):
            uri = ls.pushed_as.get(path) or uri_of(path)
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        ls.pushed.clear()
        ls.pushed_as.clear()


async def enter_pull_mode(ls: SkillLanguageServer) -> None:
    """The client pulls: stop pushing, and clear what was pushed, before the first pull is
    answered. On a thread of its own: on the worker, it waited for the analysis running (the
    first pull of a storm of file events waited 0.25 s more)."""
    if ls.pull_mode:
        return
    ls.pull_mode = True
    await asyncio.to_thread(clear_pushed, ls)
