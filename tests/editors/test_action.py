"""The GitHub Action (action.yml), run as the runner runs it: its `run:` steps, in order, through bash.

The runner's part is played here: `${{ inputs.* }}` take the inputs given or their defaults, the
setup-python step stands for the interpreter it would set up (this one; the step itself only downloads
a Python), GITHUB_ACTION_PATH is this checkout (what `uses:` checks out), RUNNER_TEMP and GITHUB_ENV
are temporary, and what a step appends to GITHUB_ENV reaches the later steps. The install step runs
once (pip installs the checkout and its dependencies from the package index into a new environment;
downloads are cached under $SKILL_LSP_PRE_COMMIT_CACHE like the pre-commit test's).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.docs import snippet

REPO = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not on PATH")]


def cache_dir() -> Path:
    configured = os.environ.get("SKILL_LSP_PRE_COMMIT_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "skill-lsp-pre-commit"


class Runner:
    """Runs the action's steps the way the GitHub runner does, for one job."""

    def __init__(self, temp: Path) -> None:
        self.temp = temp
        self.github_env = temp / "github_env"
        self.github_env.write_text("", encoding="utf-8")
        self.outputs: dict[str, dict[str, str]] = {}
        self.job_env: dict[str, str] = {}

    def evaluate(self, text: str, inputs: dict[str, str]) -> str:
        def value(match: re.Match[str]) -> str:
            expression = match.group(1)
            if expression.startswith("inputs."):
                name = expression.removeprefix("inputs.")
                return inputs.get(name, str(ACTION["inputs"][name].get("default", "")))
            step, _, output = expression.removeprefix("steps.").partition(".outputs.")
            return self.outputs[step][output]
        return EXPRESSION.sub(value, text)

    def run(self, step: dict[str, Any], inputs: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, **self.job_env, "GITHUB_ACTION_PATH": str(REPO), "RUNNER_TEMP": str(self.temp),
               "GITHUB_ENV": str(self.github_env), "PIP_CACHE_DIR": str(cache_dir() / "pip"), "NO_COLOR": "1",
               "SKILL_LSP_CACHE_DIR": str(self.temp / "check-cache"),
               "SKILL_LSP_USER_SKILLS_DIR": str(self.temp / "user-skills")}
        env.pop("VIRTUAL_ENV", None)
        env.update({key: self.evaluate(str(value), inputs) for key, value in (step.get("env") or {}).items()})
        directory = cwd / self.evaluate(step.get("working-directory", "."), inputs)
        completed = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=directory,
                                   env=env, capture_output=True, text=True, timeout=600)
        for line in self.github_env.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            self.job_env[key] = value
        return completed

    def setup_python(self, step: dict[str, Any]) -> None:
        assert step["uses"].startswith("actions/setup-python@")
        # the job's own Python is left as it was
        assert step["with"]["update-environment"] is False
        self.outputs[step["id"]] = {"python-path": sys.executable}


STEPS = ACTION["runs"]["steps"]


def test_the_action_is_composite_and_pastes_no_input_into_a_script() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert [step.get("uses", "run").split("@")[0] for step in STEPS] == ["actions/setup-python", "run", "run"]
    for step in STEPS:
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"]  # inputs reach the scripts as environment variables only


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    runner = Runner(tmp_path_factory.mktemp("runner"))
    (runner.temp / "user-skills").mkdir()
    runner.setup_python(STEPS[0])
    completed = runner.run(STEPS[1], {}, runner.temp)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "SKILL_LSP_VENV_PYTHON" in runner.job_env
    assert Path(runner.job_env["SKILL_LSP_VENV_PYTHON"]).is_relative_to(runner.temp)  # its own environment
    return runner


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


BROKEN = {".agentdeck/skills/quote-fare/SKILL.md": "---\nname: quote-fare\n---\n\nQuote it.\n"}
WARNED = {".agentdeck/skills/quote-fare/SKILL.md": "---\nname: quote-fare\ndescription: Quote a fare.\nlicence: MIT\n---\n\nQuote.\n"}


def test_the_check_step_annotates_errors_and_fails(installed: Runner, tmp_path: Path) -> None:
    root = project(tmp_path / "repo", BROKEN)
    completed = installed.run(STEPS[2], {}, root)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.startswith(
        "::error file=.agentdeck/skills/quote-fare/SKILL.md,line=1,col=1,endLine=1,endColumn=4,title=SK106 ")


def test_warnings_are_annotations_and_fail_the_step_with_strict(installed: Runner, tmp_path: Path) -> None:
    root = project(tmp_path / "repo", WARNED)
    passing = installed.run(STEPS[2], {}, root)
    assert passing.returncode == 0, passing.stderr
    assert passing.stdout.startswith("::warning file=.agentdeck/skills/quote-fare/SKILL.md,line=4,col=1,")
    strict = installed.run(STEPS[2], {"args": "--strict --select SK1"}, root)
    assert strict.returncode == 1 and "SK111" in strict.stdout


def test_paths_and_working_directory(installed: Runner, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    project(root / "app", BROKEN)
    project(root / "docs", {"guide.md": "# Guide\n"})
    clean = installed.run(STEPS[2], {"paths": "docs"}, root)
    assert clean.returncode == 0 and clean.stdout == ""
    both = installed.run(STEPS[2], {"paths": "docs app"}, root)
    assert both.returncode == 1 and "file=app/.agentdeck/skills/quote-fare/SKILL.md" in both.stdout
    inside = installed.run(STEPS[2], {"working-directory": "app"}, root)
    assert inside.returncode == 1 and "file=.agentdeck/skills/quote-fare/SKILL.md" in inside.stdout


def test_the_documented_workflow_steps(installed: Runner, tmp_path: Path) -> None:
    """docs/ci.md's steps as printed: their `with:` inputs (a --strict check of `.`), then with the inputs it
    shows commented out switched on too."""
    text = snippet("github-action")
    steps = yaml.safe_load(text)
    uses = steps[1]["uses"].partition("@")[0]
    assert uses.endswith("/skill-lsp")  # this action: `uses:` checks out this repository
    inputs = {name: str(value) for name, value in steps[1]["with"].items()}
    root = project(tmp_path / "repo", WARNED)
    strict = installed.run(STEPS[2], inputs, root)
    assert strict.returncode == 1, strict.stderr
    assert strict.stdout.startswith("::warning file=.agentdeck/skills/quote-fare/SKILL.md,line=4,col=1,")
    every = yaml.safe_load(re.sub(r"^(\s+)# ([a-z-]+:)", r"\1\2", text, flags=re.MULTILINE))[1]["with"]
    assert set(every) - set(inputs) == {"python-version", "working-directory"}
    again = installed.run(STEPS[2], {name: str(value) for name, value in every.items()}, root)
    assert (again.returncode, again.stdout) == (strict.returncode, strict.stdout)
