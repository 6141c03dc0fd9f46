"""Document and workspace sync: opens, edits, saves and closes, file events, folders and settings, each
noted as work for the next analysis (the scheduler decides when it runs)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types

from .convert import path_of as _uri_path
from .lifecycle import watch_workspace
from .options import fetch_configuration, parse_options
from .request import logged, near_model
from .server import SkillLanguageServer

# seconds of quiet after a document opens before the first index ends, before the near model of the
# open documents is made (an editor restoring a session opens several at once)
NEAR_SETTLE = 0.02


async def did_open(ls: SkillLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    path = ls.path_of(params.text_document.uri)
    if path is None or not ls.is_ours(path):
        return
    ls.ensure_session(path)
    if _uri_path(params.text_document.uri) != path:
        ls.opened_as[path] = params.text_document.uri  # through a symlinked directory: published there
    ls.scheduler.work.text(path, params.text_document.text, params.text_document.version)
    # on save only: what is opened is published once (not what later unsaved changes make of it)
    ls.scheduler.work.publish.add(path)
    # an opened file is analysed at once, before the debounced edits of others: once the burst of
    # opens it came in ends (_opening)
    ls.scheduler.last_open = time.monotonic()
    if ls.scheduler.open_burst is None:
        ls.scheduler.open_burst = ls.scheduler.last_open
    ls.scheduler.add_work()
    if not ls.scheduler.indexed.is_set():
        # opened before the first index ends: the model that answers requests about it, made now
        # so that the first request finds it ready (once for the documents an editor opens together)
        if ls.near_soon is not None:
            ls.near_soon.cancel()
        ls.near_soon = asyncio.get_running_loop().call_later(
            NEAR_SETTLE, lambda: asyncio.ensure_future(near_model(ls, path)).add_done_callback(logged))


async def did_change(ls: SkillLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    path = ls.path_of(params.text_document.uri)
    if path is None or not ls.is_ours(path):
        return
    document = ls.workspace.text_documents.get(unquote(params.text_document.uri))
    if document is None:
        return
    ls.ensure_session(path)
    # the document may already hold later changes than these params (pygls applies changes as they
    # arrive, before this handler runs): its text and its own version belong together
    ls.scheduler.work.text(path, document.source, document.version)
    ls.scheduler.last_edit = time.monotonic()
    if ls.settings.validate == "onSave":
        ls.scheduler.work.publish.discard(path)
        ls.scheduler.add_work(kick=False)  # the next save or request hands it over
    elif ls.settings.debounce_ms == 0:
        ls.scheduler.add_work()
    else:
        ls.scheduler.add_work(kick=False)
        ls.scheduler.kick_later(ls.settings.debounce_ms / 1000)


async def did_save(ls: SkillLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    path = ls.path_of(params.text_document.uri)
    if path is None or not ls.is_ours(path):
        return
    if params.text is not None:
        ls.scheduler.work.text(path, params.text, ls.document_version(path))
    elif path not in ls.scheduler.work.texts:
        document = ls.workspace.text_documents.get(unquote(params.text_document.uri))
        if document is not None:
            ls.scheduler.work.text(path, document.source, document.version)
    ls.scheduler.work.publish.add(path)
    if ls.settings.validate == "onSave":
        ls.scheduler.work.publish_all = True
    ls.scheduler.add_work()


async def did_close(ls: SkillLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    path = ls.path_of(params.text_document.uri)
    if path is None or ls.session is None or not ls.is_ours(path):
        return
    if ls.opened_as.get(path) == params.text_document.uri:
        del ls.opened_as[path]  # published on its real path again
    # the file on disk is the truth again (it may differ from the closed buffer, or be gone)
    ls.scheduler.work.close(path)
    ls.scheduler.add_work()


async def did_change_watched_files(ls: SkillLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    # resolved through symlinked directories by the analysis (path_of's lstat calls, thousands of them
    # in a storm of events, would hold the loop)
    paths = [path for change in params.changes if (path := _uri_path(change.uri)) is not None]
    if paths:
        ls.scheduler.files_changed(paths)


async def did_change_folders(ls: SkillLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    ls.ensure_session()
    folders = ls.folders()
    if not folders:
        return
    ls.scheduler.work.folders = folders
    supersede(ls)
    ls.scheduler.add_work()
    await ls.scheduler.flush(None)
    watch_workspace(ls)


async def did_change_configuration(ls: SkillLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    settings_data = params.settings.get("skillLsp") if isinstance(params.settings, dict) else None
    if settings_data is not None:
        base = ls.folders()[0] if ls.folders() else Path(os.getcwd())
        settings, problems = parse_options(settings_data, base)
        for problem in problems:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                           message=f"skill-lsp: {problem}; using the default"))
        ls.settings = settings
    elif ls.capability("workspace", "configuration"):
        await fetch_configuration(ls)
    if ls.session is not None:
        ls.scheduler.work.settings = ls.settings
        supersede(ls)
        ls.scheduler.add_work()


def supersede(ls: SkillLanguageServer) -> None:
    """The workspace folders or settings changed: the analysis under way stops if it analyses with others
    (Scheduler.supersede)."""
    if ls.session is not None:
        ls.scheduler.supersede(ls.session.folders, ls.session.settings)
