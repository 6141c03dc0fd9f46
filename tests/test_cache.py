"""`skill-lsp check`'s cache: reused while files are unchanged, never wrong when they change,
harmless when corrupt, bypassed by --no-cache, and kept out of the real home by SKILL_LSP_CACHE_DIR."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from skill_lsp import parallel
from skill_lsp.index import SkillJob

from .helpers import Finding, Project, codes, skill_md, wait_for


def age(root: Path, seconds: float = 60) -> None:
    """Files written just now are not cached (their mtime may not move on the next write); nor is a
    whole outcome that looked into a directory made just now (the tests' empty user skills directory)."""
    past = time.time() - seconds
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            os.utime(Path(base, name), (past, past))
    os.utime(root, (past, past))
    user = os.environ.get("SKILL_LSP_USER_SKILLS_DIR")
    if user and os.path.isdir(user) and not Path(user).is_relative_to(root):
        age(Path(user), seconds)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    location = tmp_path / "cache"
    monkeypatch.setenv("SKILL_LSP_CACHE_DIR", str(location))
    return location


FILES = {
    ".agentdeck/skills/refund/SKILL.md": skill_md("refund", "Refund a booking.", body="See [guide](references/guide.md).\n"),
    ".agentdeck/skills/quote/SKILL.md": skill_md("quote", "Quote a fare.", extra="licence: MIT"),
    "agents/booking.py": 'from agentdeck import Agent\n\nbooking = Agent(name="b", instructions="x", skills=["refund", "quot"])\n',
}


def test_a_warm_run_reports_what_a_cold_one_does(project: Project, cache: Path) -> None:
    project.write(FILES)
    age(project.root)
    cold = project.check("--no-cache")
    assert not cache.exists()
    first = project.check()
    assert list(cache.glob("*.pickle"))
    assert project.check() == first == cold
    assert sorted(codes(cold)) == ["AD101", "SK111", "SK202"]


def test_an_edit_after_the_cache_was_written_is_seen(project: Project, cache: Path) -> None:
    project.write(FILES)
    age(project.root)
    project.check()
    project.write({".agentdeck/skills/quote/SKILL.md": skill_md("quote", "Quote a fare.")})
    assert sorted(codes(project.check())) == ["AD101", "SK202"]
    # a file created beside a skill answers its broken link, though the SKILL.md did not change
    project.write({".agentdeck/skills/refund/references/guide.md": "# Guide\n"})
    assert codes(project.check()) == ["AD101"]


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05garbage", b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00N."])
def test_a_corrupt_cache_is_ignored_and_replaced(project: Project, cache: Path, content: bytes) -> None:
    project.write(FILES)
    age(project.root)
    expected = project.check("--no-cache")
    project.check()
    for file in cache.glob("*.pickle"):
        file.write_bytes(content)
    assert project.check() == expected
    assert all(file.read_bytes() != content for file in cache.glob("*.pickle"))


