"""Valid real-world-style skills get no error and no warning they do not deserve."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import ROOTS, at_or_above

FIXTURE = Path(__file__).parent / "fixtures" / "real-world-skills"
MULTILINE = {"pdf", "docx", "webapp-testing", "mcp-builder"}  # the `description: |-` skills


def test_fixture_is_a_skills_collection():
    skills = sorted(path.parent.name for path in FIXTURE.glob("skills/*/SKILL.md"))
    assert skills == ["brand-guidelines", "docx", "mcp-builder", "pdf", "webapp-testing"]


def test_collection_has_nothing_above_information(project):
    result = project.run("check", "--format", "json", cwd=FIXTURE)
    assert result.status == 0
    assert at_or_above(result.findings, "warning") == []
    # nothing: the multi-line descriptions matter only to AgentDeck's one-line-per-skill disclosure list
    # (SK113 is AgentDeck's), and a collection is held to the specification, which allows them
    assert result.findings == []


def test_collection_passes_strict(project):
    assert project.run("check", "--strict", cwd=FIXTURE).status == 0


@pytest.mark.parametrize("profile", list(ROOTS))
def test_the_same_skills_under_each_profile_root(project, profile):
    shutil.copytree(FIXTURE / "skills", project.path(ROOTS[profile]))
    findings = project.check()
    assert at_or_above(findings, "warning") == []
    assert {f["code"] for f in findings} <= {"SK113"}
    if profile == "agentdeck":  # the deliberate multi-line descriptions, as information
        assert {(f["code"], f["severity"], Path(f["path"]).parent.name) for f in findings} == {
            ("SK113", "information", name) for name in MULTILINE}
