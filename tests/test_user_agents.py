"""`skill-lsp check` on the user's own subagents (~/.claude/agents): checked against the user's skills, in a
workspace of their own (never the home directory above them), with the directory configurable."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from .helpers import one, run_cli

FIXTURE = Path(__file__).parent / "user_agents"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A temporary home directory: .claude/skills, .claude/agents (one in a subdirectory), my-agents, and a
    project below it whose broken skill a walk of the home directory would find."""
    scratch = tmp_path / "scratch"
    shutil.copytree(FIXTURE, scratch)
    (scratch / "home/.git").mkdir()  # a dotfiles repository: still not a project
    shutil.copytree(scratch / "project", scratch / "home/work")
    (scratch / "home/work/.claude/skills/project-only/SKILL.md").write_text("---\nname: [broken\n---\n", encoding="utf-8")
    return scratch / "home"


def check(home: Path, *args: str, cwd: Path | None = None, **env: str) -> tuple[int, str, str]:
    """check ARGS with HOME at home and the user directories left to their defaults (unless env sets them)."""
    environment = {"HOME": str(home), "NO_COLOR": "1", **env}
    saved = {name: os.environ.pop(name) for name in ("SKILL_LSP_USER_SKILLS_DIR", "SKILL_LSP_USER_AGENTS_DIR")
             if name in os.environ and name not in env}
    try:
        result = run_cli("check", *args, cwd=cwd or home, env=environment)
    finally:
        os.environ.update(saved)
    return result.returncode, result.stdout, result.stderr


def test_a_user_subagent_is_checked_against_the_users_skills_on_its_line(home: Path) -> None:
    status, out, err = check(home, ".claude/agents/reviewer.md")
    assert status == 0, err  # CL103 is a warning
    lines = out.splitlines()
    assert lines[0].startswith(".claude/agents/reviewer.md:4:10: CL103 [warning] no discovered skill is named 'code-reveiw' "
                               "(searched the user's skills, .claude/skills)")
    assert lines[0].endswith("did you mean 'code-review'?")
    # a project's skill is not the user's; a plugin's skill (tools:lint) is not reported: plugins are not read
    assert lines[1].startswith(".claude/agents/reviewer.md:4:23: CL103 [warning] no discovered skill is named 'project-only'")
    # the user's subagents only: the home directory (and the broken skill of the project in it) is not walked
    assert lines[2] == "Found 0 errors, 2 warnings in 1 file (0 skills, 3 agent definitions)."


def test_a_clean_user_subagent_passes_from_any_directory(home: Path, tmp_path: Path) -> None:
    status, out, err = check(home, str(home / ".claude/agents/writer.md"), cwd=tmp_path)
    assert (status, out) == (0, "All checks passed (0 skills, 3 agent definitions).\n"), err


def test_the_whole_directory_and_its_subdirectories(home: Path) -> None:
    _, out, err = check(home, ".claude/agents", "--format", "json")
    found = [(item["path"], item["line"], item["code"]) for item in json.loads(out)]
    assert found == [(".claude/agents/reviewer.md", 4, "CL103"), (".claude/agents/reviewer.md", 4, "CL103"),
                     (".claude/agents/team/nested.md", 4, "CL103")], err


def test_a_configured_directory_by_flag_and_by_environment(home: Path) -> None:
    _, out, _ = check(home, "my-agents/helper.md", "--user-agents-dir", "my-agents", "-q")
    assert out.splitlines() == ["my-agents/helper.md:4:10: CL103 [warning] no discovered skill is named 'code-reviw' "
                                "(searched the user's skills, .claude/skills); Claude Code does not preload it "
                                "into the subagent 'helper' in a project without a skill of that name; did you mean "
                                "'code-review'?"]
    _, again, _ = check(home, "my-agents/helper.md", "-q", SKILL_LSP_USER_AGENTS_DIR=str(home / "my-agents"))
    assert again == out
    # not the user's directory: a Markdown file of another name is no subagent
    _, other, _ = check(home, "my-agents/helper.md", "-q")
    assert "CL103" not in other


def test_the_agents_directory_follows_the_user_skills_directory(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "dotfiles"
    shutil.copytree(home / ".claude", elsewhere)
    status, out, _ = check(home, str(elsewhere / "agents/writer.md"), "-q", "--user-skills-dir", str(elsewhere / "skills"))
    assert (status, out) == (0, "")
    shutil.rmtree(elsewhere / "skills/release-notes")
    _, out, _ = check(home, str(elsewhere / "agents/writer.md"), "-q", "--user-skills-dir", str(elsewhere / "skills"))
    assert "no discovered skill is named 'release-notes'" in out


def test_a_user_agents_dir_that_does_not_exist_is_a_usage_error(home: Path) -> None:
    status, _, err = check(home, ".claude/agents", "--user-agents-dir", "no-such-dir")
    assert status == 2
    assert err.rstrip("\n").endswith("skill-lsp check: error: --user-agents-dir no-such-dir: no such directory")


def test_the_home_directory_or_above_is_never_the_user_agents_directory(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skill_lsp.config import Config, user_agents_dir

    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SKILL_LSP_USER_SKILLS_DIR")
    for directory in (home, home.parent, Path("/")):
        assert user_agents_dir(Config(user_agents_dir=directory), []) is None
    assert user_agents_dir(Config(), []) == home / ".claude/agents"
    assert user_agents_dir(Config(user_agents_dir=home / "my-agents"), []) == home / "my-agents"


def test_a_plugins_agent_is_named_after_its_file(check_project):
    # claude plugin validate (2.1.332) lists agents/api-tester.md without a name as <plugin>:api-tester; a
    # project's .claude/agents file without a name is not loaded (CA101)
    findings = check_project({
        "tools/.claude-plugin/plugin.json": '{"name": "tools"}\n',
        "tools/agents/api-tester.md": "---\ndescription: Tests APIs.\n---\nYou test APIs.\n",
        ".claude/agents/reviewer.md": "---\ndescription: Reviews.\n---\nYou review.\n",
    })
    assert [(f["path"], f["code"]) for f in findings] == [(".claude/agents/reviewer.md", "CA101")]


def test_a_copilot_agent_file_beside_a_plugin_is_not_checked_as_a_subagent(check_project):
    findings = check_project({
        "tools/.claude-plugin/plugin.json": '{"name": "tools"}\n',
        "tools/agents/audit.agent.md": "---\ndescription: Audits.\nmodel: ['GPT-5.4', 'Claude Sonnet 4.6']\n---\nAudit.\n",
    })
    assert findings == []


@pytest.mark.parametrize(("name", "why"), [("team:reviewer", "holds ':'"), ("-reviewer", "starts with '-'")])
def test_a_subagent_name_claude_code_refuses(check_project, name, why):
    # Claude Code 2.1.332's subagent loader: a name with ':' (kept for plugin namespacing) or a leading '-'
    findings = check_project({".claude/agents/reviewer.md": f"---\nname: '{name}'\ndescription: Reviews.\n---\nReview.\n"})
    finding = one(findings, "CA101")
    assert finding["severity"] == "error" and why in finding["message"]
