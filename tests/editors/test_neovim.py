"""Neovim end to end: a real headless Neovim with the documented setup, driving the real server.

Debian's Neovim is 0.7, so the setup under test is editors/neovim/skill_lsp_0_7.lua (start_client +
buf_attach_client in a FileType autocmd), the snippet editors/neovim/README.md shows for 0.7.
tests/editors/nvim_driver.lua opens the files, waits (bounded) for the client and the diagnostics,
reads what the screen shows (virtual text, the diagnostic float), presses K and reads the hover float,
completes with <C-x><C-o>, and writes what it saw as JSON; these tests read it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
REPO = HERE.parent.parent
PROJECT = HERE / "project"
CONFIG = REPO / "editors" / "neovim" / "skill_lsp_0_7.lua"
DOCS = REPO / "editors" / "neovim" / "README.md"
DRIVER = HERE / "nvim_driver.lua"
NVIM = shutil.which("nvim")
SERVER = [sys.executable, "-m", "skill_lsp", "serve"]
ENTRY = "- parse-request: Extract pickup, dropoff, and date from a free-text booking request."

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(NVIM is None, reason="nvim is not on PATH (Debian/Ubuntu: apt-get install neovim)")]


def isolated_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment without the developer's Neovim or skills: a fresh home and XDG dirs."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("NVIM", "VIM", "MYVIMRC", "XDG_", "SKILL_LSP_"))}
    for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                      ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(home / sub)
    env["HOME"] = str(home)
    env.update(extra)
    return env


def run_nvim(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert NVIM is not None
    try:
        return subprocess.run([NVIM, "--headless", "--clean", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"nvim did not finish in 120 s; stdout: {error.stdout!r} stderr: {error.stderr!r}")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One Neovim run over a copy of the fixture project; what the driver saw."""
    base = tmp_path_factory.mktemp("neovim")
    project = base / "project"
    shutil.copytree(PROJECT, project)
    user_skills = base / "user-skills"
    user_skills.mkdir()
    result = base / "result.json"
    env = isolated_env(base / "home", SKILL_LSP_SERVER_CMD=json.dumps(SERVER),
                       SKILL_LSP_USER_SKILLS_DIR=str(user_skills), SKILL_LSP_NVIM_RESULT=str(result),
                       SKILL_LSP_NVIM_TIMEOUT_MS="30000")
    completed = run_nvim(["-u", str(CONFIG), "-c", f"luafile {DRIVER}"], project, env)
    assert result.exists(), f"the driver wrote no result; exit {completed.returncode}\n{completed.stdout}\n{completed.stderr}"
    seen: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    seen["project"] = project
    assert seen["errors"] == [], seen["errors"]
    return seen


def codes(diagnostics: list[dict[str, Any]]) -> list[str]:
    return sorted(str(item.get("code")) for item in diagnostics)


def test_the_client_attaches_to_skill_md_which_stays_markdown(session: dict[str, Any]) -> None:
    skill = session["skill"]
    assert skill["attached"] is True
    assert skill["filetype"] == "markdown"
    assert skill["cmd"] == SERVER  # the server command came from $SKILL_LSP_SERVER_CMD
    assert os.path.realpath(skill["root_dir"]) == os.path.realpath(session["project"])


def test_the_client_attaches_to_the_agent_file_with_the_same_server(session: dict[str, Any]) -> None:
    agent = session["agent"]
    assert agent["attached"] is True
    assert agent["filetype"] == "python"
    assert agent["client_id"] == session["skill"]["client_id"]  # one server per project


def test_markdown_that_is_not_a_skill_gets_no_client(session: dict[str, Any]) -> None:
    readme = session["readme"]
    assert readme["filetype"] == "markdown"
    assert readme["attached"] is False


