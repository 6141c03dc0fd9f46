"""Hover, completion, navigation, symbols, links and lenses over the protocol."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import change_document, diagnostics_for, encoding_of, open_document, position_of, uri

pytestmark = pytest.mark.shared_server

AGENT = ".agentdeck/agents/booking/agent.py"
PARSE = ".agentdeck/skills/parse-request/SKILL.md"
BLOCK = (
    "Help the user book a ride.\n\n"
    "### Skills available\n"
    "Each entry below is a name and a description. Call `load_skill(name)` to read the\n"
    "full instructions before following one.\n"
    "- parse-request: Extract pickup, dropoff, and date from a free-text booking request.\n"
    "- quote-fare: Quote a fare in € 🚕 for a ride between two cities."
)


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(path))


async def hover_at(client: LanguageClient, path: Path, needle: str, delta: int = 1) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(
        text_document=doc(path), position=position_of(path, needle, delta, encoding_of(client))))


async def test_hover_on_a_listed_skill_shows_its_disclosure_entry(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    hover = await hover_at(client, agent, '"parse-request"', 3)
    assert hover is not None
    text = hover.contents.value
    assert "- parse-request: Extract pickup, dropoff, and date from a free-text booking request." in text
    assert ".agentdeck/skills/parse-request/SKILL.md" in text
    assert 'Split the request on "->".' in text  # the first lines of the body
    assert hover.range.start.line == 5


async def test_hover_on_the_agent_shows_the_exact_block(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    for needle in ("Agent(", "skills="):
        hover = await hover_at(client, agent, needle, 1)
        assert hover is not None
        text = hover.contents.value
        assert f"```text\n{BLOCK}\n```" in text
        assert f"{len(BLOCK):,} characters" in text
        assert "tokens" in text
        assert "`parse-reqest`" in text  # listed but left out: it resolves to nothing


async def test_hover_on_an_unknown_name_suggests_the_closest(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    hover = await hover_at(client, agent, '"parse-reqest"', 3)
    assert hover is not None
    assert "unknown skill" in hover.contents.value
    assert "`parse-request`" in hover.contents.value


async def test_hover_on_claude_options_previews_available_skills(client: LanguageClient, workspace: Path) -> None:
    shop = workspace / "shop.py"
    hover = await hover_at(client, shop, "ClaudeAgentOptions(", 3)
    assert hover is not None
    text = hover.contents.value
    location = workspace / ".claude/skills/refund-policy/SKILL.md"
    assert ("<available_skills>\n<skill>\n<name>\nrefund-policy\n</name>\n<description>\n"
            "The shop&#x27;s refund rules. Use when a customer asks what can be refunded.\n</description>\n"
            f"<location>\n{location}\n</location>\n</skill>\n</available_skills>") in text
    assert "`refund-polcy`" in text


async def test_hover_on_frontmatter_keys(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / PARSE
    hover = await hover_at(client, skill, "description:", 2)
    assert hover is not None
    assert "- parse-request: Extract pickup" in hover.contents.value
    assert "Agent Booking" in hover.contents.value
    claude = workspace / ".claude/skills/refund-policy/SKILL.md"
    claude.write_text(claude.read_text().replace("---\n\n", "effort: high\n---\n\n", 1))
    open_document(client, claude)
    hover = await hover_at(client, claude, "effort", 1)
    assert hover is not None
    assert "**effort**" in hover.contents.value and "`xhigh`" in hover.contents.value


async def test_completion_offers_skill_names_in_a_string(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(agent), position=position_of(agent, '"parse-reqest"', 1, encoding_of(client))))
    assert result is not None
    labels = [item.label for item in result.items]
    assert labels == ["broken"]  # parse-request and quote-fare are listed already
    edit = result.items[0].text_edit
    assert (edit.new_text if edit is not None else result.items[0].label) == "broken"  # the label, with the list's editRange


async def test_completion_inside_an_unterminated_string(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    text = ('from agentdeck import Agent, Deck\n\nhelper = Agent(name="Helper", instructions="Help.", skills=["parse-request", "qu\n\n'
            "deck = Deck.from_project(agents=[helper])\n")
    change_document(client, agent, text, 2)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(agent), position=types.Position(line=2, character=text.splitlines()[2].index('"qu') + 3)))
    assert result is not None
    by_label = {item.label: item for item in result.items}
    assert "quote-fare" in by_label and "parse-request" not in by_label
    item = by_label["quote-fare"]
    replaced = item.text_edit.range if item.text_edit is not None else result.item_defaults.edit_range
    assert replaced.start.character == text.splitlines()[2].index('"qu') + 1
    if item.documentation is None:  # the client resolves it (VS Code's capabilities say so)
        item = await client.completion_item_resolve_async(item)
    assert "Quote a fare" in item.documentation.value


async def test_completion_in_claude_options_offers_claude_skills(client: LanguageClient, workspace: Path) -> None:
    shop = workspace / "shop.py"
    open_document(client, shop)
    text = 'from claude_agent_sdk import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(skills=["\n'
    change_document(client, shop, text, 2)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(shop), position=types.Position(line=2, character=len(text.splitlines()[2]))))
    assert result is not None
    assert [item.label for item in result.items] == ["refund-policy"]


async def test_completion_of_frontmatter_keys_and_values(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".agentdeck/skills/broken/SKILL.md"
    open_document(client, skill)
    change_document(client, skill, "---\nname: broken\nde\n---\n\nBody.\n", 2)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(skill), position=types.Position(line=2, character=2)))
    labels = [item.label for item in result.items]
    assert "description" in labels and "license" in labels
    assert "name" not in labels  # already present
    assert "when_to_use" not in labels  # not an AgentDeck field
    change_document(client, skill, "---\nname: \ndescription: d\n---\n\nBody.\n", 3)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(skill), position=types.Position(line=1, character=6)))
    assert [item.label for item in result.items] == ["broken"]


async def test_definition_and_references(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    locations = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(agent), position=position_of(agent, '"quote-fare"', 2, encoding_of(client))))
    assert [location.uri for location in locations] == [uri(workspace / ".agentdeck/skills/quote-fare/SKILL.md")]
    assert locations[0].range.start.line == 1
    skill = workspace / PARSE
    references = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc(skill), position=types.Position(line=1, character=8),
        context=types.ReferenceContext(include_declaration=False)))
    assert [(r.uri, r.range.start.line) for r in references] == [(uri(agent), 5)]
    from_code = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc(agent), position=position_of(agent, '"parse-request"', 2, encoding_of(client)),
        context=types.ReferenceContext(include_declaration=True)))
    assert {r.uri for r in from_code} == {uri(agent), uri(skill)}


async def test_document_and_workspace_symbols(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / PARSE
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(skill)))
    assert [symbol.name for symbol in symbols] == ["name", "description"]
    agent = workspace / AGENT
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(agent)))
    assert [symbol.name for symbol in symbols] == ["Booking", "deck"]
    assert [child.name for child in symbols[0].children] == ["parse-request", "quote-fare", "parse-reqest"]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="qfare"))
    assert [symbol.name for symbol in found] == ["quote-fare"]


async def test_workspace_symbols_are_placed_in_the_client_s_encoding(client: LanguageClient, workspace: Path) -> None:
    """A workspace symbol is placed from the skill's facts: without reading its file when the lines
    up to the name are ASCII (every encoding agrees), from its text when they are not."""
    taxi = workspace / ".agentdeck/skills/taxi/SKILL.md"
    taxi.parent.mkdir(parents=True)
    taxi.write_text('---\nname: "\U0001F695taxi"\ndescription: Rides.\n---\n\nSteps.\n', encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=uri(taxi), type=types.FileChangeType.Created)]))
    await diagnostics_for(client, taxi)
    encoding = encoding_of(client)
    for query, path, needle in (("taxi", taxi, '"\U0001F695taxi"'), ("parse-request", workspace / PARSE, "parse-request")):
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
        assert [symbol.location.uri for symbol in found] == [uri(path)]
        assert found[0].location.range == types.Range(start=position_of(path, needle, 0, encoding),
                                                       end=position_of(path, needle, len(needle), encoding))


@pytest.mark.slow
async def test_an_agent_outline_shows_the_first_5000_names_and_says_so(client: LanguageClient, workspace: Path) -> None:
    """A list of 60,000 names took two seconds to outline: the outline shows the first 5,000 of an
    agent file's listed names, and its agent says how many there are."""
    agent = workspace / "app/many.py"
    agent.parent.mkdir(parents=True, exist_ok=True)
    text = 'from agentdeck import Agent\n\nmany = Agent(name="Many", skills=[' + ", ".join(f'"s-{n}"' for n in range(6000)) + "])\n"
    agent.write_text(text, encoding="utf-8")
    open_document(client, agent)
    await diagnostics_for(client, agent, lambda items: len(items) == 6000)  # (AD101: none of them exists)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(agent)))
    assert [(symbol.name, symbol.detail) for symbol in symbols] == [("Many", "Agent (the first 5,000 of 6,000 skills)")]
    children = symbols[0].children or []
    assert len(children) == 5000 and (children[0].name, children[-1].name) == ("s-0", "s-4999")
    assert children[-1].range.start == types.Position(line=2, character=text.split("\n")[2].index('"s-4999"'))


