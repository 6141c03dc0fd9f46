"""Collecting findings: configuration, profiles and inline suppressions applied in one place."""

from __future__ import annotations

import difflib
import functools
from collections import Counter
from operator import itemgetter
from pathlib import Path

from ..catalogue import BY_CODE
from ..config import Config
from ..model import Finding, Fix, Profile, Related, Span

# Over this many candidates, difflib only ranks the ones sharing the most trigrams
# with the name: a registry of thousands of skills costs milliseconds, not a second.
_PRESELECT_ABOVE = 200
_PRESELECT = 100


class _Candidates:
    """Known names, lowercased, with a trigram index built on first use."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.lowered = {name.lower(): name for name in names}
        self.pool = list(self.lowered)
        self._postings: dict[str, list[int]] | None = None

    def nearest(self, word: str) -> list[str]:
        if len(self.pool) <= _PRESELECT_ABOVE:
            return self.pool
        if self._postings is None:
            postings: dict[str, list[int]] = {}
            for index, name in enumerate(self.pool):
                for gram in _trigrams(name):
                    postings.setdefault(gram, []).append(index)
            self._postings = postings
        shared: Counter[int] = Counter()
        for gram in _trigrams(word):
            found = self._postings.get(gram)
            if found is not None:
                shared.update(found)
        ranked = sorted(shared.items(), key=itemgetter(1), reverse=True)[:_PRESELECT]
        return [self.pool[index] for index, _ in ranked]


def _trigrams(word: str) -> set[str]:
    padded = f"^{word}$"
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


@functools.lru_cache(maxsize=8)
def _candidates(names: tuple[str, ...]) -> _Candidates:
    return _Candidates(names)


def closest(name: str, candidates: list[str], count: int = 3) -> list[str]:
    """The known names nearest to name, best first."""
    if not candidates:
        return []
    known = _candidates(tuple(candidates))
    word = name.lower()
    matches = difflib.get_close_matches(word, known.nearest(word), n=count, cutoff=0.6)
    return [known.lowered[match] for match in matches]


def did_you_mean(names: list[str]) -> str:
    if not names:
        return ""
    if len(names) == 1:
        return f"; did you mean '{names[0]}'?"
    return "; did you mean " + ", ".join(f"'{name}'" for name in names[:-1]) + f" or '{names[-1]}'?"


class Reporter:
    def __init__(self, config: Config, ignores: dict[int, set[str]] | None = None) -> None:
        self.config = config
        self.ignores = ignores or {}
        self.findings: list[Finding] = []

    def wants(self, code: str) -> bool:
        return self.config.enabled(BY_CODE[code])

    def report(
        self,
        code: str,
        path: Path,
        span: Span,
        message: str,
        *,
        profile: Profile | None = None,
        fixes: list[Fix] | None = None,
        related: list[Related] | None = None,
        data: dict[str, object] | None = None,
    ) -> Finding | None:
        rule = BY_CODE[code]
        if not self.config.enabled(rule):
            return None
        severity = self.config.severity_of(rule, profile)
        if severity is None:
            return None
        suppressed = self.ignores.get(span.start.line)
        if suppressed is not None and (not suppressed or code in suppressed or rule.name.upper() in suppressed):
            return None
        finding = Finding(code, severity, path, span, message, related or [], fixes or [], data or {})
        self.findings.append(finding)
        return finding
