"""Quick fixes and hovers that leave the user better off, over the protocol: "Create skill" writes a
skill to complete and opens it at its description, one change is offered once, an empty name being
typed is a hint, hovers fit on a screen and read naturally, a skills= that is not a literal is "not
known statically"."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Union

import pytest
from cattrs import Converter
from lsprotocol import types
from pytest_lsp import LanguageClient

from ..helpers import run_cli
from .conftest import (
    PROJECT,
    change_document,
    codes,
    diagnostics_for,
    encoding_of,
    open_document,
    position_of,
    uri,
)

AGENT = ".agentdeck/agents/booking/agent.py"
CONVERTER: Converter


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(path))


def many_claude_skills(root: Path, count: int) -> None:
    for number in range(count):
        skill = root / f".claude/skills/rule-{number:02}/SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: rule-{number:02}\ndescription: The shop's rule {number}. Use when it's asked.\n"
                         "---\n\nSay it.\n", encoding="utf-8")


pytestmark = pytest.mark.shared_server


@pytest.fixture(scope="module")
def lsp_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("guidance") / "project"
    shutil.copytree(PROJECT, target)
    many_claude_skills(target, 12)
    (target / "everything.py").write_text(
        'from claude_agent_sdk import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(skills="all", '
        'setting_sources=["project"])\n', encoding="utf-8")
    (target / "dynamic.py").write_text(
        'from agentdeck import Agent\nfrom claude_agent_sdk import ClaudeAgentOptions\n\nCHOSEN = ["refund-policy"]\n'
        'options = ClaudeAgentOptions(skills=CHOSEN, setting_sources=["project"])\n'
        'helper = Agent(name="Helper", instructions="Help.", skills=CHOSEN)\n', encoding="utf-8")
    for number in range(6):
        (target / f"desk{number}.py").write_text(
            'from claude_agent_sdk import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(skills=["refund-policy"], '
            'setting_sources=["project"])\n', encoding="utf-8")
    return target


def _code_action_or_command(value: Any, _: type) -> types.Command | types.CodeAction:
    """lsprotocol's own hook reads every result with a "command" key as a Command, so a CodeAction
    with an edit and a command (run once the edit is applied) would lose its edit: as the spec has it,
    a Command is the one whose "command" is the command's name."""
    if isinstance(value.get("command"), str):
        return CONVERTER.structure(value, types.Command)
    return CONVERTER.structure(value, types.CodeAction)


@pytest.fixture
def client(client: LanguageClient) -> LanguageClient:
    global CONVERTER
    CONVERTER = client.protocol._converter
    # typing.Union, the very key lsprotocol registered its hook under
    CONVERTER.register_structure_hook(Union[types.Command, types.CodeAction], _code_action_or_command)  # noqa: UP007
    return client


async def actions_for(client: LanguageClient, path: Path, code: str) -> tuple[list[types.CodeAction], list[types.Diagnostic]]:
    items = await diagnostics_for(client, path, lambda items: code in codes(items))
    target = next(item for item in items if item.code == code)
    on_it = [item for item in items if item.range == target.range]  # what an editor sends: all under the cursor
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(path), range=target.range, context=types.CodeActionContext(diagnostics=on_it)))
    return list(actions or []), on_it


async def test_create_skill_writes_a_skill_to_complete_and_opens_it_at_the_description(
        client: LanguageClient, workspace: Path) -> None:
    shop = workspace / "shop.py"
    open_document(client, shop)
    actions, _ = await actions_for(client, shop, "CL103")
    create = next(action for action in actions if action.title.startswith("Create skill"))
    assert create.title == "Create skill 'refund-polcy' in .claude/skills/"  # the real root, not skills/
    assert create.edit is not None and create.edit.document_changes is not None
    created = workspace / ".claude/skills/refund-polcy/SKILL.md"
    made = [change for change in create.edit.document_changes if isinstance(change, types.CreateFile)]
    assert [change.uri for change in made] == [uri(created)]
    (content,) = [edit.new_text for change in create.edit.document_changes
                  if isinstance(change, types.TextDocumentEdit) for edit in change.edits]
    assert content == "---\nname: refund-polcy\ndescription: \n---\n\n# Refund Polcy\n\n"
    # the client applies the edit, then runs the command: the server asks it to show the new file
    assert create.command is not None and create.command.command == "skillLsp.reveal"
    created.parent.mkdir()
    created.write_text(content, encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=uri(created), type=types.FileChangeType.Created)]))
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=create.command.command, arguments=create.command.arguments))
    assert shown is True
    (request,) = client.shown_documents
    at = types.Position(line=2, character=len("description: "))
    assert (request.uri, request.selection, request.take_focus) == (uri(created), types.Range(start=at, end=at), True)
    # what is left to do is said where the cursor is: the description must be written
    items = await diagnostics_for(client, created, lambda items: "SK107" in codes(items))
    assert codes(items) == ["SK107"] and items[0].range.start.line == 2
    await diagnostics_for(client, shop, lambda items: "CL103" not in codes(items))


