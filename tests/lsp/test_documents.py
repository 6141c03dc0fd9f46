"""A skill's own documents over the protocol: a SKILL.md nested in another skill's directory is no skill (SPEC 2.6)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ..helpers import skill_md, write_files
from .conftest import change_document, codes, diagnostics_for, open_document, uri

TOPIC = ".claude/skills/billing/disputes/SKILL.md"


pytestmark = pytest.mark.shared_server


@pytest.fixture(scope="module")
def lsp_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("documents") / "project"
    write_files(root, {
        ".claude/skills/billing/SKILL.md": skill_md("billing", body="Read [disputes](disputes/SKILL.md) first.\n"),
        TOPIC: "# Disputes\n\nReading material of the billing skill: no frontmatter.\n",
        ".claude/skills/refunds/SKILL.md": "# Refunds\n\nNo frontmatter: a real skill without one.\n",
    })
    return root


async def test_a_skills_document_opened_and_edited_gets_no_diagnostics(client: LanguageClient, workspace: Path) -> None:
    # the real skill without frontmatter is reported (the analysis ran), the billing skill's document is not
    items = await diagnostics_for(client, workspace / ".claude/skills/refunds/SKILL.md", lambda items: bool(items))
    assert codes(items) == ["SK101"]
    assert items[0].severity is not None and items[0].severity.name == "Warning"
    open_document(client, workspace / TOPIC)
    change_document(client, workspace / TOPIC, "---\nname: Other\n---\n# Disputes\n", 2)
    # a request after the notifications: answered once they were handled
    await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri(workspace / TOPIC))))
    await asyncio.sleep(0.5)  # room for a publication that must not come
    assert not client.diagnostics.get(uri(workspace / TOPIC))
    assert not client.diagnostics.get(uri(workspace / ".claude/skills/billing/SKILL.md"))
