"""Discovery over the protocol: symlinked alias roots and plugin marketplaces, as the editor sees them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ..helpers import skill_md, write_files
from .conftest import codes, diagnostics_for, open_document, shared_fixtures, uri

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REAL = "skills/pdf-tools/SKILL.md"

pytestmark = pytest.mark.shared_server


@pytest.fixture(scope="module")
def lsp_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """skills/ with one skill, seen through .agents/skills and .claude/skills links; and a marketplace."""
    root = tmp_path_factory.mktemp("aliased") / "project"
    write_files(root, {REAL: skill_md("PDF Tools", body="Revenue grew to $2.5M.\n")})
    for parent in (".agents", ".claude"):
        (root / parent).mkdir()
        os.symlink("../skills", root / parent / "skills", target_is_directory=True)
    shutil.copytree(FIXTURES / "plugin-marketplace", root / "market")
    return root


async def test_an_aliased_skill_is_published_once_on_its_real_path(client: LanguageClient, workspace: Path) -> None:
    items = await diagnostics_for(client, workspace / REAL, lambda items: "SK205" in codes(items))
    assert codes(items) == ["SK108", "SK109", "SK205"]
    for alias in (".agents", ".claude"):
        assert uri(workspace / alias / "skills/pdf-tools/SKILL.md") not in client.diagnostics


async def test_opening_the_alias_path_edits_the_real_file(client: LanguageClient, workspace: Path) -> None:
    alias = workspace / ".claude/skills/pdf-tools/SKILL.md"
    await diagnostics_for(client, workspace / REAL, lambda items: "SK205" in codes(items))
    open_document(client, alias)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(alias), version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=skill_md("pdf-tools", body="Fine.\n"))],
    ))
    items = await diagnostics_for(client, alias, lambda items: items == [])
    assert items == []
    assert not client.diagnostics.get(uri(workspace / REAL))


async def test_a_skill_opened_through_a_symlinked_root_shows_its_diagnostics(client: LanguageClient,
                                                                             workspace: Path) -> None:
    """The editor opens the file by the link's path (`.claude/skills -> ../skills`): the diagnostics are
    published on that URI while it is open, and on the real path again once it is closed; never on both."""
    alias = workspace / ".claude/skills/pdf-tools/SKILL.md"
    real = workspace / REAL
    await diagnostics_for(client, real, lambda items: "SK205" in codes(items))
    open_document(client, alias)
    items = await diagnostics_for(client, alias, lambda items: bool(items))
    assert codes(items) == ["SK108", "SK109", "SK205"]
    assert items[0].range.start.line == 1  # name: PDF Tools
    assert not client.diagnostics[uri(real)]  # the real path's are withdrawn: nothing shows twice
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(
        uri=uri(alias))))
    items = await diagnostics_for(client, real, lambda items: bool(items))
    assert codes(items) == ["SK108", "SK109", "SK205"]
    assert not client.diagnostics[uri(alias)]


@pytest.fixture(scope="module")
def linked_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`.agentdeck/skills -> ../shared/skills`: an AgentDeck root whose skills live elsewhere in the project."""
    root = tmp_path_factory.mktemp("linked") / "linked"
    write_files(root, {"shared/skills/quote/SKILL.md": skill_md("quote", description=None),
                       "pyproject.toml": "[project]\nname = 'linked'\n"})
    (root / ".agentdeck").mkdir()
    os.symlink("../shared/skills", root / ".agentdeck" / "skills", target_is_directory=True)
    return root


linked_server, shared_workspace, shared_client = shared_fixtures("linked", "linked_project", "shared_workspace",
                                                                 "shared_client")


@pytest.mark.fresh_server  # (a client that pulls has the server withdraw what it pushed: no reset brings that back)
async def test_a_file_opened_by_its_links_path_is_published_and_pulled_there(shared_client: LanguageClient,
                                                                             shared_workspace: Path) -> None:
    client = shared_client
    alias = shared_workspace / ".agentdeck/skills/quote/SKILL.md"
    open_document(client, alias)
    items = await diagnostics_for(client, alias, lambda items: bool(items))
    assert codes(items) == ["SK106"]
    assert (items[0].range.start.line, items[0].range.start.character) == (0, 0)
    if client.capabilities.text_document is None or client.capabilities.text_document.diagnostic is None:
        return
    pulled = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri(alias))))
    assert codes(pulled.items) == ["SK106"]
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by_uri = {item.uri: item for item in report.items}
    assert codes(by_uri[uri(alias)].items) == ["SK106"]  # the open document's, on its URI
    assert uri(shared_workspace / "shared/skills/quote/SKILL.md") not in by_uri


async def test_marketplace_plugin_skills_are_claude_code_skills(client: LanguageClient, workspace: Path) -> None:
    refund = workspace / "market/plugins/billing/skills/refund-policy/SKILL.md"
    items = await diagnostics_for(client, refund, lambda items: bool(items))
    assert codes(items) == ["SK108"]
    assert items[0].severity == types.DiagnosticSeverity.Information
    assert "names it 'billing-tools:refund-policy' after its directory" in items[0].message
    glossary = await diagnostics_for(client, workspace / "market/plugins/docs-kit/custom/glossary/SKILL.md",
                                     lambda items: bool(items))
    assert codes(glossary) == ["SK108"]  # a root plugin.json names: not SK302


@pytest.fixture(scope="module")
def excluded_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("excluded") / "excluded"
    shutil.copytree(FIXTURES / "excluded-folder", root)
    return root


excluded_server, excluded_workspace, excluded_client = shared_fixtures("excluded", "excluded_project")


async def test_an_open_file_in_an_excluded_folder_is_checked_with_its_roots(excluded_client: LanguageClient,
                                                                            excluded_workspace: Path) -> None:
    agent = excluded_workspace / "legacy/.agentdeck/agents/desk/agent.py"
    open_document(excluded_client, agent)
    items = await diagnostics_for(excluded_client, agent, lambda items: bool(items))
    # only the name no skill has: 'quote-fare' is found under the excluded folder's own root
    assert codes(items) == ["AD101"]
    assert "unknown skill 'quote-fares'" in items[0].message


async def test_a_quick_fix_in_a_file_opened_by_its_links_path_edits_that_document(shared_client: LanguageClient,
                                                                                  shared_workspace: Path) -> None:
    """The editor applies the edit to the document it has open (the link's path, at its version), not to
    another buffer of the real path."""
    client = shared_client
    alias = shared_workspace / ".agentdeck/skills/quote/SKILL.md"
    open_document(client, alias, version=3)
    items = await diagnostics_for(client, alias, lambda items: "SK106" in codes(items))
    target = next(item for item in items if item.code == "SK106")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri(alias)), range=target.range,
        context=types.CodeActionContext(diagnostics=[target])))
    fix = next(action for action in actions or [] if action.title == "Add the body's first paragraph as the description")
    assert fix.edit is not None
    edited = [change.text_document for change in fix.edit.document_changes or []
              if isinstance(change, types.TextDocumentEdit)]
    if edited:
        assert [(each.uri, each.version) for each in edited] == [(uri(alias), 3)]
    else:
        assert list(fix.edit.changes or {}) == [uri(alias)]
