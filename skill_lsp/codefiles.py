"""Which files hold agent definitions, and the parser for each: Python, TypeScript/JavaScript, subagent Markdown.

Every kind parses to the same PySource (calls with keywords and spans), so the model, the rules and the
editor features handle an `Agent(...)`, a `query({ options })` and a `.claude/agents/*.md` file alike.
"""

from __future__ import annotations

import os
from pathlib import PurePath

from .agentfile import is_agent_path, parse_agent_file
from .pysource import PySource, parse_python
from .tssource import is_script_name, parse_script


def is_code_path(path: PurePath) -> bool:
    """A file that may define agents: Python, a script, or a subagent file (a plugin's `agents/` counts
    when the plugin's `.claude-plugin/` is beside it)."""
    name = path.name
    if name.endswith(".py") or is_script_name(name):
        return True
    return name.endswith(".md") and (is_agent_path(path) or (
        path.parent.name == "agents" and os.path.isdir(os.path.join(str(path.parent.parent), ".claude-plugin"))))


def parse_code(text: str, path: PurePath) -> PySource:
    if path.suffix == ".py":
        return parse_python(text, path)
    if path.suffix == ".md":
        return parse_agent_file(text, path)
    return parse_script(text, path)


__all__ = ["is_code_path", "parse_code"]
