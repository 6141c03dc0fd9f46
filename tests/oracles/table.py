"""The differential table (expected.toml): reading it, the agreement rule, and writing a refreshed draft.

One row per (case, layout, file):

    [[row]]
    case = "colon-in-description"        # tests/oracles/fixtures/<case>
    layout = "claude"                    # claude | spec | codex: which tree, so which oracle
    file = ".claude/skills/csv-clean/SKILL.md"
    oracle = ["warning: No description in frontmatter"]   # the oracle's findings: severity and key phrase
    skill_lsp = ["SK106 warning"]        # what skill-lsp reports on the file today
    status = "agree"                     # agree | bug | difference
    difference = "..."                   # status = difference: what the runtime's loader does, with the evidence
    loader = "error"                     # optional: a loader fact the oracle misses calls for this severity at least
    loader_evidence = "..."              # ... and where it is (runtime file or function, version)

Severity of a finding: error, warning, or note (Codex: "note: loaded as NAME" / "error: not loaded").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TABLE = Path(__file__).parent / "expected.toml"
PHRASE = 100  # characters of an oracle's message kept as its key phrase

_ORACLE_RANK = {"error": 3, "warning": 2, "note": 0}
_OURS_RANK = {"error": 3, "warning": 2, "information": 1, "hint": 1}


def phrase(finding: str) -> str:
    """A finding's key phrase: its severity and its message's first sentence, at most PHRASE characters."""
    severity, _, message = finding.partition(": ")
    first = message.split(". ")[0].split("\n")[0]
    if len(first) > PHRASE:
        first = first[:PHRASE].rsplit(" ", 1)[0]
    return f"{severity}: {first}"


def matches(recorded: list[str], observed: list[str]) -> bool:
    """Whether the oracle still says what the table records: the same findings, each starting with its phrase."""
    return sorted(recorded) == sorted(phrase(item) for item in observed)


def disagreement(oracle: list[str], ours: list[str], requires: str | None = None) -> str | None:
    """Why skill-lsp disagrees with the oracle on a file, or None.

    - skill-lsp reports an error only where the oracle reports one (Codex: does not load the skill);
    - where the oracle reports an error skill-lsp reports at least a warning (Claude Code's validator calls
      errors some things its runtime tolerates), and an error where Codex does not load the skill;
    - where the oracle says nothing (Codex: loads it) skill-lsp reports nothing or information.
    Oracle warnings allow anything short of an error. `requires` (a row's `loader`): a documented loader fact the
    oracle does not report calls for at least this severity."""
    worst_oracle = max((_ORACLE_RANK.get(item.split(":")[0], 0) for item in oracle), default=0)
    worst_ours = max((_OURS_RANK.get(item.split()[-1], 0) for item in ours), default=0)
    if requires is not None and worst_ours < _OURS_RANK[requires]:
        return f"the runtime's loader (row `loader`) calls for at least {requires}; skill-lsp reports less"
    if "error: not loaded" in oracle and worst_ours < 3:
        return "the runtime does not load the skill (Codex's listing leaves it out); skill-lsp reports no error"
    if worst_ours == 3 and worst_oracle < 3 and requires != "error":
        return "skill-lsp reports an error where the oracle reports none"
    if worst_oracle == 3 and worst_ours < 2:
        return "the oracle reports an error that skill-lsp does not report"
    if worst_oracle == 0 and worst_ours == 2:
        return "skill-lsp warns where the oracle accepts silently"
    return None


def load() -> list[dict[str, Any]]:
    with TABLE.open("rb") as handle:
        return list(tomllib.load(handle).get("row", []))


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def dump(rows: list[dict[str, Any]], header: str) -> str:
    out = [header.rstrip() + "\n"]
    for row in rows:
        out.append("\n[[row]]\n")
        for key in ("case", "layout", "file"):
            out.append(f"{key} = {_string(row[key])}\n")
        for key in ("oracle", "skill_lsp"):
            items = row[key]
            out.append(f"{key} = [" + ", ".join(_string(item) for item in items) + "]\n")
        out.append(f"status = {_string(row['status'])}\n")
        for key in ("difference", "loader", "loader_evidence", "note"):
            if row.get(key):
                out.append(f"{key} = {_string(row[key])}\n")
    return "".join(out)


def refresh(observations: dict[str, dict[str, dict[str, dict[str, list[str]]] | None]],
            old: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """New rows from observations, keeping each old row's difference and note; status from the rule, except
    that a documented difference stays one while skill-lsp still says what it documents."""
    previous = {(row["case"], row["layout"], row["file"]): row for row in old}
    rows: list[dict[str, Any]] = []
    for case, layouts in sorted(observations.items()):
        for layout, files in layouts.items():
            if files is None:  # oracle absent: keep what the table had
                rows.extend(row for row in old if row["case"] == case and row["layout"] == layout)
                continue
            for file, said in files.items():
                before = previous.get((case, layout, file), {})
                row = {"case": case, "layout": layout, "file": file,
                       "oracle": sorted(phrase(item) for item in said["oracle"]), "skill_lsp": said["skill_lsp"]}
                if disagreement(said["oracle"], said["skill_lsp"], before.get("loader")) is None:
                    row["status"] = "agree"
                elif before.get("status") == "difference" and before.get("skill_lsp") == said["skill_lsp"]:
                    row["status"] = "difference"
                else:
                    row["status"] = "bug"
                for key in ("difference", "loader", "loader_evidence", "note"):
                    if before.get(key):
                        row[key] = before[key]
                rows.append(row)
    return rows
