"""The server's life: initialize, the first index, the watchers, shutdown and exit, and the watch on the editor's process."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, cast

from lsprotocol import types

from .. import __version__, forks
from ..treesitter import abandon_parses
from .indexing import NearIndex
from .options import fetch_configuration, parse_options
from .protocol import SkillProtocol
from .server import ClientLogHandler, SkillLanguageServer
from .watch import WorkspaceWatcher

log = logging.getLogger("skill_lsp.server")


WATCHERS = ("**/SKILL.md", "**/skill.md", "**/*.py", "**/pyproject.toml", "**/skill-lsp.toml", "**/.skill-lsp.toml", "**/plugin.json", "**/marketplace.json", "**/skills/*",
            # TypeScript/JavaScript agents and subagent files (.claude/agents, plugins' agents/)
            "**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}", "**/agents/*.md",
            # Claude Code's project settings: the listing's budget and skillOverrides (LS101)
            "**/.claude/settings.json", "**/.claude/settings.local.json")


def on_initialize(ls: SkillLanguageServer, params: types.InitializeParams) -> None:
    base = ls.folders()[0] if ls.folders() else Path(os.getcwd())
    ls.settings, ls.settings_problems = parse_options(params.initialization_options, base)
    ls.loop = asyncio.get_running_loop()
    ls.loop.set_exception_handler(_quiet_cancellations)
    if isinstance(params.process_id, int) and params.process_id > 0:
        watch_parent(ls, params.process_id)


def _quiet_cancellations(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's handler of exceptions nobody awaited. When the client goes (stdin closed), pygls
    cancels the handlers still waiting (the first index's) and its callbacks then read their
    cancelled results: that is the server ending, not an error with a traceback for the log."""
    if isinstance(context.get("exception"), asyncio.CancelledError):
        return
    loop.default_exception_handler(context)


async def on_initialized(ls: SkillLanguageServer, params: types.InitializedParams) -> None:
    logging.getLogger("skill_lsp").addHandler(ClientLogHandler(ls, asyncio.get_running_loop()))
    for problem in ls.settings_problems:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                       message=f"skill-lsp: {problem}; using the default"))
    if ls.capability("workspace", "configuration"):
        await fetch_configuration(ls)
    if ls.capability("workspace", "did_change_watched_files", "dynamic_registration"):
        watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHERS]
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(
                    id="skill-lsp-watched-files",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                )
            ]))
            ls.client_watches = True
        except Exception as error:  # a client that refuses: the server watches the disk itself
            log.info("the client does not watch files (%s); watching them from the server", error)
    # The server's own watcher starts once the first index is done: setting up a recursive watch walks
    # the tree again, in Python, beside the index. What changed on disk meanwhile is caught up then.
    since = ls.ensure_session().index_since(time.time_ns())  # (the head start walked before)
    await initial_index(ls)
    watch_workspace(ls, since)


async def initial_index(ls: SkillLanguageServer) -> None:
    token: str | None = None
    if ls.capability("window", "work_done_progress"):
        token = f"skill-lsp-index-{uuid.uuid4()}"
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="skill-lsp", message="Indexing skills", percentage=0))
        except Exception:
            token = None
    session = ls.ensure_session()
    session.settings = ls.settings
    if token is not None:
        loop = asyncio.get_running_loop()

        def report(message: str, percentage: int | None, token: str = token) -> None:  # from the worker
            loop.call_soon_threadsafe(ls.work_done_progress.report, token,
                                      types.WorkDoneProgressReport(message=message, percentage=percentage))

        session.report = report
    ls.scheduler.work.full = True
    ls.scheduler.work.publish_all = ls.settings.validate == "onSave"
    ls.scheduler.started = True
    ls.scheduler.add_work()
    await ls.scheduler.flush(None)
    session.report = None
    model = session.model
    summary = (f"indexed {sum(1 for s in model.skills.values() if not s.external)} skills and "
               f"{len(model.agents) + len(model.options) + len(model.definitions)} agent definitions" if model else "indexed")
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=summary))
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=f"skill-lsp {__version__}: {summary}"))
    ls.scheduler.indexed.set()
    ls.near = ls.near_build = None  # the index answers from now on
    ls.near_index = NearIndex()


