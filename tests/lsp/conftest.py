"""End-to-end fixtures: the real server over stdio, driven by pytest-lsp clients."""

from __future__ import annotations

import asyncio
import inspect
import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

PROJECT = Path(__file__).parent / "project"
SERVER = [sys.executable, "-m", "skill_lsp", "serve"]
PROFILES = ["visual-studio-code", "neovim"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "shared_server: the tests of this module that use `client` share one server a "
                            "profile (the fixture project is put back, and the documents they open closed, after each)")
    config.addinivalue_line("markers", "fresh_server: this test needs a server of its own (it changes settings or "
                            "folders, or something the reset after a shared test cannot put back)")


@pytest.fixture(scope="module")
def lsp_project() -> Path:
    """The project the tests of a module run in, as it is before each of them (a module may define its own)."""
    return PROJECT


@pytest.fixture(scope="module", params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    """The client capability profile `client` initialises the server with."""
    return str(request.param)


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


def _shares(request: pytest.FixtureRequest, client: str = "client") -> bool:
    """Whether this test's client (the fixture of that name) is its module's shared server."""
    node = request.node
    return (node.get_closest_marker("shared_server") is not None and node.get_closest_marker("fresh_server") is None
            and client in request.fixturenames)


@pytest.fixture
def workspace(request: pytest.FixtureRequest, tmp_path: Path, lsp_project: Path) -> Path:
    """A fresh copy of the fixture project for each test (the shared server's copy, put back after each
    test, for a test that shares it)."""
    if _shares(request):
        shared: SharedServer = request.getfixturevalue("shared_server")
        return shared.workspace
    target = tmp_path / "project"
    shutil.copytree(lsp_project, target, symlinks=True)
    return target


@pytest.fixture(scope="session")
async def kept_servers() -> AsyncIterator[dict[tuple[str, Path], SharedServer]]:
    """The shared servers of the fixture project by profile, kept for every module of this process that
    shares one (the modules of a worker run one after the other), ended at the end of the session."""
    kept: dict[tuple[str, Path], SharedServer] = {}
    yield kept
    for shared in kept.values():
        await shared.close()


@pytest.fixture(scope="module")
async def shared_server(profile: str, lsp_project: Path, tmp_path_factory: pytest.TempPathFactory,
                        kept_servers: dict[tuple[str, Path], SharedServer]) -> AsyncIterator[SharedServer]:
    """The server the module's shared tests use, started by the first of them: the fixture project's is
    shared with the other modules, a module's own project's is ended with the module."""
    if lsp_project == PROJECT:
        key = (profile, lsp_project)
        if key not in kept_servers:
            kept_servers[key] = SharedServer(profile, lsp_project, tmp_path_factory.mktemp("shared") / lsp_project.name)
        yield kept_servers[key]
        return
    async with SharedServer.kept(profile, lsp_project, tmp_path_factory) as shared:
        yield shared


@pytest.fixture
async def client(request: pytest.FixtureRequest, workspace: Path,
                 shared_server: SharedServer) -> AsyncIterator[LanguageClient]:
    """A client whose server has indexed workspace: the module's shared one, or one of the test's own."""
    async with shared_server.client_for(request, workspace) as lsp_client:
        yield lsp_client


class SharedServer:
    """One server for the tests of a module that use `client` (or a module's own fixtures, see kept,
    workspace_for and client_for), in a copy of the module's project. After each test the documents it opened
    are closed and the project on disk is put back (the server told of what changed), and the next test begins
    once the published diagnostics are those of the first index again; what the client recorded (messages,
    logs, diagnostics) is what it was after the first index."""

    SETTLE_ATTEMPTS = 60  # seconds, about, for the diagnostics to be those of the first index again

    def __init__(self, profile: str, project: Path, workspace: Path, folder: str = ".",
                 options: Callable[[Path], dict[str, object]] | None = None) -> None:
        self.profile = profile
        self.project = project
        self.workspace = workspace  # the copy of project
        self.folder = folder  # the workspace folder the server is given, in the copy
        self.options = options  # its initialization options, from the copy's path
        shutil.copytree(project, workspace, symlinks=True)
        self.client: LanguageClient | None = None
        self.baseline: dict[str, list[types.Diagnostic]] = {}
        self.recorded: dict[str, list[types.Diagnostic]] = {}
        self.opened: set[str] = set()

    @classmethod
    @asynccontextmanager
    async def kept(cls, profile: str, project: Path, tmp_path_factory: pytest.TempPathFactory, folder: str = ".",
                   options: Callable[[Path], dict[str, object]] | None = None) -> AsyncIterator[SharedServer]:
        """A shared server of project (started when first lent), ended when the block is left: the body of
        a module-scoped fixture."""
        shared = cls(profile, project, tmp_path_factory.mktemp("shared") / project.name, folder, options)
        yield shared
        await shared.close()

    async def close(self) -> None:
        if self.client is not None:
            await self.client.shutdown_session()
            await self.client.stop()

    def workspace_for(self, request: pytest.FixtureRequest, tmp_path: Path, client: str = "client") -> Path:
        """The project a test works in: this server's copy for a test that shares it (see _shares; client is
        the name of the fixture it gets the client from), else a fresh copy of its own."""
        if _shares(request, client):
            return self.workspace
        target = tmp_path / self.project.name
        shutil.copytree(self.project, target, symlinks=True)
        return target

    @asynccontextmanager
    async def client_for(self, request: pytest.FixtureRequest, workspace: Path,
                         client: str = "client") -> AsyncIterator[LanguageClient]:
        """The client of a test (the body of a function-scoped fixture, named client): this server's,
        put back after the test, for a test that shares it; else one of a server of its own on workspace,
        with this server's profile, folder and options."""
        if _shares(request, client):
            yield await self.start()
            await self.reset()
            return
        own = await ClientServerConfig(server_command=SERVER).start()
        tolerate_abandoned_waits(own)
        options = self.options(workspace) if self.options is not None else None
        await own.initialize_session(initialize_params(self.profile, workspace / self.folder, options))
        await wait_for_index(own)
        yield own
        await own.shutdown_session()
        await own.stop()

    async def start(self) -> LanguageClient:
        if self.client is not None:
            return self.client
        client = self.client = await ClientServerConfig(server_command=SERVER).start()
        tolerate_abandoned_waits(client)
        opened = self.opened
        open_, close = client.text_document_did_open, client.text_document_did_close

        def did_open(params: types.DidOpenTextDocumentParams) -> None:
            opened.add(params.text_document.uri)
            open_(params)

        def did_close(params: types.DidCloseTextDocumentParams) -> None:
            opened.discard(params.text_document.uri)
            close(params)

        client.text_document_did_open = did_open  # type: ignore[method-assign]
        client.text_document_did_close = did_close  # type: ignore[method-assign]
        options = self.options(self.workspace) if self.options is not None else None
        await client.initialize_session(initialize_params(self.profile, self.workspace / self.folder, options))
        await wait_for_index(client)
        self.baseline = _published(client)
        self.recorded = dict(client.diagnostics)
        return client

    async def reset(self) -> None:
        client = self.client
        if client is None:
            return
        for opened in sorted(self.opened):
            client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=opened)))
        events = [types.FileEvent(uri=uri(path), type=kind) for path, kind in _put_back(self.workspace, self.project)]
        if events:
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=events))
        client.messages.clear()
        client.shown_documents.clear()
        client.log_messages.clear()
        client._last_log_index = client._setup_log_index = 0
        for _ in range(self.SETTLE_ATTEMPTS):
            if _published(client) == self.baseline:
                # an entry left by the test (a closed document's empty list) would answer the next test's
                # wait for a publication before the server has published anything
                client.diagnostics.clear()
                client.diagnostics.update(self.recorded)
                return
            try:
                await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 1)
            except asyncio.TimeoutError:
                continue
        differing = sorted(key for key in {*self.baseline, *_published(client)}
                           if self.baseline.get(key) != _published(client).get(key))
        await self.restart()
        raise AssertionError(f"the shared server did not come back to the state of its first index: {differing}; "
                             "mark the test fresh_server")

    async def restart(self) -> None:
        """End the server whatever its state; the next test starts one anew, in the project as it was."""
        client, self.client = self.client, None
        self.opened.clear()
        if client is not None:
            await end(client)
            shutil.rmtree(self.workspace)
            shutil.copytree(self.project, self.workspace, symlinks=True)


