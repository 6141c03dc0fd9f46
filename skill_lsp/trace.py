"""Where the time goes: `skill-lsp check --profile`, or SKILL_LSP_TRACE=1 for any command.

Phases nest; each line on stderr is a phase, its wall time and its share of the run.
Off, `phase()` costs one attribute lookup.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

TRACE_ENV = "SKILL_LSP_TRACE"


class _Trace:
    def __init__(self) -> None:
        self.enabled = os.environ.get(TRACE_ENV, "") not in ("", "0")
        self.started = time.perf_counter()
        self.totals: dict[str, float] = {}
        self.order: list[str] = []
        self.depth: dict[str, int] = {}
        self._stack: list[str] = []

    def add(self, name: str, seconds: float) -> None:
        if name not in self.totals:
            self.order.append(name)
            self.totals[name] = 0.0
            self.depth[name] = len(self._stack)
        self.totals[name] += seconds


TRACE = _Trace()


def enable() -> None:
    TRACE.enabled = True


def reset() -> None:
    """Forget the phases recorded (and `enable()`), as at start-up."""
    global TRACE
    started = TRACE.started
    TRACE = _Trace()
    TRACE.started = started


@contextmanager
def phase(name: str) -> Iterator[None]:
    if not TRACE.enabled:
        yield
        return
    TRACE._stack.append(name)
    started = time.perf_counter()
    try:
        yield
    finally:
        TRACE._stack.pop()
        TRACE.add(name, time.perf_counter() - started)


def report(file: TextIO | None = None) -> None:
    """Print the phases to stderr (once, at the end of a run)."""
    if not TRACE.enabled:
        return
    out = file if file is not None else sys.stderr
    total = time.perf_counter() - TRACE.started
    print(f"skill-lsp profile: {total * 1000:8.1f} ms since start-up", file=out)
    for name in TRACE.order:
        seconds = TRACE.totals[name]
        indent = "  " * (TRACE.depth[name] + 1)
        print(f"{indent}{name:<{28 - len(indent)}} {seconds * 1000:8.1f} ms  {seconds / total:6.1%}", file=out)
