"""Discovery over the protocol: symlinked alias roots and plugin marketplaces, as the editor sees them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from ..helpers import skill_md, write_files
from .conftest import PROFILES, SERVER, codes, diagnostics_for, initialize_params, open_document, uri, wait_for_index

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REAL = "skills/pdf-tools/SKILL.md"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """skills/ with one skill, seen through .agents/skills and .claude/skills links; and a marketplace."""
    root = tmp_path / "project"
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
    items = await diagnostics_for(client, workspace / REAL, lambda items: items == [])
    assert items == []
    assert uri(alias) not in client.diagnostics or client.diagnostics[uri(alias)] == []


async def test_marketplace_plugin_skills_are_claude_code_skills(client: LanguageClient, workspace: Path) -> None:
    refund = workspace / "market/plugins/billing/skills/refund-policy/SKILL.md"
    items = await diagnostics_for(client, refund, lambda items: bool(items))
    assert codes(items) == ["SK108"]
    assert items[0].severity == types.DiagnosticSeverity.Warning
    assert "invokes it as 'billing-tools:refund-policy'" in items[0].message
    glossary = await diagnostics_for(client, workspace / "market/plugins/docs-kit/custom/glossary/SKILL.md",
                                     lambda items: bool(items))
    assert codes(glossary) == ["SK108"]  # a root plugin.json names: not SK302


@pytest.fixture
def excluded_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "excluded"
    shutil.copytree(FIXTURES / "excluded-folder", root)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=PROFILES)
async def excluded_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, excluded_workspace: Path):
    await lsp_client.initialize_session(initialize_params(request.param, excluded_workspace))
    await wait_for_index(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_an_open_file_in_an_excluded_folder_is_checked_with_its_roots(excluded_client: LanguageClient,
                                                                            excluded_workspace: Path) -> None:
    agent = excluded_workspace / "legacy/.agentdeck/agents/desk/agent.py"
    open_document(excluded_client, agent)
    items = await diagnostics_for(excluded_client, agent, lambda items: bool(items))
    # only the name no skill has: 'quote-fare' is found under the excluded folder's own root
    assert codes(items) == ["AD101"]
    assert "unknown skill 'quote-fares'" in items[0].message
