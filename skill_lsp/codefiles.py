"""Which files hold agent definitions, and the parser for each: Python, TypeScript/JavaScript, subagent Markdown.

Every kind parses to the same PySource (calls with keywords and spans), so the model, the rules and the
editor features handle an `Agent(...)`, a `query({ options })` and a `.claude/agents/*.md` file alike.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath

from .agentfile import is_agent_path, parse_agent_file
from .codecalls import PySource
from .pysource import parse_python
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


# the words of a line that may begin an import: Python's `import x` / `from x import y`, a script's
# `import ... from` and `require(...)`
_IMPORTING = ("import", "require")
_OPENING = re.compile(r"[([{]")
_CLOSING = re.compile(r"[)\]}]")
# the lines one import statement may run over (a parenthesised list of names)
_STATEMENT_LINES = 200


def import_statements(text: str) -> str:
    """text with only the statements that may import something, each on its own lines and dedented (a
    Python import inside a block parses alone), every other line empty: what a parse says about the
    file's imports, for a fraction of the parse of a file of megabytes."""
    parts: list[str] = []
    row = 0  # the line where `counted` is
    counted = 0
    emitted = 0  # the lines parts hold
    end = 0  # where the last statement kept ends
    for at in _words(text, _IMPORTING):
        if at < end:
            continue  # in the statement kept last
        start = text.rfind("\n", 0, at) + 1
        while start > 1 and text[max(start - 3, 0) : start - 1].rstrip("\r").endswith("\\") and start - 1 > end:
            start = text.rfind("\n", 0, start - 1) + 1  # a statement continued onto this line
        row += text.count("\n", counted, start)
        counted = start
        line_start, depth = start, 0
        for _ in range(_STATEMENT_LINES):
            stop = text.find("\n", line_start)
            stop = len(text) if stop < 0 else stop
            line = text[line_start:stop]
            depth += len(_OPENING.findall(line)) - len(_CLOSING.findall(line))
            if (depth <= 0 and not line.rstrip("\r").endswith("\\")) or stop >= len(text):
                break
            line_start = stop + 1
        statement = "\n".join(line.strip() for line in text[start:stop].split("\n"))
        parts.append("\n" * (row - emitted))
        parts.append(statement)
        emitted = row + statement.count("\n")
        end = stop
    return "".join(parts) + "\n"


def _words(text: str, words: tuple[str, ...]) -> list[int]:
    """Where each of words stands in text as a word of its own, in order (found with str.find, ten
    times as fast as a pattern over a file of megabytes)."""
    found: list[int] = []
    for word in words:
        at = text.find(word)
        while at >= 0:
            after = at + len(word)
            if not (at > 0 and _is_word_char(text[at - 1])) and not (after < len(text) and _is_word_char(text[after])):
                found.append(at)
            at = text.find(word, after)
    return sorted(found)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


__all__ = ["import_statements", "is_code_path", "parse_code"]
