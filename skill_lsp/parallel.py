"""Skill analyses shared with the standard library's process pool (`ProcessPoolExecutor`, fork context): check's and the server's large builds, started early on the skills whose place is known, then the rest.

A batch's jobs are cut into chunks, each a future of the pool. The pool's workers are forked at its
first submit with that batch's jobs in memory (a fork shares them as they are: a chunk is sent as two
numbers); jobs placed later are sent whole. The workers take chunks from the front; this process,
once its own work is done (reading the code files), takes from the back every chunk no worker has
started (a future it can still cancel), so neither waits for the other at the end, and a chunk whose
worker died (a broken pool) is analysed here too. Each chunk's analyses reach the caller as soon as
they are here (`take`), while the workers are still at work.

A worker asks the kernel to kill it when its parent ends (PR_SET_PDEATHSIG, the pool's initializer;
the signal follows the thread that forked it: the server forks from its analysis thread, which lives
as long as the process), runs at the niceness it is given, leaves SIGINT to its parent, and ends with
the pool (`Analyser.close`, or `stop_pools` when the server exits). Forked from a threaded process
(the server), a worker touches no lock another thread may hold: every module an analysis uses is
imported before the fork (`ready_for_children`), and its standard streams are dropped right after it
(the server's reader thread holds stdin's lock while it waits: multiprocessing's start-up would close
stdin, and wait for that lock forever).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import forks
from .analysis import Analysis, Job, Packed, analyse_skill, pack, unpack
from .forks import death_signal, live_pids
from .index import Root, SkillJob

if TYPE_CHECKING:  # imported when a pool starts: 25 ms a check of a small workspace need not pay
    from concurrent.futures import Future, ProcessPoolExecutor

# Below this many files a pool costs more than the second core saves.
PARALLEL_FROM = 1000
# Skills per chunk: small enough that no process waits long for the last one, large enough that a
# chunk's future costs nothing next to analysing it.
CHUNK = 64
MAX_CHUNKS = 1024
# Seconds without any chunk arriving after which this process asks whether the pool broke
BROKEN_AFTER = 0.25

# The jobs the workers of the pool being started inherit (set only while it forks them).
_inherited: list[Job] = []
# Whether a fork under way is a pool's (its child then drops its standard streams: see the docstring).
_forking = threading.local()
# The pools running now (stop_pools ends them from any thread).
_pools: set[ProcessPoolExecutor] = set()
_pools_lock = threading.Lock()


def _after_fork_in_child() -> None:
    if getattr(_forking, "pool", False):
        sys.stdin = sys.stdout = sys.stderr = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _start_worker(parent: int, nice: int) -> None:
    """The pool's initializer, in each worker: killed when its parent ends, however it ends; an
    interrupt is the parent's to handle."""
    forks.start_child(parent, nice, signal.SIG_IGN)


def _analyse_inherited(start: int, end: int) -> list[Packed]:
    """(In a worker) a chunk of the jobs it was forked with."""
    return [pack(analyse_skill(*job)) for job in _inherited[start:end]]


def _analyse_sent(jobs: list[Job]) -> list[Packed]:
    """(In a worker) a chunk of jobs placed after the fork, sent to it."""
    return [pack(analyse_skill(*job)) for job in jobs]


def ready_for_children() -> None:
    """Import now what a skill's analysis imports on its first use: a worker forked from a threaded
    process (the server) must import nothing, since another thread may hold a module's import lock
    at the fork."""
    from .runtimes import runtime

    runtime("agentdeck")
    death_signal()


def stop_pools() -> None:
    """Kill every pool's workers (the process is about to end): from any thread, at any time."""
    with _pools_lock:
        pools = list(_pools)
    for pool in pools:
        _kill(pool)


def _kill(pool: ProcessPoolExecutor) -> None:
    processes: dict[int, Any] = dict(getattr(pool, "_processes", None) or {})
    for process in processes.values():
        try:
            process.kill()
        except (OSError, ValueError, AttributeError):
            pass


forks.stoppers.append(stop_pools)


def running() -> set[int]:
    """The pids of the workers and walk helpers running now."""
    found = set(live_pids())
    with _pools_lock:
        for pool in _pools:
            processes: dict[int, Any] = dict(getattr(pool, "_processes", None) or {})
            found |= {pid for pid, process in processes.items() if process.is_alive()}
    return found


