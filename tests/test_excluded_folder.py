"""A file in a folder `[tool.skill-lsp] exclude` covers, named on the command line (tests/fixtures/excluded-folder)."""

from __future__ import annotations

from pathlib import Path

from .helpers import skill_md

FIXTURE = Path(__file__).parent / "fixtures" / "excluded-folder"
AGENT = "legacy/.agentdeck/agents/desk/agent.py"
SKILL = "legacy/.agentdeck/skills/quote-fare/SKILL.md"


def test_the_excluded_folder_is_skipped(project):
    result = project.run("check", cwd=FIXTURE)
    assert result.status == 0
    # nothing outside the excluded folder: said plainly, not "All checks passed"
    assert "no SKILL.md or agent definition found under ." in result.err


def test_a_file_named_in_it_is_checked_with_its_roots_indexed(project):
    result = project.run("check", "--format", "json", AGENT, cwd=FIXTURE)
    assert result.status == 1
    # the skill that exists is found (no AD101 for it); the one that does not is reported
    assert [(f["code"], f["path"], f["line"], f["column"]) for f in result.findings] == [("AD101", AGENT, 3, 82)]
    assert "did you mean 'quote-fare'?" in result.findings[0]["message"]


def test_a_skill_named_in_it_is_checked(project):
    result = project.run("check", SKILL, cwd=FIXTURE)
    assert result.status == 0
    assert "All checks passed (1 skill, 1 agent definition)" in result.out


def test_a_named_excluded_file_is_checked_in_a_project_built_here(project):
    project.write({
        "pyproject.toml": '[tool.skill-lsp]\nexclude = ["drafts/*.md", "drafts"]\n',
        "drafts/.claude/skills/tone/SKILL.md": skill_md("tone", body="See [guide](references/guide.md).\n"),
    })
    assert project.check() == []
    findings = project.check("drafts/.claude/skills/tone/SKILL.md")
    assert [f["code"] for f in findings] == ["SK202"]
    # and the run that named it is not what a later run of the whole project reuses
    assert project.check() == []
