"""The Claude Code plugin's server (editors/claude-code/.lsp.json), driven as Claude Code 2.1.332 drives it.

What Claude Code sends is transcribed from its binary (`strings` of claude-code-linux-x64 2.1.332): the
initialize request of its LSP server manager (capabilities, clientInfo, `initializationOptions` defaulting to
`{}`, one workspace folder), `didOpen` with the languageId that `extensionToLanguage` maps the file's extension
to, after an edit a whole-text `didChange` then a `didSave`, and the requests its LSP tool makes for each
operation (`goToDefinition`, `findReferences` with includeDeclaration true, `hover`, `documentSymbol`,
`workspaceSymbol`, `goToImplementation`, `prepareCallHierarchy`). pytest-lsp checks that the server sends the
client nothing its capabilities do not allow (the warnings are errors here, pyproject's filterwarnings).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import converters, types
from pygls.exceptions import JsonRpcMethodNotFound
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import codes, diagnostics_for, end, position_of, tolerate_abandoned_waits, uri, wait_for_index

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "claude-code"
PROJECT = ROOT / "tests" / "agents_project"
LSP = json.loads((PLUGIN / ".lsp.json").read_text(encoding="utf-8"))["skill-lsp"]


def claude_code_initialize(folder: Path) -> types.InitializeParams:
    """Claude Code 2.1.332's initialize params for a server whose config sets no initializationOptions or settings."""
    params = {
        "processId": os.getpid(),  # Claude Code's own: process.pid
        "clientInfo": {"name": "Claude Code", "version": "2.1.332"},
        "initializationOptions": {},
        "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}],
        "rootPath": str(folder),
        "rootUri": folder.as_uri(),
        "capabilities": {
            "workspace": {"configuration": False, "workspaceFolders": False,
                          "didChangeWatchedFiles": {"dynamicRegistration": False}},
            "textDocument": {
                "synchronization": {"dynamicRegistration": False, "willSave": False, "willSaveWaitUntil": False,
                                    "didSave": True},
                "publishDiagnostics": {"relatedInformation": True, "tagSupport": {"valueSet": [1, 2]},
                                       "versionSupport": False, "codeDescriptionSupport": True, "dataSupport": False},
                "hover": {"dynamicRegistration": False, "contentFormat": ["markdown", "plaintext"]},
                "definition": {"dynamicRegistration": False, "linkSupport": True},
                "references": {"dynamicRegistration": False},
                "documentSymbol": {"dynamicRegistration": False, "hierarchicalDocumentSymbolSupport": True},
                "callHierarchy": {"dynamicRegistration": False},
            },
            "general": {"positionEncodings": ["utf-16"]},
        },
    }
    return converters.get_converter().structure(params, types.InitializeParams)


class ClaudeCode:
    """The notifications Claude Code's LSP server manager sends for a file, with its version counter."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.versions: dict[str, int] = {}

    def language(self, path: Path) -> str:
        return str(LSP["extensionToLanguage"].get(path.suffix.lower(), "plaintext"))

    def open(self, path: Path) -> None:
        key = uri(path)
        self.versions[key] = self.versions.get(key, 0) + 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=key, language_id=self.language(path), version=self.versions[key], text=path.read_text(encoding="utf-8"))))

    def edited(self, path: Path, text: str) -> None:
        """After its Edit or Write tool: the whole new text, then a save."""
        path.write_text(text, encoding="utf-8")
        key = uri(path)
        self.versions[key] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=key, version=self.versions[key]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=key)))


@pytest.fixture(scope="module")
async def claude(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[ClaudeCode, Path]]:
    """The plugin's server (its command's arguments, run by this interpreter) on a copy of the agents project."""
    workspace = tmp_path_factory.mktemp("claude-code") / "project"
    shutil.copytree(PROJECT, workspace)
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "skill_lsp", *LSP["args"]]).start()
    tolerate_abandoned_waits(client)
    client.initialize_result = await client.initialize_session(claude_code_initialize(workspace))  # type: ignore[attr-defined]
    await wait_for_index(client)
    yield ClaudeCode(client), workspace
    await end(client)


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(path))


def test_the_plugin_runs_the_installed_skill_lsp_server_for_markdown_files_only() -> None:
    """`skill-lsp` is the console script pyproject installs (the entry point `python -m skill_lsp` runs), and the
    one extension is Markdown's: Python and TypeScript files stay with their own language servers."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert (LSP["command"], LSP["args"]) == ("skill-lsp", ["serve"])
    assert '[project.scripts]\nskill-lsp = "skill_lsp.cli:run"\n' in pyproject
    assert LSP["extensionToLanguage"] == {".md": "markdown"}


