"""The language server: pygls handlers that ask the core and convert its answers."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import inspect
import json
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, cast
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

from .. import __version__, forks
from ..codefiles import is_code_path
from ..config import editor_config, user_agents_dir
from ..disclosure import NOT_KNOWN, agent_disclosure, options_disclosure
from ..discovery import inside_workspace, is_skill_filename, is_user_agent_path, real_path_in
from ..index import AgentEntry, DefinitionEntry, Model, OptionsEntry, Registry, SkillEntry
from ..model import Finding, Fix, Position, Profile, Span
from ..pysource import abandon_parses
from ..rules.skills import name_problem
from ..runtimes import discovering
from ..skillfile import MAX_BODY_ITEMS, SkillFile
from ..textutil import FileTooLarge, check_size
from . import features
from .convert import Lines, diagnostic, encoding_name, uri_of, workspace_edit
from .convert import path_of as _uri_path
from .early import ReadAhead, Replay, shallow
from .protocol import Serialized, SkillProtocol, arrived_at
from .session import NearIndex, Session, Settings, Superseded, collected_after, not_superseded
from .watch import WorkspaceWatcher

log = logging.getLogger("skill_lsp.server")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

# skill names offered at once; more, and the list is marked incomplete (the client asks again as
# the user types). Serialising the items is most of a completion's cost: 50 fill any editor's list.
COMPLETION_LIMIT = 50
# the skill names an agent file's outline shows, all its agents together (a list of 60,000 names
# took two seconds to outline; skillfile.MAX_BODY_ITEMS bounds a SKILL.md's headings the same way)
OUTLINE_NAMES = MAX_BODY_ITEMS

# CPU seconds of analysis a request waits for before it is answered from the model as it is
REQUEST_WAIT = 0.15
# and the wall seconds it waits at most, however busy the machine: an editor waits for its answer
# (LSP clients show nothing meanwhile), and 0.5 s is what a request may take at any moment
REQUEST_WALL_CEILING = 0.25
# and the wall seconds it waits for the near model of its document while the first index runs: a
# workspace of / parses a hundred files near the open one, 0.25 s of CPU, 0.94 s on a busy machine
NEAR_WAIT = 0.4
WAIT_SLICE = 0.02
# seconds of quiet before file events are analysed (one notification a file: one analysis)
EVENT_SETTLE = 0.05
# Edits whose analysis is long (a buffer of megabytes) wait for a pause in the typing of half what
# their last analysis took, at least EDIT_SETTLE_MIN and at most EDIT_SETTLE_MAX seconds (the final
# diagnostics then come within about one and a half analyses of the last edit): analysing every slice
# of a burst kept the analysis thread busy, and so the event loop short of the interpreter, for the
# whole burst. An analysis shorter than EDIT_SETTLE_FROM seconds (every usual file) never waits. The
# least pause is longer than a busy machine's gaps in a stream of edits 30 a second (a pause of 50 ms
# let an analysis in between every third edit).
# seconds of quiet after an open before it is analysed, and the most its burst of opens waits
OPEN_SETTLE = 0.02
OPEN_SETTLE_MAX = 0.25
EDIT_SETTLE_FROM = 0.03
EDIT_SETTLE_MIN = 0.1
EDIT_SETTLE_MAX = 0.25
# seconds of quiet after a document opens before the first index ends, before the near model of the
# open documents is made (an editor restoring a session opens several at once)
NEAR_SETTLE = 0.02

# documents whose split lines are kept (the most recently used)
LINES_CACHED = 32

WATCHERS = ("**/SKILL.md", "**/skill.md", "**/*.py", "**/pyproject.toml", "**/plugin.json", "**/marketplace.json", "**/skills/*",
            # TypeScript/JavaScript agents and subagent files (.claude/agents, plugins' agents/)
            "**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}", "**/agents/*.md")


# attempts at a request whose reading of the model met the worker changing it
READ_ATTEMPTS = 3


class JsonRpcRequestFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid, and cannot be answered now (pygls has no class for it)."""

    CODE = -32803
    MESSAGE = "Request failed"


class JsonRpcServerCancelled(JsonRpcException):
    """LSP's ServerCancelled, for a diagnostic pull that cannot be answered now: the client asks
    again (retriggerRequest, LSP 3.17's DiagnosticServerCancellationData)."""

    CODE = -32802
    MESSAGE = "Server cancelled"


def parse_options(data: Any, base: Path) -> tuple[Settings, list[str]]:
    """Typed settings from initializationOptions / workspace/configuration; defaults on bad values."""
    problems: list[str] = []
    settings = Settings()
    if data is None:
        return settings, problems
    if not isinstance(data, dict):
        return settings, [f"skillLsp settings must be an object, got {type(data).__name__}"]
    validate = data.get("validate", "onType")
    if validate in ("onType", "onSave"):
        settings.validate = validate
    else:
        problems.append(f"skillLsp.validate must be \"onType\" or \"onSave\", got {validate!r}")
    debounce = data.get("debounce", 300)
    if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and 0 <= debounce <= 60_000:
        settings.debounce_ms = int(debounce)
    else:
        problems.append(f"skillLsp.debounce must be a number of milliseconds (0-60000), got {debounce!r}")
    settings.config, config_problems = editor_config(data, base)
    return settings, problems + config_problems


@dataclass
class Job:
    """What the next analysis applies to the session before it runs (see SkillLanguageServer.pump)."""

    texts: dict[Path, tuple[str, int | None]] = field(default_factory=dict)  # open documents: text, version
    closed: set[Path] = field(default_factory=set)
    events: set[Path] = field(default_factory=set)  # created, changed or deleted on disk
    full: bool = False  # walk the folders again
    folders: list[Path] | None = None
    settings: Settings | None = None
    publish: set[Path] = field(default_factory=set)  # publish these even when validating on save
    publish_all: bool = False  # on save: publish every file's diagnostics
    # (the job running) a change of folders or settings came since: its analysis is obsolete
    superseded: bool = False

    def only_events(self) -> bool:
        """Nothing but file events: nothing the editor waits to see analysed at once."""
        return bool(self.events) and not (self.texts or self.closed or self.full or self.folders is not None
                                          or self.settings is not None or self.publish or self.publish_all)

    def only_texts(self) -> bool:
        """Nothing but edits of open documents (an opened one asks to be published: it never waits)."""
        return bool(self.texts) and not (self.closed or self.events or self.full or self.folders is not None
                                         or self.settings is not None or self.publish or self.publish_all)

    def text(self, path: Path, text: str, version: int | None) -> None:
        self.texts[path] = (text, version)
        self.closed.discard(path)

    def close(self, path: Path) -> None:
        self.texts.pop(path, None)
        self.closed.add(path)

    def then(self, later: Job) -> Job:
        """This job (stopped, superseded) with later's work after it: one job that does both."""
        texts = {path: text for path, text in self.texts.items() if path not in later.closed}
        return Job(texts={**texts, **later.texts}, closed=(self.closed - set(later.texts)) | later.closed,
                   events=self.events | later.events, full=self.full or later.full,
                   folders=later.folders if later.folders is not None else self.folders,
                   settings=later.settings if later.settings is not None else self.settings,
                   publish=self.publish | later.publish, publish_all=self.publish_all or later.publish_all)


class SkillLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("skill-lsp", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=SkillProtocol)
        self.session: Session | None = None
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skill-lsp-analysis")
        self.loop: asyncio.AbstractEventLoop | None = None
        # the scheduling (see "analysis and publishing"): all of it on the loop, but pushed, which
        # belongs to the worker thread
        self.work = Job()
        self.requested = 0  # units of work added to self.work, ever
        self.completed = 0  # of those, the ones analysed and published
        self.waiters: list[tuple[int, asyncio.Future[None]]] = []
        self.pump_task: asyncio.Future[None] | None = None
        self.last_event = 0.0  # when the last file event came (time.monotonic)
        self.last_edit = 0.0  # when the last didChange came (time.monotonic)
        self.last_open = 0.0  # when the last didOpen came, and the first of those not analysed yet
        self.open_burst: float | None = None
        # how long edits wait for a pause in the typing: half what the last analysis of edits alone
        # took, when that was long (see EDIT_SETTLE_FROM)
        self.edit_settle = 0.0
        self.running: Job | None = None  # the job the worker analyses
        self.running_target = 0  # what self.requested was when it was handed over
        self.running_since: float | None = None  # the worker's CPU time when it began
        # the CPU seconds the last analysis of each recently edited document took (with what it
        # was analysed with): a request does not wait for an analysis it cannot see the end of
        self.analysis_cpu: dict[Path, float] = {}
        self.debounce: asyncio.TimerHandle | None = None
        self.started = False  # the first index was asked for: the pump may run
        self.worker_thread: int | None = None  # the analysis thread's ident, once it ran
        self.pushed: set[Path] = set()
        # an open document's URI where it is not its path's (opened through a symlinked directory of
        # the workspace, `.claude/skills -> ../skills`: the analysis knows the file by its real path):
        # its diagnostics are published there while it is open; what was pushed on such a URI
        self.opened_as: dict[Path, str] = {}
        self.pushed_as: dict[Path, str] = {}
        self.pull_mode = False
        self.push_lock = threading.Lock()  # a publication and its mark in self.pushed, or their clearing
        self.reader: ReadAhead | None = None  # the client's messages, on stdio
        self.indexed = asyncio.Event()
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

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.worker, function, *args)

    async def run_aside(self, function: Callable[..., T], *args: Any) -> T:
        """function on the thread that answers requests while the worker analyses (never queued
        behind an analysis)."""
        return await asyncio.get_running_loop().run_in_executor(self.near_thread, function, *args)

    def open_texts(self) -> dict[Path, str]:
        """The open documents the analysis reads, as the editor has them now."""
        texts: dict[Path, str] = {}
        for uri, document in list(self.workspace.text_documents.items()):
            path = path_of(uri)
            if path is not None and _is_ours(self, path):
                texts[path] = document.source
        return texts

    async def near_model(self, path: Path) -> tuple[Model, str] | None:
        """Before the first index ends: a model of the open documents and the files nearest them,
        and path's text in it (None when path is not open). Built once for the same texts."""
        texts = self.open_texts()
        text = texts.get(path)
        if text is None:
            return None
        known = self.near
        if known is not None and _same_texts(known[0], texts):
            return known[1], text
        build = self.near_build
        if build is None or not _same_texts(build[0], texts):
            folders = list(self.ensure_session(path).folders)
            build = self.near_build = (texts, asyncio.ensure_future(
                self.run_aside(self.near_index.model, folders, self.settings.config, texts)))
        try:
            model = await asyncio.shield(build[1])
        finally:
            if self.near_build is build:  # (a build that failed is not awaited again)
                self.near_build = None
        self.near = (texts, model)
        return model, text

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
        parsed = session.workspace.parsed(path, text)
        lines = Lines(text, parsed.lines if isinstance(parsed, SkillFile) else None)
        # a text's lines, and the unit tables of its long lines, serve every request and publication
        # until the text changes (splitting a 7 MB buffer costs tens of milliseconds)
        with self.lines_lock:
            _keep_recent(self.lines_cache, path, (text, lines))
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
            path = path_of(folder.uri)
            if path is not None:
                found.append(path)
        if not found and self.workspace.root_uri:
            root = path_of(self.workspace.root_uri)
            if root is not None:
                found.append(root)
        return found

    # -- analysis and publishing ---------------------------------------------------------
    #
    # The event loop only takes messages in and answers them. Everything an analysis needs waits in
    # self.work (touched on the loop only); one pump at a time hands all of it to the worker thread
    # as one Job, which applies it to the session, analyses the result and publishes (converting
    # positions and serialising the diagnostics there, not on the loop). What arrives while a job
    # runs waits for the next one: a burst of edits or of file events costs one analysis of the
    # state it ends in, and the last job always publishes the final text and tree.

    def supersede(self) -> None:
        """The workspace folders or settings changed: the analysis under way, whose model the next
        job builds again, stops (at its next look, Superseded) instead of running to its end first:
        a folder added while a cold index of 40,000 skills ran waited 30-38 s for its diagnostics.
        Only when they differ from those it analyses with: a client that sends the same settings
        again (Neovim's at start) would have the first index, and its head start, begin anew."""
        session, running = self.session, self.running
        if session is None or running is None:
            return
        folders = running.folders if running.folders is not None else session.folders
        settings = running.settings if running.settings is not None else session.settings
        if (self.work.folders is not None and self.work.folders != folders) or \
                (self.work.settings is not None and self.work.settings != settings):
            running.superseded = True

    def add_work(self, kick: bool = True) -> None:
        """Note that self.work gained something; start the pump unless a debounce decides when."""
        self.requested += 1
        if kick:
            self.kick()

    def kick(self) -> None:
        if self.debounce is not None:
            self.debounce.cancel()
            self.debounce = None
        if self.started and (self.pump_task is None or self.pump_task.done()):
            self.pump_task = asyncio.ensure_future(self.pump())

    def kick_later(self, seconds: float) -> None:
        """Start the pump after seconds of quiet (each call restarts the wait)."""
        if self.debounce is not None:
            self.debounce.cancel()
        self.debounce = asyncio.get_running_loop().call_later(seconds, self.kick)

    def _opening(self) -> float:
        """The seconds opens still wait for the editor's burst of them to end (an editor restoring a
        session opens hundreds in one write: 300 opens cost 97 analyses, 30 s, each job taking the few
        the loop had read while the last one ran): OPEN_SETTLE after the last, OPEN_SETTLE_MAX at most
        after the first, or after the end of the job that ran while it came."""
        if self.open_burst is None or self.waiters:
            return 0.0
        now = time.monotonic()
        return min(OPEN_SETTLE - (now - self.last_open), OPEN_SETTLE_MAX - (now - self.open_burst))

    def _settling(self) -> float:
        """The seconds the work waiting should still wait for its burst to stop (0 or less: none).
        File events that keep coming (a checkout, a storm) wait EVENT_SETTLE after the last one; edits
        alone, while typing into a buffer whose analysis is long, wait edit_settle after the last
        edit (a request does not wait for that: it hands the work over at once, see flush).
        Analysing each slice of a burst would cost an analysis per slice."""
        now = time.monotonic()
        if (opening := self._opening()) > 0:
            return opening
        if self.work.only_events():
            return EVENT_SETTLE - (now - self.last_event)
        if self.work.only_texts() and not self.waiters:
            return self.edit_settle - (now - self.last_edit)
        return 0.0

    async def pump(self) -> None:
        while self.completed < self.requested:
            settle = self._settling()
            if settle > 0:
                self.kick_later(settle)  # the pump starts again once the burst has stopped
                return
            target = self.requested
            job, self.work = self.work, Job()
            self.open_burst = None
            self.running = job
            self.running_target = target
            started, started_cpu = time.monotonic(), self.worker_cpu()
            self.running_since = started_cpu
            try:
                await self.run(self.process, job)
            except Superseded:
                # what it held is done with the change that made it obsolete; its waiters wait for that
                log.info("an analysis was stopped: the workspace folders or settings changed meanwhile")
                self.work = job.then(self.work)
                continue
            except Exception:  # a bug in one analysis must not stop every later one
                log.exception("analysis failed")
            finally:
                self.running = None
            took = time.monotonic() - started
            if job.only_texts():
                self.edit_settle = min(max(took / 2, EDIT_SETTLE_MIN), EDIT_SETTLE_MAX) if took >= EDIT_SETTLE_FROM else 0.0
            if self.open_burst is not None:
                # opens that came while this job ran were read slowly (the analysis held the
                # interpreter): their burst is waited for from now on
                self.open_burst = time.monotonic()
            cpu = self.worker_cpu()
            if cpu is not None and started_cpu is not None:
                for path in job.texts:
                    _keep_recent(self.analysis_cpu, path, cpu - started_cpu)
            self.completed = target
            waiting, self.waiters = self.waiters, []
            for wanted, future in waiting:
                if wanted <= self.completed:
                    if not future.done():
                        future.set_result(None)
                else:
                    self.waiters.append((wanted, future))

    async def flush(self, limit: float | None = REQUEST_WAIT, patient: bool = False,
                    wall: float | None = None) -> bool:
        """Hand over the work waiting (debounced edits too) and wait for it, until the analysis has
        spent limit seconds of CPU time on it (None: until done). False when it had not finished
        then: the request is answered from the model as it stands, and the analysis goes on. CPU
        time, not wall time: on a busy machine a short analysis still finishes before the answer
        (wall bounds the wait all the same: by default, what is left of REQUEST_WALL_CEILING since
        the request was read from the client, see arrived_at). Not at all when the analysis is expected
        to use more than twice limit, unless patient. A cancelled request cancels only its wait: the
        job runs to its end and publishes. File events still coming in (a checkout, a storm of them)
        are not waited for: their analysis starts once they stop (see _settling), and the request
        waits at most for the job running."""
        wanted = self.requested
        if self.completed >= wanted:
            return True
        if wall is None:
            wall = REQUEST_WALL_CEILING - (time.monotonic() - arrived_at())
        if limit is not None and self.work.only_events() and self._settling() > 0:
            if self.running is None or self.completed >= self.running_target:
                return False
            await self._wait_for(self.running_target, limit, wall)
            return False
        if limit is not None and not patient and (expected := self._expected_cpu()) > 2 * limit:
            # the last analysis of a document the work holds used more than twice limit: the wait
            # would end with the model as it stands, only later. Edits alone keep waiting for the
            # typing to pause (a keystroke in a list of 20,000 names costs 1.5 s of analysis)
            log.debug("a request is answered without waiting for an analysis of about %.2f s of CPU", expected)
            if not self.work.only_texts():
                self.kick()
            return False
        if limit is not None and not self.indexed.is_set():
            self.kick()
            return False  # the first index: no wait makes its end nearer (see request_context)
        return await self._wait_for(wanted, limit, wall, kick=True)

    async def _wait_for(self, wanted: int, limit: float | None, wall: float, kick: bool = False) -> bool:
        """Wait until the analyses have completed wanted, or spent limit seconds of CPU time on it
        (None: no limit), or wall seconds have passed: whether they have. kick: hand the work
        waiting over (once waited for: a burst of opens is not waited out, see _opening)."""
        if kick:
            self.kick()
        if limit is not None and wall <= 0:
            return False  # (the request came long ago: answered from the model as it stands)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append((wanted, future))
        if limit is None:
            await asyncio.shield(future)
            return True
        started, started_cpu = time.monotonic(), self.worker_cpu()
        while True:
            try:
                await asyncio.wait_for(asyncio.shield(future), WAIT_SLICE)
                return True
            except asyncio.TimeoutError:
                pass
            waited = time.monotonic() - started
            cpu = self.worker_cpu()
            spent = cpu - started_cpu if cpu is not None and started_cpu is not None else waited
            if spent >= limit or waited >= wall:
                return False

    def request_cancelled(self) -> None:
        """A request was cancelled, perhaps before its handler began: the work it would have handed
        over (see flush) is handed over all the same, and published when done. After the handlers
        of the messages read before the cancellation have begun (an edit's among them)."""
        asyncio.get_running_loop().call_soon(self._hand_over_cancelled)

    def _hand_over_cancelled(self) -> None:
        if self.completed >= self.requested or not self.indexed.is_set():
            return
        if self.work.only_texts() and self._expected_cpu() > 2 * REQUEST_WAIT:
            return  # edits of a long analysis wait for the typing to pause, as in flush
        self.kick()

    def _expected_cpu(self) -> float:
        """The CPU seconds the analysis of the edits waiting (and of the job running) is expected to
        use: what the last analysis of the longest of their documents used, or twice what the job
        running has used so far (the first analysis of a file of megabytes: nothing measured yet)."""
        running = self.running
        texts = [*self.work.texts, *(running.texts if running is not None else ())]
        expected = max((self.analysis_cpu.get(path, 0.0) for path in texts), default=0.0)
        now = self.worker_cpu()
        if running is not None and now is not None and self.running_since is not None:
            expected = max(expected, 2 * (now - self.running_since))
        return expected

    def worker_cpu(self) -> float | None:
        """The CPU seconds the analysis thread has used (None where the platform cannot say)."""
        ident = self.worker_thread
        if ident is None:
            return 0.0  # it has not run yet
        try:
            return time.clock_gettime(time.pthread_getcpuclockid(ident))
        except (AttributeError, OSError):
            return None

    def process(self, job: Job) -> None:
        """On the worker thread: apply job to the session, analyse, publish."""
        self.worker_thread = threading.get_ident()
        with collected_after():
            self._process(job)

    def _process(self, job: Job) -> None:
        session = self.ensure_session()
        session.superseded = lambda: job.superseded
        try:
            changed = self._analyse(session, job)
        finally:  # (no later build asks a finished job, which a change may have superseded since)
            session.superseded = not_superseded
        if self.settings.validate == "onSave":
            chosen = set(job.publish)
            if job.publish_all:
                chosen |= set(session.findings) | self.pushed
        else:
            chosen = changed | job.publish | set(job.texts) | job.closed
        self.publish(chosen)

    def _analyse(self, session: Session, job: Job) -> set[Path]:
        """job's texts, closes, events, folders and settings, in the session: the files whose findings changed."""
        for path in job.closed:
            session.drop_text(path)
        for path, (text, version) in job.texts.items():
            session.set_text(path, text, version)
        changed: set[Path] = set()
        if job.folders is not None:
            if job.settings is not None:
                session.settings = job.settings
            changed = session.set_folders(job.folders)
        elif job.settings is not None:
            changed = session.set_settings(job.settings)
        elif job.full or session.model is None:
            changed = session.full_analysis(rescan=True)
        elif job.events or job.closed:
            # the events' paths as the analysis knows them (see path_of), resolved here: 2,000 events
            # in one notification cost 16,000 lstat calls, each handing the interpreter over
            events = {real_path_in(path, session.folders) for path in job.events}
            changed = session.files_changed(sorted(events | job.closed))
        else:
            for path in job.texts:
                before = session.full_analyses
                changed |= session.reanalyse(path) | {path}
                if session.full_analyses != before:
                    # the whole model was built again, from every text of the job (each set above):
                    # 300 files with a Deck each, opened at once, cost one build, not 300
                    changed |= set(job.texts)
                    break
        return changed

    def notify_user(self, message: str) -> None:
        """From the worker thread: a warning the editor shows (window/showMessage)."""
        params = types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.window_show_message, params)

    def diagnostics_for(self, path: Path) -> list[types.Diagnostic]:
        session = self.session
        if session is None:
            return []
        findings = session.findings.get(path, [])
        if not findings:
            return []
        return self._diagnostics(path, findings, session.text(path), _related_texts(session, findings))

    def _diagnostics(self, path: Path, findings: list[Finding], text: str | None,
                     related: dict[Path, str | None]) -> list[types.Diagnostic]:
        """findings as diagnostics, their positions converted with text (path's) and related's texts."""
        # a file skipped as too large still shows its finding, on line 1
        lines = (self.lines_for(path, text) if text is not None else None) or Lines("")
        related_lines = {other: known for other, other_text in related.items()
                         if other_text is not None and (known := self.lines_for(other, other_text)) is not None}
        return [diagnostic(finding, lines, self.codec, related_lines) for finding in findings]

    def report_for(self, path: Path) -> Report:
        """path's diagnostics for a pull, as JSON, with their result id: made once for the findings
        and texts they are made from (a pull of 20,000 diagnostics converted, hashed and encoded them
        again each time, 0.5 s of the loop). Kept while the session's findings list of the file and
        the texts their positions are converted with are the very same objects (a changed finding
        makes a new list, an edit a new text); on any thread."""
        session = self.session
        findings = session.findings.get(path) if session is not None else None
        if session is None or not findings:
            with self.reports_lock:
                self.reports.pop(path, None)
            return EMPTY_REPORT
        text = session.text(path)
        related = _related_texts(session, findings)
        with self.reports_lock:
            known = self.reports.get(path)
        if known is not None and known.made_from(findings, text, related):
            return known
        items = self._diagnostics(path, findings, text, related)
        report = Report.of(findings, text, related, json.dumps(cast(SkillProtocol, self.protocol).converter.unstructure(items)))
        with self.reports_lock:
            self.reports[path] = report
        return report

    def forget_reports(self) -> None:
        """Drop the reports of files that no longer have findings (on any thread)."""
        session = self.session
        with self.reports_lock:
            for path in [path for path in self.reports if session is None or path not in session.findings]:
                del self.reports[path]

    def publish(self, paths: set[Path]) -> None:
        """On the worker thread: push the diagnostics of paths, labelled with the document version
        they were computed from; open documents first."""
        if getattr(self.protocol, "_shutdown", False):
            return  # the client asked the server to stop: it no longer shows what is published
        if self.pull_mode:
            # the reports of what changed made here, off the loop, for the pulls to come
            self.forget_reports()
            for path in sorted(paths):
                try:
                    self.report_for(path)
                except Exception:  # (the pull makes it again, and its failure reaches the client)
                    log.exception("could not make the diagnostics of %s", path)
            if paths and self.capability("workspace", "diagnostics", "refresh_support") and self.loop is not None:
                self.loop.call_soon_threadsafe(self.workspace_diagnostic_refresh, None)
            return
        session = self.session
        if session is None:
            return
        overlays = session.workspace.overlays
        for path in sorted(paths, key=lambda path: (path not in overlays, path)):
            try:
                items = self.diagnostics_for(path)
                with self.push_lock:
                    if self.pull_mode:
                        return  # the client began to pull meanwhile (and what was pushed is cleared)
                    uri = self.uri_for(path)
                    before = (self.pushed_as.get(path) or uri_of(path)) if path in self.pushed else None
                    if before is not None and before != uri:
                        # opened, or closed, through a symlinked directory: nothing stays on the other URI
                        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=before, diagnostics=[]))
                        self.pushed.discard(path)
                    if not items and path not in self.pushed and path not in overlays:
                        continue  # (an open document's are always published: an editor may wait for its version's)
                    self.text_document_publish_diagnostics(
                        types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=session.versions.get(path))
                    )
                    self.pushed_as.pop(path, None)
                    if items:
                        self.pushed.add(path)
                        if uri != uri_of(path):
                            self.pushed_as[path] = uri
                    else:
                        self.pushed.discard(path)
            except Exception:  # a bug with one file must not keep every later one's from the editor
                log.exception("could not publish the diagnostics of %s", path)

    def uri_for(self, path: Path) -> str:
        """The URI path's diagnostics are published and reported on: the one the editor opened it by."""
        return self.opened_as.get(path) or uri_of(path)

    def document_version(self, path: Path) -> int | None:
        """The version of path's open document (by the URI it was opened with: uri_for), if it is open."""
        document = self.workspace.text_documents.get(unquote(self.uri_for(path)))  # pygls keys them unquoted
        return document.version if document is not None else None

    def clear_pushed(self) -> None:
        """Empty what was pushed, so that nothing shows twice once the client pulls (after the
        publication under way, if any: the next sees pull_mode and stops)."""
        with self.push_lock:
            for path in sorted(self.pushed):
                uri = self.pushed_as.get(path) or uri_of(path)
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            self.pushed.clear()
            self.pushed_as.clear()

    async def enter_pull_mode(self) -> None:
        """The client pulls: stop pushing, and clear what was pushed, before the first pull is
        answered. On a thread of its own: on the worker, it waited for the analysis running (the
        first pull of a storm of file events waited 0.25 s more)."""
        if self.pull_mode:
            return
        self.pull_mode = True
        await asyncio.to_thread(self.clear_pushed)

    def watch_workspace(self, since: int | None = None) -> None:
        """Watch the folders ourselves when the client does not report file changes. Scheduling a
        recursive watch walks the tree (seconds on a home directory): on a thread of its own. since
        (time.time_ns()): the watch starts after the model was built from the disk as of then; once
        it runs, what changed since is analysed as if the watcher had seen it."""
        if self.client_watches or self.session is None or getattr(self.protocol, "_shutdown", False):
            return
        if self.watcher is not None:
            self.watcher.stop()
        loop = asyncio.get_running_loop()
        session = self.session

        def changed(paths: list[Path]) -> None:
            loop.call_soon_threadsafe(self.files_changed, paths)

        async def catch_up(since: int) -> None:
            try:
                # on the worker thread, between analyses (it reads the workspace they build)
                paths = await self.run(session.changed_since, since)
            except Exception:
                log.exception("could not compare the workspace with its index")
                return
            if paths:
                log.info("%d paths changed while the workspace was indexed", len(paths))
                self.files_changed(paths)

        watcher = self.watcher = WorkspaceWatcher(list(session.folders), changed)

        def start() -> None:
            watcher.start()  # the watches are in place once this returns
            if since is not None:
                asyncio.run_coroutine_threadsafe(catch_up(since), loop)

        threading.Thread(target=start, name="skill-lsp-watch", daemon=True).start()

    def files_changed(self, paths: list[Path]) -> None:
        """Files created, changed or deleted on disk: analysed with whatever else comes in the next
        few milliseconds (an editor reports a `git checkout` one file at a time)."""
        self.work.events.update(paths)
        self.last_event = time.monotonic()
        self.add_work(kick=False)
        self.kick_later(EVENT_SETTLE)

    # -- lookups for features ----------------------------------------------------------

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