def test_an_empty_setting_turns_the_cache_off(project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SKILL_LSP_CACHE_DIR", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    project.write(FILES)
    age(project.root)
    project.check()
    assert not (tmp_path / "home").exists() and not (tmp_path / "xdg").exists()


def test_a_skill_too_large_to_read_is_reported_with_and_without_the_cache(project: Project, cache: Path) -> None:
    from skill_lsp.textutil import MAX_FILE_BYTES

    project.write(FILES)
    project.write({".agentdeck/skills/huge/SKILL.md": skill_md("huge", "Do it.", body="x" * (MAX_FILE_BYTES + 1))})
    age(project.root)
    without = project.check("--no-cache")
    assert "SK203" in codes(without)
    assert project.check() == without == project.check()


def test_profile_prints_the_phases(project: Project, cache: Path) -> None:
    project.write(FILES)
    result = project.run("check", "--profile", "-q")
    for phase in ("walk", "parse python", "parse skills", "build model", "rules", "output"):
        assert phase in result.err


def test_worker_processes_report_what_one_process_does(project: Project, cache: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Big workspaces are analysed by the process pool's workers, some files before the Python files
    are read (their place could still change); the findings are the same as one process finds."""

    files = dict(FILES)
    for number in range(40):
        name = f"skill-{number:02d}"
        broken = number % 7 == 0
        # .claude/skills is analysed early, then claimed by a Deck: its early analyses are thrown away
        root = (".agentdeck/skills", ".claude/skills", "skills")[number % 3]
        files[f"{root}/{name}/SKILL.md"] = skill_md(
            name if not broken else name + "-x", "Do it: now." if number % 5 == 0 else "Do it.",
            body="See [x](references/x.md).\n" if broken else "Body.\n", extra="licence: MIT" if number % 4 == 0 else "")
        files[f"agents/agent_{number:02d}.py"] = (
            'from agentdeck import Agent\n\n'
            f'a = Agent(name="a{number}", instructions="x", skills=["{name}", "skill-{number + 1:02d}"])\n')
    files["agents/deck.py"] = 'from agentdeck import Deck\n\ndeck = Deck(skills=["skills", "../.claude/skills"])\n'
    project.write(files)
    age(project.root)
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 10**9)
    alone = project.check("--no-cache")
    # each batch of jobs given to the pool: (jobs, whether the pool was started for them)
    batches: list[tuple[int, bool]] = []
    real_submit = parallel.Analyser._submit

    def counting_submit(self: parallel.Analyser, chunks: list[object], jobs: list[object]) -> None:
        starting = self.pool is None
        real_submit(self, chunks, jobs)  # type: ignore[arg-type]
        if self.pool is not None:
            batches.append((len(jobs), starting))

    monkeypatch.setattr(parallel.Analyser, "_submit", counting_submit)
    assert project.check("--no-cache") == alone
    assert not batches  # the baseline really ran in one process
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 3)
    monkeypatch.setattr(parallel, "CHUNK", 2)  # many chunks, shared out as the processes go
    # and the walk shared with a forked helper from the first root with 8 skills on
    from skill_lsp import discovery

    monkeypatch.setattr(discovery, "FORK_FROM", 8)
    monkeypatch.setattr(discovery, "SHARE_FROM", 4)
    walks: list[bool] = []  # whether each walk was shared with a pool
    real_stop = discovery._Walker.stop

    def counting_stop(self: discovery._Walker) -> None:
        walks.append(self.deal is not None)
        real_stop(self)

    monkeypatch.setattr(discovery._Walker, "stop", counting_stop)
    assert project.check("--no-cache") == alone
    assert walks and walks[0]  # the walk was shared
    # early: the skills of conventional roots, the pool started for them; then, sent to the same
    # pool's workers, those the Deck claimed (.claude/skills) or placed (skills)
    skill_files = [path for path in files if path.endswith("/SKILL.md")]
    conventional = [path for path in skill_files if path.startswith((".agentdeck/", ".claude/", ".agents/"))]
    claimed = [path for path in skill_files if path.startswith((".claude/skills/", "skills/"))]
    assert batches == [(len(conventional), True), (len(claimed), False)]
    batches.clear()
    assert project.check() == alone  # filling the cache from the workers' results
    assert batches
    assert {"SK103", "SK108", "SK111", "SK202", "AD101"} <= set(codes(alone))


def _alone_then_forking(project: Project, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> list[Finding]:
    """files written, and what one process finds in them; from then on, checks give a handful of
    skills to the process pool, two skills a chunk."""
    project.write(files)
    age(project.root)
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 10**9)
    alone = project.check("--no-cache")
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 3)
    monkeypatch.setattr(parallel, "CHUNK", 2)
    return alone


@pytest.mark.parametrize("death", ["at its first skill", "after some chunks", "on the jobs sent after the fork"])
def test_a_worker_that_dies_leaves_what_it_did_not_finish_to_the_parent(project: Project, cache: Path,
                                                                        monkeypatch: pytest.MonkeyPatch, death: str) -> None:
    """A worker that dies breaks the pool: every chunk no worker finished is analysed here, and the
    findings are one process's."""
    import os

    files = dict(FILES)
    for number in range(60):
        root = ".agentdeck/skills" if number % 3 or death != "on the jobs sent after the fork" else "skills"
        files[f"{root}/s-{number:02d}/SKILL.md"] = skill_md(
            f"s-{number:02d}" if number % 9 else f"s-{number:02d}-x", "Do it: now." if number % 11 == 0 else "Do it.")
    if death == "on the jobs sent after the fork":
        files["agents/deck.py"] = 'from agentdeck import Deck\n\ndeck = Deck(skills=["../skills"])\n'
    alone = _alone_then_forking(project, monkeypatch, files)
    parent = os.getpid()
    analysed: list[int] = []  # (in each worker, its own count)
    died = project.root.parent / "a worker died"  # (a worker's list is not this process's)
    real_analyse = parallel.analyse_skill

    def die() -> None:
        died.touch()
        os._exit(1)

    def dying(job: SkillJob, *args: object) -> object:
        if os.getpid() != parent:
            analysed.append(1)
            sent = ".agentdeck" not in str(job.path)  # a skill the Deck claims: placed after the fork
            if death == "at its first skill" or (death == "after some chunks" and len(analysed) == 3) or (
                    death == "on the jobs sent after the fork" and sent):
                die()
        else:
            # this process's first analysis waits for the worker to say it reached the point meant (and
            # died there): meanwhile the worker is given every chunk but the one this process holds
            wait_for(died.exists)
        return real_analyse(job, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "analyse_skill", dying)
    assert project.check("--no-cache") == alone
    assert died.exists()  # it did die, mid-check


def phases(project: Project, *args: str) -> str:
    return project.run("check", "--profile", "-q", *args).err


def test_an_unchanged_tree_reuses_the_whole_outcome_without_analysing(project: Project, cache: Path) -> None:
    project.write(FILES)
    age(project.root)
    first = project.check()
    assert "parse skills" in phases(project, "--no-cache")
    warm = phases(project)
    assert "compare outcome" in warm and "parse skills" not in warm and "walk" not in warm
    assert project.check() == first


@pytest.mark.parametrize("change", ["content, same size and mtime", "new file beside a skill", "deleted skill",
                                    "new skill in a new directory", "renamed python file", "settings"])
def test_any_change_the_outcome_depends_on_is_seen(project: Project, cache: Path, change: str) -> None:
    project.write(FILES)
    age(project.root)
    project.check()
    args: tuple[str, ...] = ()
    if change == "content, same size and mtime":
        path = project.root / ".agentdeck/skills/quote/SKILL.md"
        status = path.stat()
        path.write_text(path.read_text().replace("licence", "license"))
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
        expected = ["AD101", "SK202"]
    elif change == "new file beside a skill":
        project.write({".agentdeck/skills/refund/references/guide.md": "# Guide\n"})
        expected = ["AD101", "SK111"]
    elif change == "deleted skill":
        (project.root / ".agentdeck/skills/quote/SKILL.md").unlink()
        (project.root / ".agentdeck/skills/quote").rmdir()
        expected = ["AD101", "SK202"]
    elif change == "new skill in a new directory":
        project.write({".agentdeck/skills/quot/SKILL.md": skill_md("quot", "Quote.")})
        expected = ["SK111", "SK202"]
    elif change == "renamed python file":
        (project.root / "agents/booking.py").rename(project.root / "agents/booking.txt")
        expected = ["SK111", "SK202"]
    else:
        args = ("--ignore", "SK111")
        expected = ["AD101", "SK202"]
    age(project.root)  # old timestamps: only the comparison can tell
    assert sorted(codes(project.check(*args))) == sorted(expected)
    assert project.check(*args) == project.check("--no-cache", *args)


def test_a_path_looked_up_outside_the_tree_is_watched_too(project: Project, cache: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user-skills"
    monkeypatch.setenv("SKILL_LSP_USER_SKILLS_DIR", str(user))
    project.write({
        ".claude/skills/local/SKILL.md": skill_md("local", "Local."),
        "agent.py": 'from claude_agent_sdk import ClaudeAgentOptions\n\n'
                    'options = ClaudeAgentOptions(skills=["local", "mine"], setting_sources=["user", "project"])\n',
    })
    age(project.root)
    assert "CL103" in codes(project.check())
    (user / "mine").mkdir(parents=True)
    (user / "mine" / "SKILL.md").write_text(skill_md("mine", "Mine."))
    age(user)
    assert "CL103" not in codes(project.check())


def test_an_entry_made_from_an_analysis_is_the_entry_init_makes(tmp_path: Path) -> None:
    from skill_lsp.index import Root, SkillEntry, SkillFacts, SkillJob
    from skill_lsp.model import Profile
    from skill_lsp.pathtext import path_of

    path = path_of(str(tmp_path / ".claude" / "skills" / "pdf" / "skill.md"))
    root = Root(path.parent.parent, Profile.CLAUDE, "claude")
    facts = SkillFacts("pdf", (1, 6, 1, 9), (0, 0, 0, 3), {3: {"SK111"}}, "Read PDFs.")
    findings: list = []
    load = print  # any callable: compared by identity
    made = SkillEntry.analysed(SkillJob(path, root, Profile.CLAUDE, True, True), facts, findings, load)
    expected = SkillEntry(path, None, root, Profile.CLAUDE, misnamed=True, external=True, facts=facts, load=load)
    expected.local_findings = []
    for name in SkillEntry.__slots__:
        assert getattr(made, name) == getattr(expected, name), name
    assert made.local_findings is not findings and made.key == "pdf" and made.directory == path.parent


def test_claude_settings_that_change_the_listing_cap_are_seen(project: Project, cache: Path) -> None:
    # SK110 in a .claude/skills root depends on .claude/settings.json: created, then edited in place
    project.write({".claude/skills/long/SKILL.md": skill_md("long", "a" * 1700)})
    age(project.root)
    assert codes(project.check()) == ["SK110"]
    project.write({".claude/settings.json": '{"skillListingMaxDescChars": 2000}'})
    age(project.root)
    assert project.check() == []
    settings = project.path(".claude/settings.json")
    settings.write_text('{"skillListingMaxDescChars": 1000}', encoding="utf-8")
    past = time.time() - 30  # newer than the cached analysis' view of it, old enough to be cached again
    os.utime(settings, (past, past))
    assert codes(project.check()) == ["SK110"]


def test_a_changed_skill_lsp_of_the_same_version_does_not_read_back_the_old_analyses(tmp_path: Path) -> None:
    """The cache's header holds the code's identity (its modules' sizes and mtimes), not the version alone: an
    edited or reinstalled skill-lsp of the same version (an editable install, a clone between releases) reads
    back nothing its older code analysed."""
    import shutil
    import subprocess
    import sys

    code = tmp_path / "code"
    shutil.copytree(Path(__file__).resolve().parents[1] / "skill_lsp", code / "skill_lsp",
                    ignore=shutil.ignore_patterns("__pycache__"))
    project = tmp_path / "proj"
    (project / ".claude/skills/refunds").mkdir(parents=True)
    (project / ".claude/skills/refunds/SKILL.md").write_text("---\nname: refunds\n---\n\nRefund.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(code), "SKILL_LSP_CACHE_DIR": str(tmp_path / "cache")}

    def check() -> str:
        result = subprocess.run([sys.executable, "-m", "skill_lsp", "check", "."], cwd=project, env=env,
                                capture_output=True, text=True, timeout=120)
        return result.stdout

    first = check()
    assert "Claude Code lists it with the body's first paragraph" in first
    assert check() == first  # the cache answers the same
    rules = code / "skill_lsp/runtimes/claude_code.py"
    rules.write_text(rules.read_text(encoding="utf-8").replace(
        "lists it with the body's first paragraph", "LISTS IT WITH THE BODY'S FIRST PARAGRAPH"), encoding="utf-8")
    assert "Claude Code LISTS IT WITH THE BODY'S FIRST PARAGRAPH" in check()
