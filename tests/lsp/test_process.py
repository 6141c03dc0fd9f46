"""The server as a process: stdio by default, TCP, file watching, progress, logs."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from .conftest import SERVER, end, initialize_params, wait_for_index

AGENT = ".agentdeck/agents/booking/agent.py"


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream) -> dict[str, object]:
    headers = {}
    while True:
        line = stream.readline()
        if line in (b"\r\n", b""):
            break
        key, _, value = line.decode().partition(":")
        headers[key.strip().lower()] = value.strip()
    return json.loads(stream.read(int(headers["content-length"])))


def test_no_arguments_runs_the_server_on_stdio(tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-m", "skill_lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        process.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                   "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
        process.stdin.flush()
        reply = read_frame(process.stdout)
        assert reply["id"] == 1
        assert reply["result"]["serverInfo"]["name"] == "skill-lsp"
        capabilities = reply["result"]["capabilities"]
        for provider in ("hoverProvider", "completionProvider", "definitionProvider", "referencesProvider",
                         "renameProvider", "codeActionProvider", "documentSymbolProvider", "workspaceSymbolProvider",
                         "documentLinkProvider", "codeLensProvider", "diagnosticProvider"):
            assert capabilities.get(provider), provider
        process.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        process.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        process.stdin.flush()
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_tcp_server(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "skill_lsp", "serve", "--tcp", "--host", "127.0.0.1",
                                "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        with connection:
            connection.sendall(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                      "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
            reply = read_frame(connection.makefile("rb"))
            assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "skill-lsp"
    finally:
        process.kill()
        process.wait(timeout=10)


async def test_watchers_progress_and_log_for_a_capable_client(workspace: Path) -> None:
    client = await ClientServerConfig(server_command=SERVER).start()
    registrations: list[types.RegistrationParams] = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.append(params)

    try:
        await client.initialize_session(initialize_params("visual-studio-code", workspace))
        await wait_for_index(client)
        watchers = registrations[0].registrations[0].register_options["watchers"]
        globs = {watcher["globPattern"] for watcher in watchers}
        assert {"**/SKILL.md", "**/*.py", "**/pyproject.toml", "**/skills/*",
                "**/.claude/settings.json", "**/.claude/settings.local.json"} <= globs
        tokens = list(client.progress_reports)
        assert tokens, "the first index reports work-done progress"
        kinds = [report.kind for report in client.progress_reports[tokens[0]]]
        assert kinds[0] == "begin" and kinds[-1] == "end"
        assert any("indexed 4 skills" in message.message for message in client.log_messages)
    finally:
        await end(client)


async def test_a_client_that_dies_ends_the_server(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(*SERVER, stdin=asyncio.subprocess.PIPE,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    process.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
    await process.stdin.drain()
    process.stdin.close()
    await asyncio.wait_for(process.wait(), 20)


@pytest.mark.parametrize("flag", ["--help"])
def test_serve_help(flag: str) -> None:
    result = subprocess.run([sys.executable, "-m", "skill_lsp", "serve", flag], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "--tcp" in result.stdout
