"""`skill-lsp rules`, SPEC.md's catalogue (§3) and the rule table of docs/rules.md agree on code, name and severity."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from .helpers import REPO

SPEC = Path(__file__).resolve().parents[1].parent / "shared" / "SPEC.md"
RULES_PAGE = REPO / "docs" / "rules.md"
LETTER = {"error": "E", "warning": "W", "information": "I", "hint": "H"}
# Rules of the tool itself, not of skills: not in SPEC's catalogue of skill diagnostics.
TOOL_RULES = {"CF001"}
# Rules added after SPEC §3 was written, each by an issue that asked for it: SK207 hidden-text ("What the model will
# see", §3: text the model reads and a reviewer does not) and SK310 overlapping-descriptions (§2: two descriptions
# the model cannot tell apart) and LS101 listing-over-budget (§1: listing budgets).
NEWER_RULES = {"SK207", "SK310", "LS101"}
# Where the runtime's own evidence overrules SPEC §3's severity for the claude profile (SPEC §2.4: "where a
# runtime's own source or documentation says otherwise, it wins"): SK108's display label is information, since
# `claude plugin validate` 2.1.332 does not flag it and a plugin's skill is offered by its frontmatter name too
# (the ecosystem check judged 612 such warnings overstated; docs/ecosystem.md).
DEVIATIONS = {"SK108": "I"}


@dataclass(frozen=True)
class Entry:
    code: str
    name: str
    severity: str  # E W I H: the default
    claude: str | None  # the claude profile's severity when it differs ("none": not reported), else None
    off_by_default: bool


def cli_catalogue(project) -> dict[str, Entry]:
    result = project.run("rules", "--format", "json")
    assert result.status == 0
    entries = {}
    for rule in json.loads(result.out):
        for key in ("code", "name", "severity", "enabled_by_default", "summary", "why", "example"):
            assert key in rule, (rule.get("code"), key)
            if isinstance(rule[key], str):
                assert rule[key].strip(), (rule["code"], key)
        claude = rule["severity_by_profile"].get("claude", "unset")
        entries[rule["code"]] = Entry(
            rule["code"], rule["name"], LETTER[rule["severity"]],
            None if claude == "unset" else ("none" if claude is None else LETTER[claude]),
            not rule["enabled_by_default"],
        )
    return entries


_SPEC_LINE = re.compile(r"^- ([A-Z]{2}\d{3}) ([a-z0-9-]+) ([EWIH])\b(.*)$")
# SPEC §3 since 2026-12: "SK103 invalid-yaml — ...; severity per §2.4" (decided by the runtimes)
_SPEC_PER_RUNTIME = re.compile(r"^- ([A-Z]{2}\d{3}) ([a-z0-9-]+) — .*severity per §2\.4")
_SPEC_CLAUDE = re.compile(r"(?:/ (none|[EWIH]) \(claude|claude: ([EWIH]) )")


def spec_catalogue() -> dict[str, Entry]:
    if not SPEC.is_file():
        pytest.skip(f"SPEC.md is not at {SPEC} (it lives in ../shared beside the repository)")
    entries = {}
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        per_runtime = _SPEC_PER_RUNTIME.match(line)
        if per_runtime:
            entries[per_runtime.group(1)] = Entry(per_runtime.group(1), per_runtime.group(2), "", None, False)
            continue
        match = _SPEC_LINE.match(line)
        if not match:
            continue
        code, name, severity, rest = match.groups()
        claude = _SPEC_CLAUDE.search(rest)
        entries[code] = Entry(
            code, name, severity, (claude.group(1) or claude.group(2)) if claude else None, "off by default" in rest
        )
    assert len(entries) >= 30, "the catalogue lines of SPEC §3 were not found"
    return entries


_TABLE_SEVERITY = re.compile(r"^([EWIH])(?:\s*\((none|off|[EWIH]) in claude\))?$")


def docs_catalogue() -> dict[str, Entry]:
    if not RULES_PAGE.is_file():
        pytest.skip("docs/rules.md is not written yet")
    entries = {}
    header: list[str] | None = None
    for line in RULES_PAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None if header and not line.strip() else header
            continue
        cells = [cell.strip().strip("`").strip() for cell in line.strip().strip("|").split("|")]
        if [cell.lower() for cell in cells[:3]] == ["code", "name", "severity"]:
            header = cells
            continue
        if header is None or not re.fullmatch(r"[A-Z]{2}\d{3}", cells[0]):
            continue
        code, name, severity, text = cells[0], cells[1], cells[2], " | ".join(cells[3:])
        match = _TABLE_SEVERITY.match(severity)
        assert match, f"docs/rules.md severity of {code} is not like 'E' or 'E (W in claude)': {severity!r}"
        claude = match.group(2)
        entries[code] = Entry(code, name, match.group(1), "none" if claude == "off" else claude,
                              "off by default" in text.lower())
    assert entries, "docs/rules.md has no rule table with columns | Code | Name | Severity | What it catches |"
    return entries


def test_cli_catalogue_is_complete_and_documented(project):
    cli = cli_catalogue(project)
    assert len(cli) == len(set(cli))
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", entry.name) for entry in cli.values())


def test_cli_agrees_with_spec(project):
    cli = cli_catalogue(project)
    spec = spec_catalogue()
    assert set(cli) - set(spec) == TOOL_RULES | NEWER_RULES
    assert set(spec) - set(cli) == set()
    for code, expected in spec.items():
        actual = cli[code]
        severity = expected.severity or actual.severity  # "" : per runtime, any default
        assert (actual.name, actual.severity, actual.off_by_default) == (expected.name, severity,
                                                                        expected.off_by_default), code
        if expected.claude is not None:
            assert actual.claude == DEVIATIONS.get(code, expected.claude), f"{code}: the claude profile's severity"


def test_the_rules_page_agrees_with_cli(project):
    cli = cli_catalogue(project)
    documented = docs_catalogue()
    assert set(documented) == set(cli)
    for code, entry in documented.items():
        actual = cli[code]
        assert (entry.name, entry.severity, entry.off_by_default) == (actual.name, actual.severity,
                                                                      actual.off_by_default), code
        if entry.claude is not None or actual.claude is not None:
            assert entry.claude == actual.claude, f"{code}: the claude severity in docs/rules.md"


def test_the_parsers_read_the_documented_formats(tmp_path, monkeypatch):
    # the table format docs/rules.md is written in, checked on a sample so a parser bug cannot hide a mismatch
    sample = tmp_path / "rules.md"
    sample.write_text(
        "| Code | Name | Severity | What it catches |\n"
        "|------|------|----------|-----------------|\n"
        "| `SK106` | `missing-description` | E (W in claude) | No description. |\n"
        "| SK303 | unused-skill | H | A skill no agent lists (off by default). |\n"
        "| SK105 | missing-name | E (none in claude) | No name. |\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(f"{__name__}.RULES_PAGE", sample)
    assert docs_catalogue() == {
        "SK106": Entry("SK106", "missing-description", "E", "W", False),
        "SK303": Entry("SK303", "unused-skill", "H", None, True),
        "SK105": Entry("SK105", "missing-name", "E", "none", False),
    }
    if SPEC.is_file():
        spec = spec_catalogue()
        assert spec["SK105"] == Entry("SK105", "missing-name", "E", "none", False)
        assert spec["SK108"].claude == "W" and spec["SK110"].claude == "W"
        assert spec["AD105"] == Entry("AD105", "dynamic-skills", "I", None, True)
