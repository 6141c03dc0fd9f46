"""ecosystem/check.py end to end: a tiny repository in a bare git mirror, checked, compared with a baseline, updated."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "ecosystem" / "check.py"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def make_mirror(tmp_path: Path) -> str:
    """A bare repository at mirror/demo+skills/repo whose one skill has no frontmatter (an error for Codex)."""
    work = tmp_path / "work"
    skill = work / ".agents" / "skills" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("# Demo\n\nNo frontmatter at all.\n", encoding="utf-8")
    git("init", "-q", cwd=work)
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "demo", cwd=work)
    mirror = tmp_path / "mirror" / "demo+skills"
    mirror.mkdir(parents=True)
    git("clone", "-q", "--bare", str(work), str(mirror / "repo"), cwd=tmp_path)
    return git("rev-parse", "HEAD", cwd=work)


def run(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), "--repos", str(tmp_path / "repos.toml"), "--baseline",
               str(tmp_path / "baseline.jsonl"), "--mirror", str(tmp_path / "mirror"), "--cache", str(tmp_path / "cache"),
               *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_check_reports_new_findings_then_the_update_makes_a_baseline_that_judging_settles(tmp_path: Path) -> None:
    commit = make_mirror(tmp_path)
    (tmp_path / "repos.toml").write_text(f'[[repo]]\nrepo = "demo/skills"\ncommit = "{commit}"\nlayout = "agents-project"\n')

    first = run(tmp_path)
    assert first.returncode == 1, first.stderr
    assert "new findings (not in the baseline): 1" in first.stdout
    assert "demo/skills:.agents/skills/demo/SKILL.md:1: SK101 error  [unjudged]" in first.stdout
    assert (tmp_path / "cache" / f"demo+skills@{commit[:12]}" / ".agents/skills/demo/SKILL.md").is_file()

    assert run(tmp_path, "--update").returncode == 0
    records = [json.loads(line) for line in (tmp_path / "baseline.jsonl").read_text().splitlines()]
    assert records == [{"repo": "demo/skills", "commit": commit, "path": ".agents/skills/demo/SKILL.md", "line": 1,
                        "code": "SK101", "severity": "error", "verdict": "unjudged", "reason": ""}]

    unjudged = run(tmp_path)
    assert unjudged.returncode == 1  # no difference, but an error nobody judged
    assert "new 0, gone 0, severity changes 0, unjudged errors and warnings 1" in unjudged.stdout

    records[0].update(verdict="true", reason="Codex skips a SKILL.md without frontmatter")
    gone = {**records[0], "path": ".agents/skills/old/SKILL.md"}
    (tmp_path / "baseline.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (records[0], gone)))
    differs = run(tmp_path)
    assert differs.returncode == 1
    assert "gone findings (in the baseline only): 1" in differs.stdout
    assert "demo/skills:.agents/skills/old/SKILL.md:1: SK101 error  [true]" in differs.stdout

    (tmp_path / "baseline.jsonl").write_text(json.dumps(records[0]) + "\n")
    settled = run(tmp_path)
    assert settled.returncode == 0, settled.stdout
    assert "SK101  error" in settled.stdout and "1.00" in settled.stdout  # precision over the judged errors


def test_a_verdict_follows_its_finding_through_a_change_of_severity_and_back() -> None:
    spec = importlib.util.spec_from_file_location("ecosystem_check", SCRIPT)
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    judged = {"severity": "warning", "verdict": "true", "reason": "the file is missing"}

    demoted = check.verdict_for({"severity": "information"}, judged)
    assert demoted == ("-", "was true as warning: the file is missing")
    assert check.verdict_for({"severity": "error"}, {"severity": "information", "verdict": demoted[0], "reason": demoted[1]}) == (
        "unjudged", "was true as warning: the file is missing")
    back = check.verdict_for({"severity": "warning"}, {"severity": "information", "verdict": demoted[0], "reason": demoted[1]})
    assert back == ("true", "the file is missing")
    assert check.verdict_for({"severity": "warning"}, None) == ("unjudged", "")
    assert check.verdict_for({"severity": "hint"}, None) == ("-", "")
