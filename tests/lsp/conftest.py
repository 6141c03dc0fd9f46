"""End-to-end fixtures: the real server over stdio, driven by pytest-lsp clients."""

from __future__ import annotations

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


async def wait_for_index(client: LanguageClient) -> None:
    """The server logs one line when the first index is done."""
    for _ in range(200):
        if any("indexed" in message.message for message in client.log_messages):
            return
        await client.wait_for_notification("window/logMessage")
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
    for _ in range(attempts):
        items = client.diagnostics.get(key)
        if items is not None and predicate(items):
            return items
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    raise AssertionError(f"no matching diagnostics for {path.name}: {client.diagnostics.get(key)}")


def codes(items) -> list[str]:
    return sorted(str(item.code) for item in items)
