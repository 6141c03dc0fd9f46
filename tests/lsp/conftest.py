"""End-to-end fixtures: the real server over stdio, driven by pytest-lsp clients."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

PROJECT = Path(__file__).parent / "project"
SERVER = [sys.executable, "-m", "skill_lsp", "serve"]
PROFILES = ["visual-studio-code", "neovim"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A fresh copy of the fixture project for each test."""
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target)
    return target


def initialize_params(profile: str, folder: Path, options: dict[str, object] | None = None,
                      encodings: list[str] | None = None) -> types.InitializeParams:
    capabilities = client_capabilities(profile)
    if encodings is not None:
        capabilities.general = types.GeneralClientCapabilities(position_encodings=encodings)
    return types.InitializeParams(
        capabilities=capabilities,
        root_uri=folder.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)],
        initialization_options={"debounce": 0, **(options or {})},
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=PROFILES)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path,
                 monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AsyncIterator[None]:
    await lsp_client.initialize_session(initialize_params(request.param, workspace))
    await wait_for_index(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def end(client: LanguageClient) -> None:
    """Shut a server started by a test down, whatever happened: pytest-lsp's stop() waits for the
    process without ending it, so a test that failed before its shutdown would hang there forever
    (the server rightly lives while its client does)."""
    try:
        await asyncio.wait_for(client.shutdown_session(), 30)
    except Exception:  # (the test's own failure is what it reports)
        pass
    process = client._server  # pytest-lsp's handle on the process
    if process is not None and process.returncode is None:
        process.kill()
    await client.stop()


async def wait_for_index(client: LanguageClient) -> None:
    """The server logs one line when the first index is done."""
    for _ in range(200):
        if any(": indexed " in message.message for message in client.log_messages):
            return
        try:
            # short waits: a message that lands between the test above and the wait is not seen by
            # the wait, only by the next test
            await asyncio.wait_for(client.wait_for_notification("window/logMessage"), 1)
        except asyncio.TimeoutError:
            continue
    raise AssertionError("the server never finished indexing")


def uri(path: Path) -> str:
    return path.as_uri()


def open_document(client: LanguageClient, path: Path, language: str | None = None, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri(path), language_id=language or ("python" if path.suffix == ".py" else "markdown"), version=version,
        text=path.read_text(encoding="utf-8"),
    )))


def change_document(client: LanguageClient, path: Path, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(path), version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
    ))


async def diagnostics_for(client: LanguageClient, path: Path, predicate=lambda items: True, attempts: int = 50):
    """The last published diagnostics of path, once predicate holds (waits for publications)."""
    key = uri(path)

    def matching() -> list[types.Diagnostic] | None:
        published = client.diagnostics.get(key)
        items = list(published) if published is not None else None
        return items if items is not None and predicate(items) else None

    for _ in range(attempts):
        if (items := matching()) is not None:
            return items
        try:
            # short waits: a publication that lands between the test above and the wait is not
            # seen by the wait, only by the next test
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 1)
        except asyncio.TimeoutError:
            continue
    if (items := matching()) is not None:
        return items
    raise AssertionError(f"no matching diagnostics for {path.name}: {client.diagnostics.get(key)}")


def codes(items) -> list[str]:
    return sorted(str(item.code) for item in items)


def code_units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def apply_edits(text: str, edits, encoding: str = "utf-16") -> str:
    """Apply LSP TextEdits (positions in the given encoding) to text, as an editor would."""
    from skill_lsp.textutil import split_lines

    lines = split_lines(text)

    def offset(position: types.Position) -> int:
        line = lines[position.line] if position.line < len(lines) else ""
        units = 0
        column = 0
        for char in line:
            if units >= position.character:
                break
            units += code_units(char, encoding)
            column += 1
        return sum(len(each) + 1 for each in lines[: position.line]) + column

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
        lines = split_lines(text)
    return text


def position_of(path: Path, needle: str, delta: int = 0, encoding: str = "utf-16") -> types.Position:
    """The position of the first occurrence of needle (plus delta code points) in the file."""
    text = path.read_text(encoding="utf-8")
    index = text.index(needle) + delta
    line = text.count("\n", 0, index)
    column_text = text[text.rfind("\n", 0, index) + 1 : index]
    if encoding == "utf-8":
        character = len(column_text.encode("utf-8"))
    elif encoding == "utf-32":
        character = len(column_text)
    else:
        character = len(column_text.encode("utf-16-le")) // 2
    return types.Position(line=line, character=character)


def encoding_of(client: LanguageClient) -> str:
    """The position encoding the server chose (pygls takes the client's first supported one)."""
    general = client.capabilities.general if client.capabilities else None
    encodings = general.position_encodings if general is not None else None
    return encodings[0] if encodings else "utf-16"
