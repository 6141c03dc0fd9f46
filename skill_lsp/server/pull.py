"""Pull diagnostics: textDocument/diagnostic and workspace/diagnostic, answered from the reports publication keeps."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .protocol import Serialized, arrived_at
from .publish import EMPTY_REPORT, enter_pull_mode, report_for, uri_for
from .scheduler import REQUEST_WALL_CEILING
from .server import SkillLanguageServer


class JsonRpcServerCancelled(JsonRpcException):
    """LSP's ServerCancelled, for a diagnostic pull that cannot be answered now: the client asks
    again (retriggerRequest, LSP 3.17's DiagnosticServerCancellationData)."""

    CODE = -32802
    MESSAGE = "Server cancelled"


async def pull_ready(ls: SkillLanguageServer) -> None:
    """Before a pull is answered: the analyses pending, waited for as any request waits for them.
    When they are not done by then (the first index, the analysis of a file of megabytes, a storm
    of file events), the client is told to ask again: ServerCancelled with retriggerRequest, LSP
    3.17's answer for a diagnostic that cannot be computed now. A pull never waits for an analysis
    of seconds, and never gets diagnostics of a text the client no longer has. The time counts from
    the pull's arrival (arrived_at), the messages read before it included."""
    started = arrived_at()
    await enter_pull_mode(ls)
    if ls.scheduler.indexed.is_set() and await ls.scheduler.flush():
        return
    # The client asks again at once: it waits here first, REQUEST_WALL_CEILING in all, so that its
    # asking does not keep the loop busy while an analysis of seconds runs.
    left = REQUEST_WALL_CEILING - (time.monotonic() - started)
    if not ls.scheduler.indexed.is_set() and left > 0:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(ls.scheduler.indexed.wait(), left)
    left = REQUEST_WALL_CEILING - (time.monotonic() - started)
    if ls.scheduler.indexed.is_set() and left > 0 and await ls.scheduler.flush(patient=True, wall=left):
        return
    left = REQUEST_WALL_CEILING - (time.monotonic() - started)
    if left > 0:
        await asyncio.sleep(left)  # (file events still coming: nothing was waited for)
    raise JsonRpcServerCancelled("skill-lsp is still analysing the workspace: ask again",
                                 data={"retriggerRequest": True})


async def pull_document(
    ls: SkillLanguageServer, params: types.DocumentDiagnosticParams
) -> Serialized:
    await pull_ready(ls)
    path = ls.path_of(params.text_document.uri)
    report = await asyncio.to_thread(report_for, ls, path) if path is not None else EMPTY_REPORT
    result_id = json.dumps(report.result_id)
    if params.previous_result_id == report.result_id:
        return Serialized.of_json(f'{{"kind": "unchanged", "resultId": {result_id}}}')
    return Serialized.of_json(f'{{"kind": "full", "resultId": {result_id}, "items": {report.items}}}')


async def pull_workspace(ls: SkillLanguageServer, params: types.WorkspaceDiagnosticParams) -> Serialized:
    await pull_ready(ls)
    previous = {item.uri: item.value for item in params.previous_result_ids}
    return await asyncio.to_thread(_workspace_report, ls, previous)


def _workspace_report(ls: SkillLanguageServer, previous: dict[str, str]) -> Serialized:
    """Every file's report, as JSON; unchanged for those whose result id the client has (off the
    loop: the reports of a storm of changes are made here when the analysis has not made them)."""
    session = ls.session
    paths = set(session.findings) if session is not None else set()
    paths |= {p for uri in previous if (p := ls.path_of(uri)) is not None}
    parts = []
    for path in sorted(paths):
        uri = uri_for(ls, path)
        report = report_for(ls, path)
        head = (f'"uri": {json.dumps(uri)}, "version": {json.dumps(ls.document_version(path))}, '
                f'"resultId": {json.dumps(report.result_id)}')
        if previous.get(uri) == report.result_id:
            parts.append(f'{{"kind": "unchanged", {head}}}')
        else:
            parts.append(f'{{"kind": "full", {head}, "items": {report.items}}}')
    return Serialized.of_json(f'{{"items": [{", ".join(parts)}]}}')
