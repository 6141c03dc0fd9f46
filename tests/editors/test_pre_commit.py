"""The pre-commit hook (.pre-commit-hooks.yaml) run by the real pre-commit: through `pre-commit try-repo`, and
from the .pre-commit-config.yaml docs/ci.md prints (its repository URL led to a local repository by git's
`url.<base>.insteadOf`, everything else as printed).

try-repo clones a git repository at HEAD, installs it into a fresh virtualenv with pip and runs the hook.
So that the test checks this working tree and not whatever was last committed, it builds a temporary
repository from the checkout's files (tracked and untracked, minus ignored ones) and commits them.
pre-commit installs the package with pip, which needs the dependencies from the package index.
try-repo builds the hook's environment in a temporary store every time (PRE_COMMIT_HOME does not keep
it), so what repeated runs reuse are pip's downloads and virtualenv's seed wheels, cached under
$SKILL_LSP_PRE_COMMIT_CACHE (default ~/.cache/skill-lsp-pre-commit); each run still takes 10-20 s.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.docs import snippet
from tests.helpers import copy_working_tree

HERE = Path(__file__).parent
REPO = HERE.parent.parent
PROJECT = HERE / "project"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None,
                       reason="pre-commit is not installed (pip install pre-commit, or the 'test' extra)"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH"),
]

SKILL = ".agentdeck/skills/broken/SKILL.md"
AGENT = ".agentdeck/agents/booking/agent.py"


def cache_dir() -> Path:
    configured = os.environ.get("SKILL_LSP_PRE_COMMIT_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "skill-lsp-pre-commit"


def git_env() -> dict[str, str]:
    """git without the developer's or the system's configuration, with a fixed identity."""
    env = dict(os.environ)
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="skill-lsp tests", GIT_AUTHOR_EMAIL="tests@skill-lsp.invalid",
               GIT_COMMITTER_NAME="skill-lsp tests", GIT_COMMITTER_EMAIL="tests@skill-lsp.invalid")
    return env


def git(cwd: Path, *args: str) -> str:
    completed = subprocess.run(["git", *args], cwd=cwd, env=git_env(), capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, f"git {' '.join(args)}: {completed.stderr}"
    return completed.stdout


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--no-verify", "-m", message)


@pytest.fixture
def hook_repo(tmp_path: Path) -> Path:
    """A git repository holding this checkout's working tree, committed."""
    target = copy_working_tree(tmp_path / "skill-lsp")
    assert (target / ".pre-commit-hooks.yaml").is_file()
    git(target, "init", "--quiet", "--initial-branch=main")
    commit_all(target, "skill-lsp working tree")
    return target


@pytest.fixture
def checked_repo(tmp_path: Path) -> Path:
    """A user's repository: a SKILL.md without a description and an agent listing a misspelt skill."""
    target = tmp_path / "bookings"
    shutil.copytree(PROJECT, target)
    git(target, "init", "--quiet", "--initial-branch=main")
    commit_all(target, "a broken skill and an agent")
    return target


def hook_env(scratch: Path, store: Path) -> dict[str, str]:
    """pre-commit's environment: its store, pip's and virtualenv's caches; skill-lsp's own files (user
    skills, its check cache) in scratch."""
    cache = cache_dir()
    env = git_env()
    env.update(PRE_COMMIT_HOME=str(store), PIP_CACHE_DIR=str(cache / "pip"),
               VIRTUALENV_OVERRIDE_APP_DATA=str(cache / "virtualenv"), PRE_COMMIT_COLOR="never",
               NO_COLOR="1", SKILL_LSP_USER_SKILLS_DIR=str(scratch / "user-skills"),
               XDG_CACHE_HOME=str(scratch / "cache"))
    return env


def try_repo(hook_repo: Path, checked_repo: Path, scratch: Path) -> subprocess.CompletedProcess[str]:
    """Run the hook through try-repo; skill-lsp's own files (user skills, its check cache) stay in scratch."""
    env = hook_env(scratch, cache_dir() / "pre-commit")
    try:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "skill-lsp", "--all-files", "--color", "never"],
            cwd=checked_repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=480)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"pre-commit try-repo did not finish in 480 s; output: {error.stdout!r} {error.stderr!r}")


DOCUMENTED = snippet("pre-commit")  # docs/ci.md's .pre-commit-config.yaml, as printed
DOCUMENTED_REPO = yaml.safe_load(DOCUMENTED)["repos"][0]


def as_documented(hook_repo: Path) -> dict[str, str]:
    """git settings under which the documented repository URL leads to hook_repo (pre-commit passes
    GIT_CONFIG_COUNT/KEY/VALUE to git), and the documented rev names hook_repo's commit: the branch `main`,
    or a tag this repository really has."""
    rev = DOCUMENTED_REPO["rev"]
    if rev != "main":
        tagged = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/tags/{rev}"], cwd=REPO,
                                capture_output=True, text=True, timeout=60)
        assert tagged.returncode == 0, f"docs/ci.md names rev {rev!r}, which is no tag of this repository"
        git(hook_repo, "tag", rev)
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{hook_repo}.insteadOf",
            "GIT_CONFIG_VALUE_0": DOCUMENTED_REPO["repo"]}


