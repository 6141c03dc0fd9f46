"""Child processes on Linux: how many a large check or index may use, the death signal each asks for as it starts, and stopping them all when the process ends.

The children are the workers of the standard process pool (`pool.py`), forked from skill-lsp itself:
check's walk and analyses and the server's large builds. Children never outlive the process that
forked them: each asks the kernel for SIGKILL when its parent ends (PR_SET_PDEATHSIG, set by the
pool's initializer before the worker does anything else), and stop_children kills those still
running when the process ends on purpose (the server's exit).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

# Limits the children of a batch or a walk (a number; 0: none, every analysis in this process).
CHILDREN_ENV = "SKILL_LSP_CHILDREN"

# prctl(PR_SET_PDEATHSIG, SIGKILL), looked up before the first fork (ctypes is imported only then)
_PR_SET_PDEATHSIG = 1
_prctl: Any = None
# The niceness children add to their parent's (the server's: on a busy machine its analysis thread,
# which answers the editor's requests, comes before the children helping it)
child_nice = 0
# What stop_children stops (pool.py adds its pools' workers)
stoppers: list[Callable[[], None]] = []


def children_available() -> int:
    """How many child processes a batch may fork: one per core but one (this process is the last
    worker). On Linux a fork shares the loaded modules and the jobs, so a child starts in a
    millisecond; a spawned interpreter would not pay. Elsewhere, or on one core, none."""
    if sys.platform != "linux":
        return 0
    cores = len(os.sched_getaffinity(0))
    available = max(0, min(cores - 1, 3))
    limit = os.environ.get(CHILDREN_ENV, "").strip()
    if limit.isdigit():
        available = min(available, int(limit))
    return available


def stop_children() -> None:
    """Kill every child still running (the process is about to end): from any thread, at any time."""
    for stop in stoppers:
        stop()


def death_signal() -> Any:
    """libc's prctl for PR_SET_PDEATHSIG, looked up once in the parent (a child must not import: it
    may have been forked from a threaded process, where another thread held the import lock); False
    where there is none."""
    global _prctl
    if sys.platform != "linux":
        return False
    if _prctl is None:
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (ImportError, OSError, AttributeError):
            _prctl = False
    return _prctl


def start_child(parent: int, nice: int, interrupt: Any) -> None:
    """A new child's first steps (a pool's worker): killed when its parent ends, however it ends (the
    kernel sends the signal when the thread that forked it ends: the server forks from its analysis
    thread, which lives as long as the process), at `nice` more than its parent, SIGINT handled as
    `interrupt` says."""
    prctl = death_signal()
    if prctl:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)
    if nice:
        try:
            os.nice(nice)
        except OSError:
            pass
    signal.signal(signal.SIGINT, interrupt)
