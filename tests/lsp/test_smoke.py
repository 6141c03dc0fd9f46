from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import codes, diagnostics_for, open_document, uri

pytestmark = pytest.mark.shared_server


async def test_diagnostics_and_hover(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / ".agentdeck/agents/booking/agent.py"
    items = await diagnostics_for(client, agent)
    assert codes(items) == ["AD101"]
    open_document(client, agent)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(agent)), position=types.Position(line=5, character=12)))
    assert hover is not None
    assert "- parse-request: Extract pickup, dropoff, and date from a free-text booking request." in hover.contents.value
