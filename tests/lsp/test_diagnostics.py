"""Diagnostics over the protocol: initial push, edits, cross-file updates, files on disk, pull, modes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import (
    PROFILES,
    SERVER,
    asked_again,
    change_document,
    codes,
    diagnostics_for,
    encoding_of,
    initialize_params,
    open_document,
    position_of,
    uri,
    wait_for_index,
)

pytestmark = pytest.mark.shared_server

AGENT = ".agentdeck/agents/booking/agent.py"
PARSE = ".agentdeck/skills/parse-request/SKILL.md"


async def test_files_that_are_not_open_are_diagnosed_after_the_first_index(client: LanguageClient, workspace: Path) -> None:
    agent = await diagnostics_for(client, workspace / AGENT)
    assert codes(agent) == ["AD101"]
    assert agent[0].range == types.Range(start=types.Position(line=5, character=43), end=types.Position(line=5, character=57))
    assert agent[0].source == "skill-lsp"
    assert agent[0].severity == types.DiagnosticSeverity.Error
    assert "did you mean 'parse-request'" in agent[0].message
    broken = await diagnostics_for(client, workspace / ".agentdeck/skills/broken/SKILL.md")
    assert codes(broken) == ["SK106"]
    shop = await diagnostics_for(client, workspace / "shop.py")
    assert codes(shop) == ["CL103"]
    assert shop[0].severity == types.DiagnosticSeverity.Warning


async def test_an_edit_rediagnoses_the_open_skill(client: LanguageClient, workspace: Path) -> None:
    path = workspace / ".agentdeck/skills/broken/SKILL.md"
    open_document(client, path)
    change_document(client, path, "---\nname: broken\ndescription: Now described.\n---\n\nBody.\n", 2)
    items = await diagnostics_for(client, path, lambda items: items == [])
    assert items == []
    change_document(client, path, "---\nname: broken\ndescripton: typo\n---\n\nBody.\n", 3)
    items = await diagnostics_for(client, path, lambda items: "SK111" in codes(items))
    assert codes(items) == ["SK106", "SK111"]
    unknown = next(item for item in items if item.code == "SK111")
    assert unknown.range.start == types.Position(line=2, character=0)
    assert "did you mean 'description'" in unknown.message


async def test_an_edit_in_an_open_skill_rediagnoses_the_agents_that_list_it(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    await diagnostics_for(client, agent, lambda items: codes(items) == ["AD101"])
    skill = workspace / PARSE
    open_document(client, skill)
    text = skill.read_text().replace("name: parse-request", "name: parse-requests")
    change_document(client, skill, text, 2)
    items = await diagnostics_for(client, agent, lambda items: len(items) == 2)
    assert codes(items) == ["AD101", "AD101"]
    assert any("unknown skill 'parse-request'" in item.message for item in items)
    own = await diagnostics_for(client, skill, lambda items: "SK108" in codes(items))
    assert codes(own) == ["SK108"]
    change_document(client, skill, text.replace("parse-requests", "parse-request"), 3)
    items = await diagnostics_for(client, agent, lambda items: len(items) == 1)
    assert codes(items) == ["AD101"]


async def test_an_edit_in_an_agent_file_is_diagnosed_while_typing(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    text = agent.read_text().replace('"parse-reqest"', '"parse-request", "quote-fare"')
    change_document(client, agent, text, 2)
    items = await diagnostics_for(client, agent, lambda items: codes(items) == ["AD104", "AD104"] or codes(items) == ["AD104"])
    assert "listed twice" in items[0].message


async def test_deleting_a_skill_directory_on_disk_turns_its_agents_red(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    await diagnostics_for(client, agent, lambda items: codes(items) == ["AD101"])
    skill_dir = workspace / ".agentdeck/skills/quote-fare"
    shutil.rmtree(skill_dir)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(skill_dir), type=types.FileChangeType.Deleted),
    ]))
    items = await diagnostics_for(client, agent, lambda items: len(items) == 2)
    assert any("unknown skill 'quote-fare'" in item.message for item in items)
    # its own diagnostics are withdrawn
    await diagnostics_for(client, skill_dir / "SKILL.md", lambda items: not items)


async def test_without_client_watchers_the_server_sees_a_deleted_skill_directory(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    await diagnostics_for(client, agent, lambda items: codes(items) == ["AD101"])
    # no didChangeWatchedFiles is sent: the test clients refuse watcher registration
    shutil.rmtree(workspace / ".agentdeck/skills/quote-fare")
    items = await diagnostics_for(client, agent, lambda items: len(items) == 2)
    assert any("unknown skill 'quote-fare'" in item.message for item in items)


async def test_creating_a_skill_on_disk_clears_the_unknown_name(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    await diagnostics_for(client, agent, lambda items: codes(items) == ["AD101"])
    created = workspace / ".agentdeck/skills/parse-reqest/SKILL.md"
    created.parent.mkdir()
    created.write_text("---\nname: parse-reqest\ndescription: A skill with a typo in its name.\n---\n\nBody.\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(created), type=types.FileChangeType.Created),
    ]))
    items = await diagnostics_for(client, agent, lambda items: items == [])
    assert items == []


async def test_a_closed_buffer_falls_back_to_the_file_on_disk(client: LanguageClient, workspace: Path) -> None:
    path = workspace / ".agentdeck/skills/broken/SKILL.md"
    open_document(client, path)
    change_document(client, path, "no frontmatter at all\n", 2)
    await diagnostics_for(client, path, lambda items: codes(items) == ["SK101"])
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(path))))
    items = await diagnostics_for(client, path, lambda items: codes(items) == ["SK106"])
    assert codes(items) == ["SK106"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=PROFILES)
async def on_save_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    await lsp_client.initialize_session(initialize_params(request.param, workspace, {"validate": "onSave"}))
    await wait_for_index(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_on_save_mode_publishes_on_save_only(on_save_client: LanguageClient, workspace: Path) -> None:
    client = on_save_client
    path = workspace / ".agentdeck/skills/broken/SKILL.md"
    await diagnostics_for(client, path, lambda items: codes(items) == ["SK106"])
    open_document(client, path)
    change_document(client, path, "---\nname: broken\ndescription: fixed\n---\n\nBody.\n", 2)
    # a request makes the server take the change in; nothing is published until the save
    await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(path)), position=types.Position(line=1, character=1)))
    assert codes(client.diagnostics[uri(path)]) == ["SK106"]
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(path))))
    items = await diagnostics_for(client, path, lambda items: items == [])
    assert items == []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def pull_client(lsp_client: LanguageClient, workspace: Path):
    params = initialize_params("neovim", workspace)
    await lsp_client.initialize_session(params)
    await wait_for_index(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_pull_diagnostics_with_result_ids(pull_client: LanguageClient, workspace: Path) -> None:
    client = pull_client
    assert client.capabilities.text_document.diagnostic is not None
    agent = workspace / AGENT
    open_document(client, agent)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri(agent))))
    assert report.kind == "full"
    assert codes(report.items) == ["AD101"]
    again = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri(agent)), previous_result_id=report.result_id))
    assert again.kind == "unchanged"
    assert again.result_id == report.result_id
    change_document(client, agent, agent.read_text().replace(', "parse-reqest"', ""), 2)
    fixed = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri(agent)), previous_result_id=report.result_id))
    assert fixed.kind == "full" and not fixed.items


async def test_a_pulled_report_follows_its_text_when_its_findings_stay_the_same(pull_client: LanguageClient, workspace: Path) -> None:
    """A pull's report is kept while its findings and text are the same objects. An edit that leaves the
    findings as they were (the same code points) but moves their UTF-16 columns (an astral character
    before them on their line) makes it again: the range moves, and so does the result id. (An agent
    outside any Deck: its edit re-checks that file alone, and its findings list is kept when equal.)"""
    client = pull_client
    agent = workspace / "typed.py"
    text = 'from agentdeck import Agent\n\na = Agent(name="a", instructions="xx", skills=["nope"])\n'
    agent.write_text(text, encoding="utf-8")
    open_document(client, agent)
    ask = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri(agent)))
    before = await asked_again(client.text_document_diagnostic_async, ask)
    column = text.split("\n")[2].index('"nope"')
    assert [(item.code, item.range.start.character) for item in before.items] == [("AD101", column)]
    typed = text.replace('"xx"', '"x\U0001F600"')
    change_document(client, agent, typed, 2)
    agent.write_text(typed, encoding="utf-8")  # (where position_of reads it)
    after = await asked_again(client.text_document_diagnostic_async, types.DocumentDiagnosticParams(
        text_document=ask.text_document, previous_result_id=before.result_id))
    assert after.kind == "full" and after.result_id != before.result_id
    moved = position_of(agent, '"nope"', encoding=encoding_of(client))
    assert moved.character > column
    assert [(item.code, item.range.start) for item in after.items] == [("AD101", moved)]
    workspace_report = await asked_again(client.workspace_diagnostic_async, types.WorkspaceDiagnosticParams(
        previous_result_ids=[types.PreviousResultId(uri=uri(agent), value=after.result_id)]))
    mine = [item for item in workspace_report.items if item.uri == uri(agent)]
    assert [(item.kind, item.result_id, item.version) for item in mine] == [("unchanged", after.result_id, 2)]


async def test_workspace_pull_reports_files_that_are_not_open(pull_client: LanguageClient, workspace: Path) -> None:
    report = await pull_client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by_uri = {item.uri: item for item in report.items}
    assert codes(by_uri[uri(workspace / AGENT)].items) == ["AD101"]
    assert codes(by_uri[uri(workspace / ".agentdeck/skills/broken/SKILL.md")].items) == ["SK106"]
    assert codes(by_uri[uri(workspace / "shop.py")].items) == ["CL103"]
    # once the client pulls, what was pushed is withdrawn so nothing shows twice
    assert all(not items for items in pull_client.diagnostics.values())


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=PROFILES)
async def multi_root_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path):
    first = tmp_path / "first"
    second = tmp_path / "second"
    (first / ".agents/skills/alpha").mkdir(parents=True)
    (first / ".agents/skills/alpha/SKILL.md").write_text("---\nname: alpha\n---\n\nBody.\n")
    (second / ".claude/skills/beta").mkdir(parents=True)
    (second / ".claude/skills/beta/SKILL.md").write_text("---\nname: Beta label\ndescription: Beta.\n---\n\nBody.\n")
    params = initialize_params(request.param, first)
    params.workspace_folders = [types.WorkspaceFolder(uri=uri(first), name="first"),
                                types.WorkspaceFolder(uri=uri(second), name="second")]
    await lsp_client.initialize_session(params)
    await wait_for_index(lsp_client)
    yield tmp_path
    await lsp_client.shutdown_session()


async def test_multi_root_workspaces_are_all_indexed(multi_root_client: LanguageClient, tmp_path: Path) -> None:
    first = await diagnostics_for(multi_root_client, tmp_path / "first/.agents/skills/alpha/SKILL.md")
    assert codes(first) == ["SK106"]
    assert first[0].severity == types.DiagnosticSeverity.Error
    second = await diagnostics_for(multi_root_client, tmp_path / "second/.claude/skills/beta/SKILL.md")
    assert codes(second) == ["SK108"]
    assert second[0].severity == types.DiagnosticSeverity.Information  # a display label (docs/runtimes.md)


@pytest.mark.fresh_server  # (it changes the workspace folders)
async def test_adding_and_removing_workspace_folders(client: LanguageClient, workspace: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    (extra / ".agents/skills/gamma").mkdir(parents=True)
    skill = extra / ".agents/skills/gamma/SKILL.md"
    skill.write_text("---\nname: gamma\n---\n\nBody.\n")  # no description: Codex skips it
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(
        added=[types.WorkspaceFolder(uri=uri(extra), name="extra")], removed=[])))
    items = await diagnostics_for(client, skill, lambda items: bool(items))
    assert "SK106" in codes(items)
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(
        added=[], removed=[types.WorkspaceFolder(uri=uri(extra), name="extra")])))
    items = await diagnostics_for(client, skill, lambda items: items == [])
    assert items == []


def test_the_server_never_writes_anything_but_protocol_to_stdout(tmp_path: Path) -> None:
    import json
    import subprocess

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
    exit_body = json.dumps({"jsonrpc": "2.0", "method": "exit"})
    stdin = "".join(f"Content-Length: {len(b.encode())}\r\n\r\n{b}" for b in (body, exit_body))
    result = subprocess.run([sys.executable, "-m", "skill_lsp", "serve"], input=stdin.encode(), capture_output=True, timeout=30)
    stdout = result.stdout.decode()
    assert stdout.startswith("Content-Length: ")
    rest = result.stdout
    while rest:
        header, _, rest = rest.partition(b"\r\n\r\n")
        fields = dict(line.split(b": ", 1) for line in header.split(b"\r\n"))
        length = int(fields[b"Content-Length"])
        json.loads(rest[:length])
        rest = rest[length:]
    assert result.returncode == 1  # exit without shutdown


async def test_the_paths_in_a_message_are_relative_to_the_workspace_folder(client: LanguageClient, workspace: Path) -> None:
    """As the editor's explorer shows them (the command line shows them relative to its current directory)."""
    agent = await diagnostics_for(client, workspace / AGENT)
    assert "(roots: .agentdeck/skills)" in agent[0].message
    shop = await diagnostics_for(client, workspace / "shop.py")
    assert "(searched .claude/skills)" in shop[0].message
    assert all(str(workspace) not in item.message for item in agent + shop)


async def test_a_skill_lsp_toml_and_its_per_file_ignores_apply_as_they_change(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    await diagnostics_for(client, agent, lambda items: codes(items) == ["AD101"])
    config = workspace / "skill-lsp.toml"
    config.write_text('[per-file-ignores]\n".agentdeck/agents/**" = ["AD101"]\n', encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(config), type=types.FileChangeType.Created)]))
    await diagnostics_for(client, agent, lambda items: items == [])
    config.write_text('ignor = ["SK106"]\n\n[per-file-ignores]\n".agentdeck/agents/**" = ["AD101"]\n', encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(config), type=types.FileChangeType.Changed)]))
    items = await diagnostics_for(client, config, lambda items: codes(items) == ["CF001"])
    assert items[0].range.start.line == 0 and "unknown setting 'ignor'" in items[0].message
    assert not client.diagnostics.get(uri(agent))