server = SkillLanguageServer()


V = TypeVar("V")


def _related_texts(session: Session, findings: list[Finding]) -> dict[Path, str | None]:
    """The texts of the other files findings point into (their related information)."""
    paths = {related.path for finding in findings for related in finding.related}
    return {path: session.text(path) for path in sorted(paths)}


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


def _keep_recent(cache: dict[Path, V], path: Path, value: V) -> None:
    """value as path's, the most recent of the LINES_CACHED documents cache keeps."""
    cache.pop(path, None)
    cache[path] = value
    while len(cache) > LINES_CACHED:
        cache.pop(next(iter(cache)))


def _logged(future: asyncio.Future[Any]) -> None:
    """A task nobody awaits: its failure goes to the log (never silently lost)."""
    if not future.cancelled() and future.exception() is not None:
        log.error("near model failed", exc_info=future.exception())


def _same_texts(known: dict[Path, str], now: dict[Path, str]) -> bool:
    """The same open documents with the same texts (the very strings: an edit makes a new one)."""
    return known.keys() == now.keys() and all(known[path] is text for path, text in now.items())


# A document's path as path_of resolved it, for so many seconds: each request asks for it, and
# resolving it calls lstat on each of its directories, each call handing the interpreter to an
# analysis running and waiting to take it back (a request asked while the first index ran waited
# up to a second)
REAL_PATH_SECONDS = 2.0
_real_paths: dict[str, tuple[tuple[Path, ...], float, Path]] = {}