async def test_an_outline_follows_every_edit_that_moves_it(client: LanguageClient, workspace: Path) -> None:
    """The outline of a SKILL.md is kept while nothing it shows moves; each edit that moves, renames or
    widens a heading gives the new one."""
    skill = workspace / PARSE
    head, _, _ = skill.read_text(encoding="utf-8").partition("\n---\n")
    front = head + "\n---\n"
    texts = [front + "\n# Steps\n\n## Read\n", front + "\nIntro.\n# Steps\n\n## Read\n",
             front + "\nIntro.\n# Steps\n\n## Read it\n", front + "\nIntro.\n# Steps\n\n## Read \U0001f600 it\n"]
    open_document(client, skill)
    outlines = []
    for version, text in enumerate(texts, 2):
        change_document(client, skill, text, version)
        symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(skill)))
        top = symbols[-1]
        outlines.append((top.name, top.range.start.line, [(child.name, child.range.start.line, child.range.end.character)
                                                           for child in top.children or []]))
    wide = 3 + len("Read \U0001f600 it") + (1 if encoding_of(client) == "utf-16" else 3 if encoding_of(client) == "utf-8" else 0)
    lines = front.count("\n")
    assert outlines == [("Steps", lines + 1, [("Read", lines + 3, 7)]), ("Steps", lines + 2, [("Read", lines + 4, 7)]),
                        ("Steps", lines + 2, [("Read it", lines + 4, 10)]),
                        ("Steps", lines + 2, [("Read \U0001f600 it", lines + 4, wide)])]


