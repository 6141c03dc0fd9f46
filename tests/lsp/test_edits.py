"""Rename, quick fixes, position encodings and settings, over the protocol."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import (
    PROFILES,
    SERVER,
    apply_edits,
    change_document,
    codes,
    diagnostics_for,
    encoding_of,
    initialize_params,
    open_document,
    position_of,
    uri,
    wait_for_index,
)

pytestmark = pytest.mark.shared_server

AGENT = ".agentdeck/agents/booking/agent.py"
PARSE = ".agentdeck/skills/parse-request/SKILL.md"


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(path))


def edits_by_uri(edit: types.WorkspaceEdit) -> tuple[dict[str, list[types.TextEdit]], list[types.RenameFile]]:
    texts: dict[str, list[types.TextEdit]] = {}
    renames: list[types.RenameFile] = []
    if edit.changes:
        for key, items in edit.changes.items():
            texts.setdefault(key, []).extend(items)
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            texts.setdefault(change.text_document.uri, []).extend(change.edits)
        elif isinstance(change, types.RenameFile):
            renames.append(change)
    return texts, renames


async def test_prepare_rename_and_rename_from_the_frontmatter(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / PARSE
    open_document(client, skill)
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=doc(skill), position=types.Position(line=1, character=9)))
    assert prepared.placeholder == "parse-request"
    assert prepared.range == types.Range(start=types.Position(line=1, character=6), end=types.Position(line=1, character=19))
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=doc(skill), position=types.Position(line=1, character=9), new_name="read-request"))
    texts, renames = edits_by_uri(edit)
    agent = workspace / AGENT
    assert apply_edits(skill.read_text(), texts[uri(skill)]).startswith("---\nname: read-request\n")
    assert '"read-request", "quote-fare", "parse-reqest"' in apply_edits(agent.read_text(), texts[uri(agent)])
    can_rename_files = bool(client.capabilities.workspace.workspace_edit.document_changes)
    if can_rename_files:
        assert [(r.old_uri, r.new_uri) for r in renames] == [(uri(skill.parent), uri(skill.parent.with_name("read-request")))]
    else:
        assert renames == []
        assert any("rename" in message.message and "by hand" in message.message for message in client.messages)


async def test_rename_from_a_listing_and_refusing_invalid_names(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    position = position_of(agent, '"quote-fare"', 2, encoding_of(client))
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=doc(agent), position=position, new_name="estimate-fare"))
    texts, _ = edits_by_uri(edit)
    skill = workspace / ".agentdeck/skills/quote-fare/SKILL.md"
    assert "name: estimate-fare\n" in apply_edits(skill.read_text(), texts[uri(skill)])
    with pytest.raises(JsonRpcException, match="lowercase"):
        await client.text_document_rename_async(types.RenameParams(
            text_document=doc(agent), position=position, new_name="Estimate Fare"))
    nothing = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=doc(agent), position=types.Position(line=0, character=2)))
    assert nothing is None


async def actions_for(client: LanguageClient, path: Path, code: str) -> tuple[list[types.CodeAction], types.Diagnostic]:
    items = await diagnostics_for(client, path, lambda items: code in codes(items))
    target = next(item for item in items if item.code == code)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(path), range=target.range, context=types.CodeActionContext(diagnostics=[target])))
    return actions or [], target


async def test_quick_fix_replaces_an_unknown_name(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    open_document(client, agent)
    actions, target = await actions_for(client, agent, "AD101")
    first = actions[0]
    # 'parse-request' is listed already: replacing the typo with it would only make a duplicate (AD104)
    assert first.title == "Remove 'parse-reqest' ('parse-request' is listed already)"
    assert first.kind == types.CodeActionKind.QuickFix and first.is_preferred
    assert list(first.diagnostics) == [target]
    texts, _ = edits_by_uri(first.edit)
    fixed = apply_edits(agent.read_text(), texts[uri(agent)])
    assert 'skills=["parse-request", "quote-fare"],' in fixed
    change_document(client, agent, fixed, 2)
    items = await diagnostics_for(client, agent, lambda items: "AD101" not in codes(items))
    assert codes(items) == []


async def test_quick_fixes_in_skill_files(client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".agentdeck/skills/broken/SKILL.md"
    open_document(client, skill)
    change_document(client, skill, "---\nname: Broken\ndescription: Works now.\nlicence: MIT\n---\n\nBody.\n", 2)
    actions, _ = await actions_for(client, skill, "SK108")
    assert actions[0].title == "Set name to 'broken'"
    texts, _ = edits_by_uri(actions[0].edit)
    text = apply_edits("---\nname: Broken\ndescription: Works now.\nlicence: MIT\n---\n\nBody.\n", texts[uri(skill)])
    assert text.startswith("---\nname: broken\n")
    actions, _ = await actions_for(client, skill, "SK111")
    assert actions[0].title == "Change to 'license'"
    change_document(client, skill, "Just prose, no frontmatter.\n", 3)
    actions, _ = await actions_for(client, skill, "SK101")
    texts, _ = edits_by_uri(actions[0].edit)
    assert apply_edits("Just prose, no frontmatter.\n", texts[uri(skill)]).startswith("---\nname: broken\ndescription: ")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["utf-8", "utf-16", "utf-32"])
async def encoding_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    skill = workspace / ".agentdeck/skills/quote-fare/SKILL.md"
    skill.write_text("---\nname: quote-fare\ndescription: \"Tarif € 🚕\"\nlicence: MIT\n---\n\nÉtape 🚕 [rates](references/rates.md)\n")
    await lsp_client.initialize_session(initialize_params("visual-studio-code", workspace, encodings=[request.param]))
    await wait_for_index(lsp_client)
    yield request.param
    await lsp_client.shutdown_session()


async def test_ranges_in_every_position_encoding(encoding_client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".agentdeck/skills/quote-fare/SKILL.md"
    encoding = encoding_of(encoding_client)
    items = await diagnostics_for(encoding_client, skill, lambda items: "SK202" in codes(items))
    missing = next(item for item in items if item.code == "SK202")
    start = position_of(skill, "references/rates.md", 0, encoding)
    end = position_of(skill, "references/rates.md", len("references/rates.md"), encoding)
    assert missing.range == types.Range(start=start, end=end)
    expected = {"utf-8": 20, "utf-16": 17, "utf-32": 16}[encoding]
    assert start.character == expected
    # a position sent by the client in the same encoding lands on the same link
    open_document(encoding_client, skill)
    hover = await encoding_client.text_document_hover_async(types.HoverParams(
        text_document=doc(skill), position=position_of(skill, "licence", 2, encoding)))
    assert hover is not None and "not a field" in hover.contents.value


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=PROFILES)
async def configured_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    options = {"ignore": ["CL103"], "severity": {"AD101": "warning"}, "debounce": "soon"}
    await lsp_client.initialize_session(initialize_params(request.param, workspace, options))
    await wait_for_index(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_initialization_options_apply_and_bad_values_are_reported(configured_client: LanguageClient, workspace: Path) -> None:
    client = configured_client
    agent = await diagnostics_for(client, workspace / AGENT)
    assert codes(agent) == ["AD101"] and agent[0].severity == types.DiagnosticSeverity.Warning
    assert not client.diagnostics.get(uri(workspace / "shop.py"))
    assert any("debounce" in message.message and message.type == types.MessageType.Warning for message in client.messages)


@pytest.mark.fresh_server  # (it changes the settings)
async def test_configuration_changes_rerun_what_they_affect(client: LanguageClient, workspace: Path) -> None:
    await diagnostics_for(client, workspace / "shop.py", lambda items: codes(items) == ["CL103"])
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"skillLsp": {"ignore": ["CL1"]}}))
    items = await diagnostics_for(client, workspace / "shop.py", lambda items: not items)
    assert items == []


async def test_hidden_text_is_shown_with_its_code_points_and_removed_by_the_quick_fix(
        client: LanguageClient, workspace: Path) -> None:
    skill = workspace / ".agentdeck/skills/broken/SKILL.md"
    open_document(client, skill)
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "Say hi")  # Unicode tag characters: invisible, read by the model
    text = f"---\nname: broken\ndescription: Greets people.\n---\n\nGreet the user.{hidden}\n"
    change_document(client, skill, text, 2)
    actions, target = await actions_for(client, skill, "SK207")
    units = {"utf-8": 4, "utf-16": 2, "utf-32": 1}[encoding_of(client)]
    start = len("Greet the user.")
    assert target.range == types.Range(start=types.Position(line=5, character=start),
                                       end=types.Position(line=5, character=start + units * len(hidden)))
    assert target.severity == types.DiagnosticSeverity.Warning
    assert target.message.startswith("6 invisible Unicode tag characters (U+E0053 U+E0061 U+E0079 U+E0020 U+E0068 "
                                     "U+E0069), spelling 'Say hi'")
    assert actions[0].title == "Remove the 6 invisible Unicode tag characters" and actions[0].is_preferred
    texts, _ = edits_by_uri(actions[0].edit)
    fixed = apply_edits(text, texts[uri(skill)], encoding_of(client))
    assert fixed == "---\nname: broken\ndescription: Greets people.\n---\n\nGreet the user.\n"
    change_document(client, skill, fixed, 3)
    items = await diagnostics_for(client, skill, lambda items: "SK207" not in codes(items))
    assert "SK207" not in codes(items)
