"""Random edits, saves, creations and deletions: the live server ends where a fresh one starts."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .conftest import SERVER, change_document, end, initialize_params, open_document, uri, wait_for_index

SKILLS = ".agentdeck/skills"
NAMES = ["parse-request", "quote-fare", "broken", "refund", "check-dates", "parse-reqest"]


def skill_text(rng: random.Random, name: str) -> str:
    variants = [
        f"---\nname: {name}\ndescription: Does {name}.\n---\n\nInstructions.\n",
        f"---\nname: {name}\n---\n\nNo description.\n",
        f"---\nname: {name.upper()}\ndescription: Wrong case.\n---\n\nBody.\n",
        f"---\nname: {name}\ndescription: Use when: broken yaml\n---\n\nBody.\n",
        f"---\nname: {name}\ndescripton: typo\n---\n\nSee [x](references/x.md).\n",
        f"---\nname: {name}-renamed\ndescription: Name differs from the directory.\n---\n\nBody.\n",
        "no frontmatter\n",
    ]
    return rng.choice(variants)


def agent_text(rng: random.Random) -> str:
    listed = rng.sample(NAMES, rng.randint(0, 4))
    if listed and rng.random() < 0.3:
        listed.append(listed[0])
    names = ", ".join(f'"{name}"' for name in listed)
    deck = rng.choice(["Deck.from_project(agents=[booking])", "Deck(agents=[booking])",
                       'Deck(agents=[booking], skills="../../skills")', 'Deck(agents=[booking], skills="./nowhere")'])
    return (f"from agentdeck import Agent, Deck\n\nbooking = Agent(name=\"Booking\", instructions=\"Help.\", skills=[{names}])\n\n"
            f"deck = {deck}\n")


def snapshot(client: LanguageClient) -> dict[str, list[tuple[str, int, int, int, int, str]]]:
    result = {}
    for key, items in client.diagnostics.items():
        if items:
            result[key] = sorted((str(d.code), d.range.start.line, d.range.start.character, d.range.end.line,
                                  d.range.end.character, d.message) for d in items)
    return result


async def settle(client: LanguageClient, path: Path) -> None:
    """A request hands the pending analyses over and waits for them, for a bounded time (then it
    answers from the model as it stands, and the analyses go on)."""
    await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(path)), position=types.Position(line=0, character=0)))


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)])
async def test_live_diagnostics_equal_a_fresh_server(seed: int, workspace: Path) -> None:
    rng = random.Random(seed)
    live = await ClientServerConfig(server_command=SERVER).start()
    try:
        await live.initialize_session(initialize_params("visual-studio-code", workspace))
        await wait_for_index(live)
        agent = workspace / ".agentdeck/agents/booking/agent.py"
        buffers: dict[Path, tuple[str, int]] = {}
        for _ in range(25):
            action = rng.choice(["edit-skill", "edit-agent", "save", "create", "delete", "close"])
            skills = sorted(p for p in (workspace / SKILLS).glob("*/SKILL.md"))
            if action == "edit-skill" and skills:
                path = rng.choice(skills)
                if path not in buffers:
                    open_document(live, path)
                    buffers[path] = (path.read_text(), 1)
                version = buffers[path][1] + 1
                text = skill_text(rng, path.parent.name)
                change_document(live, path, text, version)
                buffers[path] = (text, version)
            elif action == "edit-agent":
                if agent not in buffers:
                    open_document(live, agent)
                    buffers[agent] = (agent.read_text(), 1)
                version = buffers[agent][1] + 1
                text = agent_text(rng)
                change_document(live, agent, text, version)
                buffers[agent] = (text, version)
            elif action == "save" and buffers:
                path = rng.choice(sorted(buffers))
                if path.exists():
                    path.write_text(buffers[path][0])
                    live.text_document_did_save(types.DidSaveTextDocumentParams(
                        text_document=types.TextDocumentIdentifier(uri=uri(path))))
            elif action == "create":
                name = rng.choice(NAMES)
                path = workspace / SKILLS / name / "SKILL.md"
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(skill_text(rng, name))
                    live.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
                        types.FileEvent(uri=uri(path), type=types.FileChangeType.Created)]))
            elif action == "delete" and skills:
                path = rng.choice(skills)
                if path in buffers:
                    live.text_document_did_close(types.DidCloseTextDocumentParams(
                        text_document=types.TextDocumentIdentifier(uri=uri(path))))
                    del buffers[path]
                shutil.rmtree(path.parent)
                live.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
                    types.FileEvent(uri=uri(path.parent), type=types.FileChangeType.Deleted)]))
            elif action == "close" and buffers:
                path = rng.choice(sorted(buffers))
                live.text_document_did_close(types.DidCloseTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=uri(path))))
                del buffers[path]
            if rng.random() < 0.3:
                await settle(live, agent)
        # what is still unsaved goes to disk, so a fresh server sees the same files
        for path, (text, _) in sorted(buffers.items()):
            path.write_text(text)
            live.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(path))))
        fresh = await ClientServerConfig(server_command=SERVER).start()
        try:
            await fresh.initialize_session(types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"), root_uri=uri(workspace),
                workspace_folders=[types.WorkspaceFolder(uri=uri(workspace), name="project")]))
            await wait_for_index(fresh)  # (its first index is published before it says so)
            expected = snapshot(fresh)
            # The live server's last analyses may still run (a request waits for them only so long):
            # its published diagnostics must reach the fresh server's, and stay there.
            for _ in range(200):
                await settle(live, agent)
                if snapshot(live) == expected:
                    break
                await asyncio.sleep(0.05)
            await settle(live, agent)
            assert snapshot(live) == expected
        finally:
            await end(fresh)
    finally:
        await end(live)