async def test_initialize_advertises_what_the_lsp_tool_asks_for(claude: tuple[ClaudeCode, Path]) -> None:
    result: types.InitializeResult = claude[0].client.initialize_result  # type: ignore[attr-defined]
    capabilities = result.capabilities
    assert capabilities.position_encoding in (None, types.PositionEncodingKind.Utf16)
    for provider in ("hover_provider", "definition_provider", "references_provider", "document_symbol_provider",
                     "workspace_symbol_provider"):
        assert getattr(capabilities, provider), provider
    sync = capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions) and sync.open_close and sync.change is not None
    assert sync.save  # Claude Code sends didSave after each edit


async def test_a_subagent_edited_by_claude_gets_its_diagnostics_pushed_and_cleared(claude: tuple[ClaudeCode, Path]) -> None:
    code, workspace = claude
    reviewer = workspace / ".claude/agents/reviewer.md"
    code.open(reviewer)
    items = await diagnostics_for(code.client, reviewer, lambda found: bool(found))
    assert [(str(item.code), item.range.start.line, item.range.start.character) for item in items] == [("CL103", 6, 9)]
    assert "did you mean 'code-review'?" in items[0].message
    code.edited(reviewer, reviewer.read_text(encoding="utf-8").replace("code-reveiw", "code-review"))
    assert await diagnostics_for(code.client, reviewer, lambda found: not found) == []


async def test_the_lsp_tool_operations_on_a_subagent_and_a_skill(claude: tuple[ClaudeCode, Path]) -> None:
    code, workspace = claude
    client = code.client
    writer, skill = workspace / ".claude/agents/writer.md", workspace / ".claude/skills/code-review/SKILL.md"
    code.open(writer)
    code.open(skill)
    at = position_of(writer, "release-notes", 2)
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc(writer), position=at))
    assert hover is not None and "Write release notes from merged pull requests." in hover.contents.value
    found = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(writer), position=position_of(writer, "code-review", 2)))
    assert found is not None and [location.uri for location in found] == [uri(skill)]
    references = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc(skill), position=position_of(skill, "code-review", 1),
        context=types.ReferenceContext(include_declaration=True)))
    assert references is not None and uri(writer) in {location.uri for location in references}
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(skill)))
    assert [symbol.name for symbol in symbols] == ["name", "description"]
    named = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="release"))
    assert [symbol.name for symbol in named] == ["release-notes"]


async def test_operations_the_server_does_not_offer_are_refused_and_it_goes_on(claude: tuple[ClaudeCode, Path]) -> None:
    """goToImplementation and the call hierarchy mean nothing for skills: the server answers "method not found"
    (Claude Code reports the error to the model) and keeps answering."""
    code, workspace = claude
    skill = workspace / ".claude/skills/release-notes/SKILL.md"
    code.open(skill)
    at = position_of(skill, "release-notes", 1)
    with pytest.raises(JsonRpcMethodNotFound):
        await code.client.text_document_implementation_async(types.ImplementationParams(text_document=doc(skill), position=at))
    with pytest.raises(JsonRpcMethodNotFound):
        await code.client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
            text_document=doc(skill), position=at))
    symbols = await code.client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(skill)))
    assert [symbol.name for symbol in symbols] == ["name", "description"]


async def test_other_markdown_files_get_nothing(claude: tuple[ClaudeCode, Path]) -> None:
    """Every .md file Claude Code touches comes to this server: a README or notes get no diagnostics and no answers."""
    code, workspace = claude
    client = code.client
    readme, notes = workspace / "README.md", workspace / ".claude/agents/NOTES.md"
    for path in (readme, notes):
        code.open(path)
        code.edited(path, path.read_text(encoding="utf-8") + "\nname: reviewer\nskills: [code-reveiw]\n")
        start = types.Position(line=0, character=2)
        assert await client.text_document_hover_async(types.HoverParams(text_document=doc(path), position=start)) is None
        assert not await client.text_document_definition_async(types.DefinitionParams(text_document=doc(path), position=start))
        assert not await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(path)))
    # a subagent's publication after those edits shows the server has handled them
    writer = workspace / ".claude/agents/writer.md"
    if uri(writer) not in code.versions:
        code.open(writer)
    code.edited(writer, writer.read_text(encoding="utf-8").replace("- code-review", "- code-reveiw"))
    assert codes(await diagnostics_for(client, writer, lambda found: bool(found))) == ["CL103"]
    assert not client.diagnostics.get(uri(readme)) and not client.diagnostics.get(uri(notes))