def path_of(uri: str) -> Path | None:
    """The path of a document as the analysis knows it: a document opened through a symlinked directory
    of the workspace (`.agents/skills -> ../skills`) is the file on its real path, whose diagnostics the
    server publishes."""
    path = _uri_path(uri)
    if path is None:
        return None
    session = server.session
    if session is not None:
        folders = tuple(session.folders)
        now = time.monotonic()
        known = _real_paths.get(uri)
        if known is not None and known[0] == folders and now - known[1] < REAL_PATH_SECONDS:
            return known[2]
        real = real_path_in(path, list(folders))
        if len(_real_paths) >= 4096:
            _real_paths.clear()
        _real_paths[uri] = (folders, now, real)
        return real
    try:
        named = [folder for each in server.workspace.folders.values() if (folder := _uri_path(each.uri)) is not None]
    except RuntimeError:  # before initialize
        return path
    return real_path_in(path, named)


def _project_dir(path: Path | None) -> Path:
    if path is None:
        return Path(os.getcwd())
    directory = path.parent
    while directory.parent != directory:
        if any((directory / marker).exists() for marker in (".git", "pyproject.toml", ".agentdeck", ".claude")):
            return directory
        directory = directory.parent
    return path.parent


# -- lifecycle ---------------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def on_initialize(ls: SkillLanguageServer, params: types.InitializeParams) -> None:
    base = ls.folders()[0] if ls.folders() else Path(os.getcwd())
    ls.settings, ls.settings_problems = parse_options(params.initialization_options, base)
    ls.loop = asyncio.get_running_loop()
    ls.loop.set_exception_handler(_quiet_cancellations)
    if isinstance(params.process_id, int) and params.process_id > 0:
        watch_parent(params.process_id)


