"""The standard library's process pool as skill-lsp uses it (`ProcessPoolExecutor`, fork context): workers that die with their parent, and a batch's work dealt from the front to the workers and from the back to this process.

A Pool's workers are forked at its first submit, so they hold what this process held then (check's
analyses hand them their early jobs that way: a piece of work is then two numbers; a walk, its
folder and exclusions). The pool's
initializer, in each worker: the kernel kills it when its parent ends (PR_SET_PDEATHSIG, however
the parent ends; the signal follows the thread that forked it: the server forks from its analysis
thread, which lives as long as the process), it runs at the niceness it is given and leaves SIGINT
to its parent. The pool's multiprocessing context is the fork context recording each process it
makes, so that the pool's own workers can be counted, killed and joined through their public
`Process` objects. Forked from a threaded process (the server), a worker touches no lock another thread may
hold: its standard streams are dropped at the fork (the server's reader thread holds stdin's lock
while it waits: multiprocessing's start-up would close stdin, and wait for that lock forever), and
the caller imports before the first submit every module the work uses.

A Deal shares a batch's pieces: the workers are given a few at a time from the front (more from
the pool's own thread as each comes back), this process takes from the back whatever no worker was
given, so neither waits for the other at the end. A piece whose worker died (the pool is then
broken: its future says so) is done by this process, as is every piece not given yet. No future
is ever cancelled by this process: Python 3.11's pool stops telling the futures of a broken pool at
the first cancelled one it meets (its manager thread raises `InvalidStateError`), which would leave
the others waiting forever.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from . import forks

if TYPE_CHECKING:  # imported when a pool starts: 25 ms a check of a small workspace need not pay
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
R = TypeVar("R")

# Seconds without any result after which a Deal asks whether its pool's workers are still there.
QUIET = 0.25

# Whether a fork under way is a pool's (its child then drops its standard streams: see the docstring).
_forking = threading.local()
# The pools running now (stop_pools ends them from any thread).
_pools: set[Pool] = set()
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


class Pool:
    """A ProcessPoolExecutor with the fork context whose workers this process knows (see the module's
    docstring); forked at the first submit."""

    def __init__(self, workers: int, nice: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        forks.death_signal()  # looked up now: a worker must not import
        fork = multiprocessing.get_context("fork")
        made: list[BaseProcess] = []  # every worker process the executor made (started or not)
        self.workers = made

        class Recording(type(fork)):  # type: ignore[misc]
            """The fork context, each process it makes for the executor recorded."""

            def Process(self, *args: Any, **kwargs: Any) -> BaseProcess:
                process = fork.Process(*args, **kwargs)
                made.append(process)
                return process

        self.executor: ProcessPoolExecutor = ProcessPoolExecutor(
            workers, mp_context=Recording(), initializer=_start_worker, initargs=(os.getpid(), nice))
        with _pools_lock:
            _pools.add(self)

    def submit(self, function: Callable[..., R], *args: Any) -> Future[R] | None:
        """function(*args) in a worker; None once the pool is broken (a worker died) or shut down, or
        when a worker could not be forked."""
        from concurrent.futures.process import BrokenProcessPool

        _forking.pool = True
        try:
            return self.executor.submit(function, *args)
        except (BrokenProcessPool, RuntimeError, OSError):
            return None
        finally:
            _forking.pool = False

    def processes(self) -> list[BaseProcess]:
        """The pool's workers still running."""
        return [process for process in list(self.workers) if process.is_alive()]

    def kill(self) -> None:
        """Kill every worker (the pool then tells each future it had that it is broken)."""
        for process in self.processes():
            try:
                process.kill()
            except (OSError, ValueError, AttributeError):
                pass

    def close(self, kill: bool) -> None:
        """Shut the pool down, its workers killed first when `kill` (work still under way that no
        one wants); returns once they are gone."""
        if kill:
            self.kill()
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.kill()  # any the executor did not end (forked before another fork failed, say)
        for process in self.workers:
            try:
                process.join()
            except (AssertionError, ValueError):
                pass  # never started
        with _pools_lock:
            _pools.discard(self)


def stop_pools() -> None:
    """Kill every pool's workers (the process is about to end): from any thread, at any time."""
    with _pools_lock:
        pools = list(_pools)
    for pool in pools:
        pool.kill()


forks.stoppers.append(stop_pools)


def running() -> set[int]:
    """The pids of the pools' workers running now."""
    with _pools_lock:
        pools = list(_pools)
    return {process.pid for pool in pools for process in pool.processes() if process.pid is not None}