@pytest.mark.slow
async def test_an_outline_of_the_first_5000_headings_follows_the_edits_before_its_last(client: LanguageClient,
                                                                                        workspace: Path) -> None:
    """A SKILL.md whose outline shows its first 5,000 headings keeps that outline while the edits fall
    after the last one shown (typing at the end of a long buffer), and follows every edit before it."""
    skill = workspace / PARSE
    front = "---\nname: parse-request\ndescription: Parse it.\n---\n\n"
    body = "".join(f"## Step {number}\n\nDo step {number}.\n\n" for number in range(6000))
    open_document(client, skill)

    async def outline(text: str, version: int) -> list[tuple[str, int, str | None]]:
        change_document(client, skill, text, version)
        symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(skill)))
        return [(symbol.name, symbol.range.start.line, symbol.detail) for symbol in symbols]

    first = await outline(front + body, 2)
    assert len(first) == 2 + 5000 and first[2] == ("Step 0", 5, None) and first[-1] == ("Step 4999", 5 + 4 * 4999, None)
    assert await outline(front + body + "typed at the end", 3) == first
    assert await outline(front + body + "typed at the end\n# A heading past the last shown\n", 4) == first
    # a heading renamed, one added before the last one shown, the frontmatter changed: each shows
    renamed = await outline(front + body.replace("## Step 4999\n", "## Last one\n"), 5)
    assert renamed[-1] == ("Last one", 5 + 4 * 4999, None) and renamed[:-1] == first[:-1]
    added = await outline(front + "## Intro\n" + body, 6)
    assert added[2:4] == [("Intro", 5, None), ("Step 0", 6, None)] and added[-1] == ("Step 4998", 6 + 4 * 4998, None)
    changed = await outline(front.replace("Parse it.", "Parse the request.") + body, 7)
    assert changed[1] == ("description", 2, "Parse the request.") and changed[2:] == first[2:]


async def test_document_links_and_code_lens(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".agentdeck/skills/quote-fare/SKILL.md"
    (skill.parent / "references").mkdir()
    (skill.parent / "references/rates.md").write_text("# Rates\n")
    open_document(client, skill)
    links = await client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc(skill)))
    assert [link.target for link in links] == [uri(skill.parent / "references/rates.md")]
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(skill)))
    assert [lens.command.title for lens in lenses] == ["used by 1 agent", "AgentDeck: loads"]
    broken = workspace / ".agentdeck/skills/broken/SKILL.md"
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(broken)))
    assert lenses[0].command.title == "used by 0 agents"


async def test_disclosure_command(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="skillLsp.disclosure", arguments=[{"uri": uri(agent), "position": {"line": 4, "character": 5}}]))
    assert result == {"title": "Booking", "text": BLOCK}
