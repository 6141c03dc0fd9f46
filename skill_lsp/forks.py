"""Forked children of `check` (Linux): each sends its results back through a pipe of its own.

A fork shares the parent's modules and data as they are, so a child starts in a millisecond and
needs nothing sent to it. A child runs only skill-lsp's code, writes nothing but its pipe, and
ends with os._exit: never the parent's exit handlers, buffers or cleanup. What it sends is read
back with the cache's class-restricted Unpickler; a child that dies sends nothing, and the
parent does its part itself.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import sys
from typing import NoReturn

from .outcome import SafeUnpickler

Child = tuple[int, int]  # pid, the read end of its results pipe


def children_available() -> int:
    """How many child processes a batch may fork: one per core but one (this process is the last
    worker). On Linux a fork shares the loaded modules and the jobs, so a child starts in a
    millisecond; a spawned interpreter would not pay. Elsewhere, or on one core, none."""
    if sys.platform != "linux":
        return 0
    cores = len(os.sched_getaffinity(0))
    return max(0, min(cores - 1, 3))


def fork() -> tuple[int, int] | None:
    """Fork here: in the parent (the child's pid, the read end of its pipe), in the child (0, the
    write end); None when no process (or pipe) can be had."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        results, sink = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(results)
        os.close(sink)
        return None
    if pid == 0:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # an interrupt ends a child quietly
        os.close(results)
        return 0, sink
    os.close(sink)
    return pid, results


def send(sink: int, data: object) -> NoReturn:
    """A child's end: data pickled into its pipe, then the process exits."""
    status = 1
    try:
        with os.fdopen(sink, "wb") as out:
            pickle.dump(data, out, protocol=pickle.HIGHEST_PROTOCOL)
        status = 0
    finally:
        os._exit(status)


def fail() -> NoReturn:
    """A child's end when its work failed: nothing sent (the parent does the part itself)."""
    os._exit(1)


def receive(child: Child) -> object | None:
    """What the child sent, once it has exited; None when it died before sending all of it."""
    pid, pipe = child
    try:
        with os.fdopen(pipe, "rb") as handle:
            data = handle.read()
        os.waitpid(pid, 0)
        loaded: object = SafeUnpickler(io.BytesIO(data)).load()
        return loaded
    except Exception:  # killed half-way, or out of memory
        return None


def stop(children: list[Child]) -> None:
    """Kill and reap children whose results are no longer wanted (an error or an interrupt)."""
    for pid, pipe in children:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        os.close(pipe)
