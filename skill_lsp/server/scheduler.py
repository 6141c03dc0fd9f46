"""Scheduling the analyses: one worker thread, the work waiting for it, and the bounded waits of requests.

The event loop only takes messages in and answers them. Everything an analysis needs waits in
Scheduler.work (touched on the loop only); one pump at a time hands all of it to the worker thread as
one Job, which the server's apply() applies to the session, analyses and publishes (converting positions
and serialising the diagnostics there, not on the loop). What arrives while a job runs waits for the
next one: a burst of edits or of file events costs one analysis of the state it ends in (coalescing), and
the last job always publishes the final text and tree. A change of folders or settings stops the job
running (supersession); a cancelled request still hands its work over; a request waits for the analysis
only so long, in CPU time (bounded waits). Nothing here knows the protocol: the server hands in what to
apply and when a request arrived.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .indexing import Superseded
from .session import Settings, collected_after

log = logging.getLogger("skill_lsp.server")
T = TypeVar("T")
V = TypeVar("V")

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

# the CPU seconds of the last analysis of so many recently edited documents are kept (Scheduler.analysis_cpu)
RECENT = 32


@dataclass
class Job:
    """What the next analysis applies to the session before it runs (see Scheduler.pump)."""

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


class Scheduler:
    """The analyses' worker thread and the work waiting for it: pump hands it over, flush waits for it.
    On the event loop, except process (the worker thread) and worker_cpu (any thread)."""

    def __init__(self, apply: Callable[[Job], None], arrived_at: Callable[[], float]) -> None:
        self.apply = apply  # on the worker thread: apply a job to the session, analyse and publish
        self.arrived_at = arrived_at  # when the message being handled was read from the client
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skill-lsp-analysis")
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
        self.indexed = asyncio.Event()  # the first index is done

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """function on the worker thread, between analyses."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, function, *args)

    def supersede(self, folders: list[Path], settings: Settings) -> None:
        """The workspace folders or settings changed: the analysis under way, whose model the next
        job builds again, stops (at its next look, Superseded) instead of running to its end first:
        a folder added while a cold index of 40,000 skills ran waited 30-38 s for its diagnostics.
        Only when they differ from those it analyses with: a client that sends the same settings
        again (Neovim's at start) would have the first index, and its head start, begin anew. folders
        and settings: the session's, as the job running found them unless it changes them."""
        running = self.running
        if running is None:
            return
        folders = running.folders if running.folders is not None else folders
        settings = running.settings if running.settings is not None else settings
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
                    keep_recent(self.analysis_cpu, path, cpu - started_cpu)
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
            wall = REQUEST_WALL_CEILING - (time.monotonic() - self.arrived_at())
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

    def files_changed(self, paths: list[Path]) -> None:
        """Files created, changed or deleted on disk: analysed with whatever else comes in the next
        few milliseconds (an editor reports a `git checkout` one file at a time)."""
        self.work.events.update(paths)
        self.last_event = time.monotonic()
        self.add_work(kick=False)
        self.kick_later(EVENT_SETTLE)

    def process(self, job: Job) -> None:
        """On the worker thread: apply job to the session, analyse, publish (what the server handed in)."""
        self.worker_thread = threading.get_ident()
        with collected_after():
            self.apply(job)



def keep_recent(cache: dict[Path, V], path: Path, value: V, size: int = RECENT) -> None:
    """value as path's, the most recent of the size entries cache keeps."""
    cache.pop(path, None)
    cache[path] = value
    while len(cache) > size:
        cache.pop(next(iter(cache)))
