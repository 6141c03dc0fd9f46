"""The benchmark machinery runs end to end on a tiny corpus and prints every figure with its floor.

No timing is asserted: the figures depend on the machine. The run lives in a
temporary directory and uses its own cache (benchmarks/run.py sets
SKILL_LSP_CACHE_DIR and an empty user skills directory).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import REPO

FIGURES = [
    "1 cold check", "2 warm check (cache)", "3 server start → workspace diagnostics",
    "4 didChange → diagnostics: SKILL.md edit", "4 didChange → diagnostics: SKILL.md name edit",
    "4 didChange → diagnostics: agent file edit", "4 didChange → diagnostics: SKILL.md description edit (SK310)",
    "5 hover", "5 completion", "5 definition", "5 references",
    "6 peak RSS: server", "6 peak RSS: check",
]


@pytest.mark.slow
def test_quick_run_prints_every_figure_with_its_floor(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--quick", "--no-skills-ref", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=900, cwd=tmp_path,  # a hang guard only: a loaded machine is slow
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for figure in FIGURES:
        assert any(line.startswith(f"| {figure} |") for line in lines), figure
    rows = {row["figure"]: row for row in json.loads((tmp_path / "results.json").read_text())}
    assert rows["1 cold check"]["floor"] > 0 and rows["1 cold check"]["floor_label"] == "read+compose"
    assert rows["2 warm check (cache)"]["floor"] > 0 and rows["2 warm check (cache)"]["floor_label"] == "walk+stat"
    assert all(rows[figure]["value"] > 0 for figure in FIGURES)


def test_the_corpus_carries_mistakes_of_every_kind(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from generate import generate
    finally:
        sys.path.pop(0)
    manifest = generate(tmp_path / "corpus", 2000, seed=1)
    assert manifest.agents == 200
    assert set(manifest.mistakes) >= {"unquoted-colon", "name-mismatch", "unknown-key", "missing-description", "missing-file"}
    assert sum(1 for _ in (tmp_path / "corpus").glob("*/skills/*/SKILL.md")) + sum(
        1 for _ in (tmp_path / "corpus" / "skills").glob("*/SKILL.md")) == 2000
    assert Path(manifest.sample_agent).exists() and Path(manifest.sample_skill).exists()


@pytest.mark.parametrize("command", ["read-parse", "stat"])
def test_floors_run(tmp_path: Path, command: str) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text("---\nname: a\ndescription: b\n---\n")
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "floors.py"), command, str(tmp_path)], check=True, timeout=600)
