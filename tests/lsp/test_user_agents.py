"""The user's own subagents (~/.claude/agents) over the protocol: a file of that directory opened from a project
workspace is checked against the user's skills, with hover, completion and definition; the others are not indexed."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import (
    PROFILES,
    SERVER,
    SharedServer,
    apply_edits,
    change_document,
    codes,
    diagnostics_for,
    encoding_of,
    initialize_params,
    position_of,
    uri,
    wait_for_index,
)
from .test_agent_definitions import doc, open_file, range_of

FIXTURE = Path(__file__).parents[1] / "user_agents"

pytestmark = pytest.mark.shared_server


@pytest.fixture(scope="module")
async def user_server(profile: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedServer]:
    """The server of the project in a temporary "home" (its .claude/skills and .claude/agents, a custom agents
    directory); the user agents directory is the default one: beside the configured user skills."""
    async with SharedServer.kept(profile, FIXTURE, tmp_path_factory, folder="project", options=skills) as server:
        yield server


@pytest.fixture
def scratch(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A temporary "home" (its .claude/skills and .claude/agents, a custom agents directory) and a project:
    the shared server's, for a test that uses user_client."""
    if "user_client" in request.fixturenames:
        return request.getfixturevalue("user_server").workspace_for(request, tmp_path, "user_client")
    target = tmp_path / "scratch"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture
async def user_client(request: pytest.FixtureRequest, scratch: Path, user_server: SharedServer) -> AsyncIterator[LanguageClient]:
    async with user_server.client_for(request, scratch, "user_client") as client:
        yield client


def skills(scratch: Path) -> dict[str, object]:
    return {"userSkillsDir": str(scratch / "home/.claude/skills")}


async def session(client: LanguageClient, profile: str, folder: Path, options: dict[str, object]) -> AsyncIterator[None]:
    await client.initialize_session(initialize_params(profile, folder, options))
    await wait_for_index(client)
    yield
    await client.shutdown_session()


async def test_an_open_user_subagent_is_checked_against_the_users_skills(user_client: LanguageClient, scratch: Path) -> None:
    encoding = encoding_of(user_client)
    home = scratch / "home/.claude/agents"
    writer, reviewer = home / "writer.md", home / "reviewer.md"
    open_file(user_client, writer)
    open_file(user_client, reviewer)
    items = await diagnostics_for(user_client, reviewer, lambda items: codes(items) == ["CL103", "CL103"])
    items.sort(key=lambda item: item.range.start.character)
    # the typo, after non-ASCII text on the line above; a project's skill is not the user's; a plugin's is not read
    assert items[0].range == range_of(reviewer, "code-reveiw", encoding)
    assert "did you mean 'code-review'?" in items[0].message and "the user's skills" in items[0].message
    assert items[1].range == range_of(reviewer, "project-only", encoding)
    assert all(item.severity == types.DiagnosticSeverity.Warning for item in items)
    # the clean one has none; the project's own subagent finds its project skill
    assert not user_client.diagnostics.get(uri(writer))
    assert not user_client.diagnostics.get(uri(scratch / "project/.claude/agents/local.md"))
    # a user subagent not open is not the project's: never indexed nor published
    assert uri(home / "team/nested.md") not in user_client.diagnostics

    # fixed in the buffer: the finding goes
    text = reviewer.read_text(encoding="utf-8").replace("code-reveiw, project-only", "code-review")
    change_document(user_client, reviewer, text, 2)
    assert await diagnostics_for(user_client, reviewer, lambda items: items == []) == []


