"""Symlinked alias roots (`.agents/skills -> ../skills`): each file is reported once, on its real path,
under every runtime's root that sees it, whatever the command line names."""

from __future__ import annotations

import os

import pytest

from .helpers import codes, skill_md

DISPLAY_LABEL = skill_md("PDF Tools", body="Revenue grew to $2.5M.\nSee [x](references/missing.md).\n")
REAL = "skills/pdf-tools/SKILL.md"


@pytest.fixture
def aliased(project):
    """skills/ holds the skill; .agents/skills and .claude/skills are links to it."""
    project.write({REAL: DISPLAY_LABEL})
    for parent in (".agents", ".claude"):
        project.path(parent).mkdir()
        os.symlink("../skills", project.path(f"{parent}/skills"), target_is_directory=True)
    return project


def _seen(findings):
    return sorted((f["code"], f["path"], f["line"], f["severity"]) for f in findings)


@pytest.mark.parametrize("arguments", [
    (), (".",), ("skills",), (".agents/skills",), (".claude/skills",),
    (".agents/skills/pdf-tools/SKILL.md",), (REAL,), (".claude/skills/pdf-tools/SKILL.md", REAL),
])
def test_the_same_findings_on_the_real_path_whatever_is_named(aliased, arguments):
    findings = aliased.check(*arguments)
    assert {f["path"] for f in findings} == {REAL}
    # one report per problem, though three roots see the file
    assert len(findings) == len({(f["code"], f["line"], f["column"]) for f in findings})
    assert _seen(findings) == _seen(aliased.check())


def test_the_strictest_runtime_decides_and_claude_code_checks_still_run(aliased):
    found = codes(aliased.check())
    # .agents/skills (the spec's loaders): the display label breaks the naming rules
    assert "SK108" in found and "SK109" in found
    # .claude/skills sees it too: Claude Code's own substitution rule applies
    assert "SK205" in found
    assert "SK202" in found


def test_a_skill_directory_linked_into_a_claude_root(project):
    project.write({REAL: skill_md("pdf-tools", body="Revenue grew to $2.5M.\n")})
    project.path(".claude/skills").mkdir(parents=True)
    os.symlink("../../skills/pdf-tools", project.path(".claude/skills/pdf-tools"), target_is_directory=True)
    findings = project.check()
    assert [(f["code"], f["path"]) for f in findings] == [("SK205", REAL)]


def test_without_links_the_collection_is_the_specs(project):
    project.write({REAL: skill_md("pdf-tools", body="Revenue grew to $2.5M.\n")})
    assert project.check() == []  # no Claude Code root sees it: no SK205


def test_a_link_out_of_the_workspace_named_on_the_command_line_is_not_resolved(project, tmp_path):
    other = tmp_path / "elsewhere"
    (other / "skills" / "x").mkdir(parents=True)
    (other / "skills" / "x" / "SKILL.md").write_text(skill_md("x"))
    project.path(".claude").mkdir()
    os.symlink(other / "skills", project.path(".claude/skills"), target_is_directory=True)
    # the folder given is the link itself: what lies under it is checked, on the path given
    findings = project.check(".claude/skills")
    assert findings == []
