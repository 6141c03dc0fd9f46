"""Time and memory bounds for hostile input, measured against a benign baseline in the same test.

Time is the process's CPU time (time.process_time): a busy machine stretches wall time far more
than the work done, so the bounds hold while other jobs run beside the tests. CPU time still grows
on a loaded machine (shared caches and cores: a benign baseline of 2.4 s took 3.7 s while two test
runs shared the 2 cores), so the ceiling grows with the baseline too.

SECURITY.md states these numbers; change them there too. A hostile input must cost
at most RATIO times what a benign input of the same size costs (with a floor, so a
baseline of a few milliseconds does not turn scheduler noise into a failure), and
never more than the absolute ceilings.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

RATIO = 20
TIME_FLOOR = 0.5  # seconds: a hostile input may always take this long
# CPU seconds, measured under tracemalloc (which slows the analysis 2-4 times): never longer, nor
# more than CEILING_RATIO times a baseline that takes over TIME_CEILING / CEILING_RATIO itself
TIME_CEILING = 10.0
CEILING_RATIO = 5
MEMORY_FLOOR = 32 * 1024 * 1024  # bytes of peak traced allocation that are always fine
MEMORY_CEILING = 256 * 1024 * 1024


@dataclass(frozen=True)
class Cost:
    seconds: float
    peak: int  # bytes, tracemalloc's peak while the function ran

    def __str__(self) -> str:
        return f"{self.seconds:.3f} s, {self.peak / 1e6:.1f} MB"


def measure(function: Callable[[], T]) -> tuple[Cost, T]:
    """One run of function under tracemalloc: its CPU time (tracing included) and peak memory."""
    gc.collect()
    tracemalloc.start()
    try:
        started = time.process_time()
        result = function()
        seconds = time.process_time() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return Cost(seconds, peak), result


def cost(function: Callable[[], Any]) -> Cost:
    return measure(function)[0]


def assert_bounded(hostile: Cost, baseline: Cost, what: str) -> None:
    ceiling = max(TIME_CEILING, CEILING_RATIO * baseline.seconds)
    time_limit = min(max(RATIO * baseline.seconds, TIME_FLOOR), ceiling)
    memory_limit = min(max(RATIO * baseline.peak, MEMORY_FLOOR), MEMORY_CEILING)
    assert hostile.seconds <= time_limit, f"{what}: {hostile} (baseline {baseline}); limit {time_limit:.2f} s"
    assert hostile.peak <= memory_limit, f"{what}: {hostile} (baseline {baseline}); limit {memory_limit / 1e6:.0f} MB"