def _quiet_cancellations(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's handler of exceptions nobody awaited. When the client goes (stdin closed), pygls
    cancels the handlers still waiting (the first index's) and its callbacks then read their
    cancelled results: that is the server ending, not an error with a traceback for the log."""
    if isinstance(context.get("exception"), asyncio.CancelledError):
        return
    loop.default_exception_handler(context)


@server.feature(types.INITIALIZED)
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
    ls.watch_workspace(since)


async def fetch_configuration(ls: SkillLanguageServer) -> None:
    folders = ls.folders()
    try:
        result = await ls.workspace_configuration_async(types.ConfigurationParams(items=[
            types.ConfigurationItem(section="skillLsp", scope_uri=uri_of(folders[0]) if folders else None)
        ]))
    except Exception as error:
        log.warning("workspace/configuration failed: %s", error)
        return
    if not result or result[0] is None:
        return
    settings, problems = parse_options(result[0], folders[0] if folders else Path(os.getcwd()))
    for problem in problems:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                       message=f"skill-lsp: {problem}; using the default"))
    ls.settings = settings
    if ls.session is not None and not ls.started:  # later, the worker's job carries them over
        ls.session.settings = settings


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
    ls.work.full = True
    ls.work.publish_all = ls.settings.validate == "onSave"
    ls.started = True
    ls.add_work()
    await ls.flush(None)
    session.report = None
    model = session.model
    summary = (f"indexed {sum(1 for s in model.skills.values() if not s.external)} skills and "
               f"{len(model.agents) + len(model.options) + len(model.definitions)} agent definitions" if model else "indexed")
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=summary))
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=f"skill-lsp {__version__}: {summary}"))
    ls.indexed.set()
    ls.near = ls.near_build = None  # the index answers from now on
    ls.near_index = NearIndex()


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: SkillLanguageServer, params: None) -> None:
    if ls.debounce is not None:
        ls.debounce.cancel()
        ls.debounce = None
    if ls.watcher is not None:
        ls.watcher.stop()


@server.feature(types.EXIT)
def on_exit(ls: SkillLanguageServer, params: None) -> None:
    """Exit now, with the status the spec asks for: 0 after shutdown, 1 without."""
    end_process(0 if getattr(ls.protocol, "_shutdown", False) else 1)


# the seconds a message already being written may take to finish before the process ends
FRAME_FINISH = 1.5


def end_process(code: int) -> None:
    """End the process now, whatever the worker thread is doing: a parse in progress stops at its
    next read (it holds the GIL between reads), and nothing waits for the analysis to finish. The
    children a large analysis forked are killed first (they would also get the kernel's death signal).
    A message the worker is writing (diagnostics of megabytes) is finished first, within
    FRAME_FINISH, and none starts after it: a client still reading never gets a frame cut short (one
    that is gone fails the write at once)."""
    forks.stop_children()
    abandon_parses()
    finish_sending()
    try:
        sys.stdout.flush()
    finally:
        os._exit(code)


def finish_sending() -> None:
    """Wait, at most FRAME_FINISH, for the message being written to be whole; none starts after."""
    cast(SkillProtocol, server.protocol).send_lock.acquire(timeout=FRAME_FINISH)  # (never released)


# how often the editor's process is looked for (LSP: exit when initialize's processId is gone)
PARENT_POLL_SECONDS = 1.0


def watch_parent(pid: int) -> None:
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
        end_process(1)

    threading.Thread(target=poll, name="skill-lsp-parent", daemon=True).start()


# -- documents ---------------------------------------------------------------------------------


def _is_ours(ls: SkillLanguageServer, path: Path) -> bool:
    return is_skill_filename(path.name) or path.name == "pyproject.toml" or _is_agent_file(ls, path)


def _is_agent_file(ls: SkillLanguageServer, path: Path) -> bool:
    """A file that may define agents: code, a subagent file, or one of the user's own subagents."""
    if is_code_path(path):
        return True
    if ls.session is not None:
        return ls.session.workspace.is_user_agent(path)
    directory = user_agents_dir(ls.settings.config, ls.folders())
    return directory is not None and is_user_agent_path(path, directory)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: SkillLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None or not _is_ours(ls, path):
        return
    ls.ensure_session(path)
    if _uri_path(params.text_document.uri) != path:
        ls.opened_as[path] = params.text_document.uri  # through a symlinked directory: published there
    ls.work.text(path, params.text_document.text, params.text_document.version)
    # on save only: what is opened is published once (not what later unsaved changes make of it)
    ls.work.publish.add(path)
    # an opened file is analysed at once, before the debounced edits of others: once the burst of
    # opens it came in ends (_opening)
    ls.last_open = time.monotonic()
    if ls.open_burst is None:
        ls.open_burst = ls.last_open
    ls.add_work()
    if not ls.indexed.is_set():
        # opened before the first index ends: the model that answers requests about it, made now
        # so that the first request finds it ready (once for the documents an editor opens together)
        if ls.near_soon is not None:
            ls.near_soon.cancel()
        ls.near_soon = asyncio.get_running_loop().call_later(
            NEAR_SETTLE, lambda: asyncio.ensure_future(ls.near_model(path)).add_done_callback(_logged))


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: SkillLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None or not _is_ours(ls, path):
        return
    document = ls.workspace.text_documents.get(unquote(params.text_document.uri))
    if document is None:
        return
    ls.ensure_session(path)
    # the document may already hold later changes than these params (pygls applies changes as they
    # arrive, before this handler runs): its text and its own version belong together
    ls.work.text(path, document.source, document.version)
    ls.last_edit = time.monotonic()
    if ls.settings.validate == "onSave":
        ls.work.publish.discard(path)
        ls.add_work(kick=False)  # the next save or request hands it over
    elif ls.settings.debounce_ms == 0:
        ls.add_work()
    else:
        ls.add_work(kick=False)
        ls.kick_later(ls.settings.debounce_ms / 1000)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: SkillLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None or not _is_ours(ls, path):
        return
    if params.text is not None:
        ls.work.text(path, params.text, ls.document_version(path))
    elif path not in ls.work.texts:
        document = ls.workspace.text_documents.get(unquote(params.text_document.uri))
        if document is not None:
            ls.work.text(path, document.source, document.version)
    ls.work.publish.add(path)
    if ls.settings.validate == "onSave":
        ls.work.publish_all = True
    ls.add_work()


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: SkillLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None or ls.session is None or not _is_ours(ls, path):
        return
    if ls.opened_as.get(path) == params.text_document.uri:
        del ls.opened_as[path]  # published on its real path again
    # the file on disk is the truth again (it may differ from the closed buffer, or be gone)
    ls.work.close(path)
    ls.add_work()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
async def did_change_watched_files(ls: SkillLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    # resolved through symlinked directories by the analysis (path_of's lstat calls, thousands of them
    # in a storm of events, would hold the loop)
    paths = [path for change in params.changes if (path := _uri_path(change.uri)) is not None]
    if paths:
        ls.files_changed(paths)


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_folders(ls: SkillLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    ls.ensure_session()
    folders = ls.folders()
    if not folders:
        return
    ls.work.folders = folders
    ls.supersede()
    ls.add_work()
    await ls.flush(None)
    ls.watch_workspace()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
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
        ls.work.settings = ls.settings
        ls.supersede()
        ls.add_work()


# -- pull diagnostics ----------------------------------------------------------------------


async def pull_ready(ls: SkillLanguageServer) -> None:
    """Before a pull is answered: the analyses pending, waited for as any request waits for them.
    When they are not done by then (the first index, the analysis of a file of megabytes, a storm
    of file events), the client is told to ask again: ServerCancelled with retriggerRequest, LSP
    3.17's answer for a diagnostic that cannot be computed now. A pull never waits for an analysis
    of seconds, and never gets diagnostics of a text the client no longer has. The time counts from
    the pull's arrival (arrived_at), the messages read before it included."""
    started = arrived_at()
    await ls.enter_pull_mode()
    if ls.indexed.is_set() and await ls.flush():
        return
    # The client asks again at once: it waits here first, REQUEST_WALL_CEILING in all, so that its
    # asking does not keep the loop busy while an analysis of seconds runs.
    left = REQUEST_WALL_CEILING - (time.monotonic() - started)
    if not ls.indexed.is_set() and left > 0:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(ls.indexed.wait(), left)
    left = REQUEST_WALL_CEILING - (time.monotonic() - started)
    if ls.indexed.is_set() and left > 0 and await ls.flush(patient=True, wall=left):
        return
    left = REQUEST_WALL_CEILING - (time.monotonic() - started)
    if left > 0:
        await asyncio.sleep(left)  # (file events still coming: nothing was waited for)
    raise JsonRpcServerCancelled("skill-lsp is still analysing the workspace: ask again",
                                 data={"retriggerRequest": True})


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="skill-lsp", inter_file_dependencies=True, workspace_diagnostics=True),
)
async def pull_document(
    ls: SkillLanguageServer, params: types.DocumentDiagnosticParams
) -> Serialized:
    await pull_ready(ls)
    path = path_of(params.text_document.uri)
    report = await asyncio.to_thread(ls.report_for, path) if path is not None else EMPTY_REPORT
    result_id = json.dumps(report.result_id)
    if params.previous_result_id == report.result_id:
        return Serialized.of_json(f'{{"kind": "unchanged", "resultId": {result_id}}}')
    return Serialized.of_json(f'{{"kind": "full", "resultId": {result_id}, "items": {report.items}}}')


@server.feature(types.WORKSPACE_DIAGNOSTIC)
async def pull_workspace(ls: SkillLanguageServer, params: types.WorkspaceDiagnosticParams) -> Serialized:
    await pull_ready(ls)
    previous = {item.uri: item.value for item in params.previous_result_ids}
    return await asyncio.to_thread(_workspace_report, ls, previous)


def _workspace_report(ls: SkillLanguageServer, previous: dict[str, str]) -> Serialized:
    """Every file's report, as JSON; unchanged for those whose result id the client has (off the
    loop: the reports of a storm of changes are made here when the analysis has not made them)."""
    session = ls.session
    paths = set(session.findings) if session is not None else set()
    paths |= {p for uri in previous if (p := path_of(uri)) is not None}
    parts = []
    for path in sorted(paths):
        uri = ls.uri_for(path)
        report = ls.report_for(path)
        head = (f'"uri": {json.dumps(uri)}, "version": {json.dumps(ls.document_version(path))}, '
                f'"resultId": {json.dumps(report.result_id)}')
        if previous.get(uri) == report.result_id:
            parts.append(f'{{"kind": "unchanged", {head}}}')
        else:
            parts.append(f'{{"kind": "full", {head}, "items": {report.items}}}')
    return Serialized.of_json(f'{{"items": [{", ".join(parts)}]}}')


class Request:
    """What a document request works on: the file, the model, its lines and the cursor (code points)."""

    def __init__(self, path: Path, model: Model, lines: Lines, position: Position, text: str) -> None:
        self.path = path
        self.model = model
        self.lines = lines
        self.position = position
        self.text = text
        # answered from the model of the files nearest the open ones, while the first index runs
        self.near = False


async def request_context(ls: SkillLanguageServer, uri: str, position: types.Position | None = None,
                          wait: bool = True) -> Request | None:
    """Finish pending analyses (for a bounded time; not at all unless wait), then resolve the
    document; None for what the server does not know. While the first index runs, an open document
    is answered from the model of the files nearest the open ones (SkillLanguageServer.near_model),
    once it is built (NEAR_WAIT at most: until then, as before the index, with nothing)."""
    path = path_of(uri)
    if path is None:
        return None
    if not ls.indexed.is_set():
        try:
            # (the build goes on when the wait ends: the next request is answered from it)
            building = asyncio.ensure_future(ls.near_model(path))
            left = NEAR_WAIT - (time.monotonic() - arrived_at())
            near = await asyncio.wait_for(asyncio.shield(building), max(left, WAIT_SLICE))
        except asyncio.TimeoutError:
            log.debug("a request is answered before the near model of %s is built", path)
            building.add_done_callback(_logged)
            near = None
        except Exception:  # a bug in the near model must not fail the request: answered as after the index
            log.exception("the near model of %s failed", path)
            near = None
        if near is not None and not ls.indexed.is_set():
            near_lines = Lines(near[1])
            at = near_lines.from_client(ls.codec, position) if position is not None else Position(0, 0)
            request = Request(path, near[0], near_lines, at, near[1])
            request.near = True
            return request
    if wait:
        await ls.flush()
    model = ls.model()
    session = ls.session
    if model is None or session is None:
        return None
    text = session.text(path)
    if text is None:
        # a document opened while an analysis runs, not yet handed over to one (nor on disk): its
        # text as the editor has it, with the model as it stands
        text = ls.open_texts().get(path)
    lines = ls.lines_for(path, text) if text is not None else None
    if lines is None or text is None:
        return None
    where = lines.from_client(ls.codec, position) if position is not None else Position(0, 0)
    return Request(path, model, lines, where, text)


# -- hover -------------------------------------------------------------------------------------


def _markdown(text: str) -> types.MarkupContent:
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: SkillLanguageServer, params: types.HoverParams) -> types.Hover | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    if request is None:
        return None
    path, model, lines, position = request.path, request.model, request.lines, request.position
    skill = model.skills.get(path)
    if skill is not None:
        found = features.frontmatter_key_at(skill.file, position)
        text = features.skill_file_hover(model, skill, position)
        if text is None:
            return None
        if found is None:  # the load verdict, anywhere in the frontmatter
            return types.Hover(contents=_markdown(text), range=lines.range(ls.codec, skill.file.line_span(position.line)))
        entry = skill.file.lenient_fields[found[0]]
        span = entry.value_span if found[1] else entry.key_span
        return types.Hover(contents=_markdown(text), range=lines.range(ls.codec, span))
    target = features.code_target(model, path, position)
    if target is None:
        return None
    text = features.code_hover(model, target)
    if text is None:
        return None
    if target.item is not None:
        span = target.item.span
    elif target.kind in ("skills-keyword", "field"):
        span = target.call.keywords[target.key or "skills"].name_span
    else:
        span = target.call.callee_span
    return types.Hover(contents=_markdown(text), range=lines.range(ls.codec, span))


# -- completion -------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionOptions(trigger_characters=['"', "'", ":", "-"], resolve_provider=True))
async def completion(ls: SkillLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    session = ls.session
    if request is None or session is None:
        return None
    path, model, lines, position, text = request.path, request.model, request.lines, request.position, request.text
    typed = ls.open_texts().get(path)
    if typed is not None and typed is not text and typed != text:
        # The cursor is in the text the editor has now. The analysis of the last edits may still be
        # under way (a request waits for it only so long), and its text then lacks what was just
        # typed: the names are offered from the model as it stands, in the editor's text.
        lines = ls.lines_for(path, typed) or Lines(typed)
        position = lines.from_client(ls.codec, params.position)
        text = typed
    if is_skill_filename(path.name):
        return _frontmatter_completion(ls, model, path, text, lines, position)
    if not _is_agent_file(ls, path):
        return None
    # what its imports say (the analysis's parse when it analysed this text), never queued behind an analysis
    source = await ls.run_aside(session.imports_of, path, text)
    registries: list[Registry]
    if path.suffix == ".py":
        context = features.skill_string_context(text, position, source)
        if context is None:
            return None
        registries, claude = features.completion_registries(model, path, context, text)
    else:  # a TypeScript/JavaScript file or a subagent file
        found = features.agent_list_context(model, path, text, position, source)
        if found is None:
            keys = features.subagent_key_completion(text, position) if path.suffix == ".md" else None
            if keys is None:
                return None
            key_span, offered = keys
            return types.CompletionList(is_incomplete=False, items=[types.CompletionItem(
                label=key, kind=types.CompletionItemKind.Property, documentation=_markdown(doc),
                text_edit=types.TextEdit(range=lines.range(ls.codec, key_span), new_text=f"{key}: "),
            ) for key, doc in offered])
        (context, registries), claude = found, True
    candidates, incomplete = _completion_candidates(registries, context.prefix, set(context.listed))
    replace = lines.range(ls.codec, Span(context.start, context.end))
    # Fifty items are mostly serialisation: each carries only what differs from the defaults (the
    # label is the filter and sort text, and the edit's range is the list's default when the client
    # takes one). The documentation (the skill's hover) comes with completionItem/resolve; a client
    # that does not say it resolves documentation gets the description inline.
    capabilities = ls.capability("text_document", "completion")
    resolves = "documentation" in (_get(capabilities, "completion_item", "resolve_support", "properties") or ())
    shared_range = "editRange" in (_get(capabilities, "completion_list", "item_defaults") or ())
    items: list[types.CompletionItem] = []
    for name, skill in candidates:
        description = skill.description or ""
        items.append(types.CompletionItem(
            label=name,
            kind=types.CompletionItemKind.Module,
            detail=f"{skill.profile.value} skill — {features.relative(skill.directory, model)}",
            documentation=None if resolves or not description else _markdown(description),
            text_edit=None if shared_range else types.TextEdit(range=replace, new_text=name),
            label_details=types.CompletionItemLabelDetails(description=description[:80] if description else None),
            data={"skill": str(skill.path), "claude": claude},
        ))
    defaults = types.CompletionItemDefaults(edit_range=replace) if shared_range else None
    return types.CompletionList(is_incomplete=incomplete, items=items, item_defaults=defaults)


def _get(value: Any, *names: str) -> Any:
    for name in names:
        value = getattr(value, name, None)
    return value


def _completion_candidates(registries: list[Registry], prefix: str, listed: set[str]) -> tuple[list[tuple[str, SkillEntry]], bool]:
    """The names to offer, in order (registry by registry, sorted), each with the skill it names, and
    whether the list is incomplete: a registry of thousands offers the names that start with what is
    typed (then those containing it), at most COMPLETION_LIMIT of them, and the client asks again as
    the user types."""

    def offered() -> Iterator[tuple[str, SkillEntry]]:
        seen: set[str] = set()
        for registry in registries:
            for name in registry.skills.sorted_keys():
                if name not in seen and (name not in listed or name == prefix):
                    seen.add(name)
                    yield name, registry.skills[name][0]

    hidden = {name for name in listed if name != prefix}
    if len(registries) == 1:
        total = len(registries[0].skills) - sum(1 for name in hidden if name in registries[0].skills)
    else:
        total = len(set().union(*(registry.skills.keys() for registry in registries)) - hidden)
    if total <= COMPLETION_LIMIT:
        return list(offered()), False
    typed = prefix.lower()
    starting: list[tuple[str, SkillEntry]] = []
    containing: list[tuple[str, SkillEntry]] = []
    for name, skill in offered():
        lowered = name.lower()
        if lowered.startswith(typed):
            starting.append((name, skill))
            if len(starting) == COMPLETION_LIMIT:
                break  # the names that start with it come first
        elif typed in lowered and len(containing) < COMPLETION_LIMIT:
            containing.append((name, skill))
    return (starting + containing)[:COMPLETION_LIMIT], True


@server.feature(types.COMPLETION_ITEM_RESOLVE)
async def completion_resolve(ls: SkillLanguageServer, item: types.CompletionItem) -> types.CompletionItem:
    """The documentation of a skill name offered by completion: its hover."""
    model = ls.model()
    data = item.data
    if model is None or not isinstance(data, dict) or not isinstance(data.get("skill"), str):
        return item
    skill = model.skills.get(Path(data["skill"]))
    if skill is not None:
        item.documentation = _markdown(features.skill_hover(model, skill, data.get("claude") is True))
    return item


def _frontmatter_completion(
    ls: SkillLanguageServer, model: Model, path: Path, text: str, lines: Lines, position: Position
) -> types.CompletionList | None:
    skill = model.skills.get(path)
    file = skill.file if skill is not None else features.parse_skill_text(text)
    if skill is not None and file.text != text:
        file = features.parse_skill_text(text)
    runtimes = skill.runtimes if skill is not None else discovering(None, None, Profile.SPEC)
    entries = features.frontmatter_completion(file, runtimes, path.parent.name, position)
    if not entries:
        return None
    line = file.lines[position.line]
    items = []
    for label, insert, kind, doc in entries:
        if kind == "key":
            start = len(line) - len(line.lstrip())
            end = len(line.split(":", 1)[0]) if ":" in line else position.column
            end = max(end, position.column)
            span = Span.of(position.line, start, position.line, end)
        else:
            colon = line.index(":") + 1
            start = colon + (len(line[colon:]) - len(line[colon:].lstrip()))
            start = min(start, position.column)
            span = Span.of(position.line, start, position.line, max(position.column, len(line.rstrip())))
        items.append(types.CompletionItem(
            label=label,
            kind=types.CompletionItemKind.Property if kind == "key" else types.CompletionItemKind.Value,
            documentation=_markdown(doc),
            text_edit=types.TextEdit(range=lines.range(ls.codec, span), new_text=insert),
            filter_text=label,
        ))
    return types.CompletionList(is_incomplete=False, items=items)


# -- navigation ---------------------------------------------------------------------------------


def _skill_location(ls: SkillLanguageServer, skill: SkillEntry) -> types.Location:
    # from the facts: workspace symbols place a thousand skills, without reading their parses, nor
    # their texts when the span's lines are ASCII (the stat of a thousand files, each handing the
    # interpreter to the analysis running and waiting to take it back, held an answer for 0.5 s)
    span = skill.facts.name_span or skill.facts.first_line
    if skill.facts.plain:
        return types.Location(uri=uri_of(skill.path), range=types.Range(
            start=types.Position(line=span.start.line, character=span.start.column),
            end=types.Position(line=span.end.line, character=span.end.column)))
    lines = ls.lines_for(skill.path)
    rng = lines.range(ls.codec, span) if lines is not None else types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    return types.Location(uri=uri_of(skill.path), range=rng)


def _skill_under_cursor(model: Model, path: Path, position: Position) -> tuple[SkillEntry | None, str | None]:
    """The skill meant at a position: in its own SKILL.md, or a listed name in code."""
    skill = model.skills.get(path)
    if skill is not None:
        return skill, skill.key
    target = features.code_target(model, path, position)
    if target is None or target.kind != "skill" or target.item is None or target.item.text is None:
        return None, None
    return features.resolve_listing(target.owner, target.item.text), target.item.text


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: SkillLanguageServer, params: types.DefinitionParams) -> list[types.Location] | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    if request is None:
        return None
    path, model, position = request.path, request.model, request.position
    if path in model.skills:
        link = _reference_at(ls, model.skills[path], position)
        if link is not None:
            return [types.Location(uri=uri_of(link), range=types.Range(start=types.Position(line=0, character=0),
                                                                       end=types.Position(line=0, character=0)))]
        return None
    skill, _ = _skill_under_cursor(model, path, position)
    return [_skill_location(ls, skill)] if skill is not None else None


def _reference_at(ls: SkillLanguageServer, skill: SkillEntry, position: Position) -> Path | None:
    for reference in skill.file.references:
        if reference.span.start <= position <= reference.span.end:
            target = (skill.directory / reference.target.split("#", 1)[0]).resolve()
            if target.exists():
                return Path(os.path.abspath(target))
    return None


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
async def references(ls: SkillLanguageServer, params: types.ReferenceParams) -> list[types.Location] | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    if request is None:
        return None
    path, model, position = request.path, request.model, request.position
    skill, name = _skill_under_cursor(model, path, position)
    if name is None:
        return None
    locations: list[types.Location] = []
    if skill is not None:
        listings = model.agents_using(skill)
        if params.context.include_declaration and not skill.external:
            locations.append(_skill_location(ls, skill))
    else:
        listings = model.listings.get(name, [])
    for listing_path, span, _ in listings:
        lines = ls.lines_for(listing_path)
        if lines is not None:
            locations.append(types.Location(uri=uri_of(listing_path), range=lines.range(ls.codec, span)))
    return locations


def _skill_symbols(ls: SkillLanguageServer, path: Path, file: SkillFile, lines: Lines) -> Serialized:
    """A SKILL.md's outline: its frontmatter keys, then its headings as a tree, encoded as the JSON the
    answer carries. The same outline as last time when nothing it shows moved: an editor asks again
    after every edit, and 5,000 headings cost a tenth of a second to build and as much again to
    encode each time (a 7 MB buffer edited at its end)."""
    codec = ls.codec
    headings = file.headings  # (5,000 at most: skillfile.MAX_BODY_ITEMS)
    key = (encoding_name(codec), tuple(lines.lines[: max(file.body_start, 0)]), tuple(
        (heading.level, heading.text, heading.span.start, heading.span.end,
         lines.lines[heading.span.start.line] if heading.span.start.line < len(lines.lines) else "")
        for heading in headings))
    known = ls.symbols_cache.get(path)
    if known is not None and known[0] == key:
        return known[1]
    # the answer's JSON, made directly (what the protocol's converter makes of DocumentSymbols)
    outline: list[dict[str, Any]] = []
    for name, entry in file.lenient_fields.items():
        full = Span(entry.key_span.start, max(entry.key_span.end, entry.value_span.end))
        detail = (entry.value if isinstance(entry.value, str) else "")[:80]
        symbol: dict[str, Any] = {"name": name, "kind": types.SymbolKind.Property.value,
                                  "range": lines.range_json(codec, full),
                                  "selectionRange": lines.range_json(codec, entry.key_span)}
        if detail:
            symbol["detail"] = detail
        outline.append(symbol)
    stack: list[tuple[int, list[dict[str, Any]]]] = []  # open headings: level, children
    for heading in headings:
        where = lines.range_json(codec, heading.span)
        children: list[dict[str, Any]] = []
        symbol = {"name": heading.text or "#", "kind": types.SymbolKind.String.value, "range": where,
                  "selectionRange": where, "children": children}
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        (stack[-1][1] if stack else outline).append(symbol)
        stack.append((heading.level, children))
    shown = None
    if len(headings) >= MAX_BODY_ITEMS and "\r" not in file.text:
        # what the outline shows lies in the text up to its last heading's line break (LF alone
        # ends the lines of a text without CR)
        last = headings[-1].span.start.line
        shown = file.text[: sum(map(len, lines.lines[: last + 1])) + last + 1]
    encoded = Serialized(outline)
    _keep_recent(ls.symbols_cache, path, (key, encoded, shown))
    return encoded


def _capped_outline(ls: SkillLanguageServer, path: Path, text: str) -> Serialized | None:
    """The outline kept for path when it shows the first MAX_BODY_ITEMS headings and text starts
    with all it shows: the same outline, without parsing the text. Typing at the end of a 7 MB
    buffer asks for it again and again; its parse and headings cost 0.15 s of the loop's time each
    (a SKILL.md's headings are found in order, so what follows the last one shown changes none)."""
    known = ls.symbols_cache.get(path)
    if known is None or known[2] is None or known[0][0] != encoding_name(ls.codec) or not text.startswith(known[2]):
        return None
    return known[1]


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbols(ls: SkillLanguageServer, params: types.DocumentSymbolParams) -> list[Any] | Serialized | None:
    path = path_of(params.text_document.uri)
    open_text = ls.open_texts().get(path) if path is not None else None
    known = ls.model()
    session = ls.session
    oversized = False
    if (path is not None and open_text is not None and known is not None and path in known.skills
            and session is not None and ls.indexed.is_set()):
        # an open SKILL.md the model knows: its outline is made from its text as the editor has it
        # now, never waiting for the analysis of the edits before it (a 7 MB buffer typed into keeps
        # it busy)
        try:
            check_size(open_text, path.name)
            kept = _capped_outline(ls, path, open_text)
            if kept is not None:
                return kept
            file = await ls.run_aside(session.skill_parse, path, open_text)
            return _skill_symbols(ls, path, file, Lines(open_text, file.lines))
        except FileTooLarge:  # over the bound of a buffer: the outline of what the model has, at once
            oversized = True
    request = await request_context(ls, params.text_document.uri, wait=not oversized)
    if request is None:
        return None
    path, model, lines = request.path, request.model, request.lines
    codec = ls.codec
    skill = model.skills.get(path)
    if skill is not None:
        return _skill_symbols(ls, path, skill.file, lines)
    python = model.pythons.get(path)
    if python is None:
        return []
    # the answer's JSON, made directly, as a SKILL.md's outline is (_skill_symbols): 5,000 listed names
    # made into DocumentSymbols and converted took 0.15 s at each request
    result: list[dict[str, Any]] = []
    owners: list[AgentEntry | OptionsEntry | DefinitionEntry] = [*model.agents, *model.options, *model.definitions_in(path)]
    room = OUTLINE_NAMES  # the listed names the outline shows, all owners together
    for owner in owners:
        if owner.path != path:
            continue
        listed = owner.skill_values() if isinstance(owner, (AgentEntry, DefinitionEntry)) else _options_items(owner)
        names = [item for item in listed if item.kind == "str" and owner.call.span.start <= item.span.start <= owner.call.span.end]
        children = [{"name": item.text or "?", "kind": types.SymbolKind.Constant.value, "range": where, "selectionRange": where}
                    for item in names[: max(room, 0)] for where in (lines.range_json(codec, item.span),)]
        room -= len(children)
        if isinstance(owner, DefinitionEntry):
            name, detail = owner.display_name, "subagent" if owner.is_file else "AgentDefinition"
        elif isinstance(owner, AgentEntry):
            name, detail = owner.display_name, "Agent"
        else:
            name, detail = owner.call.assigned_to or "ClaudeAgentOptions", "ClaudeAgentOptions"
        if len(children) < len(names):
            detail += f" (the first {len(children):,} of {len(names):,} skills)"
        span, callee = owner.call.span, owner.call.callee_span
        # a TypeScript options object can be a const away from its query() call: select within the object then
        selection = callee if span.start <= callee.start and callee.end <= span.end else span
        kind = types.SymbolKind.Class if not isinstance(owner, OptionsEntry) else types.SymbolKind.Object
        result.append({"name": name, "detail": detail, "kind": kind.value, "range": lines.range_json(codec, span),
                       "selectionRange": lines.range_json(codec, selection), "children": children})
    for deck in model.decks:
        if deck.path == path:
            result.append({"name": deck.call.assigned_to or "Deck", "detail": "Deck", "kind": types.SymbolKind.Module.value,
                           "range": lines.range_json(codec, deck.call.span),
                           "selectionRange": lines.range_json(codec, deck.call.callee_span)})
    result.sort(key=lambda symbol: (symbol["range"]["start"]["line"], symbol["range"]["start"]["character"]))
    return Serialized(result)


def _options_items(entry: OptionsEntry) -> list[Any]:
    value = entry.call.keyword("skills")
    return value.items if value is not None and value.kind == "list" else []


@server.feature(types.WORKSPACE_SYMBOL)
async def workspace_symbols(ls: SkillLanguageServer, params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    await ls.flush()
    model = ls.model()
    if model is None:
        return []
    found = []
    for skill in model.skills.values():
        if skill.external or not features.symbol_matches(params.query, skill.key):
            continue
        found.append(types.SymbolInformation(
            name=skill.key, kind=types.SymbolKind.Module, location=_skill_location(ls, skill),
            container_name=features.relative(skill.directory.parent, model),
        ))
        if len(found) >= 1000:
            break
    return found


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
async def document_links(ls: SkillLanguageServer, params: types.DocumentLinkParams) -> list[types.DocumentLink] | None:
    request = await request_context(ls, params.text_document.uri)
    skill = request.model.skills.get(request.path) if request is not None else None
    if request is None or skill is None:
        return None
    lines = request.lines
    links = []
    tooltips = bool(ls.capability("text_document", "document_link", "tooltip_support"))
    directory = str(skill.directory)
    for reference in skill.file.references:
        # (strings, not Paths: a body of 5,000 links took 0.1 s of the loop making Paths)
        target = os.path.normpath(os.path.join(directory, reference.target.split("#", 1)[0]))
        if os.path.exists(target):
            links.append(types.DocumentLink(range=lines.range(ls.codec, reference.span), target=uri_of(Path(target)),
                                            tooltip=f"Open {reference.target}" if tooltips else None))
    return links


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def code_lens(ls: SkillLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    request = await request_context(ls, params.text_document.uri)
    skill = request.model.skills.get(request.path) if request is not None else None
    if request is None or skill is None:
        return None
    path, model, lines = request.path, request.model, request.lines
    users = model.agents_using(skill)
    locations = []
    for listing_path, span, _ in users:
        other = ls.lines_for(listing_path)
        if other is not None:
            locations.append(types.Location(uri=uri_of(listing_path), range=other.range(ls.codec, span)))
    title = f"used by {len(users)} agent{'s' if len(users) != 1 else ''}"
    rng = lines.range(ls.codec, skill.file.line_span(0))
    return [types.CodeLens(range=rng, command=types.Command(
        title=title, command="skillLsp.showReferences",
        arguments=[uri_of(path), {"line": rng.start.line, "character": rng.start.character},
                   [ls.protocol._converter.unstructure(location) for location in locations]],
    )), types.CodeLens(range=rng, command=types.Command(
        # the load verdict of each runtime that discovers the skill; informational (no command to run)
        title=features.verdict_summary(skill), command="",
    ))]


# -- rename --------------------------------------------------------------------------------------


def _rename_target(model: Model, path: Path, position: Position) -> tuple[SkillEntry, Span] | None:
    skill = model.skills.get(path)
    if skill is not None:
        entry = skill.file.fields.get("name")
        if entry is None or not isinstance(entry.value, str):
            return None
        if not (entry.key_span.start <= position <= entry.value_span.end):
            return None
        return skill, _unquoted(skill.file.lines, entry.value_span)
    target = features.code_target(model, path, position)
    if target is None or target.kind != "skill" or target.item is None or target.item.text is None:
        return None
    resolved = features.resolve_listing(target.owner, target.item.text)
    if resolved is None or resolved.external:
        return None
    return resolved, target.item.content_span or target.item.span


def _index_needed(request: Request | None) -> None:
    """A rename edits every file that lists the skill: the model of the files nearest the open ones
    would miss some. Said at once, rather than answered when the index ends."""
    if request is not None and request.near:
        raise JsonRpcRequestFailed("skill-lsp is still indexing the workspace: rename once it is done")


def _unquoted(lines: list[str], span: Span) -> Span:
    if span.start.line == span.end.line:
        text = lines[span.start.line][span.start.column : span.end.column]
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            return Span.of(span.start.line, span.start.column + 1, span.end.line, span.end.column - 1)
    return span


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
async def prepare_rename(ls: SkillLanguageServer, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    _index_needed(request)
    found = _rename_target(request.model, request.path, request.position) if request is not None else None
    if request is None or found is None:
        return None
    skill, span = found
    return types.PrepareRenamePlaceholder(range=request.lines.range(ls.codec, span), placeholder=skill.dir_name)


@server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
async def rename(ls: SkillLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    request = await request_context(ls, params.text_document.uri, params.position)
    _index_needed(request)
    if request is None:
        return None
    model = request.model
    found = _rename_target(model, request.path, request.position)
    if found is None:
        raise JsonRpcInvalidParams("Only a skill's name can be renamed: put the cursor on `name:` in a SKILL.md "
                                   "or on a name in skills=[...]")
    skill, _ = found
    prefix = skill.root.prefix if skill.root is not None else ""
    new_dir = params.new_name.strip()
    if prefix and new_dir.startswith(prefix):
        new_dir = new_dir[len(prefix):]
    problem = name_problem(new_dir)
    if problem is not None:
        raise JsonRpcInvalidParams(f"'{params.new_name}' is not a valid skill name: {problem}")
    target_dir = skill.directory.with_name(new_dir)
    if ls.session is None or not inside_workspace(target_dir, ls.session.folders):
        raise JsonRpcInvalidParams(f"{skill.directory} is not inside the workspace; skill-lsp only renames there")
    if new_dir != skill.dir_name and target_dir.exists():
        raise JsonRpcInvalidParams(f"'{new_dir}' already exists in {skill.directory.parent.name}/")
    old_key = skill.key
    new_key = prefix + new_dir
    edits: dict[Path, list[types.TextEdit]] = {}
    lines = ls.lines_for(skill.path)
    entry = skill.file.fields.get("name")
    if lines is not None and entry is not None and isinstance(entry.value, str) and (
        skill.profile != Profile.CLAUDE or entry.value == skill.dir_name
    ):
        span = _unquoted(skill.file.lines, entry.value_span)
        edits.setdefault(skill.path, []).append(types.TextEdit(range=lines.range(ls.codec, span), new_text=new_dir))
    renamed_in: set[int] = set()  # an owner listing the skill twice (or by two names) is edited once
    for listing_path, _, owner in model.agents_using(skill):
        other = ls.lines_for(listing_path)
        if other is None or id(owner) in renamed_in:
            continue
        renamed_in.add(id(owner))
        items = owner.skill_values() if isinstance(owner, (AgentEntry, DefinitionEntry)) else _options_items(owner)
        for item in items:
            if item.kind != "str" or item.text is None:
                continue
            if item.text == old_key:
                new_text = new_key
            elif isinstance(owner, DefinitionEntry) and owner.lookup(item.text) is skill:
                new_text = new_dir  # a subagent naming it by its display name or bare plugin name
            else:
                continue
            edits.setdefault(listing_path, []).append(
                types.TextEdit(range=other.range(ls.codec, item.content_span or item.span), new_text=new_text))
    can_rename = _resource_operations(ls, "rename") and bool(ls.capability("workspace", "workspace_edit", "document_changes"))
    if not can_rename or new_dir == skill.dir_name:
        if new_dir != skill.dir_name:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"skill-lsp: this editor cannot rename directories; rename {skill.directory} to {new_dir} by hand.",
            ))
        if ls.capability("workspace", "workspace_edit", "document_changes"):
            return types.WorkspaceEdit(document_changes=[
                types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=ls.uri_for(p), version=ls.document_version(p)), edits=list(e)) for p, e in edits.items()
            ])
        return types.WorkspaceEdit(changes={ls.uri_for(p): e for p, e in edits.items()})
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = [
        types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(
            uri=ls.uri_for(p), version=ls.document_version(p)), edits=list(e)) for p, e in edits.items()
    ]
    changes.append(types.RenameFile(old_uri=uri_of(skill.directory), new_uri=uri_of(target_dir),
                                    options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False)))
    return types.WorkspaceEdit(document_changes=changes)


