"""`skill-lsp new` against the runtimes' own validators: the SKILL.md it writes in each root is one Claude Code's
`claude plugin validate`, skills-ref's `agentskills validate` and Codex's loader accept without a word."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .oracles import TIMEOUT, find_claude, find_codex, find_skills_ref, run_claude, run_codex

pytestmark = pytest.mark.oracle

# ': ' makes it a quoted value: the oracles read the quoting as skill-lsp wrote it
DESCRIPTION = "Extract text and tables from PDF files: forms too. Use when the user asks about a PDF."


def _binary(found: Path | None, name: str) -> Path:
    if found is None:
        message = f"oracle {name} is not installed: run scripts/install-oracles"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _new(tree: Path, path: str) -> Path:
    done = subprocess.run([sys.executable, "-m", "skill_lsp", "new", path, "--description", DESCRIPTION], cwd=tree,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return tree / path / "SKILL.md"


def test_claude_code_validates_a_new_skill_without_a_word(tmp_path: Path) -> None:
    claude = _binary(find_claude(), "claude")
    written = _new(tmp_path, ".claude/skills/pdf-tools")
    said = run_claude(claude, tmp_path)
    assert said.get(".claude/skills/pdf-tools/SKILL.md", []) == [], said
    assert written.is_file()


def test_skills_ref_validates_a_new_skill(tmp_path: Path) -> None:
    skills_ref = _binary(find_skills_ref(), "skills-ref")
    written = _new(tmp_path, ".agents/skills/pdf-tools")
    done = subprocess.run([str(skills_ref), "validate", str(written.parent)], capture_output=True, text=True,
                          timeout=TIMEOUT, env={**os.environ, "LANG": "C.UTF-8"})
    assert done.returncode == 0, done.stdout + done.stderr


def test_codex_loads_a_new_skill_by_its_name(tmp_path: Path) -> None:
    codex = _binary(find_codex(), "codex")
    _new(tmp_path, ".agents/skills/pdf-tools")
    said = run_codex(codex, tmp_path)
    # the whole description is listed: the harness's "cut" counts the closing quote as the rest of the line
    whole = len(DESCRIPTION)
    assert said[".agents/skills/pdf-tools/SKILL.md"] == [
        "note: loaded as pdf-tools", f"warning: description cut to {whole} characters (of {whole + 1})"], said
