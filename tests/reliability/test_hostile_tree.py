"""Hostile trees: symlinks, FIFOs, unreadable and vanishing files, names that try to leave the workspace.

What the analysis opens is recorded with an audit hook (`sys.addaudithook`): the tests
prove that nothing outside the workspace is ever read, rather than only that its
findings do not show.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from skill_lsp import cli, discovery, workspace
from skill_lsp.config import Config
from skill_lsp.rules import run_rules
from skill_lsp.workspace import Workspace

from ..helpers import Project, codes, one, skill_md
from .bounds import assert_bounded, cost


class _Opened:
    """Paths opened (files) and scanned (directories) while `recording`; the hook stays for the session."""

    def __init__(self) -> None:
        self.recording = False
        self.paths: list[tuple[str, str]] = []

    def __call__(self, event: str, args: tuple[object, ...]) -> None:
        if self.recording and event in ("open", "os.scandir") and args and isinstance(args[0], (str, bytes, os.PathLike)):
            self.paths.append((event, os.path.realpath(os.fsdecode(args[0]))))

    def start(self) -> None:
        """Record from now on (after the test has written its files) until the test ends."""
        self.paths = []
        self.recording = True


_OPENED = _Opened()
sys.addaudithook(_OPENED)


@pytest.fixture
def opened() -> Iterator[_Opened]:
    try:
        yield _OPENED
    finally:
        _OPENED.recording = False


def never_touched(opened: _Opened, outside: Path) -> None:
    real = os.path.realpath(outside)
    touched = [(event, path) for event, path in opened.paths if path == real or path.startswith(real + os.sep)]
    assert touched == [], touched


def check(project: Project) -> tuple[list[dict[str, object]], str]:
    result = project.run("check", "--format", "json")
    assert "Traceback" not in result.err, result.err
    assert result.status in (0, 1), result.err
    return result.findings, result.err


BROKEN = "---\nname: wrong-name\n---\n\nSee [gone](scripts/gone.py).\n"


def test_symlinks_out_of_the_workspace_are_never_followed(project: Project, outside: Path, opened: _Opened) -> None:
    project.write({".agentdeck/skills/good/SKILL.md": skill_md(name="good")})
    (outside / "skills/escape").mkdir(parents=True)
    (outside / "skills/escape/SKILL.md").write_text(BROKEN)
    (outside / "SKILL.md").write_text(BROKEN)
    (outside / "agent.py").write_text('from agentdeck import Agent\na = Agent(skills=["nope"])\n')
    skills = project.root / ".agentdeck/skills"
    (skills / "escape").symlink_to(outside / "skills/escape", target_is_directory=True)
    (skills / "filelink").mkdir()
    (skills / "filelink/SKILL.md").symlink_to(outside / "SKILL.md")
    (skills / "device").mkdir()
    (skills / "device/SKILL.md").symlink_to("/dev/zero")
    (project.root / "linked.py").symlink_to(outside / "agent.py")
    (project.root / "everything").symlink_to(outside, target_is_directory=True)
    (project.root / "root").symlink_to("/", target_is_directory=True)
    opened.start()
    findings, _ = check(project)
    assert findings == []
    never_touched(opened, outside)
    assert not any(path.startswith("/dev/") for _, path in opened.paths)


def test_symlink_loops_end(project: Project, tmp_path: Path) -> None:
    project.write({".agentdeck/skills/loop/SKILL.md": BROKEN})
    loop = project.root / ".agentdeck/skills/loop"
    (loop / "again").symlink_to("..", target_is_directory=True)
    (loop / "self").symlink_to("self")
    (loop / "a").symlink_to("b")
    (loop / "b").symlink_to("a")
    (project.root / ".agentdeck/skills/cycle").symlink_to(".", target_is_directory=True)
    (loop / "SKILL.md.link").symlink_to("SKILL.md.link")
    findings, _ = check(project)
    assert sorted(codes(findings)) == ["SK106", "SK108", "SK202"]
    benign = tmp_path / "benign"
    (benign / ".agentdeck/skills/loop").mkdir(parents=True)
    (benign / ".agentdeck/skills/loop/SKILL.md").write_text(BROKEN)
    assert_bounded(cost(lambda: run_rules(Workspace([project.root]).build(), Config())),
                   cost(lambda: run_rules(Workspace([benign]).build(), Config())), "symlink loops")


def test_fifos_and_devices_never_block(project: Project, tmp_path: Path) -> None:
    """A FIFO opened for reading blocks until a writer comes: skill-lsp opens nothing but regular files."""
    project.write({
        ".agentdeck/skills/good/SKILL.md": skill_md(name="good"),
        "shop.py": 'from claude_agent_sdk import ClaudeAgentOptions\n'
                   'o = ClaudeAgentOptions(skills=["plug:x"], plugins=[{"type": "local", "path": "./plug"}])\n',
        "plug/skills/x/SKILL.md": skill_md(name="x"),
    })
    os.mkfifo(project.root / "pyproject.toml")
    (project.root / ".agentdeck/skills/fifo").mkdir()
    os.mkfifo(project.root / ".agentdeck/skills/fifo/SKILL.md")
    os.mkfifo(project.root / "agent.py")
    (project.root / "plug/.claude-plugin").mkdir(parents=True)
    os.mkfifo(project.root / "plug/.claude-plugin/plugin.json")
    env = {**os.environ, "SKILL_LSP_CACHE_DIR": ""}
    result = subprocess.run([sys.executable, "-m", "skill_lsp", "check", "--format", "json", "."], cwd=project.root,
                            env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    # the FIFO pyproject.toml and plugin.json are read as absent; the skill itself is found
    assert result.stdout.strip() == "[]"


def _deny(monkeypatch: pytest.MonkeyPatch, *denied: Path) -> None:
    """Reading these raises PermissionError, as chmod 000 would for a user other than root."""
    names = {os.fspath(path) for path in denied}
    real_open, real_scandir = os.open, os.scandir

    def guarded_open(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) in names:  # type: ignore[arg-type]
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[arg-type]
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    def guarded_scandir(path: object = ".") -> object:
        if os.fspath(path) in names:  # type: ignore[arg-type]
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", guarded_open)
    monkeypatch.setattr(os, "scandir", guarded_scandir)


def _unreadable_project(project: Project) -> tuple[Path, Path, Path]:
    project.write({
        ".agentdeck/skills/locked/SKILL.md": BROKEN,
        ".agentdeck/skills/open/SKILL.md": BROKEN.replace("wrong-name", "open"),
        "vault/.agentdeck/skills/hidden/SKILL.md": BROKEN,
        "agent.py": 'from agentdeck import Agent\na = Agent(skills=["nope"])\n',
    })
    return (project.root / ".agentdeck/skills/locked/SKILL.md", project.root / "vault",
            project.root / "agent.py")


def _expect_unreadable_reported(project: Project, locked: Path, vault: Path, agent: Path) -> None:
    findings, err = check(project)
    assert {f["path"] for f in findings} == {".agentdeck/skills/open/SKILL.md"}
    # named relative to the current directory (the project here), as the findings' paths are
    for path in (locked, vault, agent):
        assert f"skill-lsp: {path.relative_to(project.root).as_posix()}: cannot be read: Permission denied" in err


def test_unreadable_files_and_directories_are_skipped_and_named(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulated (this runs as root here, and chmod does not stop root): see the chmod test below."""
    locked, vault, agent = _unreadable_project(project)
    _deny(monkeypatch, locked, vault, agent)
    _expect_unreadable_reported(project, locked, vault, agent)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="chmod does not stop root")