def _stays_in_workspace(fix: Fix, session: Session) -> bool:
    """Every path the fix touches is in the workspace, or (a text edit) is a user subagent open in the editor:
    the file the user is editing, outside every folder (~/.claude/agents), which the editor changes in its buffer."""
    folders, workspace = session.folders, session.workspace
    if not all(inside_workspace(edit.path, folders) or (edit.path in workspace.overlays and workspace.is_user_agent(edit.path))
               for edit in fix.edits):
        return False
    paths = [create.path for create in fix.creates] + [path for rename in fix.renames for path in (rename.old, rename.new)]
    return all(inside_workspace(path, folders) for path in paths)


def _resource_operations(ls: SkillLanguageServer, kind: str) -> bool:
    operations = ls.capability("workspace", "workspace_edit", "resource_operations") or []
    return any(str(getattr(op, "value", op)) == kind for op in operations)


# -- code actions ---------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
async def code_action(ls: SkillLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    await ls.flush()
    path = path_of(params.text_document.uri)
    session = ls.session
    if path is None or session is None:
        return None
    findings = session.findings.get(path, [])
    lines = ls.lines_for(path)
    if not findings or lines is None:
        return None
    # the findings by code and start in code points: a diagnostic's start is converted, not every
    # finding's range (20,000 of them on one line took 0.1 s at each request)
    starting: dict[tuple[str, int, int], list[Finding]] = {}
    for finding in findings:
        starting.setdefault((finding.code, finding.span.start.line, finding.span.start.column), []).append(finding)

    def finding_of(diag: types.Diagnostic) -> Finding | None:
        start = lines.from_client(ls.codec, diag.range.start)
        found = None
        for finding in starting.get((str(diag.code), start.line, start.column), []):
            rng = lines.range(ls.codec, finding.span)
            if rng.start == diag.range.start and rng.end == diag.range.end:
                found = finding  # (the last of the same range, as a published diagnostic shows)
        return found
    resource_ops = _resource_operations(ls, "create") and _resource_operations(ls, "rename")
    document_changes = bool(ls.capability("workspace", "workspace_edit", "document_changes"))
    only = params.context.only
    if only and not any(str(kind).startswith(types.CodeActionKind.QuickFix) for kind in only):
        return None
    show_document = bool(ls.capability("window", "show_document", "support"))
    actions: list[types.CodeAction] = []
    # two findings on one span can propose the same change under two titles (SK108 "Set name to 'x'"
    # and SK109 "Change to 'x'" on one name): offered once, under the first title, for both diagnostics
    offered: dict[str, types.CodeAction] = {}
    for diag in params.context.diagnostics:
        if diag.source != "skill-lsp":
            continue
        matched = finding_of(diag)
        if matched is None:
            continue
        for fix in matched.fixes:
            if not _stays_in_workspace(fix, session):
                continue  # whatever a rule proposed, no edit leaves the workspace (symlinks resolved)
            lines_of: dict[Path, Lines] = {}
            for edit in fix.edits:
                if edit.path not in lines_of:
                    other = ls.lines_for(edit.path)
                    if other is not None:
                        lines_of[edit.path] = other
            versions = {p: v for p in lines_of if (v := ls.document_version(p)) is not None}
            change = workspace_edit(fix, lines_of, ls.codec, versions, resource_ops, document_changes,
                                    {p: ls.uri_for(p) for p in lines_of})
            if change is None:
                continue
            same = offered.get(repr(change))
            if same is not None:
                if same.diagnostics is not None and diag not in same.diagnostics:
                    same.diagnostics = [*same.diagnostics, diag]
                same.is_preferred = same.is_preferred or fix.preferred or None
                continue
            action = types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                                      edit=change, is_preferred=fix.preferred or None,
                                      command=_reveal_command(ls, fix) if show_document else None)
            offered[repr(change)] = action
            actions.append(action)
    return actions


