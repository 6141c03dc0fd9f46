"""Formatting findings for the command line: text, json, github and sarif."""

from __future__ import annotations

import json
import os
from pathlib import Path

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


def finding_json(finding: Finding, cwd: Path) -> dict[str, object]:
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
        "fixes": [fix.title for fix in finding.fixes],
    }


def format_json(findings: list[Finding], cwd: Path) -> str:
    return json.dumps([finding_json(finding, cwd) for finding in findings], indent=2, ensure_ascii=False)


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
