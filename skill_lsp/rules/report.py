"""Collecting findings: configuration, profiles and inline suppressions applied in one place."""

from __future__ import annotations

import functools
from pathlib import Path

from ..catalogue import BY_CODE
from ..config import Config
from ..model import Finding, Fix, Profile, Related, Severity, Span
from ..nearest import NameIndex, close_matches

__all__ = ["NameIndex", "Reporter", "close_matches", "closest", "did_you_mean"]


@functools.lru_cache(maxsize=8)
def _lowered(names: tuple[str, ...]) -> dict[str, str]:
    return {name.lower(): name for name in names}


def closest(name: str, candidates: list[str], count: int = 3) -> list[str]:
    """The known names nearest to name, best first."""
    if not candidates:
        return []
    known = _lowered(tuple(candidates))
    return [known[match] for match in close_matches(name.lower(), known.keys(), count)]


def did_you_mean(names: list[str]) -> str:
    if not names:
        return ""
    if len(names) == 1:
        return f"; did you mean '{names[0]}'?"
    return "; did you mean " + ", ".join(f"'{name}'" for name in names[:-1]) + f" or '{names[-1]}'?"


class Reporter:
    __slots__ = ("config", "findings", "ignores")

    def __init__(self, config: Config, ignores: dict[int, set[str]] | None = None) -> None:
        self.config = config
        self.ignores = ignores if ignores is not None else {}  # (only read: a file's own is kept, not copied)
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
        severity: Severity | None = None,
    ) -> Finding | None:
        """severity: the consequence's, decided by the runtimes that discover the file (SK1xx); a
        configured severity for the code still wins over it."""
        rule = BY_CODE[code]
        if not self.config.enabled(rule) or (self.config.per_file_ignores and self.config.ignored_in(rule, path)):
            return None
        chosen = self.config.severity_of(rule, profile)
        if severity is not None and rule.code not in self.config.overridden():
            chosen = severity
        if chosen is None:
            return None
        severity = chosen
        suppressed = self.ignores.get(span.start.line)
        if suppressed is not None and (not suppressed or code in suppressed or rule.name.upper() in suppressed):
            return None
        finding = Finding(code, severity, path, span, message, related or [], fixes or [], data or {})
        self.findings.append(finding)
        return finding
