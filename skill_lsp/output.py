"""Formatting findings for the command line: text, json, github and sarif."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from . import __version__
from .catalogue import BY_CODE, RULES
from .model import Finding, Severity


def display_path(path: Path, cwd: Path) -> str:
    """Relative to the current directory when under it."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def _location(finding: Finding) -> tuple[int, int, int, int]:
    span = finding.span
    return span.start.line + 1, span.start.column + 1, span.end.line + 1, span.end.column + 1


def format_text(findings: list[Finding], cwd: Path, color: bool = False) -> str:
    lines = []
    for finding in findings:
        line, column, _, _ = _location(finding)
        label = finding.severity.label
        if color:
            tint = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFORMATION: "36", Severity.HINT: "2"}[finding.severity]
            lines.append(
                f"\x1b[1m{display_path(finding.path, cwd)}:{line}:{column}:\x1b[0m \x1b[{tint}m{finding.code}\x1b[0m "
                f"[{label}] {finding.message}"
            )
        else:
            lines.append(f"{display_path(finding.path, cwd)}:{line}:{column}: {finding.code} [{label}] {finding.message}")
    return "\n".join(lines)


def summary(findings: list[Finding], skills: int, agents: int) -> str:
    counts = {severity: 0 for severity in Severity}
    for finding in findings:
        counts[finding.severity] += 1
    checked = f"{skills} skill{'s' if skills != 1 else ''}, {agents} agent definition{'s' if agents != 1 else ''}"
    if not findings:
        return f"All checks passed ({checked})."
    files = len({finding.path for finding in findings})
    parts = [
        f"{counts[Severity.ERROR]} error{'s' if counts[Severity.ERROR] != 1 else ''}",
        f"{counts[Severity.WARNING]} warning{'s' if counts[Severity.WARNING] != 1 else ''}",
    ]
    if counts[Severity.INFORMATION]:
        parts.append(f"{counts[Severity.INFORMATION]} info")
    if counts[Severity.HINT]:
        parts.append(f"{counts[Severity.HINT]} hint{'s' if counts[Severity.HINT] != 1 else ''}")
    return f"Found {', '.join(parts)} in {files} file{'s' if files != 1 else ''} ({checked})."


def finding_json(finding: Finding, cwd: Path, fix: str | None = None) -> dict[str, object]:
    """finding as JSON; fix: how `check --fix` fixes it ("safe", "unsafe" with --unsafe-fixes), or None."""
    line, column, end_line, end_column = _location(finding)
    return {
        "path": display_path(finding.path, cwd),
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "code": finding.code,
        "name": BY_CODE[finding.code].name,
        "severity": finding.severity.label,
        "message": finding.message,
        "related": [
            {"path": display_path(r.path, cwd), "line": r.span.start.line + 1, "column": r.span.start.column + 1, "message": r.message}
            for r in finding.related
        ],
        "fixes": [each.title for each in finding.fixes],
        "fix": fix,
    }


def format_json(findings: list[Finding], cwd: Path, fixes: dict[int, str] | None = None) -> str:
    """The findings as a JSON array; fixes: id(finding) -> how --fix fixes it (fixrun.applicability)."""
    import json  # (JSON output's only: a text check imports it later, while a pool's workers walk)

    known = fixes or {}
    return json.dumps([finding_json(finding, cwd, known.get(id(finding))) for finding in findings], indent=2,
                      ensure_ascii=False)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(findings: list[Finding], cwd: Path) -> str:
    lines = []
    for finding in findings:
        line, column, end_line, end_column = _location(finding)
        level = {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(finding.severity, "notice")
        title = f"{finding.code} {BY_CODE[finding.code].name}"
        lines.append(
            f"::{level} file={_escape_property(display_path(finding.path, cwd))},line={line},col={column},"
            f"endLine={end_line},endColumn={end_column},title={_escape_property(title)}::"
            f"{_escape_data(f'{finding.code} {finding.message}')}"
        )
    return "\n".join(lines)


def _sarif_level(severity: Severity) -> str:
    return {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(severity, "note")


def format_sarif(findings: list[Finding], cwd: Path) -> str:
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why},
            "help": {"text": f"{rule.why}\n\nExample:\n{rule.example}", "markdown": f"{rule.why}\n\nExample:\n\n```\n{rule.example}\n```"},
            "defaultConfiguration": {"level": _sarif_level(rule.severity), "enabled": rule.enabled_by_default},
        }
        for rule in RULES
    ]
    index = {rule.code: number for number, rule in enumerate(RULES)}
    results = []
    for finding in findings:
        line, column, end_line, end_column = _location(finding)
        path = display_path(finding.path, cwd)
        location: dict[str, object] = {
            "physicalLocation": {
                "artifactLocation": {"uri": Path(path).as_posix() if not os.path.isabs(path) else Path(path).as_uri()},
                "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column},
            }
        }
        if not os.path.isabs(path):
            location["physicalLocation"]["artifactLocation"]["uriBaseId"] = "%SRCROOT%"  # type: ignore[index]
        results.append({
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": _sarif_level(finding.severity),
            "message": {"text": finding.message},
            "locations": [location],
        })
    import json

    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "skill-lsp", "version": __version__, "informationUri": "https://pypi.org/project/skill-lsp/", "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": cwd.as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


class Progress:
    """A line on stderr saying what `check` is doing, once it has taken more than a moment.

    Drawn from SIGALRM (an interval timer), not a thread: `check` forks helpers, and a fork while
    another thread holds a lock is unsafe; a forked child inherits no timer. Written with os.write,
    never through sys.stderr's buffer, which the interrupted code may be in the middle of using.
    The line is erased before anything else is printed.
    """

    def __init__(self, enabled: bool, what: str, delay: float = 0.8) -> None:
        self.what = what
        self.doing = ""
        self.shown = False
        self.started = time.monotonic()
        self.enabled = enabled and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        self._previous: Any = None
        if self.enabled:
            self._previous = signal.signal(signal.SIGALRM, self._draw)
            signal.setitimer(signal.ITIMER_REAL, max(delay, 0.001), 0.25)

    def phase(self, doing: str) -> None:
        self.doing = doing

    def _draw(self, signum: int, frame: object) -> None:
        elapsed = time.monotonic() - self.started
        line = f"skill-lsp: {self.what} — {self.doing} ({elapsed:.0f} s)"
        try:
            os.write(2, ("\r\x1b[K" + line[:_terminal_width() - 1]).encode("utf-8", "replace"))
            self.shown = True
        except OSError:
            pass

    def stop(self) -> None:
        if not self.enabled:
            return
        self.enabled = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous if self._previous is not None else signal.SIG_DFL)
        if self.shown:
            try:
                os.write(2, b"\r\x1b[K")
            except OSError:
                pass


def _terminal_width() -> int:
    try:
        return os.get_terminal_size(2).columns
    except OSError:
        return 80


def shows_progress() -> bool:
    """Progress is for a person at a terminal: stderr is one, and TERM can draw it."""
    try:
        return os.isatty(2) and os.environ.get("TERM", "") != "dumb"
    except OSError:
        return False
