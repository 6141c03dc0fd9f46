"""Hostile sessions: the real server over stdio, under long work, event storms and dying clients.

What is asserted is what an editor sees: the order in which answers and diagnostics
arrive, the final diagnostics, how many analyses a burst cost (the server's own debug
log), and that the process ends. Where a time must be bounded, the bound is generous
(the machine may be busy); the benchmark (benchmarks/run.py) keeps the measured figures.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..helpers import skill_md, write_files
from .rpc import REQUEST_CANCELLED, SERVER_CANCELLED, Message, RawClient, checked

SKILL = ".agentdeck/skills/demo/SKILL.md"
AGENT = 'from agentdeck import Agent\n\nbooking = Agent(name="Booking", skills=["demo"])\n'
DEBUG_SERVER = [sys.executable, "-m", "skill_lsp", "serve", "--log-level", "DEBUG"]
# generous: the process ends in well under a second on an idle machine (see the benchmark)
EXIT_SECONDS = 15


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    write_files(root, {SKILL: skill_md(), "agent.py": AGENT})
    return root


def start(tmp_path: Path, environment: Path, debug: bool = False) -> RawClient:
    return RawClient(tmp_path, command=DEBUG_SERVER if debug else None, cwd=tmp_path,
                     env={"SKILL_LSP_USER_SKILLS_DIR": str(environment)})


@pytest.fixture
def server(tmp_path: Path, _isolated_environment: Path) -> Iterator[RawClient]:
    with checked(start(tmp_path, _isolated_environment)) as client:
        yield client


@pytest.fixture
def debug_server(tmp_path: Path, _isolated_environment: Path) -> Iterator[RawClient]:
    with checked(start(tmp_path, _isolated_environment, debug=True)) as client:
        yield client


def codes(items: list[Message]) -> list[str]:
    return sorted(str(item["code"]) for item in items)


def analyses(client: RawClient) -> int:
    """Whole-workspace analyses the server ran so far (its debug log says each)."""
    return client.stderr().count("skill_lsp.server DEBUG analysed ")


def published(client: RawClient, path: Path) -> list[Message]:
    return [m for m in client.notifications("textDocument/publishDiagnostics") if m["params"]["uri"] == path.as_uri()]


def names_line(count: int) -> str:
    names = ", ".join(f'"unknown-{number}"' for number in range(count))
    return f'from agentdeck import Agent\n\nbig = Agent(name="Big", skills=["demo", {names}])\n'


# -- long work never holds up an answer ------------------------------------------------------------


def test_requests_are_answered_while_a_long_analysis_runs(server: RawClient, folder: Path) -> None:
    """5,000... here 20,000 unknown names on one line, UTF-16 positions: the requests asked while it
    is analysed are answered before its diagnostics arrive, and the diagnostics are right."""
    server.initialize(folder)
    server.wait_for_index()
    big = folder / "big.py"
    text = names_line(20_000)
    big.write_text(text, encoding="utf-8")
    server.open(folder / SKILL)
    server.open(folder / "agent.py")
    server.open(big, text)
    # the completion parses its file: off the worker, never queued behind the long analysis
    asked = [server.request("textDocument/hover", {"textDocument": {"uri": (folder / SKILL).as_uri()},
                                                   "position": {"line": 1, "character": 2}}),
             server.request("textDocument/documentSymbol", {"textDocument": {"uri": (folder / SKILL).as_uri()}}),
             server.request("textDocument/completion", {"textDocument": {"uri": (folder / "agent.py").as_uri()},
                                                        "position": {"line": 2, "character": 44}})]
    for request in asked:
        response = server.response(request, 120)
        assert "result" in response, response
        assert not published(server, big) or len(published(server, big)[-1]["params"]["diagnostics"]) < 20_000, \
            "answered only after the long analysis"
    items = server.diagnostics(big, lambda items: len(items) == 20_000, timeout=300)
    last = max(items, key=lambda item: item["range"]["start"]["character"])
    line = text.split("\n")[2]
    assert line[last["range"]["start"]["character"]:last["range"]["end"]["character"]] == '"unknown-19999"'


def test_a_request_does_not_wait_for_an_analysis_it_cannot_see_the_end_of(debug_server: RawClient, folder: Path) -> None:
    """A request waits for the analysis of the edits before it only so long (0.15 s of its CPU). The
    last analysis of 20,000 unknown names took over a second: after a keystroke there, a hover is
    answered from the model as it stands at once, and the keystroke is analysed and published."""
    server = debug_server
    server.initialize(folder)
    server.wait_for_index()
    big = folder / "big.py"
    text = names_line(20_000)
    server.open(big, text)
    server.diagnostics(big, lambda items: len(items) == 20_000, timeout=300)
    typed = text.replace('"unknown-0", ', "")
    server.notify("textDocument/didChange", {"textDocument": {"uri": big.as_uri(), "version": 2},
                                             "contentChanges": [{"text": typed}]})
    hover = server.call("textDocument/hover", {"textDocument": {"uri": big.as_uri()},
                                               "position": {"line": 2, "character": typed.split("\n")[2].index('"demo"') + 2}}, 120)
    assert "demo" in hover["result"]["contents"]["value"]
    assert "a request is answered without waiting for an analysis of about" in server.stderr()
    final = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == big.as_uri() and m["params"]["version"] == 2, 300)
    assert len(final["params"]["diagnostics"]) == 19_999


@pytest.mark.parametrize("refresh", [True, False], ids=["client refreshes", "client does not refresh"])
def test_a_pull_never_waits_for_a_long_analysis(server: RawClient, folder: Path, refresh: bool) -> None:
    """A diagnostic pull waits for the analysis pending as any request does. After a keystroke in
    20,000 unknown names (an analysis of over a second), the client is told to ask again
    (ServerCancelled with retriggerRequest, LSP 3.17) until the diagnostics of its text are there:
    never those of the text before the keystroke. A client that refreshes is refreshed too."""
    server.initialize(folder, capabilities={"textDocument": {"diagnostic": {}},
                                            "workspace": {"diagnostics": {"refreshSupport": refresh}}})
    server.wait_for_index()
    big = folder / "big.py"
    text = names_line(20_000)
    server.open(big, text)
    pull = {"textDocument": {"uri": big.as_uri()}}

    def pulled() -> list[Message]:
        """The diagnostics of a pull the server answered, asking again while it says so."""
        for _ in range(1_000):
            answer = server.call("textDocument/diagnostic", pull, 60)
            if "result" in answer:
                return list(answer["result"]["items"])
            assert answer["error"]["code"] == SERVER_CANCELLED and answer["error"]["data"] == {"retriggerRequest": True}, answer
        raise AssertionError("the server never answered the pull")

    assert len(pulled()) == 20_000
    seen = len(server.received)
    # a keystroke: its analysis is as long as the open's
    server.notify("textDocument/didChange", {"textDocument": {"uri": big.as_uri(), "version": 2},
                                             "contentChanges": [{"text": text.replace('"unknown-0", ', "")}]})
    first = server.call("textDocument/diagnostic", pull, 60)
    assert "error" in first and first["error"]["code"] == SERVER_CANCELLED, first  # not the text before
    assert len(pulled()) == 19_999
    if refresh:
        server.wait_for(lambda m: m.get("method") == "workspace/diagnostic/refresh", 60, after=seen)
    assert "Traceback" not in server.stderr()  # an answer, not a failure: nothing for the editor's log


def test_a_1_mb_body_line_with_5000_links(server: RawClient, folder: Path) -> None:
    server.initialize(folder)
    server.wait_for_index()
    path = folder / SKILL
    line = " ".join(f"see [the guide](references/missing-{number}.md) " + "w" * 160 for number in range(5000))
    text = skill_md(body=line + "\n")
    server.open(path, text)
    row = text.split("\n").index(line)
    for method, extra in (("textDocument/hover", {"position": {"line": row, "character": 900_000}}),
                          ("textDocument/completion", {"position": {"line": row, "character": 900_000}}),
                          ("textDocument/documentSymbol", {}), ("textDocument/documentLink", {})):
        response = server.call(method, {"textDocument": {"uri": path.as_uri()}, **extra}, 120)
        assert "result" in response, response
    items = server.diagnostics(path, lambda items: len(items) >= 5000, timeout=120)
    links = sorted((item for item in items if item["code"] == "SK202"), key=lambda item: item["range"]["start"]["character"])
    assert len(links) == 5000
    last = links[-1]["range"]
    assert "references/missing-4999.md" in line[last["start"]["character"]:last["end"]["character"]]


def test_every_version_of_an_open_document_is_published_even_clean(server: RawClient, folder: Path) -> None:
    """An editor may wait for the diagnostics of the version it sent (or count on them to clear what it
    showed): each analysed version of an open document is published, an empty list for a clean one."""
    server.initialize(folder)
    server.wait_for_index()
    agent = folder / "agent.py"
    server.open(agent)
    opened = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == agent.as_uri() and m["params"]["version"] == 1, 30)
    assert opened["params"]["diagnostics"] == []
    server.notify("textDocument/didChange", {"textDocument": {"uri": agent.as_uri(), "version": 2},
                                             "contentChanges": [{"text": AGENT + "# still clean\n"}]})
    edited = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == agent.as_uri() and m["params"]["version"] == 2, 30)
    assert edited["params"]["diagnostics"] == []


@pytest.mark.parametrize("together", [False, True], ids=["one-write-each", "in-one-write"])
def test_a_cancelled_completion_never_drops_a_publication(server: RawClient, folder: Path, together: bool) -> None:
    """The edit's analysis is what the completion waited for; cancelling the completion must not
    cancel the analysis nor its publication (the debounce is a minute: only the request hands it
    over). In one write, the cancellation comes before the completion's handler has begun: the
    edit is handed over all the same."""
    server.initialize(folder, options={"debounce": 60_000})
    server.wait_for_index()
    agent = folder / "agent.py"
    server.open(agent)  # clean
    for version in (2, 3):
        names = '"demo", "nope"' if version == 2 else '"demo", "nope", "never"'
        with server.one_write() if together else contextlib.nullcontext():
            server.notify("textDocument/didChange", {"textDocument": {"uri": agent.as_uri(), "version": version},
                                                     "contentChanges": [{"text": AGENT.replace('"demo"', names)}]})
            request = server.request("textDocument/completion", {"textDocument": {"uri": agent.as_uri()},
                                                                "position": {"line": 2, "character": 44}})
            server.notify("$/cancelRequest", {"id": request})
        response = server.response(request, 60)
        assert "result" in response or response["error"]["code"] == REQUEST_CANCELLED
        final = server.wait_for(lambda m, v=version: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["uri"] == agent.as_uri() and m["params"]["version"] == v, 30)
        assert codes(final["params"]["diagnostics"]) == ["AD101"] * (version - 1)


def _big_buffer(server: RawClient, folder: Path) -> tuple[Path, int]:
    """A 7 MB SKILL.md opened in an indexed server: its path and its last line."""
    server.initialize(folder)
    server.wait_for_index()
    path = folder / SKILL
    paragraph = "## Step\n\nRead the request, then follow the steps carefully, one at a time.\n\n"
    text = skill_md(body=paragraph * (7_000_000 // len(paragraph)))
    server.open(path, text)
    return path, text.count("\n")


def _type_at(server: RawClient, path: Path, line: int, version: int, text: str = "x", replacing: int = 0) -> None:
    server.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version},
                                             "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                                                           "end": {"line": line, "character": replacing}},
                                                                 "text": text}]})


def _final_links(server: RawClient, path: Path, version: int) -> list[int]:
    """The lines of the SK202 findings published for version (SK203 too: the body is long)."""
    final = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == path.as_uri() and m["params"]["version"] == version, 120)
    return [item["range"]["start"]["line"] for item in final["params"]["diagnostics"] if item["code"] == "SK202"]


def test_a_7_mb_buffer_edited_30_times_a_second(server: RawClient, folder: Path) -> None:
    path, lines = _big_buffer(server, folder)
    version = 1
    answered = []
    for number in range(90):
        version += 1
        _type_at(server, path, lines, version)
        if number % 10 == 0:
            answered.append(server.request("textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}))
        time.sleep(1 / 30)
    version += 1
    _type_at(server, path, lines, version, "See [the guide](missing.md).", replacing=90)
    for request in answered:
        assert "result" in server.response(request, 120)
    assert _final_links(server, path, version) == [lines]


def test_an_outline_never_parses_a_buffer_over_the_bound(server: RawClient, folder: Path) -> None:
    """An open SKILL.md's outline is made from the editor's text, but not from a buffer over the 8 MiB
    every analysed file is held to (the analysis skips it too): the outline is then the model's.
    (Validating on save, the edit is not analysed before the request: the model still has the skill.)"""
    server.initialize(folder, {"validate": "onSave"})
    server.wait_for_index()
    path = folder / SKILL
    server.open(path, skill_md(body="# Small\n\nSee [the guide](missing.md).\n"))
    server.diagnostics(path, lambda items: "SK202" in codes(items), timeout=60)  # analysed: in the model
    outline = server.call("textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}})["result"]
    assert "Small" in [symbol["name"] for symbol in outline]
    huge = skill_md(body="# Huge\n\n" + "word " * (9 * 1024 * 1024 // 5))
    server.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": 2},
                                             "contentChanges": [{"text": huge}]})
    answer = server.call("textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}, timeout=60)
    assert [symbol["name"] for symbol in answer["result"]] == [symbol["name"] for symbol in outline]


def test_typing_into_a_7_mb_buffer_is_analysed_when_the_typing_pauses(server: RawClient, folder: Path) -> None:
    """Each analysis of the buffer takes tens of milliseconds: analysing every edit of a burst (one
    publication an edit, 61 of 61 before) kept the analysis thread, and so the loop, busy throughout.
    Edits wait for a pause of half what their last analysis took; the final text is published."""
    path, lines = _big_buffer(server, folder)
    server.diagnostics(path, timeout=120)

    def published() -> int:
        return sum(1 for m in server.notifications("textDocument/publishDiagnostics") if m["params"]["uri"] == path.as_uri())

    before = published()
    for version in range(2, 62):
        _type_at(server, path, lines, version)
        time.sleep(1 / 30)
    # the last edit adds a missing link at the end: the final publication is of the final text
    _type_at(server, path, lines, 62, "See [the guide](missing.md).", replacing=60)
    assert _final_links(server, path, 62) == [lines]
    # (a pause in the client's sending, on a busy machine, may let an analysis in; 61 would be one an edit)
    assert published() - before <= 15, f"{published() - before} publications for 61 edits"


# -- bursts coalesce ----------------------------------------------------------------------------------


def test_2000_file_events_cost_a_few_analyses(debug_server: RawClient, folder: Path) -> None:
    server = debug_server
    agent = folder / "agent.py"
    names = [f"skill-{number:04d}" for number in range(2000)]
    agent.write_text("from agentdeck import Agent\n\nbig = Agent(name=\"Big\", skills=[" +
                     ", ".join(f'"{name}"' for name in names) + "])\n", encoding="utf-8")
    server.initialize(folder)
    server.wait_for_index()
    server.open(agent)
    server.diagnostics(agent, lambda items: len(items) == 2000, timeout=120)
    before = analyses(server)
    skills = folder / ".agentdeck/skills"
    for name in names:
        (skills / name).mkdir()
        (skills / name / "SKILL.md").write_text(skill_md(name), encoding="utf-8")
    # the files first, then their events one notification each, as fast as the client sends them (a file
    # written between two events would make the burst's pace the file system's, which load slows)
    for name in names:
        server.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": (skills / name / "SKILL.md").as_uri(), "type": 1}]})
    server.diagnostics(agent, lambda items: items == [], timeout=120)
    time.sleep(1)  # anything still queued would show now
    assert analyses(server) - before <= 20, f"{analyses(server) - before} analyses for 2,000 events"


def test_300_documents_opened_at_once_cost_a_few_analyses(debug_server: RawClient, folder: Path) -> None:
    """An editor restoring a session opens hundreds of documents in one write. Each file has its Deck
    (an edit there builds the model again): a job took the few opens the loop had read while the last
    one ran, 97 builds for 300 opens; now the opens wait for their burst to end, and a job of several
    builds once. Every document's diagnostics come, for its text."""
    server = debug_server
    agent = 'from agentdeck import Agent, Deck\n\na{0} = Agent(name="a", skills=[{1}])\n\ndeck = Deck.from_project(agents=[a{0}])\n'
    paths = [folder / f"agents/a{number:03d}.py" for number in range(300)]
    for number, path in enumerate(paths):
        path.parent.mkdir(exist_ok=True)
        path.write_text(agent.format(number, '"demo"'), encoding="utf-8")
    server.initialize(folder)
    server.wait_for_index()
    before = analyses(server)
    frames = b""
    for number, path in enumerate(paths):
        body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": 1,
            "text": agent.format(number, f'"demo", "open-{number}"')}}}).encode()
        frames += b"Content-Length: %d\r\n\r\n" % len(body) + body
    server.send_bytes(frames)
    for number in (0, 150, 299):
        items = server.diagnostics(paths[number], lambda items: "AD101" in codes(items), timeout=120)
        assert [item["message"].split("'")[1] for item in items] == [f"open-{number}"]
    deadline = time.monotonic() + 120
    while sum(1 for m in server.notifications("textDocument/publishDiagnostics") if m["params"]["diagnostics"]) < 300:
        assert time.monotonic() < deadline, "not every opened document was published"
        time.sleep(0.2)
    assert analyses(server) - before <= 6, f"{analyses(server) - before} analyses for 300 opens"


