"""The tool names Claude Code knows, for `allowed-tools` / `disallowed-tools`: one list to update per release.

Source: Claude Code's tools reference (code.claude.com/docs/en/tools-reference, read for Claude Code
2.1.240, December 2026; the names are "the exact strings you use in permission rules, subagent tool
lists, and hook matchers"). The TypeScript Agent SDK exports the same names as `BUILTIN_TOOL_NAMES`
(@anthropic-ai/claude-agent-sdk 0.3.333), with 23 names more that the reference leaves out (internal or
gated tools; all of them quoted names in Claude Code 2.1.332's binary): BUILTIN holds both, so SK206 never
offers a near miss of a real tool as a typo. tests/oracles/test_pinned_facts.py compares it with the SDK's
list. To update: replace BUILTIN with the new table's first column
and move names the table dropped to LEGACY while skills still write them.
"""

from __future__ import annotations

CLAUDE_CODE_VERSION = "2.1.332"

BUILTIN: frozenset[str] = frozenset({
    "Agent", "Artifact", "AskUserQuestion", "Bash", "CronCreate", "CronDelete", "CronList", "Edit",
    "EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree", "Glob", "Grep", "ListMcpResourcesTool",
    "LSP", "NotebookEdit", "PowerShell", "Read", "ReadMcpResourceTool", "Skill", "TaskCreate", "TaskGet",
    "TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TodoWrite", "ToolSearch", "WebFetch", "WebSearch",
    "Write",
}) | frozenset({
    # the rest of the TypeScript SDK 0.3.333's BUILTIN_TOOL_NAMES (scripts/drift-facts.json), each a quoted name
    # in Claude Code 2.1.332's binary too
    "ClaudeDesign", "EndConversation", "ListAgents", "Monitor", "OfferChromeSetup", "Projects", "PushNotification",
    "ReadMcpResourceDirTool", "ReadNotifications", "RemoteTrigger", "ReportFindings", "ScheduleWakeup",
    "SendFeedback", "SendMessage", "SendUserFile", "SendUserMessage", "SetGoal", "ShareOnboardingGuide",
    "ShowOnboardingRolePicker", "SubagentHandback", "WaitForMcpServers", "Workflow", "propose_skills",
})

# Names of earlier releases that skills still list ("Task" was the Agent tool's name; MultiEdit, LS,
# NotebookRead, TodoRead, BashOutput, KillShell and SlashCommand were tools of 1.x and 2.0): never
# reported, since an old name is not a typo.
LEGACY: frozenset[str] = frozenset({
    "Task", "MultiEdit", "LS", "NotebookRead", "TodoRead", "BashOutput", "KillShell", "KillBash", "SlashCommand",
})

KNOWN: frozenset[str] = BUILTIN | LEGACY
