"""SK206: a tool in allowed-tools / disallowed-tools that is a near miss of a Claude Code tool."""

from __future__ import annotations

import pytest

from .helpers import codes, having, one, skill_md, where


@pytest.mark.parametrize(("tools", "name", "column", "near"), [
    ("allowed-tools: Read, Grep, bash(git status:*)", "bash", 28, "Bash"),
    ("allowed-tools: Read WebFetcher", "WebFetcher", 21, "WebFetch"),
    ('allowed-tools: "Glob, Grepp"', "Grepp", 23, "Grep"),
    ("disallowed-tools: Writes", "Writes", 19, "Write"),
    # tools of the TypeScript SDK 0.3.333's BUILTIN_TOOL_NAMES that the tools reference leaves out
    ("allowed-tools: Workflows", "Workflows", 16, "Workflow"),
    ("allowed-tools: ScheduleWakeUp", "ScheduleWakeUp", 16, "ScheduleWakeup"),
])
def test_sk206_near_miss_of_a_claude_code_tool(check_skill, tools, name, column, near):
    finding = one(check_skill(skill_md(extra=tools), profile="claude"), "SK206")
    assert where(finding) == (4, column, 4, column + len(name))
    assert finding["severity"] == "warning"
    assert f"'{name}' is not a Claude Code tool" in finding["message"] and f"did you mean '{near}'?" in finding["message"]
    assert finding["fixes"] == [f"Change to '{near}'"]


def test_sk206_in_a_yaml_list(check_skill):
    findings = check_skill(skill_md(extra="allowed-tools:\n  - Read\n  - Bassh(npm test)\n  - mcp__github__create_issue"),
                           profile="claude")
    finding = one(findings, "SK206")
    assert where(finding) == (6, 5, 6, 10)
    assert "did you mean 'Bash'?" in finding["message"]


@pytest.mark.parametrize("tools", [
    "allowed-tools: Bash(git:*) Read Edit Write Glob Grep WebFetch WebSearch Agent Skill(review) TodoWrite",
    "allowed-tools: Task, MultiEdit, LS, NotebookRead",  # earlier releases' names
    "allowed-tools: Monitor, SendMessage, SendUserMessage, ReadMcpResourceDirTool, Workflow",  # SDK 0.3.333's
    "allowed-tools: mcp__slack__post_message, mcp__github",
    "allowed-tools: DeployTool, FigmaExport",  # a plugin's or an MCP server's: not a near miss
    "allowed-tools: [Read, Bash(python:*)]",
])
def test_sk206_not_on_known_or_unrelated_names(check_skill, tools):
    assert "SK206" not in codes(check_skill(skill_md(extra=tools), profile="claude"))


@pytest.mark.parametrize("profile", ["agentdeck", "spec"])
def test_sk206_only_for_claude_code_skills(check_skill, profile):
    findings = check_skill(skill_md(extra="allowed-tools: bash"), profile=profile)
    assert having(findings, "SK206") == []
