"""The command line guides a person: usage errors, empty or wrong paths, the server started in a
terminal, progress on a terminal, and `rules` with the prefixes --select takes."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from .helpers import Project, skill_md


def test_an_empty_folder_is_not_all_checks_passed(project: Project) -> None:
    (project.root / "docs").mkdir()
    result = project.run("check", "docs")
    assert result.status == 0
    assert "All checks passed" not in result.out
    assert result.err == "skill-lsp: warning: no SKILL.md or agent definition found under docs\n"


def test_a_path_that_does_not_exist_is_a_usage_error_with_the_usage(project: Project) -> None:
    result = project.run("check", "skils")
    assert result.status == 2
    assert result.err.startswith("usage: skill-lsp check [-h]")
    assert result.err.rstrip("\n").endswith("skill-lsp check: error: skils: no such file or directory")


def test_a_user_skills_dir_that_does_not_exist_is_reported(project: Project) -> None:
    project.write({".agentdeck/skills/demo/SKILL.md": skill_md("demo")})
    result = project.run("check", "--user-skills-dir", "no-such-dir")
    assert result.status == 2
    assert result.err.rstrip("\n").endswith("skill-lsp check: error: --user-skills-dir no-such-dir: no such directory")
    assert project.run("disclosure", ".agentdeck/skills/demo/SKILL.md", "--user-skills-dir", "nope").status == 2


def test_rules_takes_a_prefix_as_select_does(project: Project) -> None:
    result = project.run("rules", "SK1")
    assert result.status == 0
    listed = [line.split()[0] for line in result.out.splitlines()]
    assert listed and all(code.startswith("SK1") for code in listed)
    assert "SK101" in listed and len(listed) > 1
    assert project.run("rules", "sk1").out == result.out
    assert project.run("rules", "SK101").out.startswith("SK101 ")  # one rule: its whole entry


def test_rules_with_an_unknown_code_prints_the_usage(project: Project) -> None:
    result = project.run("rules", "XY9")
    assert result.status == 2
    assert result.err.startswith("usage: skill-lsp rules [-h]")
    assert "skill-lsp rules: error: unknown rule 'XY9'" in result.err


def _read_until(fd: int, needle: bytes, seconds: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_the_server_started_in_a_terminal_says_what_it_is_and_one_ctrl_c_ends_it(tmp_path: Path) -> None:
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "skill_lsp"], stdin=terminal, stdout=subprocess.PIPE,
                               stderr=terminal, cwd=tmp_path)
    os.close(terminal)
    try:
        said = _read_until(controller, b"Ctrl-C", 60)
        assert b"skill-lsp is a language server" in said
        assert b"skill-lsp check ." in said and b"skill-lsp --help" in said
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
        rest = _read_until(controller, b"Traceback", 1)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    assert status == 130
    assert b"Traceback" not in rest and b"KeyboardInterrupt" not in rest
    assert process.stdout is not None and process.stdout.read() == b""  # stdout is the protocol's: nothing on it


def test_the_server_under_an_editor_says_nothing(tmp_path: Path) -> None:
    completed = subprocess.run([sys.executable, "-m", "skill_lsp"], input=b"", capture_output=True, cwd=tmp_path,
                               timeout=60)
    assert b"language server" not in completed.stderr


def test_progress_shows_on_a_terminal_and_is_erased(project: Project) -> None:
    project.write({f".agentdeck/skills/s{number}/SKILL.md": skill_md(f"s{number}") for number in range(30)})
    controller, terminal = pty.openpty()
    env = {**os.environ, "SKILL_LSP_PROGRESS_DELAY": "0", "TERM": "xterm"}
    process = subprocess.Popen([sys.executable, "-m", "skill_lsp", "check", "--no-cache", "."], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=terminal, cwd=project.root, env=env)
    os.close(terminal)
    try:
        out, _ = process.communicate(timeout=120)
        seen = _read_until(controller, b"\r\x1b[K\x00", 2)  # everything the terminal got
    finally:
        os.close(controller)
    assert process.returncode == 0
    assert b"skill-lsp: checking . \xe2\x80\x94 " in seen
    assert seen.endswith(b"\r\x1b[K")  # the line is gone before the report
    assert out == b"All checks passed (30 skills, 0 agent definitions).\n"  # stdout carries none of it


def test_no_progress_when_stderr_is_not_a_terminal(project: Project) -> None:
    project.write({".agentdeck/skills/demo/SKILL.md": skill_md("demo")})
    completed = subprocess.run([sys.executable, "-m", "skill_lsp", "check", "--no-cache"], capture_output=True,
                               cwd=project.root, env={**os.environ, "SKILL_LSP_PROGRESS_DELAY": "0"}, timeout=120)
    assert completed.stderr == b""


def test_files_that_define_no_agent_pass_without_a_word(project: Project) -> None:
    """What pre-commit passes: changed files, some of which define no agent; that is no wrong path."""
    project.write({"helpers.py": "def helper():\n    return 1\n"})
    result = project.run("check", "--quiet", "helpers.py")
    assert (result.status, result.out, result.err) == (0, "", "")


def test_paths_in_messages_have_the_base_of_the_line(project: Project) -> None:
    """Run from above the project, the roots a message names are relative to the current directory, like
    the path:line:col in front of it (the editor shows them relative to the workspace folder)."""
    project.write({".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request"),
                   "agent.py": 'from agentdeck import Agent, Deck\n\nbooking = Agent(name="B", skills=["parse-reqest"])\n'
                               'deck = Deck(agents=[booking], skills="./skills")\n',
                   "shop.py": 'from claude_agent_sdk import ClaudeAgentOptions\n\no = ClaudeAgentOptions(skills=["refund"], '
                              'setting_sources=["project"])\n',
                   ".claude/skills/refund-policy/SKILL.md": skill_md("refund-policy")})
    inside = project.run("check").out
    assert "AD103 [error] the skill root 'skills' does not exist (resolved against proj/ and the workspace); the Deck " \
        "finds no skills there" in inside
    assert "no discovered skill is named 'refund' (searched .claude/skills);" in inside
    above = project.run("check", "proj", cwd=project.root.parent).out
    assert "proj/agent.py:4:38: AD103 [error] the skill root 'proj/skills' does not exist (resolved against proj/ and " \
        "the workspace); the Deck finds no skills there" in above
    assert "proj/shop.py:3:32: CL103 [warning] no discovered skill is named 'refund' (searched proj/.claude/skills);" in above


# Every path a message names, whatever rule writes it: another file's Deck, a mislabelled skill's directory, the
# other copy of a duplicate, the root a skill is nested below, where a reference out of the skill leads.
PATHS_IN_MESSAGES = {
    "pkg/__init__.py": "",
    "pkg/booking.py": 'from agentdeck import Agent\n\nbooking = Agent(name="B", skills=["quote-fare", "quote-fair", '
                      '"confirm-booking"])\n',
    "pkg/deck.py": 'from agentdeck import Deck\nfrom .booking import booking\n\ndeck = Deck(agents=[booking], '
                   'skills=["./skills", "./more"])\n',
    "pkg/skills/quote-fare/SKILL.md": skill_md("quote-fare"),
    "pkg/more/quote-fare/SKILL.md": skill_md("quote-fare"),
    "pkg/skills/confirm-booking/SKILL.md": skill_md("confirm_booking"),
    ".claude/skills/group/inner/SKILL.md": skill_md("inner"),
    ".claude/skills/writer/SKILL.md": skill_md("writer", body="Read [the guide](../../shared/guide.md).\n"),
}


def _messages(out: str) -> dict[tuple[str, str], str]:
    """(path, code) -> message of each finding line (the first of a path and code)."""
    found: dict[tuple[str, str], str] = {}
    for line in out.splitlines():
        head, _, message = line.partition("] ")
        parts = head.split(":")
        if len(parts) >= 4:
            found.setdefault((parts[0], parts[3].split()[0]), message)
    return found


def test_every_path_in_a_message_has_the_base_of_its_line(project: Project) -> None:
    """Run inside the project and from above it, each path inside a message is relative to the current directory,
    as the path:line:col in front of it."""
    project.write(PATHS_IN_MESSAGES)
    for cwd, base in ((project.root, ""), (project.root.parent, "proj/")):
        out = project.run("check", *(["proj"] if base else []), cwd=cwd).out
        messages = _messages(out)
        assert (f"no skill of the Deck at {base}pkg/deck.py:4 has that name (roots: {base}pkg/skills, {base}pkg/more)"
                in messages[(f"{base}pkg/booking.py", "AD101")]), out
        assert any(f"the skill in {base}pkg/skills/confirm-booking/ is named 'confirm_booking'" in line
                   for line in out.splitlines() if line.startswith(f"{base}pkg/booking.py:3:")), out
        assert f"also defined at {base}pkg/more/quote-fare/SKILL.md;" in messages[(f"{base}pkg/skills/quote-fare/SKILL.md", "SK301")]
        assert (f"nested below the root {base}.claude/skills/ — roots are scanned direct-child only, so move it to "
                f"{base}.claude/skills/inner/SKILL.md" in messages[(f"{base}.claude/skills/group/inner/SKILL.md", "SK302")])
        assert (f"from the skill directory it leads to {base}.claude/shared/guide.md, which does not exist"
                in messages[(f"{base}.claude/skills/writer/SKILL.md", "SK202")])
        assert str(project.root) not in out


def test_a_deck_in_the_same_file_is_named_by_its_line(project: Project) -> None:
    project.write({".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request"),
                   "app/agent.py": 'from agentdeck import Agent, Deck\n\nbooking = Agent(name="B", skills=["parse-reqest"])\n'
                                   'deck = Deck(agents=[booking], skills="../.agentdeck/skills")\n'})
    out = project.run("check", "--quiet", cwd=project.root / "app").out
    assert out.startswith("agent.py:3:35: AD101 [error] unknown skill 'parse-reqest': no skill of the Deck at line 4 has that "
                          f"name (roots: {project.root / '.agentdeck/skills'})"), out  # outside the current directory