class _Chunk:
    __slots__ = ("done", "early", "future", "jobs")

    def __init__(self, jobs: list[Job], early: bool) -> None:
        self.jobs = jobs
        self.early = early
        self.future: Future[list[Packed]] | None = None
        self.done = False


def _broken(pool: ProcessPoolExecutor | None) -> bool:
    """Whether a worker of the pool died (the executor then sets its `_broken`, before it tells the futures)."""
    return pool is None or bool(getattr(pool, "_broken", False))


def _started(chunk: _Chunk) -> bool:
    """Whether a worker has done the chunk (or failed at it): it arrives on its own."""
    return chunk.future is not None and chunk.future.done()


def _chunks(jobs: list[Job], early: bool) -> list[_Chunk]:
    size = max(CHUNK, -(-len(jobs) // MAX_CHUNKS))
    return [_Chunk(jobs[start : start + size], early) for start in range(0, len(jobs), size)]


class Analyser:
    """The skill analyses of one build, shared with a process pool when there are many (check's and
    the server's): those started early, on the skills whose place is known once the tree is walked
    (start_early), and the final misses (analyse), which take the early analyses that hold for them
    and give the rest to the same pool."""

    def __init__(self, children: int, nice: int | None = None) -> None:
        self.children = children
        self.nice = forks.child_nice if nice is None else nice
        self.pool: ProcessPoolExecutor | None = None
        self.early: list[Job] | None = None  # the jobs started early
        self.chunks: list[_Chunk] = []
        self.arrived: deque[_Chunk] = deque()  # chunks whose future is done (filled from the pool's thread)
        self.forked = 0  # workers forked so far

    def start_early(self, jobs: list[Job], least: int | None = None) -> None:
        """The pool starts on jobs while this process goes on (reading the code files), when there
        are at least `least` of them (PARALLEL_FROM)."""
        least = PARALLEL_FROM if least is None else least
        if len(jobs) >= least and self.children:
            self.early = jobs
            self.chunks = _chunks(jobs, True)
            self._submit(self.chunks, jobs)

    def _submit(self, chunks: list[_Chunk], jobs: list[Job]) -> None:
        """Each chunk to the pool, started here (its workers forked with jobs in memory) if it is not yet."""
        if self.pool is None:
            global _inherited
            ready_for_children()
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            _inherited = jobs
            _forking.pool = True
            try:
                pool = ProcessPoolExecutor(self.children, mp_context=multiprocessing.get_context("fork"),
                                           initializer=_start_worker, initargs=(os.getpid(), self.nice))
                with _pools_lock:
                    _pools.add(pool)
                self.pool = pool
                start = 0
                for chunk in chunks:  # the first submit forks the workers
                    chunk.future = pool.submit(_analyse_inherited, start, start + len(chunk.jobs))
                    start += len(chunk.jobs)
                self.forked += self.children
            except (OSError, RuntimeError):
                return  # no process to be had: this process does it all
            finally:
                _forking.pool = False
                _inherited = []
        else:
            try:
                for chunk in chunks:
                    chunk.future = self.pool.submit(_analyse_sent, chunk.jobs)
            except (OSError, RuntimeError):
                pass  # (a broken pool) what was not submitted is done here
        for chunk in chunks:
            if chunk.future is not None:
                chunk.future.add_done_callback(self._arrival(chunk))

    def _arrival(self, chunk: _Chunk) -> Callable[[Future[list[Packed]]], None]:
        """What a chunk's future calls when it is done (on the pool's thread): the chunk is queued."""
        return lambda _: self.arrived.append(chunk)

    def close(self) -> None:
        """Stop the pool (the build ended, or failed): workers still at work are killed."""
        pool, self.pool = self.pool, None
        chunks, self.chunks = self.chunks, []
        self.early = None
        if pool is None:
            return
        # a chunk still under way when the build ends (it failed, or was superseded): its worker goes
        if any(chunk.future is not None and not chunk.future.cancel() and not chunk.future.done() for chunk in chunks):
            _kill(pool)
        pool.shutdown(wait=True, cancel_futures=True)
        with _pools_lock:
            _pools.discard(pool)

    def analyse(self, misses: list[Job], take: Callable[[SkillJob, Analysis], None]) -> dict[str, Analysis]:
        """The misses' analyses, by their path's text (a string keeps its hash; a Path computes it on
        first use): those started early for the same job, the rest now. take(job, analysis) is
        called with the final job for each as soon as it is here."""
        held, rest = _EarlyJobs(self.early or []).split(misses)
        chunks = _chunks(rest, False)
        if rest and (self.pool is not None or (len(rest) >= PARALLEL_FROM and self.children)):
            self._submit(chunks, rest)
        self.chunks = todo = [*self.chunks, *chunks]
        analysed: dict[str, Analysis] = {}

        def finish(chunk: _Chunk, results: list[Analysis]) -> None:
            chunk.done = True
            for item, result in zip(chunk.jobs, results, strict=True):
                job = item[0]
                text = str(job.path)
                if chunk.early:
                    final = held.get(text)
                    if final is None:
                        continue  # it does not hold for the final job
                    job = final
                analysed[text] = result
                take(job, result)

        def here(chunk: _Chunk) -> None:
            finish(chunk, [analyse_skill(*job) for job in chunk.jobs])

        left = len(todo)
        back = len(todo) - 1
        while left:
            while self.arrived:  # what the workers sent, handed over as it comes
                chunk = self.arrived.popleft()
                future = chunk.future
                if chunk.done or future is None or future.cancelled():
                    continue
                try:
                    packed = future.result()
                except Exception:  # its worker died: done here
                    here(chunk)
                else:
                    finish(chunk, [unpack(item) for item in packed])
                left -= 1
            if not left:
                break
            while back >= 0 and (todo[back].done or _started(todo[back])):
                back -= 1
            if back >= 0:
                chunk = todo[back]
                back -= 1
                if chunk.future is None or chunk.future.cancel():  # no worker started it: done here
                    here(chunk)
                    left -= 1
                continue
            unfinished = [chunk for chunk in todo if not chunk.done and chunk.future is not None]
            from concurrent.futures import FIRST_COMPLETED, wait  # (imported with the pool)

            futures = [chunk.future for chunk in unfinished if chunk.future is not None]
            if not wait(futures, timeout=BROKEN_AFTER, return_when=FIRST_COMPLETED)[0] and _broken(self.pool):
                # a broken pool whose futures were not all told (Python 3.11 stops telling them at the
                # first it cancelled): what no worker finished is done here
                for chunk in unfinished:
                    if not chunk.done and not _started(chunk):
                        here(chunk)
                        left -= 1
        return analysed


class _EarlyJobs:
    """The jobs analysed early, looked up by a final job: an early analysis holds for it when the
    file, its context and the wish for deps are the same. Roots and configurations are compared
    once per pair of objects (there are a handful; comparing Paths per skill cost 4 µs each)."""

    def __init__(self, jobs: list[Job]) -> None:
        self.jobs = {str(job[0].path): job for job in jobs}
        self.pairs: dict[tuple[int, int], bool] = {}
        # (early root, final root, early configuration, final configuration) -> all the same
        self.contexts: dict[tuple[int, int, int, int], bool] = {}

    def split(self, finals: list[Job]) -> tuple[dict[str, SkillJob], list[Job]]:
        """The final jobs whose early analysis holds (by their path's text), and the rest."""
        held: dict[str, SkillJob] = {}
        rest: list[Job] = []
        jobs = self.jobs
        for final in finals:
            job = final[0]
            text = str(job.path)
            early = jobs.get(text)
            if early is not None and self._holds(early, final):
                held[text] = job
            else:
                rest.append(final)
        return held, rest

    def _holds(self, early: Job, final: Job) -> bool:
        job, old = final[0], early[0]
        if (job.profile, job.misnamed, job.external, final[2]) != (old.profile, old.misnamed, old.external, early[2]):
            return False
        key = (id(old.root), id(job.root), id(early[1]), id(final[1]))
        same = self.contexts.get(key)
        if same is None:
            same = self.contexts[key] = self._same(old.root, job.root) and self._same(early[1], final[1])
        return same

    def _same(self, early: object, final: object) -> bool:
        if early is final:
            return True
        key = (id(early), id(final))
        same = self.pairs.get(key)
        if same is None:
            if isinstance(early, Root) and isinstance(final, Root):
                same = (early.path, early.prefix) == (final.path, final.prefix)
            else:
                same = early == final
            self.pairs[key] = same
        return same

