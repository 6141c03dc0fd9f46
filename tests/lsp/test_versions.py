"""Pushed diagnostics carry the version of the text they were computed from."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.reliability.rpc import RawClient

AGENT = ".agentdeck/agents/booking/agent.py"
TEMPLATE = 'from agentdeck import Agent, Deck\n\nbooking = Agent(name="B", instructions="I.", skills=["{}"])\n\ndeck = Deck.from_project(agents=[booking])\n'


@pytest.mark.parametrize("folder", ["project", "my project (ä)"])
def test_each_publication_matches_the_version_it_names(workspace: Path, tmp_path: Path, folder: str) -> None:
    if folder != workspace.name:
        workspace = shutil.move(workspace, workspace.with_name(folder))
    client = RawClient(tmp_path)
    try:
        client.initialize(workspace)
        client.wait_for_index()
        agent = workspace / AGENT
        client.open(agent, TEMPLATE.format("nope-0"), version=1)
        for version in range(2, 40):
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": agent.as_uri(), "version": version},
                "contentChanges": [{"text": TEMPLATE.format(f"nope-{version}")}],
            })
        client.diagnostics(agent, lambda items: any("nope-39" in item["message"] for item in items))
        published = [m["params"] for m in client.notifications("textDocument/publishDiagnostics")
                     if m["params"]["uri"] == agent.as_uri() and m["params"].get("version") is not None]
        assert published
        for params in published:
            names = {item["message"].split("'")[1] for item in params["diagnostics"] if item["code"] == "AD101"}
            expected = "nope-0" if params["version"] == 1 else f"nope-{params['version']}"
            assert names == {expected}, params
        assert published[-1]["version"] == 39
        assert client.violations == []
        assert client.shutdown_and_exit() == 0
    finally:
        client.close()