def _reveal_command(ls: SkillLanguageServer, fix: Fix) -> types.Command | None:
    """The command a client runs once it has applied the fix's edit: open the file at its focus."""
    if fix.focus is None:
        return None
    path, position = fix.focus
    created = next((create.content for create in fix.creates if create.path == path), None)
    lines = Lines(created) if created is not None else ls.lines_for(path)
    if lines is None:
        return None
    at = lines.to_client(ls.codec, position)
    return types.Command(title="Open", command="skillLsp.reveal",
                         arguments=[{"uri": uri_of(path), "line": at.line, "character": at.character}])


@server.command("skillLsp.reveal")
async def reveal_command(ls: SkillLanguageServer, *args: Any) -> bool:
    """Show a document with the cursor at a position (window/showDocument): after "Create skill",
    on the description the user has to write."""
    arguments = args[0] if len(args) == 1 and isinstance(args[0], list) else list(args)
    argument = arguments[0] if arguments and isinstance(arguments[0], dict) else {}
    uri = argument.get("uri")
    line, character = argument.get("line"), argument.get("character")
    if not isinstance(uri, str) or not isinstance(line, int) or not isinstance(character, int) or path_of(uri) is None:
        raise JsonRpcInvalidParams("skillLsp.reveal takes [{uri, line, character}]")
    session = ls.session
    target = path_of(uri)
    if session is None or target is None or not inside_workspace(target, session.folders):
        return False
    if not ls.capability("window", "show_document", "support"):
        return False
    at = types.Position(line=max(line, 0), character=max(character, 0))
    result = await ls.window_show_document_async(types.ShowDocumentParams(
        uri=uri, take_focus=True, selection=types.Range(start=at, end=at)))
    return bool(result.success)


