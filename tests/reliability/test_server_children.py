"""The server's first index of a large workspace, shared with forked children (Linux).

What is asserted is what an editor sees: the diagnostics published by the forked index are those the
serial one publishes (SKILL_LSP_CHILDREN=0), a child killed mid-index changes nothing, no child
outlives the server however it ends, and a file changed on disk while the server indexed (before
its own watcher ran) ends up in the final diagnostics.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from skill_lsp import forks, parallel
from skill_lsp.server import CHILD_NICE
from skill_lsp.server.session import SINCE_MARGIN, Session

from ..helpers import counting_forks, skill_md, wait_for, write_files
from .rpc import Message, RawClient, checked

DEBUG_SERVER = [sys.executable, "-m", "skill_lsp", "serve", "--log-level", "DEBUG"]
# the same server, its head start given a minute to walk instead of HEAD_START_WALK's 0.6 s: on a
# machine busy enough its helpers miss that deadline, and the first index does it all, by design
# (test_a_head_start_whose_walk_outlasts_its_deadline_is_dropped); a test of what the head start
# does must not depend on the machine's load to take it
PATIENT_HEAD_START = [sys.executable, "-c", "from skill_lsp.server import early; early.HEAD_START_WALK = 60.0; "
                      "from skill_lsp.cli import run; run()", "serve", "--log-level", "DEBUG"]
# generous: the process ends in well under a second on an idle machine
EXIT_SECONDS = 15
# how long the test waits for the children to be gone once the server ended: the kernel kills them
# at once (PR_SET_PDEATHSIG, stop_children); a wait, not a bound on the time, which a busy machine
# stretches (the benchmark keeps the figures)
CHILD_GRACE = 30.0

needs_children = pytest.mark.skipif(forks.children_available() == 0,
                                    reason="children are forked on Linux with two cores or more")


def many_skills(root: Path, count: int = 1600) -> dict[str, str]:
    """count skills over three roots (a conventional one analysed early, one a Deck claims after the
    early start, one only the Deck places), a few with findings, and agents naming unknown skills."""
    files: dict[str, str] = {}
    for number in range(count):
        name = f"skill-{number:05d}"
        broken = number % 97 == 0
        where = (".agentdeck/skills", ".claude/skills", "skills")[number % 3]
        files[f"{where}/{name}/SKILL.md"] = skill_md(
            name + "-x" if broken else name, "Do it: now." if number % 211 == 0 else "Do it.",
            body="See [x](references/x.md).\n" if broken else "Body.\n")
    for number in range(0, count, 50):
        files[f"agents/agent_{number:05d}.py"] = (
            "from agentdeck import Agent\n\n"
            f'a = Agent(name="a{number}", instructions="x", skills=["skill-{number:05d}", "nope-{number}"])\n')
    files["agents/deck.py"] = 'from agentdeck import Deck\n\ndeck = Deck(skills=["../skills", "../.claude/skills"])\n'
    write_files(root, files)
    return files


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "many"
    many_skills(root)
    old = time.time() - 60  # older than the clock's granularity: analyses are kept
    for directory, _, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(directory, name), (old, old))
    return root


def start(tmp_path: Path, environment: Path, command: list[str] = DEBUG_SERVER, **env: str) -> RawClient:
    return RawClient(tmp_path, command=command, cwd=tmp_path,
                     env={"SKILL_LSP_USER_SKILLS_DIR": str(environment), **env})


def index(client: RawClient, root: Path) -> dict[str, list[Message]]:
    """Initialize on root (no file watching: the server watches the disk itself), wait for the first
    index, and return the diagnostics it published, by URI."""
    client.initialize(root)
    client.wait_for_index()
    return final_diagnostics(client)


def final_diagnostics(client: RawClient) -> dict[str, list[Message]]:
    latest: dict[str, list[Message]] = {}
    for message in client.notifications("textDocument/publishDiagnostics"):
        latest[message["params"]["uri"]] = message["params"]["diagnostics"]
    return {uri: items for uri, items in latest.items() if items}


def summary(published: dict[str, list[Message]]) -> list[str]:
    """Every diagnostic whole (range, code, message, related information, data), with its file."""
    return sorted(json.dumps([uri, item], sort_keys=True) for uri, items in published.items() for item in items)


def forked(client: RawClient) -> list[int]:
    """The child processes each whole-workspace analysis forked (the server's debug log)."""
    counts = []
    for line in client.stderr().splitlines():
        if "skill_lsp.server DEBUG analysed " in line and "child processes)" in line:
            counts.append(int(line.rsplit("(", 1)[1].split()[0]))
    return counts


@pytest.fixture
def serial_diagnostics(tmp_path: Path, workspace: Path, _isolated_environment: Path) -> dict[str, list[Message]]:
    with checked(start(tmp_path, _isolated_environment, SKILL_LSP_CHILDREN="0")) as serial:
        alone = index(serial, workspace)
        assert forked(serial) == [0]
        assert "head start:" not in serial.stderr()
    return alone


@needs_children
@pytest.mark.parametrize("first", ["initialize", "a notification"])
def test_the_forked_index_publishes_what_the_serial_one_does(tmp_path: Path, workspace: Path, _isolated_environment: Path,
                                                             serial_diagnostics: dict[str, list[Message]], first: str) -> None:
    """With initialize first, the children start before the protocol is imported (the head start);
    after another first message, once the first index has walked the tree."""
    alone = serial_diagnostics
    with checked(start(tmp_path, _isolated_environment, PATIENT_HEAD_START)) as client:
        if first != "initialize":
            client.notify("$/cancelRequest", {"id": 1})  # before initialize: dropped
        shared = index(client, workspace)
        assert forked(client)[0] >= 1, client.stderr()[-2000:]
        assert ("head start:" in client.stderr()) == (first == "initialize")
    assert summary(shared) == summary(alone)
    codes = {str(item["code"]) for items in alone.values() for item in items}
    assert {"SK103", "SK108", "SK202", "AD101"} <= codes, codes


def _children_of(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is pid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _nice(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[16])


def _niceness_once_set(children: list[int], wanted: int, timeout: float = 10) -> dict[int, int]:
    """Each live child's niceness, read again while it is not wanted yet (up to timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        niceness = {}
        for child in children:
            try:
                niceness[child] = _nice(child)
            except OSError:  # ended meanwhile
                pass
        if set(niceness.values()) <= {wanted} or time.monotonic() > deadline:
            return niceness
        time.sleep(0.002)


def _wait_for_children(server: subprocess.Popen[bytes], timeout: float = 60) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = _children_of(server.pid)
        if children:
            return children
        if server.poll() is not None:
            break
        time.sleep(0.002)
    raise AssertionError("the server forked no child during its first index")


@needs_children
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("how", ["stdin closed", "exit", "parent process gone", "server killed"])
def test_no_child_outlives_the_server(tmp_path: Path, _isolated_environment: Path, how: str) -> None:
    root = tmp_path / "big"
    # skills that take about 20 ms each (300 links to missing files): a child sends its analyses every
    # few seconds, so one left running would not die at its next write to the pipe of a dead parent
    body = "".join(f"Step {step}: see [file {step}](references/f{step}.md).\n" for step in range(300))
    write_files(root, {f".agentdeck/skills/skill-{number:05d}/SKILL.md": skill_md(f"skill-{number:05d}", body=body)
                       for number in range(1200)})
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    client = start(tmp_path, _isolated_environment)
    try:
        process_id = parent.pid if how == "parent process gone" else None
        client.call("initialize", {"processId": process_id, "rootUri": root.as_uri(), "capabilities": {},
                                   "initializationOptions": {"debounce": 0}}, timeout=60)
        client.notify("initialized", {})
        children = _wait_for_children(client.process)
        # below the server's analysis thread, which answers the editor, when the cores are contended
        # (a child sets it as it starts: one seen the moment it was forked may not have yet)
        wanted = min(_nice(client.process.pid) + CHILD_NICE, 19)
        niceness = _niceness_once_set(children, wanted)
        assert set(niceness.values()) == {wanted}, niceness
        if how == "exit":
            client.notify("exit")
        elif how == "parent process gone":
            parent.send_signal(signal.SIGKILL)
            parent.wait(10)
        elif how == "server killed":
            client.process.send_signal(signal.SIGKILL)
        else:
            assert client.process.stdin is not None
            client.process.stdin.close()
        status = client.process.wait(EXIT_SECONDS)
        assert status == (-signal.SIGKILL if how == "server killed" else 1)
        ended = time.monotonic()
        while any(_alive(child) for child in children) and time.monotonic() - ended < CHILD_GRACE:
            time.sleep(0.02)
        assert not [child for child in children if _alive(child)], f"children still alive {CHILD_GRACE} s after the server"
        assert not any(": indexed " in m["params"]["message"] for m in client.notifications("window/logMessage")), \
            "the index ended before the server did: nothing was tested"
    finally:
        parent.kill()
        parent.wait()
        client.close()


def test_a_file_changed_while_the_server_indexed_is_in_the_final_diagnostics(
        tmp_path: Path, workspace: Path, _isolated_environment: Path) -> None:
    """No client watches files: the server's own watcher starts once the first index is done. A change
    made after the index read the disk and before the watcher ran still reaches the diagnostics."""
    agent = workspace / "agents/agent_00000.py"
    skill = workspace / ".agentdeck/skills/skill-00003/SKILL.md"
    with checked(start(tmp_path, _isolated_environment)) as client:
        client.initialize(workspace)
        # the index has read the disk once it publishes; the watcher starts after it ends
        client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", 60)
        agent.write_text('from agentdeck import Agent\n\na = Agent(name="a0", instructions="x", skills=["skill-00003"])\n',
                         encoding="utf-8")
        # a skill rewritten with its old mtime: its ctime still moves
        stamp = skill.stat()
        skill.write_text(skill_md("skill-00003", "Do it: now."), encoding="utf-8")
        os.utime(skill, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        client.wait_for_index()
        assert client.diagnostics(agent, lambda items: items == [], timeout=60) == []
        items = client.diagnostics(skill, lambda items: bool(items), timeout=60)
        assert "SK103" in {str(item["code"]) for item in items}


def test_changed_since_names_what_changed_after_the_index_began(workspace: Path) -> None:
    session = Session([workspace])
    time.sleep(2 * SINCE_MARGIN)  # the fixture's files were made (their ctime) before since, by more than the margin
    since = time.time_ns()
    session.full_analysis()
    assert session.changed_since(since) == []
    gone = workspace / ".claude/skills/skill-00001"
    for path in gone.iterdir():
        path.unlink()
    gone.rmdir()
    agent = workspace / "agents/agent_00050.py"
    stamp = agent.stat()
    agent.write_text(agent.read_text(encoding="utf-8").replace("nope-50", "nope-51"), encoding="utf-8")
    os.utime(agent, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # its mtime as it was: its ctime moved
    changed = session.changed_since(since)
    assert gone.parent in changed and agent in changed
    assert gone not in changed  # gone: its directory says so
    before = {path: [f.code for f in findings] for path, findings in session.findings.items()}
    session.files_changed(changed)
    assert [f.code for f in session.findings[agent]] == before[agent]
    assert any("nope-51" in f.message for f in session.findings[agent])
    assert not any(path.is_relative_to(gone) for path in session.findings)


@needs_children
@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # the pool's own thread fails not
def test_a_child_killed_mid_index_changes_no_finding(workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed mid-index (the pool is then broken, and its futures say so): the parent analyses
    every chunk no worker finished, nothing fails or waits forever, and no worker is left."""
    monkeypatch.setenv(forks.CHILDREN_ENV, "0")
    alone = Session([workspace])
    alone.full_analysis()
    assert alone.loader.forked == 0
    monkeypatch.delenv(forks.CHILDREN_ENV)
    parent = os.getpid()
    real = parallel.analyse_skill
    done = [0]
    killed = tmp_path / "killed"  # the worker's pid, written as it is about to be killed

    def dying(*args: Any, **kwargs: Any) -> parallel.Analysis:
        if os.getpid() != parent:
            done[0] += 1
            if done[0] == 150:  # past its first chunks: some sent, some given and lost
                killed.write_text(str(os.getpid()), encoding="ascii")
                os.kill(os.getpid(), signal.SIGKILL)
        else:
            # this process's first analysis waits for the kill: meanwhile the worker is given every
            # chunk but the one this process holds
            wait_for(killed.exists)
        return real(*args, **kwargs)

    monkeypatch.setattr(parallel, "analyse_skill", dying)
    monkeypatch.setattr(parallel, "CHUNK", 8)
    lost: list[int] = []  # each build's chunks whose worker died, as the pool's futures told (BrokenProcessPool)
    real_close = parallel.Analyser.close

    def closing(self: parallel.Analyser) -> None:
        lost.append(self.lost)
        real_close(self)

    monkeypatch.setattr(parallel.Analyser, "close", closing)
    shared = Session([workspace])
    shared.full_analysis()
    assert shared.loader.forked >= 1
    assert killed.exists(), "no worker reached its 150th skill"
    assert sum(lost) >= 1, lost
    assert int(killed.read_text(encoding="ascii")) not in parallel.running() and not parallel.running()
    assert shared.findings == alone.findings
    assert set(shared.model.skills if shared.model else ()) == set(alone.model.skills if alone.model else ())


@needs_children
def test_settings_the_client_serves_after_initialize_outrule_the_head_start(
        tmp_path: Path, workspace: Path, _isolated_environment: Path) -> None:
    """The head start analysed with initialize's settings; workspace/configuration then turns a rule
    off: the children's analyses no longer hold, and none of them is published."""
    with checked(start(tmp_path, _isolated_environment, PATIENT_HEAD_START)) as client:

        def pump(timeout: float) -> Message | None:
            """RawClient's, answering workspace/configuration with settings of its own."""
            try:
                message: Message = client.messages.get(timeout=max(timeout, 0.001))
            except queue.Empty:
                return None
            if "method" in message and "id" in message:
                served = message["method"] == "workspace/configuration"
                client.send({"jsonrpc": "2.0", "id": message["id"],
                             "result": [{"debounce": 0, "ignore": ["SK103"]}] if served else None})
            return message

        client._pump = pump  # type: ignore[method-assign]
        client.call("initialize", {
            "processId": None, "rootUri": workspace.as_uri(),
            "workspaceFolders": [{"uri": workspace.as_uri(), "name": workspace.name}],
            "capabilities": {"workspace": {"configuration": True}}, "initializationOptions": {"debounce": 0},
        }, timeout=60)
        client.notify("initialized", {})
        client.wait_for_index()
        assert "head start:" in client.stderr()
        published = final_diagnostics(client)
    codes = {str(item["code"]) for items in published.values() for item in items}
    assert "SK103" not in codes and {"SK108", "SK202", "AD101"} <= codes, codes


@needs_children
def test_a_head_start_whose_walk_outlasts_its_deadline_is_dropped(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree too large to walk while the editor waits for initialize's answer: no head start, no child."""
    from skill_lsp.config import Config
    from skill_lsp.server import early
    from skill_lsp.server import indexing as session_module

    monkeypatch.setattr(early, "HEAD_START_WALK", -1.0)  # past its deadline from the start
    assert early.walk_folders([workspace], Config()) is None
    assert session_module._head is None and not parallel.running()
    monkeypatch.setattr(early, "HEAD_START_WALK", 60.0)
    walked = early.walk_folders([workspace], Config())
    assert walked is not None and session_module.head_start([workspace], Config(), walked)
    assert parallel.running()
    session = Session([workspace])
    assert session.loader.early is not None and session_module._head is None
    session.full_analysis()
    assert session.loader.forked >= 1 and not parallel.running()  # the head start's children, reaped
    monkeypatch.setenv(forks.CHILDREN_ENV, "0")
    alone = Session([workspace])
    alone.full_analysis()
    assert session.findings == alone.findings


@needs_children
def test_the_head_start_walks_each_folder_whole_while_the_analysers_import(
        tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """serve() walks the folders initialize named as `check` does, with a forked helper, and imports
    the analysers meanwhile, once: each listing is the one the first index makes of the folder with
    no file open. A folder holding a home directory, or over the file limit, gets no head start."""
    from skill_lsp import discovery
    from skill_lsp.config import DEFAULT_MAX_FILES, Config, walk_exclude
    from skill_lsp.server import early

    small = tmp_path / "small"
    write_files(small, {"skills/alone/SKILL.md": skill_md("alone"), "agents/a.py": "x = 1\n"})
    helpers = counting_forks(monkeypatch, discovery)
    calls: list[int] = []  # how many helpers were forked when the analysers were imported
    before = time.time_ns()
    walked = early.walk_folders([small, workspace], Config(), lambda: calls.append(len(helpers)))
    assert walked is not None and walked.at >= before
    assert len(calls) == 1 and calls[0] >= 1  # during the large folder's walk, not after it
    for folder in (small, workspace):
        alone, bounded = discovery.walk_nearest(folder, walk_exclude(folder, Config()), DEFAULT_MAX_FILES, [])
        assert bounded is None
        listing = walked.listings[folder]
        assert (listing.skill_files, listing.python_files, listing.directories) == (
            alone.skill_files, alone.python_files, alone.directories)
    assert len(walked.listings[workspace].skill_files) == 1600
    # a walk that forks nothing: the import comes after it, still once
    calls.clear()
    assert early.walk_folders([small], Config(), lambda: calls.append(len(helpers))) is not None
    assert len(calls) == 1
    assert early.walk_folders([workspace], Config(max_files=100)) is None
    monkeypatch.setenv("HOME", str(small / "skills"))  # a folder holding a home directory
    assert early.walk_folders([small], Config()) is None


@needs_children
def test_a_head_start_forks_from_fewer_skills_than_a_build_and_finds_the_same(tmp_path: Path) -> None:
    """The head start's child works while the protocol imports: worth a fork from a few hundred
    skills (indexing.HEAD_START_FROM), where a later build (parallel.PARALLEL_FROM) analyses alone."""
    from skill_lsp.config import Config
    from skill_lsp.server import early
    from skill_lsp.server import indexing as session_module

    root = tmp_path / "some"
    many_skills(root, 300)
    assert session_module.HEAD_START_FROM <= 300 < parallel.PARALLEL_FROM
    walked = early.walk_folders([root], Config())
    assert walked is not None and session_module.head_start([root], Config(), walked)
    assert parallel.running()
    started = Session([root])
    started.full_analysis()
    assert started.loader.forked >= 1 and not parallel.running()
    alone = Session([root])  # no head start: the build forks nothing for 300 skills
    alone.full_analysis()
    assert alone.loader.forked == 0
    assert started.findings == alone.findings
    assert {finding.code for findings in started.findings.values() for finding in findings} >= {"SK108", "AD101"}
