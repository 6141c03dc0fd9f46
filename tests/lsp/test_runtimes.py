"""The runtime model over the protocol: per-runtime severity of a YAML error Claude Code repairs, the load
verdict in the frontmatter hover and the code lens, and the quick fix that quotes like the recovery."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import change_document, codes, diagnostics_for, encoding_of, open_document, position_of, uri

pytestmark = pytest.mark.shared_server

REFUND = ".claude/skills/refund-policy/SKILL.md"
COLON = "---\nname: refund-rules\ndescription: Use when: the user asks for a refund\n---\n\nExplain the policy.\n"


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(path))


async def test_recoverable_yaml_is_a_warning_and_the_other_checks_still_run(client: LanguageClient, workspace: Path) -> None:
    path = workspace / REFUND
    open_document(client, path)
    change_document(client, path, COLON, 2)
    items = await diagnostics_for(client, path, lambda items: "SK103" in codes(items))
    assert codes(items) == ["SK103", "SK108"]  # the recovered name differs from the directory
    yaml_error = next(item for item in items if item.code == "SK103")
    assert yaml_error.severity == types.DiagnosticSeverity.Warning
    assert yaml_error.range == types.Range(start=types.Position(line=2, character=21),
                                           end=types.Position(line=2, character=49))
    assert "Claude Code loads it after quoting line 3" in yaml_error.message
    assert "strict loaders (AgentDeck, the skills-ref validator, claude.ai upload) drop the skill" in yaml_error.message
    mismatch = next(item for item in items if item.code == "SK108")
    assert mismatch.severity == types.DiagnosticSeverity.Information
    assert mismatch.range.start == types.Position(line=1, character=6)


async def test_quick_fix_quotes_the_value_like_claude_code(client: LanguageClient, workspace: Path) -> None:
    path = workspace / REFUND
    open_document(client, path)
    change_document(client, path, COLON, 2)
    items = await diagnostics_for(client, path, lambda items: "SK103" in codes(items))
    target = next(item for item in items if item.code == "SK103")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(path), range=target.range, context=types.CodeActionContext(diagnostics=[target])))
    quote = next(action for action in actions or [] if isinstance(action, types.CodeAction) and action.title == "Quote the value")
    assert quote.is_preferred
    edit = quote.edit
    assert edit is not None
    edits = edit.changes[uri(path)] if edit.changes else [
        e for change in edit.document_changes or [] if isinstance(change, types.TextDocumentEdit) for e in change.edits]
    assert [(e.range.start.line, e.range.start.character, e.range.end.character, e.new_text) for e in edits] == [
        (2, 13, 49, '"Use when: the user asks for a refund"')]


async def test_frontmatter_hover_shows_each_runtimes_verdict(client: LanguageClient, workspace: Path) -> None:
    path = workspace / REFUND
    open_document(client, path)
    change_document(client, path, COLON, 2)
    await diagnostics_for(client, path, lambda items: "SK103" in codes(items))
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(path), position=types.Position(line=0, character=1)))
    assert hover is not None
    text = hover.contents.value
    assert "**Load verdict**" in text
    assert "- Claude Code: loads it after quoting line 3 — SK103 invalid-yaml" in text
    assert "- VS Code Copilot: may not read it (its YAML parser is not modelled) — SK103 invalid-yaml" in text


async def test_code_lens_says_the_verdict_in_one_line(client: LanguageClient, workspace: Path) -> None:
    path = workspace / REFUND
    open_document(client, path)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(path)))
    assert [lens.command.title for lens in lenses][1:] == ["Claude Code: loads · VS Code Copilot: loads"]
    change_document(client, path, "Just a body, no frontmatter.\n", 2)
    await diagnostics_for(client, path, lambda items: "SK101" in codes(items))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(path)))
    assert [lens.command.title for lens in lenses][1:] == ["Claude Code: loads, altered · VS Code Copilot: loads, altered"]
    deck = workspace / ".agentdeck/skills/broken/SKILL.md"
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(deck)))
    assert [lens.command.title for lens in lenses] == ["used by 0 agents", "AgentDeck: fails Deck.build() naming the bundle"]


async def test_hover_does_not_show_an_entry_agentdeck_cannot_load(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".agentdeck/skills/quote-fare/SKILL.md"
    open_document(client, skill)
    change_document(client, skill, "---\nname: quote-fare\ndescription: Quote a fare: city to city\n---\n\nQuote it.\n", 2)
    items = await diagnostics_for(client, skill, lambda items: "SK103" in codes(items))
    assert next(item for item in items if item.code == "SK103").severity == types.DiagnosticSeverity.Error
    agent = workspace / ".agentdeck/agents/booking/agent.py"
    open_document(client, agent)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(agent), position=position_of(agent, '"quote-fare"', 1, encoding_of(client))))
    assert hover is not None
    assert "- quote-fare:" not in hover.contents.value
    assert ("No entry: AgentDeck cannot load this skill (its frontmatter is invalid YAML at line 3), so "
            "`Deck.build()` fails.") in hover.contents.value
