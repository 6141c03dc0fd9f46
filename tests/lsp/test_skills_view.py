"""The skills view's request, skillLsp/skills, over the protocol: roots, a root's skills, one skill's verdicts,
findings and listers, and the notification that tells the client to ask again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from .conftest import change_document, encoding_of, open_document, position_of, uri

pytestmark = pytest.mark.shared_server

AGENT = ".agentdeck/agents/booking/agent.py"
AGENTDECK = ".agentdeck/skills"


async def ask(client: LanguageClient, params: dict[str, Any]) -> Any:
    return plain(await client.protocol.send_request_async("skillLsp/skills", params))


def plain(value: Any) -> Any:
    """The answer as its JSON reads (the client gives a method it does not know as named tuples)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


async def test_the_roots_with_their_runtimes_skills_and_findings(client: LanguageClient, workspace: Path) -> None:
    answer = await ask(client, {})
    assert answer["indexing"] is False
    roots = {root["label"]: root for root in answer["roots"]}
    assert list(roots) == [".agentdeck/skills", ".claude/skills"]
    agentdeck, claude = roots[".agentdeck/skills"], roots[".claude/skills"]
    assert agentdeck["uri"] == uri(workspace / AGENTDECK)
    assert (agentdeck["origin"], agentdeck["runtimes"], agentdeck["skills"]) == ("agentdeck", ["AgentDeck"], 3)
    assert (claude["origin"], claude["runtimes"], claude["skills"]) == ("claude", ["Claude Code", "VS Code Copilot"], 1)
    # broken/SKILL.md has no description: AgentDeck refuses it (SK106, an error)
    assert agentdeck["counts"].get("error") == 1
    assert claude["counts"] == {}
    # Claude Code's listing of the project's skills, against its budget (listing.py)
    entry = "- refund-policy: The shop's refund rules. Use when a customer asks what can be refunded."
    assert claude["listing"] == f"1 skill · {len(entry)} characters of 8,000–40,000"
    assert agentdeck["listing"] is None  # AgentDeck lists per agent, not per root


async def test_a_roots_skills_with_how_many_list_each(client: LanguageClient, workspace: Path) -> None:
    answer = await ask(client, {"root": uri(workspace / AGENTDECK)})
    skills = answer["skills"]
    assert [skill["name"] for skill in skills] == ["broken", "parse-request", "quote-fare"]
    assert [skill["listedBy"] for skill in skills] == [0, 1, 1]
    assert [skill["uri"] for skill in skills] == [uri(workspace / AGENTDECK / name / "SKILL.md")
                                                  for name in ("broken", "parse-request", "quote-fare")]
    assert skills[0]["counts"] == {"error": 1}
    # the range a click selects: the value of `name:`
    assert skills[1]["range"] == {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 19}}


