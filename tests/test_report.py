"""`skill-lsp report`: one row per agent, Claude session and subagent, as text and JSON, and its exit status."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .helpers import REPO, run_cli, skill_md

LSP_PROJECT = REPO / "tests/lsp/project"
AGENTS_PROJECT = REPO / "tests/agents_project"


def reported(*args: str, cwd: Path) -> str:
    """What `skill-lsp report ARGS` prints, once it has exited 0 with nothing on stderr."""
    result = run_cli("report", *args, cwd=cwd)
    assert (result.returncode, result.stderr) == (0, "")
    return result.stdout


def copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copytree(source, target, symlinks=True)
    return target


REFUND_ENTRY = "- refund-policy: The shop's refund rules. Use when a customer asks what can be refunded."


def test_text_one_row_per_agent_session_and_project(tmp_path: Path) -> None:
    project = copy(LSP_PROJECT, tmp_path)
    # AgentDeck's block: its header and an entry per skill it loads (listing.agentdeck_listing), no budget stated
    block = len(
        "### Skills available\n"
        "Each entry below is a name and a description. Call `load_skill(name)` to read the\n"
        "full instructions before following one.\n"
        "- parse-request: Extract pickup, dropoff, and date from a free-text booking request.\n"
        "- quote-fare: Quote a fare in € 🚕 for a ride between two cities.")
    assert reported(cwd=project) == (
        ".agentdeck/agents/booking/agent.py:3  agent Booking (AgentDeck)\n"
        "    skills: parse-request, quote-fare\n"
        "    not found: parse-reqest\n"
        f"    listing: 2 skills · {block} characters\n"
        ".claude/skills  project Claude Code in project (.claude/skills) (Claude Code)\n"
        "    skills: refund-policy\n"
        f"    listing: 1 skill · {len(REFUND_ENTRY)} characters of 8,000–40,000\n"
        "shop.py:3  session options (Claude Agent SDK)\n"
        "    skills: refund-policy\n"
        "    not found: refund-polcy\n"
        f"    listing: 1 skill · {len(REFUND_ENTRY)} characters of 8,000–40,000\n"
    )


def test_json_rows(tmp_path: Path) -> None:
    project = copy(LSP_PROJECT, tmp_path)
    rows = json.loads(reported("--format", "json", cwd=project))["rows"]
    assert [(row["path"], row["line"], row["kind"], row["name"], row["runtime"]) for row in rows] == [
        (".agentdeck/agents/booking/agent.py", 3, "agent", "Booking", "AgentDeck"),
        (".claude/skills", None, "project", "Claude Code in project (.claude/skills)", "Claude Code"),
        ("shop.py", 3, "session", "options", "Claude Agent SDK"),
    ]
    agent, _, session = rows
    assert agent["skills"] == [{"name": "parse-request", "path": ".agentdeck/skills/parse-request/SKILL.md"},
                               {"name": "quote-fare", "path": ".agentdeck/skills/quote-fare/SKILL.md"}]
    assert (agent["not_found"], agent["skills_known"], agent["unknown_entries"]) == (["parse-reqest"], True, 0)
    assert agent["listing"]["budget"] == {"smallest": None, "largest": None,
                                          "how": "AgentDeck states no budget for the skills block"}
    assert session["skills"] == [{"name": "refund-policy", "path": ".claude/skills/refund-policy/SKILL.md"}]
    assert session["not_found"] == ["refund-polcy"]
    listing = session["listing"]
    assert {key: listing[key] for key in ("runtime", "skills", "size", "unit", "over", "at_risk", "left_out")} == {
        "runtime": "Claude Code", "skills": 1, "size": len(REFUND_ENTRY), "unit": "characters", "over": 0,
        "at_risk": [], "left_out": []}
    assert (listing["budget"]["smallest"], listing["budget"]["largest"]) == (8000, 40000)


def test_a_listing_over_its_budget_names_the_skills_at_risk(tmp_path: Path) -> None:
    """50 descriptions of 150-250 characters: 11,538 characters of Claude Code's 8,000 at 200k tokens, so some
    descriptions are dropped, which ones depending on use: every skill is at risk, at least 14 are dropped."""
    project = tmp_path / "proj"
    for index in range(50):
        description = f"Skill number {index} " + "does a careful thing with the files of the project " * (3 + index % 3)
        (project / f".claude/skills/skill-{index:02d}").mkdir(parents=True)
        (project / f".claude/skills/skill-{index:02d}/SKILL.md").write_text(
            skill_md(f"skill-{index:02d}", description.strip()), encoding="utf-8")
    out = reported(cwd=project)
    names = ", ".join(f"skill-{index:02d}" for index in range(12)) + " and 38 more"
    assert out == (
        ".claude/skills  project Claude Code in proj (.claude/skills) (Claude Code)\n"
        f"    skills: {names}\n"
        "    listing: 50 skills · 11,538 characters of 8,000–40,000 · 50 at risk\n"
        f"    descriptions at risk (at least 14 dropped): {names}\n")
    [row] = json.loads(reported("--format", "json", cwd=project))["rows"]
    listing = row["listing"]
    assert (listing["size"], listing["over"], listing["dropped_at_least"], len(listing["at_risk"])) == (11538, 3538, 14, 50)


def test_subagents_sessions_and_typescript(tmp_path: Path) -> None:
    project = copy(AGENTS_PROJECT, tmp_path)
    listed = reported("--format", "json", "app/clean.mjs", ".claude/agents/writer.md", cwd=project)
    rows = [(row["path"], row["kind"], row["name"], row["runtime"], [skill["name"] for skill in row["skills"]])
            for row in json.loads(listed)["rows"]]
    # a file named restricts the report to its own rows
    assert rows == [
        (".claude/agents/writer.md", "subagent", "writer", "Claude Code", ["release-notes", "code-review"]),
        ("app/clean.mjs", "session", "query() options", "Claude Agent SDK", ["code-review", "release-notes"]),
        ("app/clean.mjs", "subagent", "notes", "Claude Agent SDK", ["release-notes"]),
    ]
    # a subagent preloads its skills whole; what it is shown is the listing of the session it runs in (the project's)
    head, preloads, listing = reported(".claude/agents/writer.md", cwd=project).rstrip("\n").split("\n")
    assert (head, preloads) == (".claude/agents/writer.md:1  subagent writer (Claude Code)",
                                "    preloads: release-notes, code-review")
    assert listing.startswith("    listing: 2 skills · ") and listing.endswith(" of 8,000–40,000 (its session's skills)")


def test_a_session_without_a_filter_and_a_list_not_known(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    for name in ("alpha", "beta"):
        (project / f".claude/skills/{name}").mkdir(parents=True)
        (project / f".claude/skills/{name}/SKILL.md").write_text(skill_md(name), encoding="utf-8")
    (project / "app.py").write_text(
        "from claude_agent_sdk import ClaudeAgentOptions\n\n"
        "everything = ClaudeAgentOptions(setting_sources=[\"project\"])\n"
        "chosen = ClaudeAgentOptions(skills=pick(), setting_sources=[\"project\"])\n", encoding="utf-8")
    (project / "helper.py").write_text(
        "from claude_agent_sdk import AgentDefinition\n\n"
        'helper = AgentDefinition(description="Helps.", prompt="Help.", skills=["alpha"])\n', encoding="utf-8")
    # an AgentDefinition in no options: which session it runs in, and so its listing, is not known
    assert reported("helper.py", cwd=project) == (
        "helper.py:3  subagent helper (Claude Agent SDK)\n"
        "    preloads: alpha\n"
        "    listing: not known (the session it runs in is not known statically)\n")
    assert json.loads(reported("--format", "json", "helper.py", cwd=project))["rows"][0]["listing"] is None
    out = reported("app.py", cwd=project)
    both = len("- alpha: Do the alpha thing.\n- beta: Do the beta thing.")
    assert out.split("\n") == [
        "app.py:3  session everything (Claude Agent SDK)",
        "    skills: alpha, beta",
        f"    listing: 2 skills · {both} characters of 8,000–40,000",
        "app.py:4  session chosen (Claude Agent SDK)",
        "    skills: not known statically (skills= is not a literal)",
        "",
    ]


def test_nothing_to_report_is_said(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_cli("report", "empty", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == ""
    assert result.stderr == "skill-lsp: no agent, Claude session, subagent or project skills found under empty\n"
    result = run_cli("report", "--format", "json", "empty", cwd=tmp_path)
    assert (result.returncode, json.loads(result.stdout)) == (0, {"rows": []})


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    result = run_cli("report", "missing", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: skill-lsp report")
    assert result.stderr.endswith("skill-lsp report: error: missing: no such file or directory\n")
    result = run_cli("report", "--format", "xml", cwd=tmp_path)
    assert result.returncode == 2
    assert "invalid choice: 'xml'" in result.stderr
    result = run_cli("report", "--user-skills-dir", "nowhere", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.endswith("skill-lsp report: error: --user-skills-dir nowhere: no such directory\n")


ALIKE = {"merge-pdfs": "Merge several PDF files into one document, keeping bookmarks and page order.",
         "combine-pdfs": "Combine several PDF files into one document, keeping bookmarks and page order.",
         "quote-fare": "Quote a fare for a ride between two cities."}


def test_the_pairs_of_alike_descriptions_of_each_row(tmp_path: Path) -> None:
    """Two skills that say the same (SK310's pairs, overlap.py): named on the session that lists both, on the one
    without a filter (its root's choice) and on the project's listing; never a pair with the third skill."""
    project = tmp_path / "proj"
    for name, description in ALIKE.items():
        (project / f".claude/skills/{name}").mkdir(parents=True)
        (project / f".claude/skills/{name}/SKILL.md").write_text(skill_md(name, description), encoding="utf-8")
    (project / "app.py").write_text(
        "from claude_agent_sdk import ClaudeAgentOptions\n\n"
        'listed = ClaudeAgentOptions(skills=["merge-pdfs", "combine-pdfs", "quote-fare"], setting_sources=["project"])\n'
        'quoting = ClaudeAgentOptions(skills=["merge-pdfs", "quote-fare"], setting_sources=["project"])\n'
        'everything = ClaudeAgentOptions(setting_sources=["project"])\n', encoding="utf-8")
    pair = ('    alike descriptions: combine-pdfs ~ merge-pdfs '
            '("several pdf files into one document keeping bookmarks and page order")')
    blocks = reported(cwd=project).rstrip("\n").split("\n")
    alike = [line for line in blocks if line.startswith("    alike")]
    heads = [line for line in blocks if not line.startswith("    ")]
    assert heads == [".claude/skills  project Claude Code in proj (.claude/skills) (Claude Code)",
                     "app.py:3  session listed (Claude Agent SDK)", "app.py:4  session quoting (Claude Agent SDK)",
                     "app.py:5  session everything (Claude Agent SDK)"]
    assert alike == [pair, pair, pair]  # the project, listed and everything; not quoting
    assert blocks[blocks.index("app.py:4  session quoting (Claude Agent SDK)") + 3].startswith("app.py:5")
    rows = json.loads(reported("--format", "json", cwd=project))["rows"]
    [overlap] = rows[1]["overlaps"]
    assert (overlap["skills"], overlap["paths"], overlap["phrase"]) == (
        ["combine-pdfs", "merge-pdfs"],
        [".claude/skills/combine-pdfs/SKILL.md", ".claude/skills/merge-pdfs/SKILL.md"],
        "several pdf files into one document keeping bookmarks and page order")
    assert overlap["score"] > 0.55 and rows[2]["overlaps"] == []
