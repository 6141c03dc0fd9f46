"""What `check` indexes for the paths it is named: a file's own project, never the whole current
directory, and a clear word for a file it does not check or a path that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import Project, run_cli, skill_md, write_files

MANY = 40  # skills of the neighbouring project, which a named file's check must not index


@pytest.fixture
def projects(project: Project) -> Project:
    """Two projects side by side in the current directory (which is none): `small` with one skill
    (its README.md beside it) and `big`, a git checkout with MANY skills."""
    write_files(project.root, {
        "small/pyproject.toml": "[project]\nname = 'small'\n",
        "small/README.md": "# Small\n",
        "small/notes.txt": "notes\n",
        "small/.claude/skills/quote/SKILL.md": skill_md("quote"),
        "small/.claude/skills/typo/SKILL.md": skill_md("typo", extra="licence: MIT"),
        **{f"big/.claude/skills/s{number}/SKILL.md": skill_md(f"s{number}") for number in range(MANY)},
    })
    (project.root / "big" / ".git").mkdir()
    return project


def test_a_named_skill_is_checked_with_its_own_project_alone(projects: Project) -> None:
    result = projects.run("check", "small/.claude/skills/quote/SKILL.md")
    assert (result.status, result.out) == (0, "All checks passed (2 skills, 0 agent definitions).\n")


def test_a_named_file_of_each_project_indexes_those_two(projects: Project) -> None:
    result = projects.run("check", "small/.claude/skills/typo/SKILL.md", "big/.claude/skills/s1/SKILL.md")
    lines = result.out.rstrip("\n").split("\n")
    assert lines[0].startswith("small/.claude/skills/typo/SKILL.md:4:1: SK111 ")  # paths from the current directory
    assert lines[1] == f"Found 0 errors, 1 warning in 1 file ({2 + MANY} skills, 0 agent definitions)."


def test_the_project_of_a_skill_without_a_project_marker_is_found_by_its_skills_root(project: Project) -> None:
    write_files(project.root, {
        "bare/.agents/skills/quote/SKILL.md": skill_md("quote"),
        **{f"other/.agents/skills/s{number}/SKILL.md": skill_md(f"s{number}") for number in range(5)},
    })
    result = project.run("check", "bare/.agents/skills/quote/SKILL.md")
    assert result.out == "All checks passed (1 skill, 0 agent definitions).\n"


def test_a_file_named_inside_a_repository_checked_from_its_root_keeps_the_repositorys_roots(project: Project) -> None:
    # a monorepo checked from its root: a package's agent still sees the skills at the repository's root
    write_files(project.root, {
        "pyproject.toml": "[project]\nname = 'mono'\n",
        ".claude/skills/quote/SKILL.md": skill_md("quote"),
        "services/desk/pyproject.toml": "[project]\nname = 'desk'\n",
        "services/desk/.claude/skills/local/SKILL.md": skill_md("local"),
    })
    result = project.run("check", "services/desk/.claude/skills/local/SKILL.md")
    assert result.out == "All checks passed (2 skills, 0 agent definitions).\n"


@pytest.mark.parametrize("named", ["small/README.md", "small/notes.txt"])
def test_a_file_skill_lsp_does_not_check_is_said_so(projects: Project, named: str) -> None:
    result = projects.run("check", named)
    assert result.status == 0
    assert result.out == ""  # no "All checks passed": nothing was checked
    assert result.err == (
        f"skill-lsp: warning: {named} is not a file skill-lsp checks: it checks SKILL.md files, agent definitions "
        "(Python, TypeScript and JavaScript files, subagent Markdown in .claude/agents) and configuration files "
        "(pyproject.toml, skill-lsp.toml, .skill-lsp.toml)\n"
    )


def test_a_file_not_checked_beside_one_that_is(projects: Project) -> None:
    result = projects.run("check", "small/README.md", "small/.claude/skills/quote/SKILL.md")
    assert (result.status, result.out) == (0, "All checks passed (2 skills, 0 agent definitions).\n")
    assert "skill-lsp: warning: small/README.md is not a file skill-lsp checks" in result.err


def test_a_file_not_checked_gives_valid_json(projects: Project) -> None:
    result = projects.run("check", "--format", "json", "small/README.md")
    assert (result.status, result.out) == (0, "[]\n")
    assert "is not a file skill-lsp checks" in result.err


def test_a_path_that_does_not_exist_is_a_usage_error(projects: Project, tmp_path: Path) -> None:
    result = run_cli("check", "small/READNE.md", cwd=projects.root)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.endswith("skill-lsp check: error: small/READNE.md: no such file or directory\n")
