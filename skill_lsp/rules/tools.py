"""SK206: a tool name in a SKILL.md's allowed-tools or disallowed-tools that is a near miss of one Claude Code knows."""

from __future__ import annotations

import re

import yaml

from .. import claude_tools
from ..index import SkillEntry
from ..model import Fix, Span, TextEdit
from ..skillfile import Field
from .report import Reporter, close_matches

# allowed-tools items: `Bash(git status:*)` keeps its spaces inside the parentheses; items are separated
# by commas or whitespace outside them.
_TOOL_ITEM = re.compile(r"[^\s,()]+(?:\([^()]*\))?")
_LOWER_TOOLS = {name.lower(): name for name in claude_tools.KNOWN}


def check_tools(skill: SkillEntry, fields: dict[str, Field], reporter: Reporter) -> None:
    """SK206: a tool name in allowed-tools / disallowed-tools that is a near miss of one Claude Code knows
    (called when Claude Code loads the skill)."""
    for key in ("allowed-tools", "disallowed-tools", "disallowedTools"):
        entry = fields.get(key)
        if entry is None or entry.error is not None:
            continue
        for name, span in _tool_names(skill, entry):
            if name in claude_tools.KNOWN or name.startswith("mcp__") or not name[:1].isalpha():
                continue
            near = _LOWER_TOOLS.get(name.lower())
            if near is None:
                found = close_matches(name.lower(), list(_LOWER_TOOLS), 1, cutoff=0.8)
                near = _LOWER_TOOLS[found[0]] if found else None
            if near is None:
                continue  # a plugin's, an agent's or a newer release's tool: not ours to doubt
            reporter.report(
                "SK206", skill.path, span,
                f"'{name}' is not a Claude Code tool (Claude Code {claude_tools.CLAUDE_CODE_VERSION}), so '{key}' "
                f"grants nothing by it; did you mean '{near}'?",
                profile=skill.profile,
                fixes=[Fix(f"Change to '{near}'", edits=(TextEdit(skill.path, span, near),), preferred=True)],
                data={"closest": [near]},
            )


def _tool_names(skill: SkillEntry, entry: Field) -> list[tuple[str, Span]]:
    """Each tool's bare name (before its '(' pattern) and the span of that name."""
    node = entry.node
    items = node.value if isinstance(node, yaml.SequenceNode) else [node]
    found: list[tuple[str, Span]] = []
    for item in items:
        if not isinstance(item, yaml.ScalarNode) or not isinstance(item.value, str):
            continue
        start, end = item.start_mark, item.end_mark
        offset = 1  # the frontmatter starts on the file's second line
        line = skill.file.lines[start.line + offset] if start.line + offset < len(skill.file.lines) else ""
        # a span per name only where the scalar is written on one line as it reads (plain, or quoted
        # without escapes); otherwise the whole value
        raw = line[start.column : end.column] if start.line == end.line else ""
        inner = raw[1:-1] if item.style in ("'", '"') else raw
        exact = inner == item.value
        for match in _TOOL_ITEM.finditer(item.value):
            name = match.group(0).split("(", 1)[0]
            if not name:
                continue
            if exact:
                column = start.column + (1 if item.style in ("'", '"') else 0) + match.start()
                span = Span.of(start.line + offset, column, start.line + offset, column + len(name))
            else:
                span = Span.of(start.line + offset, start.column, end.line + offset, end.column)
            found.append((name, span))
    return found