def pre_commit(hook_repo: Path, checked_repo: Path, scratch: Path, config: str,
               *command: str) -> subprocess.CompletedProcess[str]:
    """`pre-commit COMMAND` in checked_repo with this .pre-commit-config.yaml, its repository URL leading to
    hook_repo."""
    (checked_repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    commit_all(checked_repo, "pre-commit configuration")
    # a store of its own: the hook environment is built for the commit of hook_repo, once per test
    env = {**hook_env(scratch, scratch / "pre-commit"), **as_documented(hook_repo)}
    try:
        return subprocess.run([sys.executable, "-m", "pre_commit", *command], cwd=checked_repo, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=480)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"pre-commit {' '.join(command)} did not finish in 480 s; output: {error.stdout!r} {error.stderr!r}")


RUN = ("run", "--all-files", "--color", "never")


def test_warnings_are_shown_by_a_passing_hook_and_fail_it_with_strict(hook_repo: Path, tmp_path: Path) -> None:
    """pre-commit hides a passing hook's output unless the hook is verbose: a warning must still be seen."""
    scratch = tmp_path / "scratch"
    (scratch / "user-skills").mkdir(parents=True)
    repo = tmp_path / "warned"
    skill = repo / ".agentdeck/skills/quote-fare/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: quote-fare\ndescription: Quote a fare.\nlicence: MIT\n---\n\nQuote it.\n",
                     encoding="utf-8")
    git(repo, "init", "--quiet", "--initial-branch=main")
    commit_all(repo, "a skill with a warning")

    passing = pre_commit(hook_repo, repo, scratch, DOCUMENTED, *RUN)
    output = passing.stdout + passing.stderr
    assert passing.returncode == 0, output
    assert "Passed" in output, output
    assert ".agentdeck/skills/quote-fare/SKILL.md:4:1: SK111 [warning]" in output, output

    # the documented snippet with its `# args: [--strict]` line switched on
    assert "        # args: [--strict]" in DOCUMENTED
    strict = pre_commit(hook_repo, repo, scratch, DOCUMENTED.replace("# args: [--strict]", "args: [--strict]"), *RUN)
    output = strict.stdout + strict.stderr
    assert strict.returncode == 1, output
    assert "Failed" in output and "SK111 [warning]" in output, output


def test_the_hook_fails_on_findings_and_passes_once_they_are_fixed(hook_repo: Path, checked_repo: Path,
                                                                    tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    (scratch / "user-skills").mkdir(parents=True)

    failing = try_repo(hook_repo, checked_repo, scratch)
    output = failing.stdout + failing.stderr
    assert failing.returncode == 1, output
    assert "skill-lsp" in output and "Failed" in output, output
    assert f"{SKILL}:1:1: SK106" in output, output
    assert f"{AGENT}:3:101: AD101" in output, output

    skill = checked_repo / SKILL
    skill.write_text(skill.read_text(encoding="utf-8").replace(
        "name: broken\n", "name: broken\ndescription: Shows that the hook passes once the description is there.\n"),
        encoding="utf-8")
    agent = checked_repo / AGENT
    agent.write_text(agent.read_text(encoding="utf-8").replace(', "parse-reqest"', ''), encoding="utf-8")
    commit_all(checked_repo, "fix the skill and the agent")

    passing = try_repo(hook_repo, checked_repo, scratch)
    output = passing.stdout + passing.stderr
    assert passing.returncode == 0, output
    assert "Passed" in output, output
    assert "SK106" not in output and "AD101" not in output, output


def test_autoupdate_pins_the_documented_rev_to_a_commit(hook_repo: Path, checked_repo: Path, tmp_path: Path) -> None:
    """docs/ci.md: `pre-commit autoupdate` replaces `main` with the commit it names, and the hook still runs."""
    scratch = tmp_path / "scratch"
    (scratch / "user-skills").mkdir(parents=True)
    updated = pre_commit(hook_repo, checked_repo, scratch, DOCUMENTED, "autoupdate")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    config = (checked_repo / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    head = git(hook_repo, "rev-parse", "HEAD").strip()
    expected = head if DOCUMENTED_REPO["rev"] == "main" else DOCUMENTED_REPO["rev"]
    assert yaml.safe_load(config)["repos"][0]["rev"] == expected
    pinned = pre_commit(hook_repo, checked_repo, scratch, config, *RUN)
    output = pinned.stdout + pinned.stderr
    assert pinned.returncode == 1 and f"{SKILL}:1:1: SK106" in output, output
    assert "mutable reference" not in output, output
