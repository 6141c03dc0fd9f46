"""The tool names Claude Code knows, for `allowed-tools` / `disallowed-tools`: one list to update per release.

Source: Claude Code's tools reference (code.claude.com/docs/en/tools-reference, read for Claude Code
2.1.240, December 2026; the names are "the exact strings you use in permission rules, subagent tool
lists, and hook matchers"). The TypeScript Agent SDK exports the same names as `BUILTIN_TOOL_NAMES`
(@anthropic-ai/claude-agent-sdk 0.3.333). To update: replace BUILTIN with the new table's first column
and move names the table dropped to LEGACY while skills still write them.
"""

from __future__ import annotations

CLAUDE_CODE_VERSION = "2.1.240"

BUILTIN: frozenset[str] = frozenset({
    "Agent", "Artifact", "AskUserQuestion", "Bash", "CronCreate", "CronDelete", "CronList", "Edit",
    "EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree", "Glob", "Grep", "ListMcpResourcesTool",
    "LSP", "NotebookEdit", "PowerShell", "Read", "ReadMcpResourceTool", "Skill", "TaskCreate", "TaskGet",
    "TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TodoWrite", "ToolSearch", "WebFetch", "WebSearch",
    "Write",
})

# Names of earlier releases that skills still list ("Task" was the Agent tool's name; MultiEdit, LS,
# NotebookRead, TodoRead, BashOutput, KillShell and SlashCommand were tools of 1.x and 2.0): never
# reported, since an old name is not a typo.
LEGACY: frozenset[str] = frozenset({
    "Task", "MultiEdit", "LS", "NotebookRead", "TodoRead", "BashOutput", "KillShell", "KillBash", "SlashCommand",
})

KNOWN: frozenset[str] = BUILTIN | LEGACY
