"""Fixtures: an isolated environment for every test, and projects built from dicts of files.

Every test runs with SKILL_LSP_USER_SKILLS_DIR pointing at an empty directory,
so nothing ever reads the developer's real ~/.claude/skills.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .helpers import ROOTS, Finding, Project


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never read the real home directory's skills nor write its cache; no colour codes in output."""
    user_skills = tmp_path_factory.mktemp("empty-user-skills")
    monkeypatch.setenv("SKILL_LSP_USER_SKILLS_DIR", str(user_skills))
    monkeypatch.setenv("SKILL_LSP_CACHE_DIR", str(tmp_path_factory.mktemp("check-cache")))
    monkeypatch.setenv("NO_COLOR", "1")
    return user_skills


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Project:
    """An empty project directory in tmp_path; `project.write({...})` fills it."""
    root = tmp_path / "proj"
    root.mkdir()
    return Project(root, capsys, monkeypatch)


@pytest.fixture
def check_project(project: Project) -> Callable[..., list[Finding]]:
    """check_project({path: text}, *cli_args) -> the JSON findings of `skill-lsp check`."""

    def run(files: dict[str, str], *args: str) -> list[Finding]:
        project.write(files)
        return project.check(*args)

    return run


@pytest.fixture
def check_skill(project: Project) -> Callable[..., list[Finding]]:
    """check_skill(text, *cli_args, profile=, directory=, files=, filename=) -> the findings on that SKILL.md.

    The skill is written to <root of profile>/<directory>/<filename>; files are
    extra files relative to the skill directory.
    """

    def run(text: str, *args: str, profile: str = "agentdeck", directory: str = "demo",
            files: dict[str, str] | None = None, filename: str = "SKILL.md") -> list[Finding]:
        base = f"{ROOTS[profile]}/{directory}"
        project.write({f"{base}/{filename}": text, **{f"{base}/{name}": body for name, body in (files or {}).items()}})
        return [finding for finding in project.check(*args) if finding["path"] == f"{base}/{filename}"]

    return run