# -- commands ------------------------------------------------------------------------------------


@server.command("skillLsp.disclosure")
async def disclosure_command(ls: SkillLanguageServer, *args: Any) -> dict[str, str] | None:
    arguments = args[0] if len(args) == 1 and isinstance(args[0], list) else list(args)
    if not arguments or not isinstance(arguments[0], dict):
        raise JsonRpcInvalidParams("skillLsp.disclosure takes [{uri, position}]")
    argument = arguments[0]
    uri = argument.get("uri")
    raw_position = argument.get("position") or {}
    if not isinstance(uri, str) or not isinstance(raw_position, dict):
        raise JsonRpcInvalidParams("skillLsp.disclosure takes [{uri, position}]")
    try:
        cursor = types.Position(line=int(raw_position.get("line", 0)), character=int(raw_position.get("character", 0)))
    except (TypeError, ValueError) as error:
        raise JsonRpcInvalidParams("skillLsp.disclosure: position must be {line, character}") from error
    request = await request_context(ls, uri, cursor)
    if request is None:
        return None
    path, model, position = request.path, request.model, request.position
    owners: list[AgentEntry | OptionsEntry] = [*model.agents, *model.options]
    chosen = None
    for owner in owners:
        if owner.path == path and owner.call.span.start <= position <= owner.call.span.end:
            chosen = owner
    if chosen is None:
        in_file = [owner for owner in owners if owner.path == path]
        if len(in_file) == 1:
            chosen = in_file[0]
    if chosen is None:
        return None
    result = agent_disclosure(model, chosen) if isinstance(chosen, AgentEntry) else options_disclosure(chosen)
    answer = {"title": result.title, "text": result.text}
    if not result.skills_known:
        answer["note"] = NOT_KNOWN  # rather than an empty block read as "no skills"
    return answer
