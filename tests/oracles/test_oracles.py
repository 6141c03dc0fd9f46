"""The differential test: the runtimes' own validators as oracles for skill-lsp (docs/oracles.md).

For every row of expected.toml (a file of a fixture tree, tests/oracles/fixtures/<case>/<layout>/):
- test_oracle_still_says: the oracle (Claude Code's `claude plugin validate`, skills-ref's `agentskills
  validate`, Codex's `codex debug prompt-input`) says what the table records — a new oracle version that
  changes its mind fails here;
- test_skill_lsp_agrees: skill-lsp (`skill-lsp check --format json`, the real CLI) agrees with the oracle by
  the rule in table.disagreement; a documented difference (status = "difference", with the runtime's
  evidence) instead pins what skill-lsp says; a known disagreement (status = "bug") is an xfail(strict):
  when the fix lands it XPASSes and fails, and the row must be updated (`python tests/oracles/observe.py
  --write CASE`, then review the diff).

Without the oracles the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

from .oracles import ORACLE_OF_LAYOUT, find_claude, find_codex, find_skills_ref, observe
from .table import disagreement, load, matches, phrase

FIXTURES = Path(__file__).parent / "fixtures"
ROWS = load()

pytestmark = pytest.mark.oracle


@cache
def _binaries() -> dict[str, Path | None]:
    return {"claude": find_claude(), "skills_ref": find_skills_ref(), "codex": find_codex()}


@cache
def _observed(case: str, layout: str) -> dict[str, dict[str, list[str]]]:
    oracle = ORACLE_OF_LAYOUT[layout]
    if _binaries()[oracle] is None:
        message = f"oracle {oracle} is not installed: run scripts/install-oracles"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    result = observe(FIXTURES / case, layout, _binaries())
    assert result is not None
    return result


def _id(row: dict) -> str:
    return f"{row['case']}/{row['layout']}/{row['file']}"


def _said(row: dict) -> dict[str, list[str]]:
    seen = _observed(row["case"], row["layout"])
    return seen.get(row["file"], {"oracle": [], "skill_lsp": []})


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_oracle_still_says(row: dict) -> None:
    said = _said(row)
    assert matches(row["oracle"], said["oracle"]), (
        f"{_id(row)}: the oracle now says {sorted(phrase(item) for item in said['oracle'])}, the table records "
        f"{row['oracle']}; full messages: {said['oracle']}")


def _agreement_params() -> list:
    params = []
    for row in ROWS:
        marks = []
        if row["status"] == "bug":
            marks.append(pytest.mark.xfail(strict=True, reason=f"known disagreement: oracle {row['oracle']}, "
                                           f"skill-lsp {row['skill_lsp']}"))
        params.append(pytest.param(row, id=_id(row), marks=marks))
    return params


@pytest.mark.parametrize("row", _agreement_params())
def test_skill_lsp_agrees(row: dict) -> None:
    said = _said(row)
    if row["status"] == "difference":
        assert row.get("difference"), f"{_id(row)}: a difference needs its evidence"
        assert not row.get("loader") or row.get("loader_evidence"), f"{_id(row)}: a loader fact needs its evidence"
        assert sorted(said["skill_lsp"]) == sorted(row["skill_lsp"]), (
            f"{_id(row)}: skill-lsp now says {said['skill_lsp']}; the documented difference is about "
            f"{row['skill_lsp']} — check it against the oracle ({said['oracle']}) and update the row")
        return
    problem = disagreement(said["oracle"], said["skill_lsp"], row.get("loader"))
    assert problem is None, f"{_id(row)}: {problem}: oracle {said['oracle']}, skill-lsp {said['skill_lsp']}"


def test_table_covers_every_fixture() -> None:
    cases = {row["case"] for row in ROWS}
    on_disk = {path.name for path in FIXTURES.iterdir() if path.is_dir()}
    assert on_disk == cases, f"fixtures without rows: {sorted(on_disk - cases)}; rows without fixtures: {sorted(cases - on_disk)}"
