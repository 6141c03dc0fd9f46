"""Discovery over the protocol: symlinked alias roots and plugin marketplaces, as the editor sees them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ..helpers import skill_md, write_files
from .conftest import codes, diagnostics_for, open_document, uri

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
    assert "invoked as 'billing-tools:refund-policy'" in items[0].message
    glossary = await diagnostics_for(client, workspace / "market/plugins/docs-kit/custom/glossary/SKILL.md",
                                     lambda items: bool(items))
    assert codes(glossary) == ["SK108"]  # a root plugin.json names: not SK302