async def test_hover_completion_and_definition_in_a_user_subagent(user_client: LanguageClient, scratch: Path) -> None:
    encoding = encoding_of(user_client)
    writer = scratch / "home/.claude/agents/writer.md"
    skill = scratch / "home/.claude/skills/release-notes/SKILL.md"
    open_file(user_client, writer)
    hover = await user_client.text_document_hover_async(types.HoverParams(
        text_document=doc(writer), position=position_of(writer, "release-notes", 2, encoding)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "**release-notes**" in hover.contents.value
    assert "Write release notes from merged pull requests." in hover.contents.value

    found = await user_client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(writer), position=position_of(writer, "release-notes", 2, encoding)))
    assert found is not None and [location.uri for location in found] == [uri(skill)]

    # half typed: the user's skills are offered, not the project's
    text = writer.read_text(encoding="utf-8").replace("  - code-review\n", "  - co\n")
    change_document(user_client, writer, text, 2)
    result = await user_client.text_document_completion_async(types.CompletionParams(
        text_document=doc(writer), position=types.Position(line=text.splitlines().index("  - co"), character=6)))
    assert isinstance(result, types.CompletionList)
    assert [item.label for item in result.items] == ["code-review"]


async def test_the_quick_fix_edits_the_open_user_subagent_and_creates_nothing_outside(user_client: LanguageClient,
                                                                                     scratch: Path) -> None:
    reviewer = scratch / "home/.claude/agents/reviewer.md"
    open_file(user_client, reviewer)
    items = await diagnostics_for(user_client, reviewer, lambda items: len(items) == 2)
    typo = min(items, key=lambda item: item.range.start.character)
    actions = await user_client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(reviewer), range=typo.range, context=types.CodeActionContext(diagnostics=[typo])))
    # the user's skills directory is outside the workspace: no skill is created there
    assert actions is not None and [action.title for action in actions] == ["Replace with 'code-review'"]
    edit = actions[0].edit
    assert edit is not None
    edits = [e for change in edit.document_changes or [] if isinstance(change, types.TextDocumentEdit)
             for e in change.edits] or list((edit.changes or {}).get(uri(reviewer), []))
    fixed = apply_edits(reviewer.read_text(encoding="utf-8"), edits, encoding_of(user_client))
    assert "skills: [code-review, project-only, tools:lint]" in fixed


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=PROFILES[:1])
async def custom_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, scratch: Path) -> AsyncIterator[None]:
    options = {**skills(scratch), "userAgentsDir": str(scratch / "home/my-agents")}
    async for _ in session(lsp_client, request.param, scratch / "project", options):
        yield


async def test_a_configured_user_agents_directory_of_any_name(custom_client: LanguageClient, scratch: Path) -> None:
    helper = scratch / "home/my-agents/helper.md"
    open_file(custom_client, helper)
    items = await diagnostics_for(custom_client, helper, lambda items: codes(items) == ["CL103"])
    assert items[0].range == range_of(helper, "code-reviw", encoding_of(custom_client))
    assert "did you mean 'code-review'?" in items[0].message
    # ~/.claude/agents is no longer the user's directory: a Markdown file there is no subagent of this session
    nested = scratch / "home/.claude/agents/team/nested.md"
    open_file(custom_client, nested)
    await custom_client.text_document_hover_async(types.HoverParams(text_document=doc(nested), position=types.Position(line=3, character=10)))
    assert not custom_client.diagnostics.get(uri(nested))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=PROFILES[1:])
async def agents_folder_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, scratch: Path) -> AsyncIterator[None]:
    # Neovim's root for ~/.claude/agents/x.md when ~/.claude is no repository: the agents directory itself
    async for _ in session(lsp_client, request.param, scratch / "home/.claude/agents", skills(scratch)):
        yield


async def test_the_agents_directory_as_the_workspace_folder(agents_folder_client: LanguageClient, scratch: Path) -> None:
    nested = scratch / "home/.claude/agents/team/nested.md"
    # every subagent of the folder, its subdirectories too, against the user's skills
    items = await diagnostics_for(agents_folder_client, nested, lambda items: codes(items) == ["CL103"])
    assert "did you mean 'release-notes'?" in items[0].message
    reviewer = scratch / "home/.claude/agents/reviewer.md"
    open_file(agents_folder_client, reviewer)
    assert codes(await diagnostics_for(agents_folder_client, reviewer, lambda items: len(items) == 2)) == ["CL103", "CL103"]
    assert any("indexed 0 skills and 3 agent definitions" in message.message for message in agents_folder_client.log_messages)
