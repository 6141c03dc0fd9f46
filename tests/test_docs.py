"""The documentation's commands, outputs and snippets, run exactly as README.md and docs/ print them.

Each block is found by its marker (tests/docs.py). The outputs are compared with what their command prints; the
configuration is checked with; the local pre-commit hook runs through pre-commit; the snippets that install from
the package index (the published pre-commit hook, the GitHub Action) run in tests/editors/ (marked e2e).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from .docs import REPO, all_blocks, pages, snippet
from .helpers import copy_working_tree, run_cli

# Every marked snippet, and the test that runs it. A snippet added to the documentation is marked and added here.
SNIPPETS = {
    "pyproject": "test_docs.py::test_the_configuration_snippet_is_read_as_documented",
    "skill-lsp-toml": "test_config_files.py::test_the_documented_skill_lsp_toml_is_read_as_written",
    "pre-commit": "editors/test_pre_commit.py (e2e), test_docs.py::test_the_pre_commit_snippets_are_valid_configurations",
    "pre-commit-local": "test_docs.py::test_the_local_pre_commit_hook_runs_as_documented",
    "github-action": "editors/test_action.py (e2e), test_docs.py::test_the_action_snippet_uses_the_action_s_inputs",
    "vscode-files-associations": "test_docs.py::test_the_vscode_association_is_the_extension_s_default",
    "claude-code-plugin": "oracles/test_claude_plugin.py (oracle)",
    "claude-code-plugin-page": "oracles/test_claude_plugin.py (oracle)",
    "neovim-0.11": "editors/test_neovim.py (e2e, Neovim 0.11.4)",
    "neovim-0.8": "editors/test_neovim.py (e2e, Neovim 0.11.4)",
    "neovim-0.7": "editors/test_neovim.py (e2e, Debian's Neovim 0.7.2)",
    "neovim-lspconfig": "editors/test_neovim.py::test_every_documented_snippet_is_valid_lua (compiled only)",
}
# Languages of blocks a reader pastes into a configuration: each must be a marked snippet.
CONFIGURATION_LANGUAGES = {"yaml", "yml", "toml", "json", "jsonc", "lua"}


def test_the_readme_starts_with_the_two_commands() -> None:
    """The first two blocks of the README: the example check and the tests, on a fresh machine."""
    first, second = [block for block in all_blocks() if block.page == "README.md"][:2]
    assert (first.language, first.text) == (
        "sh", "python3 -m venv .venv && . .venv/bin/activate && pip install . && skill-lsp check examples/\n")
    assert (second.language, second.text) == (
        "sh", "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && python -m pytest -q\n")


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not on PATH")
def test_the_first_command_works_on_a_fresh_clone(tmp_path: Path) -> None:
    """The README's first command, run by bash as printed in a copy of the checkout: a new virtualenv, skill-lsp
    and its dependencies from the package index, then the examples' check, whose output docs/command-line.md
    shows."""
    first = next(block for block in all_blocks() if block.page == "README.md").text
    clone = copy_working_tree(tmp_path / "skill-lsp")
    cache = Path(os.environ.get("SKILL_LSP_PRE_COMMIT_CACHE") or Path.home() / ".cache" / "skill-lsp-pre-commit")
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PIP_CACHE_DIR=str(cache / "pip"), SKILL_LSP_USER_SKILLS_DIR=str(tmp_path / "no-user-skills"))
    completed = subprocess.run(["bash", "--noprofile", "--norc", "-c", first], cwd=clone, env=env,
                               capture_output=True, text=True, timeout=900)
    assert completed.returncode == 1, completed.stdout[-3000:] + completed.stderr[-3000:]
    shown = next(block for block in OUTPUTS if block.marker == "skill-lsp check examples/").text
    assert completed.stdout.endswith(shown), completed.stdout[-3000:]
    assert (clone / ".venv" / "bin" / "skill-lsp").is_file()


def test_every_configuration_block_is_a_known_snippet() -> None:
    marked = [block for block in all_blocks() if block.kind == "snippet"]
    unmarked = [f"{block.page}:{block.line}" for block in all_blocks()
                if block.kind is None and block.language in CONFIGURATION_LANGUAGES]
    assert unmarked == [], "mark each with <!-- snippet: NAME --> and run it in a test (tests/test_docs.py SNIPPETS)"
    names = [block.marker for block in marked]
    assert sorted(names) == sorted(SNIPPETS), "each snippet is marked once, and each marked one is tested"


OUTPUTS = [block for block in all_blocks() if block.kind == "output"]


@pytest.mark.parametrize("block", OUTPUTS, ids=[block.marker for block in OUTPUTS])
def test_each_documented_output_is_what_its_command_prints(block, tmp_path: Path) -> None:
    command = shlex.split(block.marker)
    assert command[0] == "skill-lsp"
    # as on a fresh machine: no user skills directory (~/.claude/skills does not exist)
    result = run_cli(*command[1:], cwd=REPO, env={"SKILL_LSP_USER_SKILLS_DIR": str(tmp_path / "no-user-skills")})
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout == block.text


def test_the_examples_output_is_documented() -> None:
    shown = next(block for block in OUTPUTS if block.marker == "skill-lsp check examples/").text
    findings = [line for line in shown.splitlines() if re.match(r"examples/\S+:\d+:\d+: [A-Z]{2}\d{3} ", line)]
    said = re.search(r"it prints their (\d+)\s+deliberate mistakes", (REPO / "README.md").read_text(encoding="utf-8"))
    assert said and int(said.group(1)) == len(findings)


def test_the_configuration_snippet_is_read_as_documented(project) -> None:
    text = snippet("pyproject")
    assert text.startswith("[tool.skill-lsp]\n")
    project.write({
        "pyproject.toml": text,
        ".agentdeck/skills/quote/SKILL.md": "---\nname: quote\ndescription: Quote a fare.\n---\n\nSee references/fares.md.\n",
        "fixtures/skills/broken/SKILL.md": "---\nname: broken\n---\n\nNo description.\n",
    })
    findings = project.check()
    assert not [finding for finding in findings if finding["code"] == "CF001"], findings  # every value is valid
    by_code = {finding["code"]: finding for finding in findings}
    assert by_code["SK202"]["severity"] == "error"  # severity = { SK202 = "error" }
    assert "SK303" in by_code  # extend-select = ["SK303"], a rule off by default
    assert not [finding for finding in findings if finding["path"].startswith("fixtures/")]  # exclude


def test_the_pre_commit_snippets_are_valid_configurations(tmp_path: Path) -> None:
    pre_commit = pytest.importorskip("pre_commit.clientlib")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    for name in ("pre-commit", "pre-commit-local"):
        path = tmp_path / f"{name}.yaml"
        path.write_text(snippet(name), encoding="utf-8")
        config = pre_commit.load_config(str(path))  # pre-commit's own schema; raises on an invalid file
        (repo,) = config["repos"]
        (hook,) = repo["hooks"]
        assert hook["id"] in hooks
    local = yaml.safe_load(snippet("pre-commit-local"))["repos"][0]["hooks"][0]
    published = hooks["skill-lsp"]
    # the local hook runs what the published one runs, on the same files
    for key in ("entry", "files", "require_serial", "verbose"):
        assert local[key] == published[key], key


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH")
def test_the_local_pre_commit_hook_runs_as_documented(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    repo = tmp_path / "repo"
    skill = repo / ".agentdeck/skills/quote/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: quote\n---\n\nQuote a fare.\n", encoding="utf-8")
    (repo / ".pre-commit-config.yaml").write_text(snippet("pre-commit-local"), encoding="utf-8")
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PRE_COMMIT_HOME": str(tmp_path / "store"),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t.invalid", "PRE_COMMIT_COLOR": "never"}
    # `language: system` runs the skill-lsp on PATH: this interpreter's
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=repo, env={**os.environ, **env, "PATH": path}, capture_output=True,
                              text=True, timeout=120)

    assert run("git", "init", "--quiet", "--initial-branch=main").returncode == 0
    assert run("git", "add", "--all").returncode == 0
    completed = run(sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never")
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, output
    assert "skill-lsp" in output and "Failed" in output, output
    assert ".agentdeck/skills/quote/SKILL.md:1:1: SK106 [error]" in output, output


def test_the_action_snippet_uses_the_action_s_inputs() -> None:
    text = snippet("github-action")
    steps = yaml.safe_load(text)
    assert steps[0]["uses"].startswith("actions/checkout@")
    uses, _, ref = steps[1]["uses"].partition("@")
    assert uses.endswith("/skill-lsp") and ref
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert set(steps[1]["with"]) <= set(action["inputs"])
    # the inputs the snippet shows commented out are the action's too
    commented = re.findall(r"^\s+# ([a-z-]+):", text, re.MULTILINE)
    assert commented and set(commented) <= set(action["inputs"])


def test_the_vscode_association_is_the_extension_s_default() -> None:
    text = snippet("vscode-files-associations")
    shown = json.loads("{" + text + "}")
    package = json.loads((REPO / "vscode-client" / "package.json").read_text(encoding="utf-8"))
    assert shown == package["contributes"]["configurationDefaults"]


def settings_table(page: Path) -> dict[str, str]:
    """The extension README's settings table, as the page prints it: setting name -> the Default cell."""
    section = page.read_text(encoding="utf-8").split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)` \| (.+?) \| .+ \|$", section, re.MULTILINE)
    assert rows, "no settings table under '## Settings'"
    return dict(rows)


def test_the_vscode_settings_table_is_the_extension_s_settings() -> None:
    """Each setting the table names exists in package.json with the default it states (`unset`: none), and each
    setting the extension contributes is in the table."""
    shown = settings_table(REPO / "vscode-client" / "README.md")
    package = json.loads((REPO / "vscode-client" / "package.json").read_text(encoding="utf-8"))
    configuration = package["contributes"]["configuration"]
    contributed = {name: spec for section in (configuration if isinstance(configuration, list) else [configuration])
                   for name, spec in section["properties"].items()}
    assert sorted(shown) == sorted(contributed)
    for name, default in shown.items():
        if default == "unset":
            assert "default" not in contributed[name], name
        else:
            code = re.fullmatch(r"`(.+)`", default)
            assert code, f"{name}: the default {default!r} is neither `JSON` nor unset"
            assert json.loads(code.group(1)) == contributed[name]["default"], name


def minimum_python() -> str:
    """The oldest Python the package supports, from pyproject.toml's requires-python (">=3.X")."""
    with (REPO / "pyproject.toml").open("rb") as file:
        requires = tomllib.load(file)["project"]["requires-python"]
    match = re.fullmatch(r">=\s*(3\.\d+)", requires)
    assert match, requires
    return match.group(1)


def test_the_action_states_the_package_s_minimum_python() -> None:
    oldest = minimum_python()
    python = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))["inputs"]["python-version"]
    assert f"({oldest} or newer)" in python["description"], python["description"]
    assert tuple(map(int, python["default"].split("."))) >= tuple(map(int, oldest.split(".")))
    shown = re.search(r'# python-version: "(3\.\d+)"\s+# the Python that runs skill-lsp \((3\.\d+)\+\)',
                      snippet("github-action"))
    assert shown and shown.group(2) == oldest, snippet("github-action")


def test_the_readme_names_the_node_versions_the_build_needs() -> None:
    """vscode-client/package.json's devEngines (checked against the lock file by the extension's unit tests)."""
    package = json.loads((REPO / "vscode-client" / "package.json").read_text(encoding="utf-8"))
    runtime = package["devEngines"]["runtime"]
    assert runtime["name"] == "node"
    lines = []
    for alternative in runtime["version"].split("||"):
        match = re.fullmatch(r"\^(\d+)\.(\d+)\.0|>=(\d+)", alternative.strip())
        assert match, alternative
        lines.append(f"{match.group(1)}.{match.group(2)}+" if match.group(1) else f"{match.group(3)}+")
    said = ", ".join(lines[:-1]) + " or " + lines[-1] if len(lines) > 1 else lines[0]
    assert f"(Node.js {said}, and npm)" in (REPO / "README.md").read_text(encoding="utf-8")


_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)


def anchors(page: Path) -> set[str]:
    """The #fragments of a page's headings, as GitHub makes them (lowercase, punctuation dropped, - for spaces)."""
    text = _FENCED.sub("", page.read_text(encoding="utf-8"))
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.*)$", text, re.MULTILINE)}


def test_every_relative_link_leads_somewhere() -> None:
    """The pages link to each other since the README's move to docs/: every file exists, every #fragment is a
    heading of its page."""
    broken = []
    for page in pages():
        text = _FENCED.sub("", page.read_text(encoding="utf-8"))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, fragment = target.partition("#")
            destination = (page.parent / path).resolve() if path else page
            if not destination.exists():
                broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
            elif fragment and destination.suffix == ".md" and fragment not in anchors(destination):
                broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert broken == []