async def test_a_skill_with_its_verdicts_listers_and_findings(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    parse = await ask(client, {"skill": uri(workspace / AGENTDECK / "parse-request/SKILL.md")})
    assert parse["name"] == "parse-request"
    assert parse["description"] == "Extract pickup, dropoff, and date from a free-text booking request."
    assert parse["verdicts"] == [{"runtime": "AgentDeck", "loads": True, "consequence": None, "does": "loads it"}]
    assert parse["findings"] == []
    start = position_of(agent, '"parse-request"', 0, encoding_of(client))
    assert parse["listedBy"] == [{
        "kind": "agent", "name": "Booking", "runtime": "AgentDeck", "uri": uri(agent), "path": AGENT,
        "range": {"start": {"line": start.line, "character": start.character},
                  "end": {"line": start.line, "character": start.character + len('"parse-request"')}}}]

    broken = await ask(client, {"skill": uri(workspace / AGENTDECK / "broken/SKILL.md")})
    [verdict] = broken["verdicts"]
    assert (verdict["runtime"], verdict["loads"], verdict["consequence"]) == ("AgentDeck", False, "dropped")
    assert "SK106" in verdict["does"]
    assert [(finding["code"], finding["severity"]) for finding in broken["findings"]] == [("SK106", "error")]
    assert broken["listedBy"] == []

    refund = await ask(client, {"skill": uri(workspace / ".claude/skills/refund-policy/SKILL.md")})
    assert [(row["kind"], row["name"], row["runtime"], row["path"]) for row in refund["listedBy"]] == [
        ("session", "options", "Claude Agent SDK", "shop.py")]
    assert [verdict["runtime"] for verdict in refund["verdicts"]] == ["Claude Code", "VS Code Copilot"]
    # the listings it is an entry of: Claude Code's of the project, and the session's (reported in shop.py)
    entry = "- refund-policy: The shop's refund rules. Use when a customer asks what can be refunded."
    assert [(listing["title"], listing["runtime"], listing["size"], listing["unit"], listing["atRisk"], listing.get("path"))
            for listing in refund["listings"]] == [
        ("Claude Code in project (.claude/skills)", "Claude Code", len(entry), "characters", False, None),
        ("Claude session (options at line 3)", "Claude Code", len(entry), "characters", False, "shop.py")]
    booking = parse["listings"]
    assert [(listing["title"], listing["size"], listing["path"]) for listing in booking] == [
        ("agent Booking", len("- parse-request: Extract pickup, dropoff, and date from a free-text booking request."),
         AGENT)]


async def test_what_is_no_skill_and_bad_params(client: LanguageClient, workspace: Path) -> None:
    assert await ask(client, {"skill": uri(workspace / "shop.py")}) is None
    assert await ask(client, {"root": uri(workspace / "nowhere")}) == {"skills": []}
    with pytest.raises(JsonRpcInvalidParams):
        await ask(client, {"root": 3})


async def test_an_edit_tells_the_client_and_the_answer_follows_it(client: LanguageClient, workspace: Path) -> None:
    agent = workspace / AGENT
    parse = uri(workspace / AGENTDECK / "parse-request/SKILL.md")
    assert len((await ask(client, {"skill": parse}))["listedBy"]) == 1
    open_document(client, agent)
    told = client.wait_for_notification("skillLsp/skillsChanged")
    change_document(client, agent, agent.read_text(encoding="utf-8").replace('"parse-request", ', ""), 2)
    await asyncio.wait_for(told, 30)
    assert (await ask(client, {"skill": parse}))["listedBy"] == []
    skills = (await ask(client, {"root": uri(workspace / AGENTDECK)}))["skills"]
    assert [skill["listedBy"] for skill in skills] == [0, 0, 1]


def test_a_uri_made_below_its_root_is_the_servers_uri() -> None:
    from skill_lsp.server.convert import uri_of
    from skill_lsp.server.skillsview import _uri_below

    root = Path("/w/a root/.claude/skills")
    base = (uri_of(root), f"{root}/")
    for name in ("plain", "with space", "ünïcödé", "per%cent", "hash#and?query", "emoji-🚕", "semi;colon"):
        path = root / name / "SKILL.md"
        assert _uri_below(path, base) == uri_of(path)
    assert _uri_below(Path("/elsewhere/x/SKILL.md"), base) == uri_of(Path("/elsewhere/x/SKILL.md"))


async def test_a_skill_with_the_skills_alike_it(client: LanguageClient, workspace: Path) -> None:
    """Two skills of .claude/skills that say the same (SK310): each names the other, with the shared wording and the
    choices both are in (the root the session loads whole); the refund policy, unlike them, names none."""
    alike = {"merge-pdfs": "Merge several PDF files into one document, keeping bookmarks and page order.",
             "combine-pdfs": "Combine several PDF files into one document, keeping bookmarks and page order."}
    await ask(client, {})  # (the server tells a client that has asked)
    told = client.wait_for_notification("skillLsp/skillsChanged")
    for name, description in alike.items():
        (workspace / f".claude/skills/{name}").mkdir()
        (workspace / f".claude/skills/{name}/SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n\nDo it.\n", encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(workspace / f".claude/skills/{name}/SKILL.md"), type=types.FileChangeType.Created)
        for name in alike]))
    await asyncio.wait_for(told, 30)
    merge = await ask(client, {"skill": uri(workspace / ".claude/skills/merge-pdfs/SKILL.md")})
    for _ in range(50):  # (a notification of an analysis before the events' may come first)
        if merge is not None and merge["alike"]:
            break
        await asyncio.sleep(0.2)
        merge = await ask(client, {"skill": uri(workspace / ".claude/skills/merge-pdfs/SKILL.md")})
    [other] = merge["alike"]
    assert (other["name"], other["path"], other["uri"]) == (
        "combine-pdfs", ".claude/skills/combine-pdfs/SKILL.md", uri(workspace / ".claude/skills/combine-pdfs/SKILL.md"))
    assert other["wording"] == '"several pdf files into one document keeping bookmarks and page order"'
    assert other["choices"] == ["the skills of .claude/skills/"] and other["score"] > 0.55
    assert other["range"] == {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 18}}
    refund = await ask(client, {"skill": uri(workspace / ".claude/skills/refund-policy/SKILL.md")})
    assert refund["alike"] == []