def on_shutdown(ls: SkillLanguageServer, params: None) -> None:
    if ls.scheduler.debounce is not None:
        ls.scheduler.debounce.cancel()
        ls.scheduler.debounce = None
    if ls.watcher is not None:
        ls.watcher.stop()


def on_exit(ls: SkillLanguageServer, params: None) -> None:
    """Exit now, with the status the spec asks for: 0 after shutdown, 1 without."""
    end_process(ls, 0 if getattr(ls.protocol, "_shutdown", False) else 1)


# the seconds a message already being written may take to finish before the process ends
FRAME_FINISH = 1.5


def end_process(ls: SkillLanguageServer, code: int) -> None:
    """End the process now, whatever the worker thread is doing: a parse in progress stops at its
    next read (it holds the GIL between reads), and nothing waits for the analysis to finish. The
    children a large analysis forked are killed first (they would also get the kernel's death signal).
    A message the worker is writing (diagnostics of megabytes) is finished first, within
    FRAME_FINISH, and none starts after it: a client still reading never gets a frame cut short (one
    that is gone fails the write at once)."""
    forks.stop_children()
    abandon_parses()
    finish_sending(ls)
    try:
        sys.stdout.flush()
    finally:
        os._exit(code)


def finish_sending(ls: SkillLanguageServer) -> None:
    """Wait, at most FRAME_FINISH, for the message being written to be whole; none starts after."""
    cast(SkillProtocol, ls.protocol).send_lock.acquire(timeout=FRAME_FINISH)  # (never released)


# how often the editor's process is looked for (LSP: exit when initialize's processId is gone)
PARENT_POLL_SECONDS = 1.0


def watch_parent(ls: SkillLanguageServer, pid: int) -> None:
    """End the server soon after the process initialize named is gone (the editor crashed or was
    killed and nobody closed our stdin)."""
    if sys.platform == "win32":  # os.kill(pid, 0) would terminate it there
        return

    def alive() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # exists, owned by someone else
            return True
        except OSError:
            return True
        return True

    def poll() -> None:
        while alive():
            time.sleep(PARENT_POLL_SECONDS)
        log.warning("the editor's process %d is gone: exiting", pid)
        end_process(ls, 1)

    threading.Thread(target=poll, name="skill-lsp-parent", daemon=True).start()


def watch_workspace(ls: SkillLanguageServer, since: int | None = None) -> None:
    """Watch the folders ourselves when the client does not report file changes. Scheduling a
    recursive watch walks the tree (seconds on a home directory): on a thread of its own. since
    (time.time_ns()): the watch starts after the model was built from the disk as of then; once
    it runs, what changed since is analysed as if the watcher had seen it."""
    if ls.client_watches or ls.session is None or getattr(ls.protocol, "_shutdown", False):
        return
    if ls.watcher is not None:
        ls.watcher.stop()
    loop = asyncio.get_running_loop()
    session = ls.session

    def changed(paths: list[Path]) -> None:
        loop.call_soon_threadsafe(ls.scheduler.files_changed, paths)

    async def catch_up(since: int) -> None:
        try:
            # on the worker thread, between analyses (it reads the workspace they build)
            paths = await ls.scheduler.run(session.changed_since, since)
        except Exception:
            log.exception("could not compare the workspace with its index")
            return
        if paths:
            log.info("%d paths changed while the workspace was indexed", len(paths))
            ls.scheduler.files_changed(paths)

    watcher = ls.watcher = WorkspaceWatcher(list(session.folders), changed)

    def start() -> None:
        watcher.start()  # the watches are in place once this returns
        if since is not None:
            asyncio.run_coroutine_threadsafe(catch_up(since), loop)

    threading.Thread(target=start, name="skill-lsp-watch", daemon=True).start()