def test_diagnostics_arrive_for_the_skill(session: dict[str, Any]) -> None:
    skill = session["skill"]
    assert skill["got_code"] is True
    assert codes(skill["diagnostics"]) == ["SK106"]
    (missing,) = skill["diagnostics"]
    assert missing["source"] == "skill-lsp"
    assert missing["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert "description" in missing["message"]


def test_diagnostics_arrive_for_the_agent_on_the_unknown_name(session: dict[str, Any]) -> None:
    agent = session["agent"]
    assert agent["got_code"] is True
    assert codes(agent["diagnostics"]) == ["AD101"]
    (unknown,) = agent["diagnostics"]
    line = (PROJECT / ".agentdeck/agents/booking/agent.py").read_text(encoding="utf-8").splitlines()[2]
    start = line.index('"parse-reqest"')
    assert (unknown["lnum"], unknown["col"], unknown["end_lnum"], unknown["end_col"]) == (
        2, start, 2, start + len('"parse-reqest"'))
    assert "did you mean 'parse-request'" in unknown["message"]


def test_hover_on_a_listed_skill_returns_its_disclosure_entry(session: dict[str, Any]) -> None:
    hover = session["hover"]
    assert hover["position"]["line"] == 2
    (text,) = hover["texts"]
    assert ENTRY in text
    assert ".agentdeck/skills/parse-request/SKILL.md" in text


def test_diagnostics_follow_unsaved_edits(session: dict[str, Any]) -> None:
    edit = session["edit"]
    assert '"parse-request", "parse-request"' in edit["line"]
    assert edit["updated"] is True, edit["diagnostics"]
    (duplicate,) = edit["diagnostics"]
    assert duplicate["code"] == "AD104"
    assert duplicate["col"] == edit["line"].rindex('"parse-request"')


def test_k_opens_the_hover_float_not_keywordprg(session: dict[str, Any]) -> None:
    assert session["k_mapping"] == "skill-lsp: hover"
    k = session["k"]
    assert k["opened"] is True
    lines = k["lines"]
    assert lines[0] == "**parse-request** — loaded by AgentDeck · `.agentdeck/skills/parse-request/SKILL.md`"
    assert ENTRY in lines
    assert any(line.startswith('Split the request on "->".') for line in lines)  # the start of the body


def test_completion_through_the_omnifunc_lists_skill_names(session: dict[str, Any]) -> None:
    assert session["omnifunc"] == "v:lua.vim.lsp.omnifunc"
    completion = session["completion"]
    # "quo typed in skills=[...]: the one skill that starts so, with its description
    assert [item["word"] for item in completion["items"]] == ["quote-fare"]
    assert completion["items"][0]["info"] == "Quote a fare for a ride between two cities."


def test_the_rule_code_shows_in_the_virtual_text_and_the_float(session: dict[str, Any]) -> None:
    shown = session["shown"]
    assert shown["virtual_text"].strip() == "■ AD104 'parse-request' is listed twice in skills=[...]"
    assert shown["mapped"] == "diagnostics of the line"
    assert shown["float"] == ["Diagnostics:", "1. AD104 'parse-request' is listed twice in skills=[...]"]


def test_subagents_and_typescript_files_attach_to_the_same_server(session: dict[str, Any]) -> None:
    for name, filetype in (("subagent", "markdown"), ("typescript", "typescript")):
        opened = session[name]
        assert (opened["filetype"], opened["attached"]) == (filetype, True), opened
        assert opened["client_id"] == session["skill"]["client_id"]


def test_create_skill_from_the_code_action_menu_writes_the_skill(session: dict[str, Any]) -> None:
    create = session["create"]
    assert create["diagnostic"] is True
    assert "Create skill 'greet-user' in .agentdeck/skills/" in create["offered"]
    # Neovim applies the CreateFile and the new file's text (documentChanges) in a buffer; 0.7 writes
    # nothing to disk until :write, for which the config makes the skill's directory
    assert create["created"] is True and create["on_disk_before_write"] is False
    lines = create["lines"]
    assert lines[:6] == ["---", "name: greet-user", "description: ", "---", "", "# Greet User"]
    assert set(lines[6:]) == {""}  # the text went into the new buffer's one empty line
    assert create["written"] == lines


def lua_blocks(markdown: str) -> list[tuple[str, str]]:
    """(heading, code) of every ```lua block, with the nearest heading above it."""
    blocks = []
    heading = ""
    for match in re.finditer(r"^(#+ [^\n]*)$|^```lua\n(.*?)^```$", markdown, re.MULTILINE | re.DOTALL):
        if match.group(1):
            heading = match.group(1)
        else:
            blocks.append((heading, match.group(2)))
    return blocks


def test_the_documented_0_7_snippet_is_the_tested_config() -> None:
    blocks = [code for heading, code in lua_blocks(DOCS.read_text(encoding="utf-8")) if "0.7" in heading]
    assert blocks == [CONFIG.read_text(encoding="utf-8")]


def test_every_documented_snippet_is_valid_lua(tmp_path: Path) -> None:
    """LuaJIT (Neovim's Lua) compiles each snippet; the APIs of 0.8+ are checked by reading their docs."""
    blocks = lua_blocks(DOCS.read_text(encoding="utf-8"))
    assert len(blocks) >= 4  # 0.11+, 0.8-0.10, 0.7, nvim-lspconfig
    for number, (_, code) in enumerate(blocks):
        (tmp_path / f"snippet{number}.lua").write_text(code, encoding="utf-8")
    report = tmp_path / "errors.txt"
    check = (f"lua local errors = {{}} for _, path in ipairs(vim.fn.glob('{tmp_path}/snippet*.lua', false, true)) do "
             f"local ok, err = loadfile(path) if not ok then table.insert(errors, err) end end "
             f"vim.fn.writefile(errors, '{report}')")
    completed = run_nvim(["-u", "NONE", "-c", check, "-c", "qall!"], tmp_path, isolated_env(tmp_path / "home"))
    assert report.exists(), completed.stderr
    assert report.read_text(encoding="utf-8") == ""


@pytest.mark.parametrize(
    ("command", "said"),
    [
        # a server that never answers initialize: still starting
        (["sleep", "60"], "skill-lsp is still starting (it indexes the project first): <C-x><C-o> completes once it is ready"),
        # no such command: not running
        (["/nonexistent/skill-lsp", "serve"], "skill-lsp is not running for this file: is `skill-lsp` on your PATH? "
                                              "Its log: :lua print(vim.lsp.get_log_path())"),
    ],
)
@pytest.mark.parametrize("file", [".agentdeck/skills/broken/SKILL.md", ".agentdeck/agents/booking/agent.py"])
def test_completion_before_the_server_attaches_says_why_nothing_comes(tmp_path: Path, command: list[str], said: str,
                                                                      file: str) -> None:
    """Not Neovim's "omnifunc is not set" (an agent file) nor HTML tags (markdown's own): the config's omnifunc is
    there from the start, and says what is going on."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    result = tmp_path / "result.json"
    env = isolated_env(tmp_path / "home", SKILL_LSP_SERVER_CMD=json.dumps(command), SKILL_LSP_NVIM_RESULT=str(result),
                       SKILL_LSP_NVIM_FILE=file)
    completed = run_nvim(["-u", str(CONFIG), "-c", f"luafile {HERE / 'nvim_omni_driver.lua'}"], project, env)
    assert result.exists(), f"exit {completed.returncode}\n{completed.stdout}\n{completed.stderr}"
    seen = json.loads(result.read_text(encoding="utf-8"))
    assert seen["errors"] == []
    assert seen["omnifunc"] == "v:lua.skill_lsp_omnifunc"  # markdown's own (HTML tags) does not replace it
    assert said in seen["messages"]
    assert "omnifunc is not set" not in seen["messages"]
