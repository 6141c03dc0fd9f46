"""The language server object: pygls plumbing, the state its handlers share, and the client's log.

Handlers live by feature in their own modules, wired to the LSP methods in app.py; the scheduling of the
analyses in scheduler.py, their publication in publish.py.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, cast
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..codefiles import is_code_path
from ..config import CONFIG_FILES, user_agents_dir
from ..index import Model
from ..pathtext import is_skill_filename, is_user_agent_path, real_path_in
from .convert import Lines
from .convert import path_of as _uri_path
from .early import ReadAhead, Replay, shallow
from .indexing import NearIndex
from .protocol import Serialized, SkillProtocol, arrived_at
from .publish import Report, publish, uri_for
from .scheduler import Job, Scheduler, keep_recent
from .session import Session, Settings
from .watch import WorkspaceWatcher

log = logging.getLogger("skill_lsp.server")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

# attempts at a request whose reading of the model met the worker changing it
READ_ATTEMPTS = 3

# A document's path as path_of resolved it, for so many seconds: each request asks for it, and
# resolving it calls lstat on each of its directories, each call handing the interpreter to an
# analysis running and waiting to take it back (a request asked while the first index ran waited
# up to a second)
REAL_PATH_SECONDS = 2.0


class SkillLanguageServer(LanguageServer):
    """The server: pygls' LanguageServer with skill-lsp's session, scheduler, publication state and caches."""

    def __init__(self) -> None:
        super().__init__("skill-lsp", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=SkillProtocol)
        self.session: Session | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        # the scheduling, on the loop: each job is applied, analysed and published on its worker thread
        self.scheduler = Scheduler(self.apply, arrived_at)
        self.pushed: set[Path] = set()
        # an open document's URI where it is not its path's (opened through a symlinked directory of
        # the workspace, `.claude/skills -> ../skills`: the analysis knows the file by its real path):
        # its diagnostics are published there while it is open; what was pushed on such a URI
        self.opened_as: dict[Path, str] = {}
        self.pushed_as: dict[Path, str] = {}
        self.pull_mode = False
        self.push_lock = threading.Lock()  # a publication and its mark in self.pushed, or their clearing
        self.reader: ReadAhead | None = None  # the client's messages, on stdio
        self.settings = Settings()
        self.settings_problems: list[str] = []
        self.fallback_folder = False
        self.watcher: WorkspaceWatcher | None = None
        self.client_watches = False
        self.lines_cache: dict[Path, tuple[str, Lines]] = {}
        # the last outline of each SKILL.md, with what it was made from (_skill_symbols)
        # (key, outline, and for an outline of the first MAX_BODY_ITEMS headings the text up to the
        # end of the last one shown: a text that starts the same has the same outline, _capped_outline)
        self.symbols_cache: dict[Path, tuple[tuple[Any, ...], Serialized, str | None]] = {}
        self.lines_lock = threading.Lock()
        # a document's path as path_of resolved it, and when (see REAL_PATH_SECONDS)
        self.real_paths: dict[str, tuple[tuple[Path, ...], float, Path]] = {}
        # each file's diagnostics for a pull, as JSON, with what they were made from (report_for)
        self.reports: dict[Path, Report] = {}
        self.reports_lock = threading.Lock()
        # Before the first index ends, requests about open documents are answered from a model of
        # the files nearest them, built on a thread of its own (the worker is busy with the index):
        # the texts it was built from, and the model; the build in progress, for the same texts.
        self.near_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skill-lsp-near")
        self.near: tuple[dict[Path, str], Model] | None = None
        self.near_index = NearIndex()  # used on near_thread only
        self.near_soon: asyncio.TimerHandle | None = None
        self.near_build: tuple[dict[Path, str], asyncio.Future[Model]] | None = None
        # called on the worker thread after each analysis and its publication (app.py wires them)
        self.after_analysis: list[Callable[[SkillLanguageServer], None]] = []
        # the client asked for the skills view: it is told when that may have changed (skillsview.tell_view)
        self.skills_view = False

    def _start_io_async(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls' stdio server, reading the client with early.ReadAhead (a thread of its own reads
        whole frames ahead) instead of one thread-pool round trip per header line and body."""
        self._stop_event = threading.Event()
        reader = self.reader = ReadAhead(stdin if isinstance(stdin, Replay) else Replay(b"", stdin or sys.stdin.buffer))
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(run_async(stop_event=self._stop_event, reader=reader, protocol=self.protocol,
                                  logger=logging.getLogger("pygls.io_"), error_handler=self.report_server_error))
        except BrokenPipeError:
            log.error("the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message that could not be decoded (not JSON, not UTF-8, nested too deep) is answered as
        JSON-RPC asks: a Parse error, with a null id (which request it was cannot be known); pygls
        would show the editor's user an "Error in server" message for it. Anything else: pygls'."""
        if source is JsonRpcException and isinstance(error, RecursionError) and self._read_shallow():
            return
        if source is JsonRpcException and isinstance(error, (json.JSONDecodeError, UnicodeDecodeError, RecursionError)):
            self.protocol._send_response(None, error=types.ResponseError(  # type: ignore[arg-type]
                code=types.ErrorCodes.ParseError, message=f"the message could not be read: {type(error).__name__}"))
            return
        super().report_server_error(error, source)

    def _read_shallow(self) -> bool:
        """The message pygls could not decode for its nesting (Python's json recurses: 100,000 levels
        raise RecursionError), decoded with what lies deeper than any LSP message read as null
        (early.shallow) and handled as the same message without it. False when that fails too."""
        reader = self.reader
        if reader is None:
            return False
        body, reader.last = reader.last, b""
        pruned = shallow(body)
        if pruned is body:
            return False
        try:
            message = json.loads(pruned, object_hook=self.protocol.structure_message)
        except (ValueError, RecursionError):
            return False
        try:
            self.protocol.handle_message(message)
        except Exception:  # (as pygls' reading loop would: one line of the log, and the session goes on)
            log.exception("a message nested too deep could not be handled")
        return True

    # -- plumbing ---------------------------------------------------------------------

    def feature(self, feature_name: str, options: Any | None = None) -> Callable[[F], F]:
        """pygls' feature decorator; a request handler whose read of the model met the worker thread
        changing it (a request waits for an analysis only so long, then reads the model as it
        stands: a dict or set may change size under its loop) reads again instead of failing."""
        register = super().feature(feature_name, options)

        def decorator(function: F) -> F:
            if not inspect.iscoroutinefunction(function):
                return register(function)

            @functools.wraps(function)
            async def answered(ls: SkillLanguageServer, params: Any) -> Any:
                for attempt in range(READ_ATTEMPTS):
                    try:
                        return await function(ls, params)
                    except RuntimeError as error:
                        if "during iteration" not in str(error) or attempt == READ_ATTEMPTS - 1:
                            raise
                        log.debug("%s read the model while it changed: read again", feature_name)
                return None  # not reached: the last attempt returns or raises

            return register(cast(F, answered))

        return decorator

    async def run_aside(self, function: Callable[..., T], *args: Any) -> T:
        """function on the thread that answers requests while the worker analyses (never queued
        behind an analysis)."""
        return await asyncio.get_running_loop().run_in_executor(self.near_thread, function, *args)

    def open_texts(self) -> dict[Path, str]:
        """The open documents the analysis reads, as the editor has them now."""
        texts: dict[Path, str] = {}
        for uri, document in list(self.workspace.text_documents.items()):
            path = self.path_of(uri)
            if path is not None and self.is_ours(path):
                texts[path] = document.source
        return texts

    def capability(self, *names: str) -> Any:
        value: Any = self.client_capabilities
        for name in names:
            value = getattr(value, name, None)
            if value is None:
                return None
        return value

    def lines_for(self, path: Path, text: str | None = None) -> Lines | None:
        """The lines of path's text as the session has it (or of text, a newer one: the editor's)."""
        session = self.session
        if session is None:
            return None
        if text is None:
            text = session.text(path)
        if text is None:
            return None
        with self.lines_lock:  # the loop and the worker both ask
            known = self.lines_cache.get(path)
            if known is not None and known[0] is text:
                return known[1]
        lines = Lines(text, session.skill_lines(path, text))
        # a text's lines, and the unit tables of its long lines, serve every request and publication
        # until the text changes (splitting a 7 MB buffer costs tens of milliseconds)
        with self.lines_lock:
            keep_recent(self.lines_cache, path, (text, lines))
        return lines

    @property
    def codec(self) -> Any:
        return self.workspace.position_codec

    def ensure_session(self, path: Path | None = None) -> Session:
        if self.session is None:
            folders = self.folders()
            if not folders:
                # a user subagent opened on its own: its directory, never the home directory above it
                user_agents = user_agents_dir(self.settings.config, [])
                if path is not None and user_agents is not None and is_user_agent_path(path, user_agents):
                    folders = [user_agents]
                else:
                    folders = [_project_dir(path) if path is not None else Path(os.getcwd())]
                self.fallback_folder = True
            self.session = Session(folders, self.settings)
            # a folder too large to index whole is told when its walk ends, not when its analysis does
            self.session.tell = lambda notice: self.notify_user(f"skill-lsp: {notice}.")
        return self.session

    def folders(self) -> list[Path]:
        found = []
        for folder in self.workspace.folders.values():
            path = self.path_of(folder.uri)
            if path is not None:
                found.append(path)
        if not found and self.workspace.root_uri:
            root = self.path_of(self.workspace.root_uri)
            if root is not None:
                found.append(root)
        return found

    def path_of(self, uri: str) -> Path | None:
        """The path of a document as the analysis knows it: a document opened through a symlinked directory
        of the workspace (`.agents/skills -> ../skills`) is the file on its real path, whose diagnostics the
        server publishes."""
        path = _uri_path(uri)
        if path is None:
            return None
        session = self.session
        if session is not None:
            folders = tuple(session.folders)
            now = time.monotonic()
            known = self.real_paths.get(uri)
            if known is not None and known[0] == folders and now - known[1] < REAL_PATH_SECONDS:
                return known[2]
            real = real_path_in(path, list(folders))
            if len(self.real_paths) >= 4096:
                self.real_paths.clear()
            self.real_paths[uri] = (folders, now, real)
            return real
        try:
            named = [folder for each in self.workspace.folders.values() if (folder := _uri_path(each.uri)) is not None]
        except RuntimeError:  # before initialize
            return path
        return real_path_in(path, named)

    def is_ours(self, path: Path) -> bool:
        """A file the server analyses: a SKILL.md, a configuration file, or a file that may define agents."""
        return is_skill_filename(path.name) or path.name in CONFIG_FILES or self.is_agent_file(path)

    def is_agent_file(self, path: Path) -> bool:
        """A file that may define agents: code, a subagent file, or one of the user's own subagents."""
        if is_code_path(path):
            return True
        if self.session is not None:
            return self.session.is_user_agent(path)
        directory = user_agents_dir(self.settings.config, self.folders())
        return directory is not None and is_user_agent_path(path, directory)

    def document_version(self, path: Path) -> int | None:
        """The version of path's open document (by the URI it was opened with: uri_for), if it is open."""
        document = self.workspace.text_documents.get(unquote(uri_for(self, path)))  # pygls keys them unquoted
        return document.version if document is not None else None

    def request_cancelled(self) -> None:
        """A request was cancelled (SkillProtocol): its work is handed over all the same."""
        self.scheduler.request_cancelled()

    # -- analysis ---------------------------------------------------------------------

    def apply(self, job: Job) -> None:
        """On the worker thread (the scheduler's): apply job to the session, analyse, publish."""
        session = self.ensure_session()
        changed = session.apply(job)
        if self.settings.validate == "onSave":
            chosen = set(job.publish)
            if job.publish_all:
                chosen |= set(session.findings) | self.pushed
        else:
            chosen = changed | job.publish | set(job.texts) | job.closed
        publish(self, chosen)
        for then in self.after_analysis:
            then(self)

    def notify_user(self, message: str) -> None:
        """From the worker thread: a warning the editor shows (window/showMessage)."""
        params = types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.window_show_message, params)

    def model(self) -> Model | None:
        return self.session.model if self.session is not None else None


class ClientLogHandler(logging.Handler):
    """Forwards the server's log records to the client's log (window/logMessage), from any thread."""

    def __init__(self, ls: SkillLanguageServer, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(logging.INFO)
        self.ls = ls
        self.loop = loop

    def emit(self, record: logging.LogRecord) -> None:
        kind = (types.MessageType.Error if record.levelno >= logging.ERROR else
                types.MessageType.Warning if record.levelno >= logging.WARNING else types.MessageType.Info)
        params = types.LogMessageParams(type=kind, message=f"skill-lsp: {record.getMessage()}")
        try:
            self.loop.call_soon_threadsafe(self.ls.window_log_message, params)
        except RuntimeError:  # the loop is closed: the client is gone
            pass


def _project_dir(path: Path | None) -> Path:
    if path is None:
        return Path(os.getcwd())
    directory = path.parent
    while directory.parent != directory:
        if any((directory / marker).exists() for marker in (".git", "pyproject.toml", ".agentdeck", ".claude")):
            return directory
        directory = directory.parent
    return path.parent