class _Waits(dict):  # type: ignore[type-arg]
    """pytest-lsp's futures of notifications waited for, without those whose wait was abandoned."""

    def pop(self, key: object, default: object = None) -> object:
        future = super().pop(key, default)
        return default if future is not default and future.done() else future


def shared_fixtures(prefix: str, project: str | Path, workspace: str | None = None, client: str | None = None,
                    folder: str = ".", options: Callable[[Path], dict[str, object]] | None = None,
                    ) -> tuple[object, object, object]:
    """A module's own shared server over a project of its own, as three fixtures to assign in the module:
    `<prefix>_server` (module scope, SharedServer.kept), the workspace (workspace_for; `<prefix>_workspace`
    unless named) and the client (`<prefix>_client` unless named). project is the name of the module's fixture that makes the project,
    or the project's path itself; folder and options are the server's, as SharedServer takes them.

        linked_server, linked_workspace, linked_client = shared_fixtures("linked", "linked_project")
    """
    server_name = f"{prefix}_server"
    workspace_name, client_name = workspace or f"{prefix}_workspace", client or f"{prefix}_client"
    from_fixture = isinstance(project, str)

    async def server(profile: str, tmp_path_factory: pytest.TempPathFactory, **made: Path) -> AsyncIterator[SharedServer]:
        path = made[str(project)] if from_fixture else Path(project)
        async with SharedServer.kept(profile, path, tmp_path_factory, folder, options) as shared:
            yield shared

    def place(request: pytest.FixtureRequest, tmp_path: Path, **shared: SharedServer) -> Path:
        return shared[server_name].workspace_for(request, tmp_path, client_name)

    async def lent(request: pytest.FixtureRequest, **given: object) -> AsyncIterator[LanguageClient]:
        shared, place = given[server_name], given[workspace_name]
        assert isinstance(shared, SharedServer) and isinstance(place, Path)
        async with shared.client_for(request, place, client_name) as client:
            yield client

    # pytest gives a fixture what its signature names: these name the module's fixtures they depend on
    def named(function: Callable[..., object], *names: str) -> Callable[..., object]:
        keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
        function.__signature__ = inspect.Signature([inspect.Parameter(name, keyword) for name in names])  # type: ignore[attr-defined]
        return function

    server_names = ["profile", "tmp_path_factory"] + ([str(project)] if from_fixture else [])
    return (pytest.fixture(scope="module", name=server_name)(named(server, *server_names)),
            pytest.fixture(name=workspace_name)(named(place, "request", "tmp_path", server_name)),
            pytest.fixture(name=client_name)(named(lent, "request", server_name, workspace_name)))