class Piece(Generic[T]):
    """One piece of a Deal's work: what it is (`work`), and the call that does it in a worker."""

    __slots__ = ("args", "done", "function", "work")

    def __init__(self, work: T, function: Callable[..., Any], *args: Any) -> None:
        self.work = work
        self.function = function
        self.args = args
        self.done = False


class Deal(Generic[T]):
    """A batch's pieces shared between a pool's workers and this process (see the module's docstring):
    at most `ahead` pieces given to the workers at a time."""

    def __init__(self, pool: Pool | None, ahead: int) -> None:
        self.pool = pool
        self.ahead = ahead
        self.lock = threading.Lock()
        self.waiting: deque[Piece[T]] = deque()  # not given to a worker: theirs from the front, ours from the back
        self.given: set[Piece[T]] = set()  # given to a worker, its result not taken yet
        self.busy = 0  # given, and not back yet
        self.stopped = pool is None  # give no more (the pool broke, or the batch is over)
        self.arrivals: queue.SimpleQueue[tuple[Piece[T], Future[Any]]] = queue.SimpleQueue()
        self.left = 0  # pieces added and not done
        self.lost = 0  # pieces whose worker died, done here

    def add(self, pieces: Iterable[Piece[T]]) -> None:
        """More pieces, after those added before."""
        pieces = list(pieces)
        with self.lock:
            self.waiting.extend(pieces)
            self.left += len(pieces)
        self._give()

    def _give(self) -> None:
        """Give the workers pieces from the front until `ahead` of them are out (from any thread)."""
        while True:
            with self.lock:
                if self.stopped or self.busy >= self.ahead or not self.waiting or self.pool is None:
                    return
                piece = self.waiting.popleft()
                self.busy += 1
                self.given.add(piece)
            future = self.pool.submit(piece.function, *piece.args)
            if future is None:  # broken: this process does it, and whatever is left
                with self.lock:
                    self.busy -= 1
                    self.given.discard(piece)
                    self.waiting.appendleft(piece)
                    self.stopped = True
                return
            future.add_done_callback(lambda done, piece=piece: self._back(piece, done))  # type: ignore[misc]

    def _back(self, piece: Piece[T], future: Future[Any]) -> None:
        """(On the pool's thread, or this one) a given piece's future is done: queued for run, and
        the next piece given unless the pool broke. Never raises: the pool would log it."""
        self.arrivals.put((piece, future))
        with self.lock:
            self.busy -= 1
        if future.cancelled() or future.exception() is not None:
            with self.lock:
                self.stopped = True
            return
        self._give()

    def _take(self) -> Piece[T] | None:
        with self.lock:
            return self.waiting.pop() if self.waiting else None

    def run(self, here: Callable[[Piece[T]], None], arrived: Callable[[Piece[T], Any], None],
            until: Callable[[], bool] | None = None, wait: float = QUIET) -> None:
        """Until every piece is done (or `until` says to stop, asked between pieces and every `wait`
        seconds): each worker's result handed to `arrived` as it comes; the pieces no worker was
        given, and those whose worker died, done by `here`, from the back."""
        quiet = 0.0  # seconds waited since the last result
        while self.left and not (until is not None and until()):
            try:
                piece, future = self.arrivals.get_nowait()
            except queue.Empty:
                mine = self._take()
                if mine is not None:
                    self._finish(mine, here)
                    continue
                try:
                    piece, future = self.arrivals.get(timeout=wait)
                except queue.Empty:
                    quiet += wait
                    if quiet >= QUIET:
                        quiet = 0.0
                        self._orphans(here)
                    continue
            quiet = 0.0
            with self.lock:
                self.given.discard(piece)
            if piece.done:
                continue
            if future.cancelled() or future.exception() is not None:  # its worker died: done here
                self.lost += 1
                self._finish(piece, here)
            else:
                arrived(piece, future.result())
                self._finish(piece, None)

    def _finish(self, piece: Piece[T], do: Callable[[Piece[T]], None] | None) -> None:
        if do is not None:
            do(piece)
        piece.done = True
        self.left -= 1

    def _orphans(self, here: Callable[[Piece[T]], None]) -> None:
        """Nothing came back for a while: if no worker of the pool is left, the pieces given to them
        are done here (should a future never be told; one told later is then skipped)."""
        if self.pool is None or self.pool.processes() or not self.pool.workers:
            return
        with self.lock:
            self.stopped = True
            orphans = [piece for piece in self.given if not piece.done]
            self.given.clear()
        for piece in orphans:
            self.lost += 1
            self._finish(piece, here)

    def close(self) -> bool:
        """No more pieces given; whether a worker may still be at work on one."""
        with self.lock:
            self.stopped = True
            self.waiting.clear()
            return self.busy > 0