def test_unreadable_files_and_directories_with_chmod(project: Project) -> None:
    locked, vault, agent = _unreadable_project(project)
    for path in (locked, vault, agent):
        path.chmod(0)
    try:
        _expect_unreadable_reported(project, locked, vault, agent)
    finally:
        for path in (locked, agent):
            path.chmod(0o644)
        vault.chmod(0o755)


def test_files_vanishing_between_listing_and_reading(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write({
        ".agentdeck/skills/gone/SKILL.md": BROKEN,
        ".agentdeck/skills/stays/SKILL.md": BROKEN.replace("wrong-name", "stays"),
        "agent.py": 'from agentdeck import Agent\na = Agent(skills=["gone"])\n',
        "later/.agentdeck/skills/x/SKILL.md": BROKEN,
    })
    real_walk = discovery.walk

    def walk_then_delete(folder: Path, exclude: tuple[str, ...] = (), helpers: int = 0,
                         meanwhile: Callable[[], object] | None = None, keep: tuple[str, ...] = ()) -> discovery.Listing:
        listing = real_walk(folder, exclude, helpers, meanwhile, keep)
        (project.root / ".agentdeck/skills/gone/SKILL.md").unlink(missing_ok=True)
        (project.root / "agent.py").unlink(missing_ok=True)
        return listing

    monkeypatch.setattr(workspace, "walk", walk_then_delete)  # the plain loader's walk
    monkeypatch.setattr(cli, "walk", walk_then_delete)  # check's (it walks before it makes its workspace)
    findings, _ = check(project)
    paths = {f["path"] for f in findings}
    assert ".agentdeck/skills/gone/SKILL.md" not in paths and "agent.py" not in paths
    assert ".agentdeck/skills/stays/SKILL.md" in paths

    # a directory vanishing while it is walked
    real_scandir = os.scandir

    def scandir_then_vanish(path: object = ".") -> object:
        if os.fspath(path).endswith("later"):  # type: ignore[arg-type]
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", os.fspath(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(workspace, "walk", real_walk)
    monkeypatch.setattr(cli, "walk", real_walk)
    monkeypatch.setattr(os, "scandir", scandir_then_vanish)
    findings, err = check(project)
    assert not any(str(f["path"]).startswith("later/") for f in findings)
    assert "later" not in err  # vanished, not unreadable: nothing to say


@pytest.mark.parametrize("name", ["../../etc", "a/b", "..", "/etc/passwd", "a\\\\b", "../outside/skills/x", "~/x", "."])
def test_names_that_look_like_paths_in_agentdeck_lists(project: Project, outside: Path, opened: _Opened, name: str) -> None:
    (outside / "skills/x").mkdir(parents=True)
    (outside / "skills/x/SKILL.md").write_text(BROKEN)
    project.write({
        ".agentdeck/skills/demo/SKILL.md": skill_md(),
        "agent.py": f'from agentdeck import Agent\na = Agent(name="A", skills=["{name}"])\n',
    })
    opened.start()
    findings, _ = check(project)
    finding = one(findings, "AD101")
    assert finding["line"] == 2
    model = Workspace([project.root]).build()
    result = run_rules(model, Config())
    for found in result.values():
        for fix in found:
            for each in fix.fixes:
                assert not each.creates and not each.renames, each
    never_touched(opened, outside)


@pytest.mark.parametrize("name, code", [("../x", "CL103"), ("/x", "CL101"), ("a/../../b", "CL103"), ("x\\\\\\\\y", "CL101")])
def test_names_that_look_like_paths_in_claude_lists(project: Project, outside: Path, opened: _Opened,
                                                    name: str, code: str) -> None:
    project.write({
        ".claude/skills/demo/SKILL.md": skill_md(),
        "shop.py": f'from claude_agent_sdk import ClaudeAgentOptions\no = ClaudeAgentOptions(skills=["{name}"])\n',
    })
    opened.start()
    findings, _ = check(project)
    assert one(findings, code)["line"] == 2
    never_touched(opened, outside)


@pytest.mark.parametrize("name", ["../../evil", "a/b", "..", "/abs", "x\\\\y"])
def test_frontmatter_names_that_look_like_paths(project: Project, name: str) -> None:
    project.write({".agentdeck/skills/demo/SKILL.md": f'---\nname: "{name}"\ndescription: Do it.\n---\n\nBody.\n'})
    findings, _ = check(project)
    assert {"SK108", "SK109"} <= set(codes(findings))
    model = Workspace([project.root]).build()
    for found in run_rules(model, Config()).values():
        for finding in found:
            for fix in finding.fixes:
                assert not fix.renames and not fix.creates, fix  # never "rename the directory to ../../evil"


def test_roots_and_references_outside_the_workspace_are_not_created(project: Project, outside: Path) -> None:
    project.write({
        "agent.py": 'from agentdeck import Agent, Deck\n'
                    f'a = Agent(name="A", skills=["new-skill"])\nd = Deck(agents=[a], skills="{outside}")\n',
        ".agentdeck/skills/demo/SKILL.md": skill_md(body="See [x](../../../../outside/x.md) and [y](scripts/y.py).\n"),
    })
    model = Workspace([project.root]).build()
    results = run_rules(model, Config())
    fixes = [fix for found in results.values() for finding in found for fix in finding.fixes]
    creates = [create.path for fix in fixes for create in fix.creates]
    assert creates == []  # not in the outside root; and no fix creates a missing reference's file (an empty one)


def test_the_server_names_skipped_files_in_its_log(project: Project, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    from skill_lsp.server.session import Session

    locked, vault, agent = _unreadable_project(project)
    _deny(monkeypatch, locked, vault, agent)
    session = Session([project.root])
    with caplog.at_level("WARNING", logger="skill_lsp.server"):
        session.full_analysis()
        session.full_analysis()  # once, not at every analysis
    skipped = [record.getMessage() for record in caplog.records if record.getMessage().startswith("skipped ")]
    assert sorted(skipped) == sorted(f"skipped {path}: cannot be read: Permission denied" for path in (locked, vault, agent))