def test_a_skill_directory_renamed_200_times(debug_server: RawClient, folder: Path) -> None:
    server = debug_server
    server.initialize(folder)
    server.wait_for_index()
    agent = folder / "agent.py"
    server.open(agent)
    assert server.call("textDocument/documentSymbol", {"textDocument": {"uri": agent.as_uri()}})["result"]
    before = analyses(server)
    skills = folder / ".agentdeck/skills"
    places = (skills / "demo", folder / "parked")  # in the skills root, and out of it
    for number in range(200):
        old, new = places if number % 2 == 0 else places[::-1]
        old.rename(new)
        server.notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": (old / "SKILL.md").as_uri(), "type": 3}, {"uri": (new / "SKILL.md").as_uri(), "type": 1},
        ]})
    # 200 renames: back where it started; one more takes it out of the root, and its name is unknown
    places[0].rename(places[1])
    server.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": (places[0] / "SKILL.md").as_uri(), "type": 3}]})
    items = server.diagnostics(agent, lambda items: codes(items) == ["AD101"], timeout=120)
    assert "unknown skill 'demo'" in items[0]["message"]
    time.sleep(1)
    assert analyses(server) - before <= 20, f"{analyses(server) - before} analyses for 200 renames"


# -- the process ends with its editor ----------------------------------------------------------------


