"""Claude Code subagent files (`.claude/agents/<name>.md`, plugins' `agents/`) -> the skills they preload, with spans.

A subagent file is Markdown with YAML frontmatter; its body is the subagent's system prompt. Claude Code
reads `name` (the agent type it is invoked as) and `description` (when to delegate to it) and, since 2.0.43,
`skills:` — skills whose full content is injected into the subagent's context at start. The frontmatter is
read like a SKILL.md's (skill_lsp.skillfile) and handed on as one `agent_file` call whose keywords are
the fields, so the model, the rules and the editor features treat it like an agent definition in code.

What Claude Code accepts, with the source of each fact (Claude Code CHANGELOG in anthropics/claude-code,
the sub-agents page of code.claude.com/docs, and the TypeScript SDK 0.3.333 `AgentDefinition` type, which
mirrors the frontmatter):
- `name` and `description` are required ("Only name and description are required", sub-agents page); a
  Markdown file without them is not an agent and is skipped without a warning (2.1.43: "Fixed spurious
  warnings for non-agent markdown files in `.claude/agents/`").
- `tools` / `disallowedTools` (2.0.30): a comma-separated string or a list; `model`: an alias or a model
  id; `permissionMode` (2.0.43): `default`, `acceptEdits`, `bypassPermissions`, `plan`, `dontAsk`, `auto`
  (TS SDK `PermissionMode`); `maxTurns`, `effort` (plugins: 2.1.78): a positive integer, and
  `low|medium|high|xhigh|max` or an integer; `memory`: `user|project|local`; `background` (2.1.49): a
  boolean; `isolation: worktree` (2.1.50); `hooks` (a mapping), `mcpServers` (a list), `initialPrompt`,
  `color`, and the SDK type's `autoCompactWindow`, `omitClaudeMd`, `observer`, `observerMessage`;
  `observeSubagents`, `observeToolResults` (booleans) and `experimental` (a mapping) in 2.1.332's agent schema.
- Keys it does not know are ignored; on a YAML error the frontmatter is read again with values holding
  `: ` quoted, as for skills (see _recovered).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath

import yaml

from .codecalls import Call, Keyword, PySource, PyValue
from .model import Position, Span
from .nearest import close_matches
from .runtimes.claude_code import NAME_CAP
from .skillfile import Field, SkillFile, parse_skill

CLAUDE_CODE = "claude_code"

PERMISSION_MODES = ("default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto")
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
MEMORY_SCOPES = ("user", "project", "local")

# every frontmatter key Claude Code reads from a subagent file (see the module docstring)
KNOWN_FIELDS: dict[str, str] = {
    "name": "The agent type the subagent is invoked as (lowercase letters and hyphens). Required.",
    "description": "When Claude should delegate to this subagent. Required.",
    "tools": "The tools it may use (comma-separated or a list); all the parent's tools when omitted.",
    "disallowedTools": "Tools removed from the inherited or listed ones.",
    "model": "`inherit`, an alias (`sonnet`, `opus`, `haiku`) or a full model id.",
    "permissionMode": "One of " + ", ".join(f"`{mode}`" for mode in PERMISSION_MODES) + ".",
    "maxTurns": "The most agentic turns before the subagent stops (a positive integer).",
    "skills": "Skills preloaded into the subagent's context at start: their full content is injected.",
    "mcpServers": "MCP servers for this subagent: server names or inline `{name: config}` entries.",
    "hooks": "Lifecycle hooks scoped to this subagent (a mapping of events).",
    "memory": "Persistent memory scope: `user`, `project` or `local`.",
    "background": "`true` to always run as a background task.",
    "effort": "Reasoning effort: " + ", ".join(f"`{level}`" for level in EFFORT_LEVELS) + " or an integer.",
    "isolation": "`worktree` to run in a temporary git worktree.",
    "initialPrompt": "Sent as the first user turn when the agent runs as the main session agent.",
    "color": "The colour the subagent is shown in.",
    "autoCompactWindow": "Token count at which the subagent compacts its own conversation.",
    "omitClaudeMd": "`true` to run without the CLAUDE.md instruction files.",
    "observer": "Agent type(s) spawned as background observers.",
    "observerMessage": "Text appended to each activity digest sent to the observer.",
    # the next three: Claude Code 2.1.332's agent schema (its binary's describe() texts)
    "observeSubagents": "`false`: subagents this agent spawns do not inherit its observers (on an observer's own "
                        "definition, keeps it on the agents that declare it). Default `true`.",
    "observeToolResults": "On an observer's own definition, `false` leaves tool results, auto-loaded CLAUDE.md and "
                          "discovered skills out of its activity digests. Default `true`.",
    "experimental": "Experimental per-agent options (`cacheTtl`: `5m` or `1h`); unknown keys are ignored.",
}

Note = tuple[str, Span, str, "str | None"]


def is_agent_path(path: PurePath) -> bool:
    """A Markdown file directly in a `.claude/agents` directory (a plugin's `agents/` is decided by the walk,
    which can look for the plugin's `.claude-plugin/`)."""
    return path.suffix == ".md" and path.parent.name == "agents" and path.parent.parent.name == ".claude"


def parse_agent_file(text: str, path: PurePath | None = None) -> PySource:
    """The subagent as one `agent_file` call (none for a Markdown file that is not an agent), and the
    problems Claude Code would have with its frontmatter as notes."""
    source = PySource()
    if path is not None and path.name.endswith(".agent.md"):
        # VS Code Copilot's custom-agent format (`*.agent.md`, its `model` a list of Copilot's models), kept
        # in an agents/ folder beside a plugin for Copilot: not written for Claude Code, not checked as its
        return source
    file = parse_skill(text)
    source.ignores = dict(file.ignores)
    if not file.has_frontmatter:
        return source  # not an agent file: Claude Code skips it silently (2.1.43)
    first = file.line_span(0)
    if not file.closed:
        source.notes.append(("CA102", first, "the frontmatter opened here has no closing '---' line; Claude Code "
                             "cannot read the subagent's name and description, so it is not loaded", None))
        return source
    if file.yaml_problem is not None:
        recovered = _recovered(file)
        if recovered is None:
            source.notes.append(("CA102", file.yaml_problem.span, file.yaml_problem.message.replace(
                "the skill is dropped by loaders", "") + "; Claude Code's validator (2.1.332) reports an error: the "
                "subagent loads with its name taken from the file name and every other field dropped", None))
            return source
        file = recovered
    if file.not_mapping is not None:
        source.notes.append(("CA102", file.not_mapping, "the frontmatter must be a mapping of keys to values "
                             "(name: ..., description: ...)", None))
        return source
    keywords: dict[str, Keyword] = {}
    end_line = file.close_line if file.close_line is not None else 0
    span = Span(Position(0, 0), Position(end_line, len(file.lines[end_line])))
    callee = first
    for key, entry in file.fields.items():
        if key == "skills":
            keywords[key] = Keyword(key, entry.key_span, _skills_value(entry))
        elif key in ("name", "description", "model"):
            value = _scalar(entry)
            keywords[key] = Keyword(key, entry.key_span, value)
            if key == "name":
                callee = entry.value_span if value.text else entry.key_span
        else:
            keywords[key] = Keyword(key, entry.key_span, PyValue("other", entry.value_span))
        _check_field(key, entry, source.notes)
    missing = [key for key in ("name", "description") if not _non_empty_string(file, key)]
    if path is not None and not is_agent_path(path) and "name" in missing:
        # a plugin's agent is named after its file: `claude plugin validate` (2.1.332) lists
        # agents/api-tester.md without a name as <plugin>:api-tester; a project's or the user's file without
        # a name is skipped (its loader: no name, no agent)
        missing.remove("name")
    if missing:
        which = " and ".join(f"'{key}'" for key in missing)
        source.notes.append(("CA101", first, f"the subagent has no {which}: Claude Code loads a file in an agents "
                             "directory as a subagent only when its frontmatter has a name and a description, so "
                             "this one is never offered", None))
    name = file.get_str("name")
    refused = _refused_name(name) if name is not None and "name" not in missing else None
    if refused is not None:
        entry = file.fields["name"]
        source.notes.append(("CA101", entry.value_span, f"the subagent's name {name!r} {refused}, so Claude Code does "
                             "not load it", None))
    call = Call("agent_file", CLAUDE_CODE, callee, span, keywords, agent_name=name.strip() if name else
                (path.stem if path is not None else None))
    source.calls.append(call)
    return source




# Claude Code 2.1.332's subagent loader (read in its binary): a name must not start with '-', be over 256
# characters, or hold ':' (after NFKC), which is kept for plugin namespacing; such an agent is not loaded
NAME_LIMIT = NAME_CAP  # the same bound (bU = 256 in the binary) as a skill's display name


def _refused_name(name: str) -> str | None:
    if name.startswith("-"):
        return "starts with '-'"
    if len(name) > NAME_LIMIT:
        return f"is {len(name)} characters long (at most {NAME_LIMIT})"
    if ":" in unicodedata.normalize("NFKC", name):
        return "holds ':', which Claude Code keeps for plugin namespacing"
    return None


_UNQUOTED_COLON = re.compile(r"^([A-Za-z_][\w-]*):[ \t]+(?![\"'\[{|>])(.*: .*?)[ \t]*$")


def _recovered(file: SkillFile) -> SkillFile | None:
    """The frontmatter as Claude Code reads it after a YAML error: it quotes single-line values holding
    ': ' and replaces leading tabs, then parses again (CHANGELOG 2.1.69, "Fixed skill descriptions with
    colons ... failing to load"). Subagent files are read the same way: Anthropic's own plugins ship agents
    whose description holds an unquoted ': ' (claude-plugins-official, pr-review-toolkit). None when that
    does not help either."""
    lines = list(file.lines)
    end = file.close_line if file.close_line is not None else 0
    changed = False
    for number in range(1, end):
        line = lines[number]
        if line.startswith("\t"):
            line = "  " + line.lstrip("\t")
        match = _UNQUOTED_COLON.match(line)
        if match:
            value = match.group(2).replace("\\", "\\\\").replace('"', '\\"')
            line = f'{match.group(1)}: "{value}"'
        if line != lines[number]:
            lines[number] = line
            changed = True
    if not changed:
        return None
    retried = parse_skill("\n".join(lines))
    return retried if retried.yaml_problem is None and retried.not_mapping is None else None


def _non_empty_string(file: SkillFile, key: str) -> bool:
    entry = file.fields.get(key)
    # a bare number or boolean is coerced to a string (changelog 2.1.47: names and descriptions as numbers)
    return entry is not None and entry.value is not None and str(entry.value).strip() != "" and not isinstance(
        entry.value, (list, dict))


def _scalar(entry: Field) -> PyValue:
    node = entry.node
    span = entry.value_span
    if isinstance(node, yaml.ScalarNode) and isinstance(entry.value, (str, int, float)) and not isinstance(entry.value, bool):
        return PyValue("str", span, text=str(entry.value), content_span=_content_span(node, span))
    return PyValue("other", span)


def _content_span(node: yaml.ScalarNode, span: Span) -> Span:
    """Between the quotes of a quoted single-line scalar; the scalar itself when plain."""
    if node.style in ("'", '"') and span.start.line == span.end.line and span.end.column - span.start.column >= 2:
        return Span(Position(span.start.line, span.start.column + 1), Position(span.end.line, span.end.column - 1))
    return span


def _skills_value(entry: Field) -> PyValue:
    """`skills:` as a list of names with their spans: a flow or block list, or a comma-separated string
    (Claude Code reads `tools:` so; a single name is the common case)."""
    node = entry.node
    span = entry.value_span
    if isinstance(node, yaml.SequenceNode):
        items: list[PyValue] = []
        for item in node.value:
            item_span = entry.span_of(item)
            if isinstance(item, yaml.ScalarNode) and item.tag.endswith(":str"):
                items.append(PyValue("str", item_span, text=str(item.value), content_span=_content_span(item, item_span)))
            else:
                items.append(PyValue("other", item_span))
        return PyValue("list", span, items=items)
    if isinstance(node, yaml.ScalarNode) and isinstance(entry.value, str):
        if not node.style and span.start.line == span.end.line:  # plain (the composer leaves '' or None)
            items = []
            for match in re.finditer(r"[^,]+", str(node.value)):
                word = match.group(0)
                lead = len(word) - len(word.lstrip())
                name = word.strip()
                if not name:
                    continue
                start = span.start.column + match.start() + lead
                item_span = Span(Position(span.start.line, start), Position(span.start.line, start + len(name)))
                items.append(PyValue("str", item_span, text=name, content_span=item_span))
            return PyValue("list", span, items=items)
        return PyValue("list", span, items=[PyValue("str", span, text=entry.value.strip(), content_span=_content_span(node, span))])
    if entry.value is None:
        return PyValue("none", span)
    return PyValue("other", span)


def _check_field(key: str, entry: Field, notes: list[Note]) -> None:
    value = entry.value
    span = entry.value_span
    if key not in KNOWN_FIELDS:
        near = close_matches(key, list(KNOWN_FIELDS), 1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        notes.append(("CA104", entry.key_span, f"'{key}' is not a subagent field Claude Code reads; it is ignored{hint}",
                      near[0] if near else None))
        return
    if value is None:
        return
    problem: str | None = None
    replacement: str | None = None
    if key == "permissionMode":
        if not isinstance(value, str) or value not in PERMISSION_MODES:
            near = close_matches(str(value), list(PERMISSION_MODES), 1) if isinstance(value, str) else []
            replacement = near[0] if near else None
            problem = f"permissionMode {value!r} is not a permission mode Claude Code knows (" + ", ".join(PERMISSION_MODES) + ")"
    elif key in ("maxTurns", "autoCompactWindow"):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problem = f"{key} must be a positive integer, got {value!r}"
    elif key == "effort":
        if not (isinstance(value, int) and not isinstance(value, bool)) and value not in EFFORT_LEVELS:
            problem = f"effort {value!r} is not " + ", ".join(EFFORT_LEVELS) + " or an integer"
    elif key == "memory":
        if value not in MEMORY_SCOPES:
            problem = f"memory {value!r} is not one of " + ", ".join(MEMORY_SCOPES)
    elif key == "isolation":
        if value != "worktree":
            problem = f"isolation {value!r} is not 'worktree', the only isolation Claude Code has"
    elif key in ("background", "omitClaudeMd"):
        if not isinstance(value, bool):
            problem = f"{key} must be true or false, got {value!r}"
    elif key in ("tools", "disallowedTools", "skills"):
        if not isinstance(value, str) and not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
            problem = f"{key} must be a comma-separated string or a list of names"
    elif key == "hooks":
        if not isinstance(value, dict):
            problem = "hooks must be a mapping of hook events to their handlers"
    elif key == "mcpServers":
        if not isinstance(value, list):
            problem = "mcpServers must be a list of server names or {name: config} entries"
    elif key in ("model", "color", "initialPrompt", "observer", "observerMessage"):
        if not isinstance(value, str):
            problem = f"{key} must be a string, got {value!r}"
    if problem is not None:
        hint = f"; did you mean '{replacement}'?" if replacement else ""
        notes.append(("CA103", span, problem + f"; Claude Code does not apply it as written{hint}", replacement))