async def test_the_same_change_from_two_findings_is_offered_once(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".agentdeck/skills/broken/SKILL.md"
    text = "---\nname: Broken\ndescription: Works now.\n---\n\nBody.\n"
    open_document(client, skill)
    change_document(client, skill, text, 2)
    await diagnostics_for(client, skill, lambda items: {"SK108", "SK109"} <= set(codes(items)))
    actions, on_it = await actions_for(client, skill, "SK108")
    assert sorted(str(item.code) for item in on_it) == ["SK108", "SK109"]
    assert [action.title for action in actions] == ["Set name to 'broken'"]
    assert sorted(str(item.code) for item in actions[0].diagnostics or []) == ["SK108", "SK109"]
    assert actions[0].is_preferred


async def test_an_empty_name_being_typed_is_a_hint_not_an_error(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    typed = agent.read_text(encoding="utf-8").replace('"parse-reqest"]', '""]')
    change_document(client, agent, typed, 2)
    items = await diagnostics_for(client, agent, lambda items: any(item.message.startswith("no skill name yet")
                                                                   for item in items))
    (empty,) = items
    assert (empty.code, empty.severity) == ("AD101", types.DiagnosticSeverity.Hint)
    start = position_of(agent, '"parse-reqest"', 0, encoding_of(client))
    assert (empty.range.start, empty.range.end.character - empty.range.start.character) == (start, 2)
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc(agent), position=types.Position(
        line=start.line, character=start.character + 1)))
    assert hover is not None and "no skill name yet" in hover.contents.value
    shop = workspace / "shop.py"
    open_document(client, shop)
    change_document(client, shop, shop.read_text(encoding="utf-8").replace('"refund-polcy"', "''"), 2)
    items = await diagnostics_for(client, shop, lambda items: "CL103" not in codes(items))
    assert [(item.code, item.severity) for item in items] == [("CL101", types.DiagnosticSeverity.Hint)]
    # saved, it is the error the SDK raises at run time: check fails on it
    agent.write_text(typed, encoding="utf-8")
    checked = run_cli("check", "--format", "json", cwd=workspace)
    assert checked.returncode == 1 and '"severity": "error"' in checked.stdout and "unknown skill ''" in checked.stdout


async def test_hovers_fit_on_a_screen_and_read_naturally(client: LanguageClient, workspace: Path) -> None:
    everything = workspace / "everything.py"
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(everything), position=position_of(everything, "ClaudeAgentOptions(", 3, encoding_of(client))))
    assert hover is not None
    text = hover.contents.value
    assert text.startswith("**`<available_skills>` preview** — 13 skills, ")
    assert len(text.splitlines()) <= 30, text
    assert "- **refund-policy** — The shop's refund rules." in text
    assert "- **rule-00** — The shop's rule 0. Use when it's asked." in text
    assert "_… and 8 more skills_" in text
    assert "_… and 12 more `<skill>` entries" in text
    # XML escaping only inside the exact block
    fence = text.index("```xml")
    assert "&#x27;" not in text[:fence] and "The shop&#x27;s refund rules." in text[fence:]
    # a listed Claude skill: name and path first, the description as written, the body, the exact entry last
    shop = workspace / "shop.py"
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(shop), position=position_of(shop, '"refund-policy"', 3, encoding_of(client))))
    assert hover is not None
    lines = hover.contents.value.split("\n")
    assert lines[0] == "**refund-policy** — loaded by Claude Code and VS Code Copilot · `.claude/skills/refund-policy/SKILL.md`"
    assert lines[2] == "The shop's refund rules. Use when a customer asks what can be refunded."
    assert "Say exactly: Refunds run for 14 days" in lines[5]
    assert "The listing entry, exactly:" in lines


async def test_the_agents_using_a_skill_are_listed_up_to_a_screen(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".claude/skills/refund-policy/SKILL.md"
    open_document(client, skill)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(skill), position=position_of(skill, "description:", 2, encoding_of(client))))
    assert hover is not None
    text = hover.contents.value
    assert "Used by 7 agents:" in text
    assert text.count("\n- ClaudeAgentOptions options — ") == 5
    # the list of agents stops at a screen; the load verdict of each runtime follows it
    assert "- _… and 2 more agents (Find References lists them all)_\n\n**Load verdict**" in text


async def test_a_skills_value_that_is_not_a_literal_is_not_known_statically(client: LanguageClient, workspace: Path) -> None:
    dynamic = workspace / "dynamic.py"
    for needle in ("ClaudeAgentOptions(skills", "Agent(name"):
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=doc(dynamic), position=position_of(dynamic, needle, 2, encoding_of(client))))
        assert hover is not None
        text = hover.contents.value
        assert "**not known statically**" in text
        assert "<available_skills>\n</available_skills>" not in text and "### Skills available" not in text


async def test_the_disclosure_command_says_what_is_not_known_statically(client: LanguageClient, workspace: Path) -> None:
    dynamic = workspace / "dynamic.py"
    position = position_of(dynamic, "ClaudeAgentOptions(skills", 2, encoding_of(client))
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="skillLsp.disclosure",
        arguments=[{"uri": uri(dynamic), "position": {"line": position.line, "character": position.character}}]))
    assert result["text"] == ""  # no block, rather than the empty one an empty list gives
    assert "not known statically" in result["note"]


def test_disclosure_says_what_is_not_known_statically(workspace: Path) -> None:
    result = run_cli("disclosure", "dynamic.py:options", cwd=workspace)
    assert result.returncode == 0
    assert result.stdout.strip() == ""
    assert "not known statically" in result.stderr
