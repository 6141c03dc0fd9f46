"""`skill-lsp check`'s cache: reused while files are unchanged, never wrong when they change,
harmless when corrupt, bypassed by --no-cache, and kept out of the real home by SKILL_LSP_CACHE_DIR."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from .helpers import Finding, Project, codes, skill_md


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
    """Big workspaces are analysed by forked workers, some files before the Python files are read
    (their place could still change); the findings are the same as one process finds."""
    from skill_lsp import cache as cache_module

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
    monkeypatch.setattr(cache_module, "PARALLEL_FROM", 10**9)
    alone = project.check("--no-cache")
    forked: list[tuple[int, int]] = []  # (jobs, children) of each batch that forked
    grown: list[int] = []  # the jobs added to a batch whose children were already at work
    real_init = cache_module.Batch.__init__
    real_grow = cache_module.Batch.grow

    def counting_init(self: cache_module.Batch, jobs: list[cache_module.Job], children: int, growing: bool = False) -> None:
        real_init(self, jobs, children, growing)
        if self.streams:
            forked.append((len(jobs), len(self.streams)))

    def counting_grow(self: cache_module.Batch, jobs: list[cache_module.Job]) -> bool:
        added = real_grow(self, jobs)
        if added:
            grown.append(len(jobs))
        return added

    monkeypatch.setattr(cache_module.Batch, "__init__", counting_init)
    monkeypatch.setattr(cache_module.Batch, "grow", counting_grow)
    assert project.check("--no-cache") == alone
    assert not forked  # the baseline really ran in one process
    monkeypatch.setattr(cache_module, "PARALLEL_FROM", 3)
    monkeypatch.setattr(cache_module, "CHUNK", 2)  # many chunks, shared out as the processes go
    # and the walk shared with a forked helper from the first root with 8 skills on
    from skill_lsp import discovery, forks

    monkeypatch.setattr(discovery, "FORK_FROM", 8)
    monkeypatch.setattr(discovery, "SHARE_FROM", 4)
    walks: list[int] = []
    real_collect = discovery._Walker.collect

    def counting_collect(self: discovery._Walker) -> bool:
        shared = real_collect(self)
        walks.append(self.parts)
        return shared

    monkeypatch.setattr(discovery._Walker, "collect", counting_collect)
    assert project.check("--no-cache") == alone
    assert walks and walks[0] >= 2  # the walk was shared
    # early: the skills of conventional roots; then, added to the same children's work, those the
    # Deck claimed (.claude/skills) or placed (skills)
    skill_files = [path for path in files if path.endswith("/SKILL.md")]
    conventional = [path for path in skill_files if path.startswith((".agentdeck/", ".claude/", ".agents/"))]
    claimed = [path for path in skill_files if path.startswith((".claude/skills/", "skills/"))]
    assert [jobs for jobs, _ in forked] == [len(conventional)]
    assert grown == [len(claimed)]
    assert all(children >= 1 for _, children in forked)
    forked.clear()
    grown.clear()
    assert project.check() == alone  # filling the cache from the children's results
    assert forked and grown
    # where the jobs added would not fit a child's pipe at once, they go to children of their own
    forked.clear()
    grown.clear()
    monkeypatch.setattr(forks, "capacity", lambda pipe: 16)
    assert project.check("--no-cache") == alone
    assert [jobs for jobs, _ in forked] == [len(conventional), len(claimed)] and not grown
    assert {"SK103", "SK108", "SK111", "SK202", "AD101"} <= set(codes(alone))


def _alone_then_forking(project: Project, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> list[Finding]:
    """files written, and what one process finds in them; from then on, checks fork children for a
    handful of skills, two skills a chunk."""
    from skill_lsp import cache as cache_module

    project.write(files)
    age(project.root)
    monkeypatch.setattr(cache_module, "PARALLEL_FROM", 10**9)
    alone = project.check("--no-cache")
    monkeypatch.setattr(cache_module, "PARALLEL_FROM", 3)
    monkeypatch.setattr(cache_module, "CHUNK", 2)
    return alone


@pytest.mark.parametrize("death", ["after its first message", "half-way through a message", "before any message",
                                   "no death, a malformed message first"])
def test_a_child_that_dies_leaves_what_it_did_not_send_to_the_parent(project: Project, cache: Path,
                                                                     monkeypatch: pytest.MonkeyPatch, death: str) -> None:
    """A child streams its analyses every few chunks; whatever it took and never sent whole is done here."""
    import os

    from skill_lsp import cache as cache_module
    from skill_lsp import forks

    files = dict(FILES)
    for number in range(60):
        files[f".agentdeck/skills/s-{number:02d}/SKILL.md"] = skill_md(
            f"s-{number:02d}" if number % 9 else f"s-{number:02d}-x", "Do it: now." if number % 11 == 0 else "Do it.")
    alone = _alone_then_forking(project, monkeypatch, files)
    monkeypatch.setattr(cache_module, "CHUNKS_PER_MESSAGE", 2)
    real_send = forks.Sender.send
    sent: list[int] = []

    def dying_send(self: forks.Sender, data: object) -> None:  # runs in the child
        if death == "before any message":
            os._exit(1)
        if death == "no death, a malformed message first" and not sent:
            # wrong chunk numbers, a chunk of the wrong length, items that are not analyses
            real_send(self, {10**6: [], -1: [], "x": [], 0: [1, 2, 3], 1: ["a", (1, 2)], 2: "not a list"})
        elif death == "half-way through a message":
            payload = b"\xff\x00\x00\x00" + b"x" * 10  # says 255 bytes follow, sends 10
            os.write(self.sink, payload)
            os._exit(1)
        real_send(self, data)
        sent.append(1)
        if len(sent) == 1 and death == "after its first message":
            os.set_blocking(self.sink, True)
            self.flush()  # the message whole in the pipe, then the child dies
            os._exit(1)

    monkeypatch.setattr(forks.Sender, "send", dying_send)
    streamed: list[int] = []
    real_take_in = cache_module.Batch._take_in

    def counting_take_in(self: cache_module.Batch, message: object) -> None:
        streamed.append(1)
        real_take_in(self, message)

    monkeypatch.setattr(cache_module.Batch, "_take_in", counting_take_in)
    assert project.check("--no-cache") == alone
    if death == "after its first message":
        assert len(streamed) == 1
    elif death == "no death, a malformed message first":
        assert len(streamed) >= 2  # the malformed one, then the child's own
    else:
        assert not streamed


@pytest.mark.parametrize("failure", ["the jobs come malformed", "the child dies on them", "the pipe closes first"])
def test_jobs_added_to_children_at_work_are_done_here_when_a_child_cannot_take_them(
        project: Project, cache: Path, monkeypatch: pytest.MonkeyPatch, failure: str) -> None:
    """The skills a Deck claims are placed after the children started: they join the children's
    work through a pipe; a child that cannot read them leaves them, and what it took, to the parent."""
    import os

    from skill_lsp import cache as cache_module

    files = dict(FILES)
    for number in range(30):
        files[f"{('.agentdeck/skills', 'skills')[number % 2]}/s-{number:02d}/SKILL.md"] = skill_md(
            f"s-{number:02d}" if number % 7 else f"s-{number:02d}-x", "Do it: now." if number % 11 == 0 else "Do it.")
    files["agents/deck.py"] = 'from agentdeck import Deck\n\ndeck = Deck(skills=["../skills"])\n'
    alone = _alone_then_forking(project, monkeypatch, files)
    real_read = cache_module._read_jobs
    real_framed = cache_module._framed_jobs

    def failing_read(pipe: int) -> list[cache_module.Job] | None:  # runs in the child
        if failure == "the child dies on them":
            os._exit(1)
        jobs = real_read(pipe)
        assert jobs is None if failure == "the jobs come malformed" else True
        return jobs

    def framed(jobs: list[cache_module.Job]) -> bytes:
        message = real_framed(jobs)
        if failure == "the jobs come malformed":
            return message[:4] + b"\x00" * (len(message) - 4)  # the right length, not a pickle
        return message

    grown: list[bool] = []
    real_grow = cache_module.Batch.grow

    def counting_grow(self: cache_module.Batch, jobs: list[cache_module.Job]) -> bool:
        if failure == "the pipe closes first":
            for end in self.growth:
                os.close(end)
            self.growth = [os.open(os.devnull, os.O_WRONLY)]  # writes land nowhere: the child reads an end
        grown.append(real_grow(self, jobs))
        return grown[-1]

    monkeypatch.setattr(cache_module, "_read_jobs", failing_read)
    monkeypatch.setattr(cache_module, "_framed_jobs", framed)
    monkeypatch.setattr(cache_module.Batch, "grow", counting_grow)
    assert project.check("--no-cache") == alone
    assert grown == [True]


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
    from skill_lsp.discovery import path_of
    from skill_lsp.index import Root, SkillEntry, SkillFacts, SkillJob
    from skill_lsp.model import Profile

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
