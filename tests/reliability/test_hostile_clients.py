"""Hostile clients: the real server over stdio, driven with raw JSON-RPC.

Every test ends by checking that each byte the server wrote to stdout was part of
an LSP frame (`RawClient.violations`): logs and stray prints go to stderr only.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skill_lsp.server.session import Session
from skill_lsp.textutil import split_lines

from ..helpers import skill_md, write_files
from .rpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    REQUEST_CANCELLED,
    SERVER_NOT_INITIALIZED,
    Message,
    RawClient,
    checked,
)

AGENT = 'from agentdeck import Agent\n\nbooking = Agent(name="Booking", skills=["demo", "nope"])\n'
SKILL = ".agentdeck/skills/demo/SKILL.md"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    write_files(root, {SKILL: skill_md(), "agent.py": AGENT})
    return root


@pytest.fixture
def server(tmp_path: Path, _isolated_environment: Path) -> Iterator[RawClient]:
    with checked(RawClient(tmp_path, cwd=tmp_path, env={"SKILL_LSP_USER_SKILLS_DIR": str(_isolated_environment)})) as client:
        yield client


@pytest.fixture
def ready(server: RawClient, folder: Path) -> RawClient:
    server.initialize(folder)
    server.wait_for_index()
    return server


def error_code(response: Message) -> int | None:
    error = response.get("error")
    return error["code"] if error else None


def spans(items: list[Message]) -> list[tuple[str, int, int, int, int]]:
    return sorted((str(d["code"]), d["range"]["start"]["line"], d["range"]["start"]["character"],
                   d["range"]["end"]["line"], d["range"]["end"]["character"]) for d in items)


def expected(folder: Path, path: Path, text: str) -> list[tuple[str, int, int, int, int]]:
    """What a fresh analysis finds in path holding text (code points == UTF-16 units for BMP text)."""
    session = Session([folder])
    session.set_text(path, text)
    session.full_analysis()
    return sorted((f.code, f.span.start.line, f.span.start.column, f.span.end.line, f.span.end.column)
                  for f in session.findings.get(path, []))


# -- methods and params --------------------------------------------------------------------------------


def test_unknown_methods(ready: RawClient) -> None:
    assert error_code(ready.call("skillLsp/doesNotExist", {})) == METHOD_NOT_FOUND
    assert error_code(ready.call("textDocument/semanticTokens/full", {"textDocument": {"uri": "file:///x"}})) == METHOD_NOT_FOUND
    ready.notify("skillLsp/unknownNotification", {"a": 1})
    ready.notify("$/unknownProtocolNotification", None)
    ready.notify("$/cancelRequest", {"id": 987654})  # nothing to cancel
    assert "result" in ready.call("workspace/symbol", {"query": "demo"})


MALFORMED = [
    ("textDocument/hover", {"textDocument": 5}),
    ("textDocument/hover", [1, 2, 3]),
    ("textDocument/hover", {"textDocument": {"uri": "file:///x"}, "position": {"line": -1, "character": 0}}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///x"}, "position": {"line": "one", "character": 0}}),
    ("textDocument/definition", {}),
    ("textDocument/completion", {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0},
                                 "context": {"triggerKind": 99}}),
    ("textDocument/rename", {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}}),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///x"}, "range": None, "context": {}}),
    ("workspace/executeCommand", {"command": 42}),
]


def test_malformed_params_get_invalid_params(ready: RawClient, folder: Path) -> None:
    for method, params in MALFORMED:
        response = ready.call(method, params, timeout=10)
        assert error_code(response) == INVALID_PARAMS, (method, params, response)
    # malformed notifications are dropped; malformed frames and bodies are skipped
    ready.notify("textDocument/didOpen", {"textDocument": {"uri": 7}})
    ready.notify("textDocument/didChange", {"textDocument": {"uri": (folder / "agent.py").as_uri()}, "contentChanges": 5})
    ready.send_bytes(b"Content-Length: 9\r\n\r\n{not json")
    ready.send_bytes(b"this is not a header\r\n")
    ready.send_bytes(b'Content-Length: 2\r\n\r\n[]')
    ready.send({"jsonrpc": "1.0", "id": 999, "method": "textDocument/hover"})
    # the command's own argument check
    response = ready.call("workspace/executeCommand", {"command": "skillLsp.disclosure", "arguments": [5]})
    assert error_code(response) == INVALID_PARAMS
    # and the server still works
    response = ready.call("textDocument/documentSymbol", {"textDocument": {"uri": (folder / "agent.py").as_uri()}})
    assert [symbol["name"] for symbol in response["result"]] == ["Booking"]


URIS = ["file:///nonexistent/dir/SKILL.md", "untitled:Untitled-1", "https://example.com/SKILL.md", "file:///etc/passwd",
        "", "file://", "vscode-notebook-cell:/x.ipynb#W0", "file:///tmp/%00/SKILL.md"]


def _requests(uri: str, line: int = 0, character: int = 0) -> list[tuple[str, dict[str, object]]]:
    document = {"uri": uri}
    position = {"line": line, "character": character}
    span = {"start": position, "end": position}
    return [
        ("textDocument/hover", {"textDocument": document, "position": position}),
        ("textDocument/definition", {"textDocument": document, "position": position}),
        ("textDocument/references", {"textDocument": document, "position": position, "context": {"includeDeclaration": True}}),
        ("textDocument/documentSymbol", {"textDocument": document}),
        ("textDocument/codeAction", {"textDocument": document, "range": span, "context": {"diagnostics": []}}),
        ("textDocument/completion", {"textDocument": document, "position": position}),
        ("textDocument/documentLink", {"textDocument": document}),
        ("textDocument/codeLens", {"textDocument": document}),
        ("textDocument/prepareRename", {"textDocument": document, "position": position}),
        ("textDocument/rename", {"textDocument": document, "position": position, "newName": "other"}),
    ]


def test_unknown_never_opened_and_non_file_uris_get_null(ready: RawClient) -> None:
    for uri in URIS:
        for method, params in _requests(uri, 3, 4):
            response = ready.call(method, params)
            assert response.get("result", "missing") is None, (method, uri, response)
        report = ready.call("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        assert report["result"]["items"] == [], (uri, report)


def test_positions_past_the_end(ready: RawClient, folder: Path) -> None:
    path = folder / SKILL
    ready.open(path)
    for line, character in [(0, 10**6), (10**6, 0), (10**6, 10**6), (2, 2**31 - 1)]:
        for method, params in _requests(path.as_uri(), line, character):
            response = ready.call(method, params)
            assert "error" not in response or method == "textDocument/rename", (method, line, character, response)
            assert error_code(response) in (None, INVALID_PARAMS)


def _apply(text: str, start: tuple[int, int], end: tuple[int, int], new: str) -> str:
    """What an LSP edit does: columns past a line's end mean its end, lines past the last the document's end."""
    lines = split_lines(text)
    offsets = [0]
    index = 0
    for line in lines[:-1]:
        index += len(line)
        index += 2 if text.startswith("\r\n", index) else 1
        offsets.append(index)

    def offset(position: tuple[int, int]) -> int:
        line, character = position
        if line >= len(lines):
            return len(text)
        return offsets[line] + min(character, len(lines[line]))

    return text[: offset(start)] + new + text[offset(end):]


def _change(path: Path, version: int, start: tuple[int, int], end: tuple[int, int], new: str) -> dict[str, object]:
    return {"textDocument": {"uri": path.as_uri(), "version": version}, "contentChanges": [{
        "range": {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}},
        "text": new}]}


def _final_diagnostics(client: RawClient, path: Path, version: int, quiet: float = 1.0) -> list[Message]:
    """The diagnostics of path once the final version has been published and nothing followed for `quiet` s.

    (An analysis of an earlier text can finish after the last change arrived and is published with the
    document's current version; the publication that follows it is the final one.)
    """
    def publications() -> list[Message]:
        return [m for m in client.notifications("textDocument/publishDiagnostics") if m["params"]["uri"] == path.as_uri()]

    client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == path.as_uri() and m["params"].get("version") == version, 60)
    count = len(publications())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        settle = time.monotonic() + quiet
        while time.monotonic() < settle:
            client._pump(settle - time.monotonic())
        if len(publications()) == count:
            break
        count = len(publications())
    return list(publications()[-1]["params"]["diagnostics"])


@pytest.mark.parametrize("separator", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_edit_ranges_past_the_end_and_odd_line_breaks(ready: RawClient, folder: Path, separator: str) -> None:
    """Edits land where LSP says, also after U+2028, U+0085 and a form feed, which pygls splits at."""
    path = folder / SKILL
    text = separator.join(["---", "name: demo", "description: Do it.\u2028  Still\x85  going.", "---", "", "Bo\x0cdy.", ""])
    ready.open(path, text)
    edits = [
        ((3, 0), (3, 0), "compatibility: x\n"[:-1] + separator),  # before the closing ---: a new key
        ((1, 6), (1, 6), "x"),  # name: xdemo
        ((2, 200), (2, 300), " Then stop."),  # past the line's end: appended to it
        ((10**6, 0), (10**6, 5), separator + "See [a](scripts/a.py)."),  # past the last line: the end
    ]
    version = 1
    for start, end, new in edits:
        version += 1
        ready.notify("textDocument/didChange", _change(path, version, start, end, new))
        text = _apply(text, start, end, new)
    items = _final_diagnostics(ready, path, version)
    assert spans(items) == expected(folder, path, text)
    assert {"SK108", "SK202"} <= {str(item["code"]) for item in items}


def test_a_burst_of_thousands_of_changes_ends_right(server: RawClient, folder: Path) -> None:
    server.initialize(folder, options={"debounce": 50})
    server.wait_for_index()
    path = folder / "agent.py"
    text = AGENT
    server.open(path, text)
    anchor = text.index('"nope"') + 1  # inside the quotes
    line = text.count("\n", 0, anchor)
    column = anchor - (text.rfind("\n", 0, anchor) + 1)
    rng = random.Random(6)
    version = 1
    typed = ""
    for _ in range(2000):
        version += 1
        if typed and rng.random() < 0.4:
            start = (line, column + len(typed) - 1)
            change = _change(path, version, start, (line, column + len(typed)), "")
            typed = typed[:-1]
        else:
            char = rng.choice("abcdefghijklmnopqrstuvwxyz-")
            change = _change(path, version, (line, column + len(typed)), (line, column + len(typed)), char)
            typed += char
        server.notify("textDocument/didChange", change)
    final = AGENT.replace('"nope"', f'"{typed}nope"')
    items = _final_diagnostics(server, path, version)
    assert spans(items) == expected(folder, path, final)
    assert [str(item["code"]) for item in items] == ["AD101"]
    # and a whole-document change back to valid clears them
    server.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version + 1},
                                             "contentChanges": [{"text": AGENT.replace(', "nope"', "")}]})
    assert _final_diagnostics(server, path, version + 1) == []


# -- lifecycle ---------------------------------------------------------------------------------------------


def test_before_initialize(server: RawClient, folder: Path) -> None:
    path = folder / "agent.py"
    response = server.call("textDocument/hover", {"textDocument": {"uri": path.as_uri()},
                                                  "position": {"line": 0, "character": 0}})
    assert error_code(response) == SERVER_NOT_INITIALIZED
    assert error_code(server.call("shutdown")) == SERVER_NOT_INITIALIZED
    # notifications before initialize are dropped: this buffer never reaches the server
    server.open(path, 'from agentdeck import Agent\nx = Agent(skills=["before-init"])\n')
    server.notify("textDocument/didChange", _change(path, 2, (0, 0), (0, 0), "# x\n"))
    server.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": path.as_uri(), "type": 3}]})
    server.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
    server.notify("textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
    server.notify("$/setTrace", {"value": "verbose"})
    server.initialize(folder)
    server.wait_for_index()
    items = server.diagnostics(path)
    assert spans(items) == expected(folder, path, AGENT)
    assert server.shutdown_and_exit() == 0


def test_shutdown_then_exit_is_0_and_flushes(server: RawClient, folder: Path) -> None:
    server.initialize(folder)
    server.wait_for_index()
    # both in one write: the answer to shutdown must still reach the client before the process ends
    shutdown = {"jsonrpc": "2.0", "id": 4242, "method": "shutdown"}
    exit_ = {"jsonrpc": "2.0", "method": "exit"}
    frames = b""
    for message in (shutdown, exit_):
        body = json.dumps(message).encode()
        frames += b"Content-Length: %d\r\n\r\n" % len(body) + body
    server.send_bytes(frames)
    assert server.process.wait(20) == 0
    server._reader.join(10)
    assert any(m.get("id") == 4242 and "result" in m for m in server.received)


def test_requests_after_shutdown_are_invalid(server: RawClient, folder: Path) -> None:
    server.initialize(folder)
    server.wait_for_index()
    assert "error" not in server.call("shutdown")
    response = server.call("textDocument/hover", {"textDocument": {"uri": (folder / "agent.py").as_uri()},
                                                  "position": {"line": 0, "character": 0}})
    assert error_code(response) == INVALID_REQUEST
    server.notify("exit")
    assert server.process.wait(20) == 0


def test_exit_without_shutdown_is_1(server: RawClient, folder: Path) -> None:
    server.initialize(folder)
    server.wait_for_index()
    server.notify("exit")
    assert server.process.wait(20) == 1


def test_exit_before_initialize_is_1(server: RawClient) -> None:
    server.notify("exit")
    assert server.process.wait(20) == 1


# -- long requests and dying clients ------------------------------------------------------------------------


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """3,000 skills and an agent listing every seventh: indexing takes seconds on this machine."""
    root = tmp_path / "big"
    skills = root / ".agentdeck/skills"
    for number in range(3000):
        name = f"skill-{number:05d}"
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Skill number {number}.\n---\n\nDo [this](scripts/run.py).\n" + "Text.\n" * 20)
    names = ", ".join(f'"skill-{number:05d}"' for number in range(0, 3000, 7))
    (root / "agent.py").write_text(f'from agentdeck import Agent\na = Agent(name="A", skills=[{names}, "nope"])\n')
    return root


def test_cancel_a_long_request(server: RawClient, big: Path) -> None:
    server.initialize(big)
    # asked while the first index still runs: cancelled, or answered from what is indexed so far
    # (a request waits a moment for the analysis, never for the whole index)
    request = server.request("workspace/symbol", {"query": "skill"})
    server.notify("$/cancelRequest", {"id": request})
    response = server.response(request, 60)
    assert error_code(response) == REQUEST_CANCELLED or isinstance(response["result"], list), response
    server.wait_for_index()
    # the server stays up and answers the next request in full
    response = server.call("workspace/symbol", {"query": "skill-0299"})
    assert {f"skill-0299{n}" for n in range(10)} <= {symbol["name"] for symbol in response["result"]}
    assert server.shutdown_and_exit() == 0


def test_a_client_that_dies_ends_the_server(server: RawClient, big: Path) -> None:
    server.initialize(big)
    time.sleep(0.2)  # the first index is running on the worker thread
    # the benign figure, under the same load: a round trip the message loop answers by itself
    asked = time.monotonic()
    assert error_code(server.call("skill-lsp/no-such-method", {}, 60)) == METHOD_NOT_FOUND
    round_trip = time.monotonic() - asked
    assert server.process.stdin is not None
    server.process.stdin.close()
    started = time.monotonic()
    status = server.process.wait(120)
    # ends within 2 s on an idle machine (the benchmark's figure 8); a busy one stretches both
    assert time.monotonic() - started < 5 + 20 * round_trip
    assert status == 1  # the connection ended without shutdown


def test_debug_logging_never_reaches_stdout(tmp_path: Path, folder: Path, _isolated_environment: Path) -> None:
    client = RawClient(tmp_path, command=[sys.executable, "-m", "skill_lsp", "serve", "--log-level", "DEBUG"],
                       cwd=tmp_path, env={"SKILL_LSP_USER_SKILLS_DIR": str(_isolated_environment)})
    try:
        client.initialize(folder)
        client.wait_for_index()
        client.open(folder / "agent.py")
        client.diagnostics(folder / "agent.py", lambda items: len(items) == 1)
        client.call("textDocument/hover", {"textDocument": 5})
        assert client.shutdown_and_exit() == 0
        client._reader.join(10)
        assert "DEBUG" in client.stderr()
    finally:
        client.close()
    assert client.violations == []
    assert client.stdout_bytes > 0


def test_a_handler_that_fails_answers_internal_error_without_its_traceback() -> None:
    """A bug in a handler: the client gets InternalError, whose message names the failure and whose
    data carries no traceback (editors show it to the user); the traceback goes to the server's log."""
    import asyncio
    import io

    from pygls.io_ import StdoutWriter

    from skill_lsp.server.app import server

    protocol = server.protocol
    sent = io.BytesIO()
    writer = protocol.writer
    protocol.set_writer(StdoutWriter(sent))
    loop = asyncio.new_event_loop()
    try:
        failed: asyncio.Future[object] = loop.create_future()
        failed.set_exception(KeyError("a bug"))
        protocol._send_handler_result(failed, msg_id=7)
    finally:
        loop.close()
        protocol.writer = writer
    body = json.loads(sent.getvalue().split(b"\r\n\r\n", 1)[1])
    assert body["id"] == 7 and body["error"]["code"] == -32603, body
    assert "KeyError" in body["error"]["message"] and "data" not in body["error"], body


@pytest.mark.parametrize("header", [b"content-length: %d\r\n", b"CONTENT-LENGTH:%d\n", b"Content-Length:   %d  \r\n"])
def test_a_content_length_in_any_case_or_spacing_is_read(server: RawClient, folder: Path, header: bytes) -> None:
    """Header names are case-insensitive where LSP's framing comes from (HTTP); pygls matches one exact
    spelling, and a client writing another went unanswered for good."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1000, "method": "initialize", "params": {
        "processId": None, "rootUri": folder.as_uri(), "capabilities": {}}}).encode()
    server.send_bytes(header % len(body) + b"\r\n" + body)
    assert "result" in server.response(1000, 60)
    server.notify("initialized", {})
    assert error_code(server.call("textDocument/hover", {"textDocument": {"uri": 1}, "position": {}})) == INVALID_PARAMS
    assert server.shutdown_and_exit() == 0


def test_a_claimed_length_of_a_terabyte_is_never_allocated(server: RawClient, folder: Path) -> None:
    """A body longer than the server reads (64 MiB) is read and dropped in slices, never asked for at
    once (MemoryError ended the process): here the client goes away in the middle of it."""
    server.initialize(folder)
    server.send_bytes(b"Content-Length: 999999999999\r\n\r\n" + b"x" * 100_000)
    deadline = time.monotonic() + 60
    while "dropped" not in server.stderr():
        assert time.monotonic() < deadline, server.stderr()[-2000:]
        time.sleep(0.05)
    assert server.process.poll() is None  # still reading (and dropping) what the client sends
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(20) == 1
    assert "MemoryError" not in server.stderr() and "Traceback" not in server.stderr(), server.stderr()[-2000:]


def test_an_initialize_nested_100000_deep_is_answered(server: RawClient, folder: Path) -> None:
    """Valid JSON nested 100,000 deep (Python's json cannot decode it: a RecursionError) in the
    first message, which the head start reads itself: what is nested deeper than any LSP message is
    read as null, and the initialize is answered, the session going on as any other."""
    deep = b'{"jsonrpc": "2.0", "id": 1000, "method": "initialize", "params": {"capabilities": {}, ' + \
        b'"rootUri": "' + folder.as_uri().encode() + b'", "initializationOptions": {"skills": ' + \
        b"[" * 100_000 + b"]" * 100_000 + b"}}}"
    server.send_bytes(b"Content-Length: %d\r\n\r\n" % len(deep) + deep)
    assert "result" in server.response(1000, 60)
    server.notify("initialized", {})
    server.wait_for_index()
    assert "result" in server.call("workspace/symbol", {"query": "demo"})
    assert "Traceback" not in server.stderr(), server.stderr()[-2000:]
    assert server.shutdown_and_exit() == 0


def test_a_request_nested_100000_deep_is_answered(ready: RawClient, folder: Path) -> None:
    """A later request with a member nested 100,000 deep is answered as the same request without it."""
    body = json.dumps({"jsonrpc": "2.0", "id": 4242, "method": "workspace/symbol", "params": {"query": "demo"}})
    body = body[:-2] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    ready.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body.encode())
    answer = ready.response(4242, 60)
    assert [item["name"] for item in answer["result"]] == ["demo"]


def test_a_message_that_is_not_json_is_one_line_of_the_log(ready: RawClient) -> None:
    """A message the server cannot decode (not JSON, nested too deep, not UTF-8) is answered with a
    JSON-RPC Parse error and a null id, and said in one line of the log, which editors show: not
    pygls' traceback, nor its "Error in server" message to the user. The session goes on."""
    for body in (b"{not json", b"[" * 100_000, b'{"jsonrpc": "2.0", "id": 5, "method": "caf\xe9"}'):
        ready.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert "result" in ready.call("shutdown", None)
    parse_errors = [m for m in ready.received if "error" in m and m["error"]["code"] == -32700]
    assert len(parse_errors) == 3 and all(m["id"] is None for m in parse_errors), parse_errors
    assert not ready.notifications("window/showMessage")
    log = ready.stderr()
    assert log.count("a message from the client could not be read") == 3, log[-2000:]
    assert "Traceback" not in log, log[-2000:]


@pytest.mark.parametrize("ident", [{"a": 1}, [1], None, True])
def test_a_request_id_that_is_neither_number_nor_string_is_an_invalid_request(ready: RawClient, ident: object) -> None:
    """JSON-RPC 2.0: a request's id is a number or a string (LSP: an integer or a string). Another is an
    Invalid Request, answered with a null id; pygls echoed it back as the answer's id."""
    ready.send({"jsonrpc": "2.0", "id": ident, "method": "workspace/symbol", "params": {"query": ""}})
    answer = ready.wait_for(lambda m: "error" in m and m.get("id") is None, 30)
    assert answer["error"]["code"] == INVALID_REQUEST
    assert not any(type(m.get("id")) is type(ident) and m.get("id") == ident for m in ready.received
                   if "method" not in m and ident is not None)
    assert "result" in ready.call("shutdown", None)


def test_the_reader_hands_the_loop_over_while_thousands_of_messages_wait() -> None:
    """2,000 file events written at once were all read and handled in one step of the loop (0.3-0.7 s
    there): a request among them waited for that step to end before its own timer (a pull's bound) ran.
    Messages already read are taken without waiting, so the reader hands the loop over once it has read
    for ReadAhead.SLICE seconds on end: here, a timer due 10 ms in runs long before the last message."""
    import asyncio
    import io

    from skill_lsp.server.early import ReadAhead, Replay

    count = 2000
    reader = ReadAhead(Replay(b"", io.BytesIO(b"Content-Length: 2\r\n\r\n{}" * count)))

    async def read_all() -> list[int]:
        reader._start()
        while True:  # every frame read ahead first: none of the takes below has to wait
            with reader.lock:
                if len(reader.pieces) == 3 * count + 1:
                    break
            await asyncio.sleep(0.01)
        taken = [0]
        fired: list[int] = []
        asyncio.get_running_loop().call_later(0.01, lambda: fired.append(taken[0]))
        for _ in range(count):
            assert await reader.readline() == b"Content-Length: 2\r\n"
            assert await reader.readline() == b"\r\n"
            assert await reader.readexactly(2) == b"{}"
            time.sleep(0.0002)  # handling the message
            taken[0] += 1
        return fired

    fired = asyncio.run(read_all())
    assert fired and fired[0] < count // 2, fired


def test_a_handler_knows_when_its_request_was_read_from_the_client() -> None:
    """A request's wait for the analyses is bounded from when the reader's thread read it off stdin,
    not from when the loop got to its handler: behind 2,000 file events, a pull had already waited
    0.35 s for the loop before its own 0.25 s bound began."""
    import asyncio
    import io
    from types import SimpleNamespace

    from lsprotocol import types
    from pygls.io_ import StdoutWriter
    from pygls.lsp.server import LanguageServer

    from skill_lsp.server.protocol import SkillProtocol, arrived_at

    language_server = LanguageServer("probe", "0", protocol_cls=SkillProtocol)
    seen: list[float] = []

    @language_server.feature(types.WORKSPACE_SYMBOL)
    async def symbols(ls: LanguageServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        await asyncio.sleep(0.05)
        seen.append(arrived_at())
        return []

    protocol = language_server.protocol
    protocol.initialize_received = True  # type: ignore[attr-defined]
    sent = io.BytesIO()
    protocol.set_writer(StdoutWriter(sent))
    language_server.reader = SimpleNamespace(last_read=1234.5)  # type: ignore[attr-defined]

    async def ask() -> None:
        message = json.loads('{"jsonrpc": "2.0", "id": 1, "method": "workspace/symbol", "params": {"query": ""}}',
                             object_hook=protocol.structure_message)
        protocol.handle_message(message)
        language_server.reader.last_read = 9999.0  # type: ignore[attr-defined]  # (the next message's)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if seen:
                return

    asyncio.run(ask())
    assert seen == [1234.5]
    assert b'"id": 1' in sent.getvalue()
