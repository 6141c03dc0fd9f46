"""Listing budgets over the protocol: LS101 on the options call and the project's settings file (code, range,
severity), the cut of a long description in its hover, the code lens of an options call and a subagent, and
the options call's finding following an edit of one of its skills."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ..helpers import write_files
from .conftest import change_document, codes, diagnostics_for, encoding_of, position_of, shared_fixtures
from .test_agent_definitions import doc, open_file

pytestmark = pytest.mark.shared_server

AGENT = '''from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(model="claude-haiku-4-5", setting_sources=["project"])
'''
SUBAGENT = "---\nname: helper\ndescription: Helps.\nmodel: claude-opus-4-8\n---\nYou help.\n"
LONG = "Explains the refund rules. " + "Each case is spelled out in full here. " * 45


def skill_text(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nBody.\n"


@pytest.fixture(scope="module")
def listing_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 skills of 760-character descriptions and one of 1,781 (cut at 1,536)."""
    root = tmp_path_factory.mktemp("listing") / "listing"
    files = {f".claude/skills/s{index:02d}/SKILL.md": skill_text(f"s{index:02d}", "d" * 760) for index in range(12)}
    files[".claude/skills/refunds/SKILL.md"] = skill_text("refunds", LONG)
    files[".claude/settings.json"] = "{\n}\n"
    files["agent.py"] = AGENT
    files[".claude/agents/helper.md"] = SUBAGENT
    write_files(root, files)
    return root


listing_server, listing_workspace, listing_client = shared_fixtures("listing", "listing_project")


ENTRY = len("- s00: ") + 760
TOTAL = 12 * ENTRY + len("- refunds: ") + 1536 + 12  # the cut entry, and 12 newlines


async def test_ls101_on_the_options_call_and_the_settings_file(listing_client: LanguageClient,
                                                              listing_workspace: Path) -> None:
    agent = listing_workspace / "agent.py"
    open_file(listing_client, agent)
    [item] = await diagnostics_for(listing_client, agent, lambda items: codes(items) == ["LS101"])
    encoding = encoding_of(listing_client)
    start = position_of(agent, "ClaudeAgentOptions(", encoding=encoding)
    assert item.range == types.Range(start=start, end=types.Position(line=start.line, character=start.character + 18))
    assert item.severity == types.DiagnosticSeverity.Warning
    assert f"13 skills is {TOTAL:,} characters, over 8,000" in item.message
    settings = listing_workspace / ".claude/settings.json"
    [project] = await diagnostics_for(listing_client, settings, lambda items: codes(items) == ["LS101"])
    assert project.range == types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1))
    # with no model known, over a 200,000-token model's 8,000 only: information
    assert project.severity == types.DiagnosticSeverity.Information


async def test_the_hover_of_a_long_description_shows_its_cut(listing_client: LanguageClient,
                                                            listing_workspace: Path) -> None:
    path = listing_workspace / ".claude/skills/refunds/SKILL.md"
    open_file(listing_client, path)
    hover = await listing_client.text_document_hover_async(types.HoverParams(
        text_document=doc(path), position=position_of(path, "Explains", encoding=encoding_of(listing_client))))
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    cut = len(LONG.strip()) - 1535  # YAML drops the trailing space
    assert "Claude Code cuts the description and `when_to_use` at 1,536 characters" in text
    assert f"the model never reads the last {cut:,} characters" in text
    assert f"Over budget by {TOTAL - 8000:,} characters: this description can be dropped" in text
    # the options call has no skills= filter: its session lists every skill it discovers, this one too
    assert f"**Claude session (options at line 3)** — 13 skills · {TOTAL:,} characters of 8,000 · 13 at risk" in text


async def test_code_lenses_on_the_options_call_and_the_subagent(listing_client: LanguageClient,
                                                               listing_workspace: Path) -> None:
    agent = listing_workspace / "agent.py"
    open_file(listing_client, agent)
    lenses = await listing_client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(agent)))
    assert [lens.command.title for lens in lenses or [] if lens.command] == [f"13 skills · {TOTAL:,} characters of 8,000 · 13 at risk"]
    helper = listing_workspace / ".claude/agents/helper.md"
    open_file(listing_client, helper)
    lenses = await listing_client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(helper)))
    # Opus 4.8: 1 % of 1,000,000 tokens at 3 characters a token
    assert [lens.command.title for lens in lenses or [] if lens.command] == [f"13 skills · {TOTAL:,} characters of 30,000"]


async def test_shortening_a_skill_updates_the_options_calls_finding(listing_client: LanguageClient,
                                                                   listing_workspace: Path) -> None:
    agent = listing_workspace / "agent.py"
    open_file(listing_client, agent)
    await diagnostics_for(listing_client, agent, lambda items: codes(items) == ["LS101"])
    for index in range(2):
        path = listing_workspace / f".claude/skills/s{index:02d}/SKILL.md"
        open_file(listing_client, path)
        change_document(listing_client, path, skill_text(f"s{index:02d}", "Short."), 2)
    await diagnostics_for(listing_client, agent, lambda items: "13 skills is" in items[0].message
                          and f"{TOTAL - 2 * 754:,} characters" in items[0].message if items else False)
    path = listing_workspace / ".claude/skills/refunds/SKILL.md"
    open_file(listing_client, path)
    change_document(listing_client, path, skill_text("refunds", "Refund rules."), 2)
    # 9,255 - 1,523: under 8,000
    await diagnostics_for(listing_client, agent, lambda items: codes(items) == [])


async def test_a_settings_file_changed_on_disk_updates_the_listings_findings(listing_client: LanguageClient,
                                                                            listing_workspace: Path) -> None:
    """skillOverrides name-only for five skills brings the listing under 8,000: LS101 leaves the settings file
    and the options call once the editor reports the change (the server registers a watcher for it)."""
    agent = listing_workspace / "agent.py"
    settings = listing_workspace / ".claude/settings.json"
    open_file(listing_client, agent)
    await diagnostics_for(listing_client, settings, lambda items: codes(items) == ["LS101"])
    overrides = ", ".join(f'"s{index:02d}": "name-only"' for index in range(5))
    settings.write_text(f'{{"skillOverrides": {{{overrides}}}}}\n', encoding="utf-8")
    listing_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=settings.as_uri(), type=types.FileChangeType.Changed)]))
    await diagnostics_for(listing_client, settings, lambda items: codes(items) == [])
    await diagnostics_for(listing_client, agent, lambda items: codes(items) == [])
