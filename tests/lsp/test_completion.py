"""Completion of skill names in a registry of hundreds: filtered by what is typed, capped, resolved lazily."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from skill_lsp.server.completion import COMPLETION_LIMIT

from .conftest import PROJECT, change_document, open_document, uri

AGENT = ".agentdeck/agents/booking/agent.py"
SKILLS = 150  # more than COMPLETION_LIMIT


pytestmark = pytest.mark.shared_server


@pytest.fixture(scope="module")
def lsp_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    workspace = tmp_path_factory.mktemp("completion") / "project"
    shutil.copytree(PROJECT, workspace)
    for number in range(SKILLS):
        name = f"{'translate' if number % 3 else 'summarize'}-text-{number:03d}"
        skill = workspace / ".agentdeck/skills" / name / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: {name}\ndescription: Does task {number}.\n---\n\nSteps.\n", encoding="utf-8")
    return workspace


async def complete(client: LanguageClient, workspace: Path, typed: str) -> types.CompletionList:
    agent = workspace / AGENT
    open_document(client, agent)
    text = f'from agentdeck import Agent, Deck\n\nhelper = Agent(name="H", instructions="Help.", skills=["translate-text-001", "{typed}"])\n'
    change_document(client, agent, text, 2)
    line = text.splitlines()[2]
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri(agent)),
        position=types.Position(line=2, character=line.index(f'"{typed}"') + 1 + len(typed))))
    assert isinstance(result, types.CompletionList)
    return result


async def test_a_large_registry_is_capped_and_marked_incomplete(client: LanguageClient, workspace: Path) -> None:
    result = await complete(client, workspace, "")
    labels = [item.label for item in result.items]
    assert result.is_incomplete
    assert len(labels) == COMPLETION_LIMIT
    assert labels == sorted(labels)
    assert "translate-text-001" not in labels  # listed already


async def test_what_is_typed_filters_before_the_cap(client: LanguageClient, workspace: Path) -> None:
    result = await complete(client, workspace, "summ")
    labels = [item.label for item in result.items]
    assert labels == sorted(f"summarize-text-{number:03d}" for number in range(0, SKILLS, 3))
    assert result.is_incomplete  # the registry holds more than the cap: the client asks again as the user types
    # names that only contain what is typed come after those starting with it
    result = await complete(client, workspace, "text-14")
    labels = [item.label for item in result.items]
    assert labels == [f"{'translate' if number % 3 else 'summarize'}-text-{number}" for number in
                      sorted(range(140, 150), key=lambda n: ("translate" if n % 3 else "summarize", n))]


async def test_documentation_is_resolved_when_the_client_can(client: LanguageClient, workspace: Path) -> None:
    result = await complete(client, workspace, "summarize-text-00")
    item = next(item for item in result.items if item.label == "summarize-text-003")
    can_resolve = "documentation" in (client.capabilities.text_document.completion.completion_item.resolve_support.properties)  # type: ignore[union-attr]
    if can_resolve:
        assert item.documentation is None
    else:  # the description, inline
        assert isinstance(item.documentation, types.MarkupContent) and item.documentation.value == "Does task 3."
    assert item.label_details is not None and item.label_details.description == "Does task 3."
    # any client may resolve an item: its documentation is then the skill's hover
    item = await client.completion_item_resolve_async(item)
    assert isinstance(item.documentation, types.MarkupContent)
    assert "**summarize-text-003** — loaded by AgentDeck" in item.documentation.value
    assert "Does task 3." in item.documentation.value


async def test_names_are_offered_in_the_text_just_typed_while_its_analysis_runs(client: LanguageClient,
                                                                              workspace: Path) -> None:
    """A request waits for the analysis of the last edits only so long (scheduler.REQUEST_WAIT), then answers
    from the model as it stands. Completion answers in the text the editor has, where the cursor is:
    here the open's analysis (20,000 unknown names) is still running when a line is typed below."""
    agent = workspace / AGENT
    names = ", ".join(f'"unknown-{number}"' for number in range(20_000))
    opened = f'from agentdeck import Agent\n\nbusy = Agent(name="B", instructions="Busy.", skills=[{names}])\n'
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri(agent), language_id="python", version=1, text=opened)))
    await asyncio.sleep(0.2)  # (the open's analysis starts; it takes seconds)
    typed = opened + 'helper = Agent(name="H", instructions="Help.", skills=["summ"])\n'
    change_document(client, agent, typed, 2)
    line = typed.splitlines()[3]
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri(agent)),
        position=types.Position(line=3, character=line.index('"summ"') + 5)))
    assert isinstance(result, types.CompletionList)
    assert [item.label for item in result.items] == sorted(f"summarize-text-{number:03d}" for number in range(0, SKILLS, 3))


@pytest.mark.slow
@pytest.mark.parametrize("analysed", [True, False], ids=["after its analysis", "right after its open"])
async def test_names_are_offered_in_a_file_of_megabytes(client: LanguageClient, workspace: Path, analysed: bool) -> None:
    """Completion asks a file over 256 KB what its imports are without parsing all of it (a second
    for 7 MB, at every completion while its end is typed into): the last parse of the file, or before
    there is one a parse of its import statements alone. The names offered are the same."""
    agent = workspace / AGENT
    filler = "".join(f'value_{number} = "a line of ordinary code, with a wörd or two"  # {number}\n' for number in range(8_000))
    opened = f"from agentdeck import Agent as DeckAgent\n\n{filler}"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri(agent), language_id="python", version=1, text=opened)))
    if analysed:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    typed = opened + 'helper = DeckAgent(name="H", instructions="Help.", skills=["summ"])\n'
    change_document(client, agent, typed, 2)
    line = typed.splitlines()[-1]
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri(agent)),
        position=types.Position(line=len(typed.splitlines()) - 1, character=line.index('"summ"') + 5)))
    assert isinstance(result, types.CompletionList)
    assert [item.label for item in result.items] == sorted(f"summarize-text-{number:03d}" for number in range(0, SKILLS, 3))
