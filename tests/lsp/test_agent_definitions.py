"""Subagent files, AgentDefinition and TypeScript agents over the protocol: diagnostics, hover, completion,
navigation, rename, quick fixes, incremental updates and position encodings."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import (
    SERVER,
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

PROJECT = Path(__file__).parents[1] / "agents_project"
REVIEWER = ".claude/agents/reviewer.md"
WRITER = ".claude/agents/writer.md"
AGENT_TS = "app/agent.ts"
AGENTS_PY = "app/agents.py"
CLEAN_MJS = "app/clean.mjs"
CODE_REVIEW = ".claude/skills/code-review/SKILL.md"
LANGUAGES = {".md": "markdown", ".ts": "typescript", ".mjs": "javascript", ".py": "python"}


pytestmark = pytest.mark.shared_server


@pytest.fixture(scope="module")
def lsp_project() -> Path:
    return PROJECT


@pytest.fixture
def agents_workspace(workspace: Path) -> Path:
    return workspace


@pytest.fixture
def agents_client(client: LanguageClient) -> LanguageClient:
    return client


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(path))


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri(path), language_id=LANGUAGES[path.suffix], version=1,
        text=path.read_text(encoding="utf-8") if text is None else text)))


async def hover_text(client: LanguageClient, path: Path, needle: str, delta: int = 1) -> str:
    """The hover at needle (plus delta code points), the file opened first; '' when there is none."""
    open_file(client, path)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(path), position=position_of(path, needle, delta, encoding_of(client))))
    return hover.contents.value if hover is not None and isinstance(hover.contents, types.MarkupContent) else ""


async def completion_after(client: LanguageClient, path: Path, text: str, line: int,
                           character: int) -> types.CompletionList:
    """The completion at (line, character) once the open document holds text."""
    change_document(client, path, text, 2)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(path), position=types.Position(line=line, character=character)))
    assert isinstance(result, types.CompletionList)
    return result


def range_of(path: Path, needle: str, encoding: str) -> types.Range:
    return types.Range(start=position_of(path, needle, 0, encoding), end=position_of(path, needle, len(needle), encoding))


async def test_each_kind_is_diagnosed_on_its_typo_and_clean_files_are_not(agents_client: LanguageClient,
                                                                           agents_workspace: Path) -> None:
    encoding = encoding_of(agents_client)
    for relative, typo in ((REVIEWER, "code-reveiw"), (AGENT_TS, '"code-reviw"'), (AGENTS_PY, '"relase-notes"')):
        path = agents_workspace / relative
        items = await diagnostics_for(agents_client, path, lambda items: codes(items) == ["CL103"])
        assert items[0].range == range_of(path, typo, encoding)
        assert items[0].severity == types.DiagnosticSeverity.Warning
    for relative in (WRITER, CLEAN_MJS, "app/clean.py", "app/other.ts", "app/other.py", ".claude/agents/NOTES.md"):
        assert not agents_client.diagnostics.get(uri(agents_workspace / relative))


async def test_hover_on_a_preloaded_skill_and_on_the_agent(agents_client: LanguageClient, agents_workspace: Path) -> None:
    text = await hover_text(agents_client, agents_workspace / WRITER, "release-notes", 2)
    assert "**release-notes**" in text and "Write release notes from merged pull requests." in text
    # a const agent is shown on its declaration, an inline one on the name it is registered under
    text = await hover_text(agents_client, agents_workspace / AGENT_TS, "const checker", len("const c"))
    assert "AgentDefinition `checker`" in text and "preloads 0 skills" in text and "`code-reviw`" in text
    text = await hover_text(agents_client, agents_workspace / CLEAN_MJS, "notes:", 1)
    assert "AgentDefinition `notes`" in text and "preloads 1 skill:" in text
    assert "Subagent `reviewer`" in await hover_text(agents_client, agents_workspace / REVIEWER, "reviewer")


async def test_completion_in_a_half_typed_subagent_list_and_typescript_string(agents_client: LanguageClient,
                                                                               agents_workspace: Path) -> None:
    reviewer = agents_workspace / REVIEWER
    open_file(agents_client, reviewer)
    text = reviewer.read_text(encoding="utf-8").replace("skills: [code-reveiw]", "skills:\n  - code-review\n  - rel")
    result = await completion_after(agents_client, reviewer, text, text.splitlines().index("  - rel"), 7)
    assert [item.label for item in result.items] == ["release-notes"]
    replaced = result.items[0].text_edit.range if result.items[0].text_edit is not None else result.item_defaults.edit_range
    assert (replaced.start.character, replaced.end.character) == (4, 7)

    agent = agents_workspace / AGENT_TS
    open_file(agents_client, agent)
    lines = agent.read_text(encoding="utf-8").splitlines()
    lines[2] = 'const checker: AgentDefinition = { description: "Prüft 🚀", prompt: "Check.", skills: ["co'
    units = {"utf-8": len(lines[2].encode("utf-8")), "utf-16": len(lines[2].encode("utf-16-le")) // 2,
             "utf-32": len(lines[2])}[encoding_of(agents_client)]
    result = await completion_after(agents_client, agent, "\n".join(lines) + "\n", 2, units)
    assert "code-review" in [item.label for item in result.items]


async def test_definition_and_references_across_every_kind(agents_client: LanguageClient, agents_workspace: Path) -> None:
    encoding = encoding_of(agents_client)
    skill = agents_workspace / CODE_REVIEW
    for relative, needle in ((WRITER, "code-review"), (CLEAN_MJS, '"code-review"'), ("app/clean.py", '"code-review"')):
        path = agents_workspace / relative
        open_file(agents_client, path)
        found = await agents_client.text_document_definition_async(types.DefinitionParams(
            text_document=doc(path), position=position_of(path, needle, 2, encoding)))
        assert found is not None and [location.uri for location in found] == [uri(skill)], relative
    open_file(agents_client, skill)
    references = await agents_client.text_document_references_async(types.ReferenceParams(
        text_document=doc(skill), position=position_of(skill, "code-review", 1, encoding),
        context=types.ReferenceContext(include_declaration=False)))
    assert references is not None
    assert {location.uri for location in references} >= {
        uri(agents_workspace / WRITER), uri(agents_workspace / CLEAN_MJS), uri(agents_workspace / "app/clean.py")}


async def test_rename_edits_subagents_and_typescript_agents(agents_client: LanguageClient, agents_workspace: Path) -> None:
    skill = agents_workspace / ".claude/skills/release-notes/SKILL.md"
    open_file(agents_client, skill)
    edit = await agents_client.text_document_rename_async(types.RenameParams(
        text_document=doc(skill), position=position_of(skill, "release-notes", 1, encoding_of(agents_client)),
        new_name="changelog"))
    assert edit is not None
    texts: dict[str, list[types.TextEdit]] = {}
    for key, items in (edit.changes or {}).items():
        texts.setdefault(key, []).extend(items)
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            texts.setdefault(change.text_document.uri, []).extend(change.edits)
    writer = agents_workspace / WRITER
    assert "  - changelog\n" in apply_edits(writer.read_text(encoding="utf-8"), texts[uri(writer)], encoding_of(agents_client))
    mjs = agents_workspace / CLEAN_MJS
    renamed = apply_edits(mjs.read_text(encoding="utf-8"), texts[uri(mjs)], encoding_of(agents_client))
    assert 'skills: ["code-review", "changelog"]' in renamed and 'skills: ["changelog"] }' in renamed
    assert uri(agents_workspace / "app/clean.py") in texts


async def test_quick_fix_replaces_the_typo_in_a_subagent_file(agents_client: LanguageClient, agents_workspace: Path) -> None:
    reviewer = agents_workspace / REVIEWER
    open_file(agents_client, reviewer)
    items = await diagnostics_for(agents_client, reviewer, lambda items: codes(items) == ["CL103"])
    actions = await agents_client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(reviewer), range=items[0].range, context=types.CodeActionContext(diagnostics=[items[0]])))
    assert actions is not None
    assert "Create skill 'code-reveiw' in .claude/skills/" in [action.title for action in actions]
    replace = next(action for action in actions if action.title == "Replace with 'code-review'")
    assert replace.edit is not None
    edits = [e for change in replace.edit.document_changes or [] if isinstance(change, types.TextDocumentEdit)
             for e in change.edits] or list((replace.edit.changes or {}).get(uri(reviewer), []))
    fixed = apply_edits(reviewer.read_text(encoding="utf-8"), edits, encoding_of(agents_client))
    assert "skills: [code-review]" in fixed
    change_document(agents_client, reviewer, fixed, 2)
    assert await diagnostics_for(agents_client, reviewer, lambda items: not items) == []


async def test_renaming_a_skill_on_disk_turns_a_subagent_and_a_typescript_agent_red(
        agents_client: LanguageClient, agents_workspace: Path) -> None:
    writer, mjs = agents_workspace / WRITER, agents_workspace / CLEAN_MJS
    old = agents_workspace / ".claude/skills/code-review"
    new = agents_workspace / ".claude/skills/review"
    old.rename(new)
    skill = new / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8").replace("name: code-review", "name: review"), encoding="utf-8")
    agents_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(old), type=types.FileChangeType.Deleted),
        types.FileEvent(uri=uri(new), type=types.FileChangeType.Created),
    ]))
    for path in (writer, mjs):
        items = await diagnostics_for(agents_client, path, lambda items: codes(items) == ["CL103"])
        assert "'code-review'" in items[0].message and "did you mean 'review'?" in items[0].message


async def test_typing_in_a_typescript_agent_is_diagnosed_and_another_librarys_query_is_not(
        agents_client: LanguageClient, agents_workspace: Path) -> None:
    mjs = agents_workspace / CLEAN_MJS
    open_file(agents_client, mjs)
    change_document(agents_client, mjs, mjs.read_text(encoding="utf-8").replace('"code-review", "release', '"code-reviewer", "release'), 2)
    items = await diagnostics_for(agents_client, mjs, lambda items: codes(items) == ["CL103"])
    assert "'code-reviewer'" in items[0].message
    other = agents_workspace / "app/other.ts"
    open_file(agents_client, other)
    change_document(agents_client, other, other.read_text(encoding="utf-8").replace("no-such-skill", "still-none"), 2)
    # the edit after it is diagnosed once both are analysed: by then other.ts has had its chance
    change_document(agents_client, mjs, mjs.read_text(encoding="utf-8"), 3)
    await diagnostics_for(agents_client, mjs, lambda items: not items)
    assert not agents_client.diagnostics.get(uri(other))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["utf-8", "utf-16", "utf-32"])
async def agents_encoding_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, agents_workspace: Path):
    # a skill whose name is not ASCII, listed before the typo on the same line
    (agents_workspace / ".claude/skills/résumé").mkdir()
    (agents_workspace / ".claude/skills/résumé/SKILL.md").write_text(
        "---\nname: résumé\ndescription: Résume un texte 🚀.\n---\n\nRésume.\n", encoding="utf-8")
    (agents_workspace / ".claude/agents/court.md").write_text(
        "---\nname: court\ndescription: Résume 🚀.\nskills: [résumé, \"relase-notes\"]\n---\nRésume.\n", encoding="utf-8")
    await lsp_client.initialize_session(initialize_params("visual-studio-code", agents_workspace, encodings=[request.param]))
    await wait_for_index(lsp_client)
    yield request.param
    await lsp_client.shutdown_session()


async def test_ranges_in_every_encoding_in_markdown_and_typescript(agents_encoding_client: LanguageClient,
                                                                   agents_workspace: Path) -> None:
    client = agents_encoding_client
    encoding = encoding_of(client)
    court = agents_workspace / ".claude/agents/court.md"
    items = await diagnostics_for(client, court, lambda items: codes(items) == ["CL103"])
    assert items[0].range == range_of(court, '"relase-notes"', encoding)
    assert items[0].range.start.character == {"utf-8": 19, "utf-16": 17, "utf-32": 17}[encoding]
    agent = agents_workspace / AGENT_TS
    items = await diagnostics_for(client, agent, lambda items: codes(items) == ["CL103"])
    assert items[0].range == range_of(agent, '"code-reviw"', encoding)
    # a position sent back in the same encoding lands on the listed name: go to its SKILL.md
    open_file(client, court)
    found = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(court), position=position_of(court, "résumé,", 3, encoding)))
    assert found is not None and found[0].uri == uri(agents_workspace / ".claude/skills/résumé/SKILL.md")


async def test_hover_on_query_previews_the_session_and_symbols_list_each_agent(agents_client: LanguageClient,
                                                                               agents_workspace: Path) -> None:
    mjs = agents_workspace / CLEAN_MJS
    text = await hover_text(agents_client, mjs, "sdk.query", 5)
    assert "<available_skills>" in text and "\ncode-review\n" in text
    symbols = await agents_client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(mjs)))
    assert symbols is not None
    assert sorted((symbol.name, symbol.detail) for symbol in symbols) == [("ClaudeAgentOptions", "ClaudeAgentOptions"),
                                                                         ("notes", "AgentDefinition")]
    writer = agents_workspace / WRITER
    open_file(agents_client, writer)
    symbols = await agents_client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(writer)))
    assert symbols is not None and [(s.name, [c.name for c in s.children or []]) for s in symbols] == [
        ("writer", ["release-notes", "code-review"])]


async def test_subagent_frontmatter_keys_hover_and_complete(agents_client: LanguageClient, agents_workspace: Path) -> None:
    reviewer = agents_workspace / REVIEWER
    text = await hover_text(agents_client, reviewer, "permissionMode", 3)
    assert "**permissionMode**" in text and "`acceptEdits`" in text
    text = reviewer.read_text(encoding="utf-8").replace("skills: [code-reveiw]\n", "skills: [code-reveiw]\nmax\n")
    result = await completion_after(agents_client, reviewer, text, text.splitlines().index("max"), 3)
    assert [item.label for item in result.items] == ["maxTurns"]
    assert result.items[0].text_edit is not None and result.items[0].text_edit.new_text == "maxTurns: "


async def test_completion_inside_a_python_agent_definition(agents_client: LanguageClient, agents_workspace: Path) -> None:
    agents = agents_workspace / AGENTS_PY
    open_file(agents_client, agents)
    text = agents.read_text(encoding="utf-8").replace('skills=["relase-notes"]', 'skills=["rel')
    line = next(number for number, each in enumerate(text.splitlines()) if 'skills=["rel' in each)
    result = await completion_after(agents_client, agents, text, line, text.splitlines()[line].index('"rel') + 4)
    assert sorted(item.label for item in result.items) == ["code-review", "release-notes"]


async def disclosure_at(client: LanguageClient, path: Path, needle: str, delta: int = 0) -> object:
    open_file(client, path)
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="skillLsp.disclosure",
        arguments=[{"uri": uri(path), "position": position_of(path, needle, delta, encoding_of(client))}]))


async def test_disclosure_of_typescript_agents_and_subagent_files(agents_client: LanguageClient,
                                                                  agents_workspace: Path) -> None:
    """"Show Agent Disclosure" in a TypeScript agent (the query() options' listing, or the subagent at the cursor)
    and in a subagent file (the skills it preloads, each as Claude Code gives it)."""
    root = agents_workspace
    listing = await disclosure_at(agents_client, root / AGENT_TS, "skills: [\"release-notes\"]")
    assert isinstance(listing, dict) and listing["title"] == "query() options at line 6"
    assert listing["text"].startswith("<available_skills>\n<skill>\n<name>\nrelease-notes\n</name>")
    subagent = await disclosure_at(agents_client, root / AGENT_TS, "Prüft")
    assert subagent == {"title": "AgentDefinition checker", "text": ""}  # it lists only an unknown name
    writer = await disclosure_at(agents_client, root / WRITER, "You write")
    assert isinstance(writer, dict) and writer["title"] == "subagent writer"
    release, review = (root / ".claude/skills/release-notes", root / ".claude/skills/code-review")
    # each skill is a message of its own (its body ends with its own newline), one after the other
    assert writer["text"] == (f"Base directory for this skill: {release}\n\n\nList the changes by area.\n\n\n"
                              f"Base directory for this skill: {review}\n\n\nRead the diff, then comment on each change.\n")
    assert "shell commands" in writer["note"]
    python = await disclosure_at(agents_client, root / AGENTS_PY, "Summarise the release")
    assert isinstance(python, dict) and python["title"] == "AgentDefinition summariser"