def tolerate_abandoned_waits(client: LanguageClient) -> None:
    """A wait for a notification that timed out (asyncio.wait_for) leaves its cancelled future behind;
    pytest-lsp sets the next such notification's params on it, which raises, and the client then
    takes the server for broken and ends it. A server shared by many tests, or one a test waits on in
    short slices, meets that sooner or later: the abandoned future is dropped instead."""
    client.protocol._notification_futures = _Waits(client.protocol._notification_futures)


def _published(client: LanguageClient) -> dict[str, list[types.Diagnostic]]:
    """The diagnostics shown now, by URI (none and an empty list alike)."""
    return {key: list(items) for key, items in client.diagnostics.items() if items}


def _put_back(workspace: Path, project: Path) -> list[tuple[Path, types.FileChangeType]]:
    """Make workspace the same tree as project again: what was deleted, created or changed for that."""
    events: list[tuple[Path, types.FileChangeType]] = []
    for directory, folders, files in os.walk(workspace, topdown=True):
        here = Path(directory)
        twin = project / here.relative_to(workspace)
        for name in list(folders):
            if not (twin / name).is_dir() or (here / name).is_symlink() != (twin / name).is_symlink():
                target = here / name
                if target.is_symlink():
                    target.unlink()
                else:
                    shutil.rmtree(target)
                folders.remove(name)
                events.append((target, types.FileChangeType.Deleted))
        for name in files:
            if not (twin / name).is_file():
                (here / name).unlink()
                events.append((here / name, types.FileChangeType.Deleted))
    for directory, _, files in os.walk(project):
        here = Path(directory)
        twin = workspace / here.relative_to(project)
        if not twin.is_dir():
            shutil.copytree(here, twin, symlinks=True)
            events.extend((twin / name, types.FileChangeType.Created) for name in files)
            continue
        for name in files:
            source, target = here / name, twin / name
            if not target.is_file():
                shutil.copy2(source, target)
                events.append((target, types.FileChangeType.Created))
            elif target.read_bytes() != source.read_bytes():
                shutil.copy2(source, target)
                events.append((target, types.FileChangeType.Changed))
    return events


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


SERVER_CANCELLED = -32802


async def asked_again(request, *args, attempts: int = 50):
    """A request's answer, asked again while the server answers ServerCancelled (LSP 3.17: "ask again"), as a
    client must: a pull waits a bounded time for an analysis under way, and a busy machine can run past it."""
    from pygls.exceptions import JsonRpcException

    for attempt in range(attempts):
        try:
            return await request(*args)
        except JsonRpcException as error:
            if error.code != SERVER_CANCELLED or attempt == attempts - 1:
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("unreachable")


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