def test_the_server_exits_when_its_parent_process_dies(tmp_path: Path, folder: Path, _isolated_environment: Path) -> None:
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    client = start(tmp_path, _isolated_environment)
    try:
        client.call("initialize", {"processId": parent.pid, "rootUri": folder.as_uri(), "capabilities": {},
                                   "initializationOptions": {"debounce": 0}}, timeout=60)
        client.notify("initialized", {})
        client.wait_for_index()
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        # stdin stays open: only the parent's death can end it (polled every second)
        assert client.process.wait(EXIT_SECONDS) == 1
    finally:
        parent.kill()
        client.close()


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A workspace whose index is long: 3,000 skills, 20,000 unknown names on a line, 8,000 commented-out lines."""
    root = tmp_path / "hostile"
    skills = root / ".agentdeck/skills"
    for number in range(3000):
        directory = skills / f"skill-{number:05d}"
        directory.mkdir(parents=True)
        (directory / "SKILL.md").write_text(skill_md(f"skill-{number:05d}", body="Do [this](scripts/run.py).\n"),
                                            encoding="utf-8")
    (root / "names.py").write_text(names_line(20_000), encoding="utf-8")
    (root / "commented.py").write_text("from agentdeck import Agent\n" + "# a = Agent(skills=['x'])\n" * 8000,
                                       encoding="utf-8")
    return root


def many_skills(root: Path, count: int) -> Path:
    """A project with demo, agent.py, and count more skills (each with an SK202 finding): a long index."""
    write_files(root, {SKILL: skill_md(), "agent.py": AGENT})
    for number in range(count):
        name = f"skill-{number:05d}"
        write_files(root, {f".agentdeck/skills/{name}/SKILL.md": skill_md(name, body="Do [this](scripts/run.py).\n")})
    return root


def test_an_open_file_is_answered_before_the_index_ends(server: RawClient, tmp_path: Path) -> None:
    root = many_skills(tmp_path / "many", 4000)
    # a client that serves workspace/configuration: the server asks before indexing, and is
    # answered once the file is open, so the first index starts knowing it
    server.call("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {"workspace": {"configuration": True}},
                               "initializationOptions": {"debounce": 0}}, timeout=60)
    server.notify("initialized", {})
    server.open(root / "agent.py")
    for _ in range(200):
        symbols = server.call("textDocument/documentSymbol", {"textDocument": {"uri": (root / "agent.py").as_uri()}}, 60)
        if symbols["result"] or any(": indexed " in m["params"]["message"] for m in server.notifications("window/logMessage")):
            break
    assert [symbol["detail"] for symbol in symbols["result"]] == ["Agent"]
    assert not any(": indexed " in m["params"]["message"] for m in server.notifications("window/logMessage")), \
        "answered only once the index ended"
    server.wait_for_index()


def test_a_file_opened_while_the_index_runs_is_answered_at_once(server: RawClient, tmp_path: Path) -> None:
    """No configuration round trip: the index starts before anything is open. A file opened then
    is answered from the model of the files nearest it, before the index ends (each request within
    0.4 s of the near model's build; with nothing before it is built); a rename, which
    must see every listing, says why it cannot be done yet."""
    root = many_skills(tmp_path / "many", 6000)
    server.call("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {"window": {"workDoneProgress": True}},
                               "initializationOptions": {"debounce": 0}}, timeout=60)
    server.notify("initialized", {})
    server.wait_for(lambda m: m.get("method") == "window/workDoneProgress/create", 60)  # answered: the index starts
    server.call("skill-lsp/no-such-method", {}, 60)
    skill = root / SKILL
    server.open(root / "agent.py")
    server.open(skill)

    def indexed() -> bool:
        return any(": indexed " in m["params"]["message"] for m in server.notifications("window/logMessage"))

    def answered(method: str, params: Message) -> Message:
        """Asked again until answered with something: a request waits for the near model 0.4 s at
        most, and is answered with nothing before it is built (a machine busy enough may take longer)."""
        for _ in range(100):
            answer = server.call(method, params, 60)
            if answer.get("result") or indexed():
                return answer
        return answer

    symbols = answered("textDocument/documentSymbol", {"textDocument": {"uri": (root / "agent.py").as_uri()}})
    hover = answered("textDocument/hover", {"textDocument": {"uri": skill.as_uri()}, "position": {"line": 1, "character": 7}})
    rename = server.call("textDocument/rename", {"textDocument": {"uri": skill.as_uri()}, "position": {"line": 1, "character": 7},
                                                 "newName": "demo-two"}, 60)
    assert not indexed(), "the index ended before the requests: nothing was tested"
    assert [symbol["detail"] for symbol in symbols["result"]] == ["Agent"]
    assert "demo" in hover["result"]["contents"]["value"]
    assert rename["error"]["code"] == -32803 and "indexing" in rename["error"]["message"]
    server.wait_for_index()
    # the index said how far it was, on the way
    reports = [m["params"]["value"] for m in server.notifications("$/progress") if m["params"]["value"]["kind"] == "report"]
    assert any(report["message"].startswith("analysing skills: ") and 0 < report["percentage"] < 100 for report in reports), reports
    rename = server.call("textDocument/rename", {"textDocument": {"uri": skill.as_uri()}, "position": {"line": 1, "character": 7},
                                                 "newName": "demo-two"}, 60)
    assert "error" not in rename and rename["result"], rename


def test_a_change_of_folders_stops_the_index_it_makes_obsolete(debug_server: RawClient, tmp_path: Path) -> None:
    """The workspace's folder replaced while the first index of a large one runs: that index stops at
    its next look instead of running to its end, nothing of the old folder is published, and the new
    folder is indexed and published (a cold index of 40,000 skills held them 30-38 s)."""
    server = debug_server
    big = many_skills(tmp_path / "big", 6000)
    small = tmp_path / "small"
    write_files(small, {SKILL: skill_md(), "agent.py": 'from agentdeck import Agent\n\nbooking = Agent(name="Booking", skills=["nope"])\n'})
    server.call("initialize", {"processId": None, "rootUri": big.as_uri(), "workspaceFolders": [{"uri": big.as_uri(), "name": "big"}],
                               "capabilities": {"window": {"workDoneProgress": True}, "workspace": {"workspaceFolders": True}},
                               "initializationOptions": {"debounce": 0}}, timeout=60)
    server.notify("initialized", {})
    # the index says how far it is: its analyses are under way
    server.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "report", 60)
    server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [{"uri": small.as_uri(), "name": "small"}],
                                                                    "removed": [{"uri": big.as_uri(), "name": "big"}]}})
    items = server.diagnostics(small / "agent.py", lambda items: "AD101" in codes(items), timeout=120)
    assert codes(items) == ["AD101"]
    server.wait_for_index()
    assert "an analysis was stopped: the workspace folders or settings changed meanwhile" in server.stderr()
    summaries = [m["params"]["message"] for m in server.notifications("window/logMessage") if ": indexed " in m["params"]["message"]]
    assert summaries and summaries[0].endswith("indexed 1 skills and 1 agent definitions"), summaries
    assert not [m for m in server.notifications("textDocument/publishDiagnostics") if m["params"]["uri"].startswith(big.as_uri())]
    assert "Traceback" not in server.stderr()


def test_the_same_settings_sent_again_do_not_stop_the_index(debug_server: RawClient, tmp_path: Path) -> None:
    """Neovim sends its settings again right after `initialized`: the same settings do not stop the
    first index (which would begin anew, its head start lost), whatever follows them."""
    server = debug_server
    big = many_skills(tmp_path / "big", 3000)
    server.call("initialize", {"processId": None, "rootUri": big.as_uri(), "workspaceFolders": [{"uri": big.as_uri(), "name": "big"}],
                               "capabilities": {"window": {"workDoneProgress": True}},
                               "initializationOptions": {"debounce": 0}}, timeout=60)
    server.notify("initialized", {})
    server.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "report", 60)
    server.notify("workspace/didChangeConfiguration", {"settings": {"skillLsp": {"debounce": 0}}})
    server.wait_for_index()
    summaries = [m["params"]["message"] for m in server.notifications("window/logMessage") if ": indexed " in m["params"]["message"]]
    assert summaries and summaries[0].endswith("indexed 3001 skills and 1 agent definitions"), summaries
    assert "an analysis was stopped" not in server.stderr()


@pytest.mark.parametrize("how", ["stdin closed", "exit", "client gone mid-message"])
def test_the_server_ends_mid_index(tmp_path: Path, hostile: Path, _isolated_environment: Path, how: str) -> None:
    client = start(tmp_path, _isolated_environment)
    try:
        client.call("initialize", {"processId": None, "rootUri": hostile.as_uri(), "capabilities": {},
                                   "initializationOptions": {"debounce": 0}}, timeout=60)
        client.notify("initialized", {})
        client.open(hostile / "names.py")
        time.sleep(0.5)  # the first index is running on the worker thread
        assert client.process.stdin is not None
        if how == "exit":
            client.notify("exit")
        elif how == "client gone mid-message":
            client.send_bytes(b'Content-Length: 500\r\n\r\n{"jsonrpc": "2.0", "method": "textDocu')
            client.process.stdin.close()
        else:
            client.process.stdin.close()
        assert client.process.wait(EXIT_SECONDS) == 1  # no shutdown came first
        assert not any(": indexed " in m["params"]["message"] for m in client.notifications("window/logMessage")), \
            "the index ended before the client went: nothing was tested"
        assert "Traceback" not in client.stderr(), client.stderr()[-3000:]  # the server ending is no error
    finally:
        client.close()


@pytest.mark.parametrize("how", ["exit", "stdin closed"])
def test_exit_while_diagnostics_are_written_never_cuts_a_frame(server: RawClient, folder: Path, how: str) -> None:
    """exit arrives (or the client closes its end) while the worker writes megabytes of diagnostics to
    a client that reads slowly: that message is finished before the process ends, so every frame the
    client reads is whole."""
    server.initialize(folder)
    server.wait_for_index()
    server.hold_over = 1_000_000  # the 20,000 diagnostics below: about 6 MB
    big = folder / "big.py"
    server.open(big, names_line(20_000))
    assert server.holding.wait(120), "no long message came"
    # the server is blocked writing the body: the pipe holds only part of it
    if how == "exit":
        server.notify("exit")
    else:
        assert server.process.stdin is not None
        server.process.stdin.close()
    time.sleep(0.3)
    server.release.set()
    assert server.process.wait(EXIT_SECONDS) == 1  # no shutdown came first
    items = server.diagnostics(big, timeout=10)  # (checked: the frame arrived whole)
    assert len(items) == 20_000


# -- files the runtimes cannot read -----------------------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_published_and_answered(server: RawClient, folder: Path) -> None:
    """A directory named with bytes that are not UTF-8 (its URI percent-encodes them): its skill's
    diagnostics are published under that URI, a request on it is answered, and the files after it
    keep theirs (pygls' URI of such a path raised, and every later publication was lost)."""
    bad = Path(os.fsdecode(os.fsencode(str(folder / ".agentdeck/skills")) + b"/bad\xff\xfename"))
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text(skill_md("other"), encoding="utf-8")
    write_files(folder, {".agentdeck/skills/zz-late/SKILL.md": skill_md("zz-other")})
    server.initialize(folder)
    server.wait_for_index()
    uri = (bad / "SKILL.md").as_uri()
    assert "%FF%FE" in uri
    late = server.diagnostics(folder / ".agentdeck/skills/zz-late/SKILL.md", lambda items: "SK108" in codes(items))
    assert codes(late) == ["SK108"]
    server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                    and "SK108" in codes(m["params"]["diagnostics"]), 30)
    hover = server.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 7}})
    assert "other" in str(hover["result"]), hover
    # pulled too: its report is JSON made by the server itself (the name's bytes stay escaped)
    pulled = server.call("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    assert codes(pulled["result"]["items"]) == ["SK108"], pulled
    reports = {item["uri"]: item for item in server.call("workspace/diagnostic", {"previousResultIds": []})["result"]["items"]}
    assert codes(reports[uri]["items"]) == ["SK108"] and reports[uri]["resultId"] == pulled["result"]["resultId"]
    assert "Traceback" not in server.stderr()


def test_invalid_utf8_is_reported_by_the_server(server: RawClient, folder: Path) -> None:
    latin = folder / ".agentdeck/skills/cafe/SKILL.md"
    latin.parent.mkdir(parents=True)
    latin.write_bytes("---\nname: cafe\ndescription: Café orders.\n---\n\nBody.\n".encode("latin-1"))
    agent = folder / "agent.py"
    agent.write_bytes(b'from agentdeck import Agent\n\nbooking = Agent(name="Caf\xe9", skills=["demo"])\n')
    server.initialize(folder)
    server.wait_for_index()
    closed = server.diagnostics(latin, lambda items: "SK116" in codes(items), timeout=60)
    assert [item["range"]["start"] for item in closed if item["code"] == "SK116"] == [{"line": 2, "character": 16}]
    # open, the editor shows U+FFFD; the finding stays, at the same place
    server.open(agent, agent.read_bytes().decode("utf-8", errors="replace"))
    items = server.diagnostics(agent, lambda items: "SK116" in codes(items), timeout=60)
    assert items[0]["range"]["start"] == {"line": 2, "character": 25}
    assert "PEP 3120" in items[0]["message"]
    # saved as UTF-8, it goes
    agent.write_text(agent.read_bytes().decode("latin-1"), encoding="utf-8")
    server.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": agent.as_uri(), "type": 2}]})
    server.notify("textDocument/didChange", {"textDocument": {"uri": agent.as_uri(), "version": 2},
                                             "contentChanges": [{"text": agent.read_text(encoding="utf-8")}]})
    assert server.diagnostics(agent, lambda items: "SK116" not in codes(items), timeout=60) == []


def test_a_huge_tree_is_indexed_up_to_its_limit(server: RawClient, tmp_path: Path) -> None:
    """A folder like / or a home directory: the files nearest the open one first, up to maxFiles, and
    the editor is told what was left out."""
    root = tmp_path / "home"
    near = root / "work/project"
    write_files(near, {SKILL: skill_md(), "agent.py": AGENT.replace('"demo"', '"demo", "nope"')})
    for number in range(60):
        write_files(root / f"other-{number:02d}", {f".agentdeck/skills/s{number}/SKILL.md": skill_md(f"s{number}")})
    server.initialize(root, options={"maxFiles": 20})
    server.open(near / "agent.py")
    server.wait_for_index()
    items = server.diagnostics(near / "agent.py", lambda items: codes(items) == ["AD101"], timeout=60)
    assert "'nope'" in items[0]["message"]
    shown = [m["params"]["message"] for m in server.received if m.get("method") == "window/showMessage"]
    assert any("maxFiles" in message and "20" in message for message in shown), shown
    # told when the walk ended, before the analysis of what it found
    order = [m.get("method") for m in server.received if m.get("method") == "window/showMessage"
             or (m.get("method") == "window/logMessage" and ": indexed " in m["params"]["message"])]
    assert order.index("window/showMessage") < order.index("window/logMessage"), order
    symbols = server.call("workspace/symbol", {"query": ""})["result"]
    assert len(symbols) < 60


def test_an_abandoned_parse_stops_at_its_next_read() -> None:
    """What the exit relies on: after abandon_parses, tree-sitter is stopped at its next read."""
    script = ("from skill_lsp.pysource import _LANGUAGE\n"
              "from skill_lsp.treesitter import ParseAbandoned, abandon_parses, parse_tree\n"
              "parse_tree(b'x = 1\\n', _LANGUAGE)\n"
              "abandon_parses()\n"
              "try:\n    parse_tree(b'x = 1\\n', _LANGUAGE)\nexcept ParseAbandoned:\n    print('abandoned')\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert result.stdout.strip() == "abandoned", result.stderr


def test_a_request_that_meets_the_model_changing_reads_again() -> None:
    """A request answered without waiting for the analysis reads the model while the worker may
    change it: a loop over a dict that changes size is read again, any other error is not hidden."""
    import asyncio

    from skill_lsp.server.server import READ_ATTEMPTS, SkillLanguageServer

    language_server = SkillLanguageServer()
    calls: list[str] = []

    @language_server.feature("skill-lsp/test-read")
    async def read(ls: SkillLanguageServer, params: str) -> str:
        calls.append(params)
        if params == "changing" and len(calls) < READ_ATTEMPTS:
            raise RuntimeError("dictionary changed size during iteration")
        if params == "broken":
            raise RuntimeError("something else")
        return "answered"

    handler = language_server.protocol.fm.features["skill-lsp/test-read"]
    assert asyncio.run(handler("changing")) == "answered"
    assert len(calls) == READ_ATTEMPTS
    calls.clear()
    with pytest.raises(RuntimeError, match="something else"):
        asyncio.run(handler("broken"))
    assert len(calls) == 1


def test_a_request_waits_for_the_near_model_only_so_long(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the first index runs, an open document is answered from the model of the files nearest
    it. In a workspace of / that model parses a hundred files (0.94 s on a busy machine): a request
    waits for it NEAR_WAIT at most, is answered with nothing, and the build goes on for the next."""
    import asyncio

    from skill_lsp.server import request as requests
    from skill_lsp.server.server import SkillLanguageServer

    language_server = SkillLanguageServer()
    agent = tmp_path / "agent.py"
    built = asyncio.Event()
    asked: list[Path] = []

    async def slow_near_model(ls: SkillLanguageServer, path: Path) -> None:
        asked.append(path)
        await asyncio.sleep(3 * requests.NEAR_WAIT)
        built.set()

    monkeypatch.setattr(requests, "near_model", slow_near_model)

    async def ask() -> tuple[object, bool, bool]:
        request = await requests.request_context(language_server, agent.as_uri())
        unfinished = not built.is_set()
        await asyncio.wait_for(built.wait(), 60)  # (not cancelled: it ends on its own)
        return request, unfinished, built.is_set()

    request, unfinished, finished = asyncio.run(ask())
    assert request is None and asked == [agent]
    assert unfinished and finished
