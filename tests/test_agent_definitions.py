"""Subagent files, the SDK's AgentDefinition and TypeScript query() options, through `skill-lsp check`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import codes, having, one, run_cli, skill_md, where

PROJECT = Path(__file__).parent / "agents_project"

SKILLS = {
    ".claude/skills/code-review/SKILL.md": skill_md("code-review", "Review a diff."),
    ".claude/skills/release-notes/SKILL.md": skill_md("release-notes", "Write release notes."),
}


def located(project_dir: Path, relative: str, needle: str) -> tuple[int, int, int, int]:
    """(line, column, end_line, end_column), 1-based in code points, of needle's first occurrence."""
    text = (project_dir / relative).read_text(encoding="utf-8")
    index = text.index(needle)
    line = text.count("\n", 0, index)
    column = index - (text.rfind("\n", 0, index) + 1)
    return line + 1, column + 1, line + 1, column + 1 + len(needle)


@pytest.fixture
def agents_project(project):
    shutil.copytree(PROJECT, project.root, dirs_exist_ok=True)
    return project


def test_one_typo_in_each_kind_is_found_on_its_line(agents_project) -> None:
    findings = agents_project.check()
    root = agents_project.root
    assert sorted((f["path"], f["code"], where(f)) for f in findings) == [
        (".claude/agents/reviewer.md", "CL103", located(root, ".claude/agents/reviewer.md", "code-reveiw")),
        ("app/agent.ts", "CL103", located(root, "app/agent.ts", '"code-reviw"')),
        ("app/agents.py", "CL103", located(root, "app/agents.py", '"relase-notes"')),
    ]
    by_path = {f["path"]: f for f in findings}
    assert "did you mean 'code-review'?" in by_path[".claude/agents/reviewer.md"]["message"]
    assert "subagent 'reviewer'" in by_path[".claude/agents/reviewer.md"]["message"]
    assert "did you mean 'release-notes'?" in by_path["app/agents.py"]["message"]
    assert "subagent 'summariser'" in by_path["app/agents.py"]["message"]
    assert "subagent 'checker'" in by_path["app/agent.ts"]["message"]


def test_text_output_and_exit_status(agents_project) -> None:
    result = agents_project.run("check")
    assert result.status == 0  # warnings only
    assert "app/agent.ts:3:" in result.out and "Found 0 errors, 3 warnings in 3 files" in result.out
    assert agents_project.run("check", "--strict").status == 1


def test_renaming_a_skill_turns_every_kind_red(agents_project) -> None:
    root = agents_project.root
    # the directory alone first: subagents still resolve the old name as the skill's display name (its
    # frontmatter name), the session filter of the options does not
    (root / ".claude/skills/release-notes").rename(root / ".claude/skills/notes")
    flagged = {(f["path"], f["message"].split("'")[1]) for f in having(agents_project.check(), "CL103")}
    assert ("app/clean.py", "release-notes") in flagged and ("app/clean.mjs", "release-notes") in flagged
    assert (".claude/agents/writer.md", "release-notes") not in flagged
    # then its name too: every kind that lists the old name goes red
    skill = root / ".claude/skills/notes/SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8").replace("name: release-notes", "name: notes"), encoding="utf-8")
    flagged = {(f["path"], f["message"].split("'")[1]) for f in having(agents_project.check(), "CL103")}
    assert {(".claude/agents/writer.md", "release-notes"), ("app/clean.mjs", "release-notes"),
            ("app/clean.py", "release-notes"), ("app/agent.ts", "release-notes")} <= flagged


def test_the_cache_sees_an_edited_typescript_and_subagent_file(agents_project) -> None:
    # the same check twice (the second from check's cache), then both files fixed
    assert len(agents_project.check()) == 3
    assert len(agents_project.check()) == 3
    root = agents_project.root
    for relative, old, new in ((".claude/agents/reviewer.md", "code-reveiw", "code-review"),
                               ("app/agent.ts", "code-reviw", "code-review")):
        path = root / relative
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    assert [f["path"] for f in agents_project.check()] == ["app/agents.py"]


# -- subagent files ---------------------------------------------------------------------------------


def test_subagent_skills_in_block_flow_and_comma_form(check_project) -> None:
    findings = check_project({
        **SKILLS,
        ".claude/agents/block.md": "---\nname: block\ndescription: d\nskills:\n  - code-review\n  - 'relese-notes'\n---\n",
        ".claude/agents/flow.md": "---\nname: flow\ndescription: d\nskills: [\"code-revew\", release-notes]\n---\n",
        ".claude/agents/comma.md": "---\nname: comma\ndescription: d\nskills: code-review, relase-notes\n---\n",
    })
    assert sorted((f["path"], where(f)) for f in findings) == [
        (".claude/agents/block.md", (6, 5, 6, 19)),
        (".claude/agents/comma.md", (4, 22, 4, 34)),
        (".claude/agents/flow.md", (4, 10, 4, 22)),
    ]
    assert set(codes(findings)) == {"CL103"}


def test_subagent_fields_are_checked_as_claude_code_reads_them(check_project) -> None:
    findings = check_project({
        **SKILLS,
        ".claude/agents/a.md": "---\nname: a\ndescription: d\npermissionMode: acceptEdit\nmaxTurns: 0\ncolour: red\n"
                               "memory: team\nisolation: worktree\neffort: high\nbackground: true\nhooks: {}\n---\n",
        ".claude/agents/nameless.md": "---\ndescription: d\nskills: [code-review]\n---\n",
        ".claude/agents/broken.md": "---\nname: broken\ndescription: [Use when a PR opens\n---\n",
        # an unquoted ': ' is read after Claude Code's quoting retry: no finding
        ".claude/agents/colon.md": "---\nname: colon\ndescription: Use when: a PR opens\nskills: [code-review]\n---\n",
        ".claude/agents/prose.md": "# Just notes\n",
        # fields of Claude Code 2.1.332's agent schema: no CA104
        ".claude/agents/observed.md": "---\nname: observed\ndescription: d\nobserveSubagents: false\n"
                                      "observeToolResults: false\nexperimental:\n  cacheTtl: 1h\n---\n",
    })
    a = [f for f in findings if f["path"] == ".claude/agents/a.md"]
    assert sorted(codes(a)) == ["CA103", "CA103", "CA103", "CA104"]
    mode = next(f for f in a if "permissionMode" in f["message"])
    assert mode["severity"] == "warning" and where(mode) == (4, 17, 4, 27) and "did you mean 'acceptEdits'?" in mode["message"]
    unknown = one(a, "CA104")
    assert unknown["severity"] == "information" and "did you mean 'color'?" in unknown["message"]
    nameless = one([f for f in findings if f["path"] == ".claude/agents/nameless.md"], "CA101")
    assert nameless["severity"] == "error" and "no 'name'" in nameless["message"]
    assert codes(f for f in findings if f["path"] == ".claude/agents/broken.md") == ["CA102"]
    assert not [f for f in findings if f["path"] in (".claude/agents/prose.md", ".claude/agents/colon.md",
                                                       ".claude/agents/observed.md")]


def test_subagent_skills_match_display_names_and_bare_plugin_names(check_project) -> None:
    findings = check_project({
        ".claude/skills/notes/SKILL.md": skill_md("Release notes", "Write notes."),
        ".claude/agents/a.md": "---\nname: a\ndescription: d\nskills: [Release notes, notes]\n---\n",
        "app.py": "from claude_agent_sdk import ClaudeAgentOptions\n"
                  "options = ClaudeAgentOptions(skills=['Release notes'])\n",
    })
    assert not [f for f in findings if f["path"] == ".claude/agents/a.md"]
    # the session filter matches canonical names only: the directory name is offered instead
    cl103 = one([f for f in findings if f["path"] == "app.py"], "CL103")
    assert "directory name 'notes'" in cl103["message"] and "did you mean 'notes'?" in cl103["message"]


def test_a_plugins_agents_preload_its_skills(check_project) -> None:
    findings = check_project({
        "shop/.claude-plugin/plugin.json": '{"name": "shop"}',
        "shop/skills/refunds/SKILL.md": skill_md("refunds", "Refund an order."),
        "shop/agents/desk.md": "---\nname: desk\ndescription: d\nskills: [shop:refunds, refunds, refnds]\n---\n",
    })
    desk = [f for f in findings if f["path"] == "shop/agents/desk.md"]
    assert [(f["code"], f["message"].split("'")[1]) for f in desk] == [("CL103", "refnds")]


# -- Python AgentDefinition ---------------------------------------------------------------------------


def test_agent_definitions_inline_aliased_and_by_variable(check_project) -> None:
    findings = check_project({
        **SKILLS,
        "app.py": (
            "import claude_agent_sdk as sdk\n"
            "from claude_agent_sdk import AgentDefinition as AD\n"
            "helper = AD(description='d', prompt='p', skills=['code-revie'])\n"
            "options = sdk.ClaudeAgentOptions(agents={'helper': helper, 'x': sdk.AgentDefinition(description='d', prompt='p', skills=['relase-notes'])})\n"
            "alone = AD(description='d', prompt='p', skills=['release-notes', 'nope-nope'])\n"
        ),
        "other.py": "from agents import AgentDefinition\nAgentDefinition(skills=['nope'])\n",
    })
    assert sorted((f["path"], f["line"], f["message"].split("'")[1]) for f in findings) == [
        ("app.py", 3, "code-revie"), ("app.py", 4, "relase-notes"), ("app.py", 5, "nope-nope"),
    ]


def test_an_agent_definition_is_checked_against_its_options_registry(check_project) -> None:
    findings = check_project({
        "svc/.claude/skills/billing/SKILL.md": skill_md("billing", "Bill."),
        ".claude/skills/code-review/SKILL.md": skill_md("code-review", "Review."),
        "app.py": "from claude_agent_sdk import AgentDefinition, ClaudeAgentOptions\n"
                  "o = ClaudeAgentOptions(cwd='svc', setting_sources=['project'], agents={"
                  "'a': AgentDefinition(description='d', prompt='p', skills=['billing', 'code-review'])})\n",
    })
    # cwd=svc: the session discovers svc/.claude/skills only
    assert [(f["code"], f["message"].split("'")[1]) for f in findings] == [("CL103", "code-review")]


# -- TypeScript / JavaScript ------------------------------------------------------------------------


@pytest.mark.parametrize("header, call", [
    ('import { query } from "@anthropic-ai/claude-agent-sdk";', "query"),
    ("import { query as ask } from '@anthropic-ai/claude-agent-sdk';", "ask"),
    ('import * as sdk from "@anthropic-ai/claude-agent-sdk";', "sdk.query"),
    ('import sdk from "@anthropic-ai/claude-agent-sdk";', "sdk.query"),
    ('const { query } = require("@anthropic-ai/claude-agent-sdk");', "query"),
    ('const { query: ask } = require("@anthropic-ai/claude-agent-sdk");', "ask"),
    ('const sdk = require("@anthropic-ai/claude-agent-sdk");', "sdk.query"),
])
def test_query_is_recognised_through_every_import_form(check_project, header: str, call: str) -> None:
    findings = check_project({**SKILLS, "agent.js": f"{header}\n{call}({{ prompt: 'x', options: {{ skills: ['code-reveiw'] }} }});\n"})
    assert [(f["path"], f["code"], where(f)) for f in findings] == [("agent.js", "CL103", (2, len(call) + 37, 2, len(call) + 50))]


def test_another_librarys_query_and_a_shadowing_import_are_left_alone(check_project) -> None:
    findings = check_project({
        **SKILLS,
        "a.ts": "import { query } from './db';\nquery({ prompt: 'x', options: { skills: ['nope'] } });\n",
        "b.ts": "import { AgentDefinition } from '@anthropic-ai/claude-agent-sdk';\n"
                "import { query } from 'other';\nquery({ prompt: 'x', options: { skills: ['nope'] } });\n",
        "c.d.ts": "import { query } from '@anthropic-ai/claude-agent-sdk';\nquery({ prompt: 'x', options: { skills: ['nope'] } });\n",
        "node_modules/x/index.js": "const { query } = require('@anthropic-ai/claude-agent-sdk');\n"
                                   "query({ prompt: 'x', options: { skills: ['nope'] } });\n",
    })
    assert findings == []


def test_options_and_agents_followed_through_consts(check_project) -> None:
    findings = check_project({
        **SKILLS,
        "agent.ts": (
            "import { query, type AgentDefinition, type Options } from '@anthropic-ai/claude-agent-sdk';\n"
            "const SKILLS = ['code-review', 'relese-notes'];\n"
            "const reviewer = { description: 'd', prompt: 'p', skills: ['code-revue'] } satisfies AgentDefinition;\n"
            "const options: Options = { skills: SKILLS, agents: { reviewer } };\n"
            "const standalone: AgentDefinition = { description: 'd', prompt: 'p', skills: ['nope-nope'] };\n"
            "query({ prompt: 'x', options });\n"
        ),
    })
    assert sorted((f["line"], f["message"].split("'")[1]) for f in findings) == [
        (2, "relese-notes"), (3, "code-revue"), (5, "nope-nope")]


def test_typescript_sdk_name_rules_in_its_own_words(check_project) -> None:
    findings = check_project({
        **SKILLS,
        "agent.ts": (
            "import { query } from '@anthropic-ai/claude-agent-sdk';\n"
            "query({ prompt: 'x', options: { skills: ['shop:*', 'a__*', '/code-review', ' code-review', '*'] } });\n"
            "query({ prompt: 'x', options: { skills: 'code-review' } });\n"
            "query({ prompt: 'x', options: { skills: 'all' } });\n"
        ),
    })
    messages = [(f["code"], f["message"]) for f in findings]
    assert [code for code, _ in messages] == ["CL101", "CL101", "CL101", "CL101", "CL104", "CL102"]
    assert "wildcard-suffix" in messages[1][1]  # '__*' is a wildcard suffix to the TypeScript SDK only
    assert "Skills are invoked as slash commands" in messages[2][1]
    assert "Remove the padding." in messages[3][1]
    assert messages[4][1] == "Invalid skill name '*': use skills: 'all' to enable every skill."
    assert "string[] or 'all'" in messages[5][1]


def test_a_half_typed_file_is_never_a_crash(check_project) -> None:
    findings = check_project({
        **SKILLS,
        "agent.ts": "import { query } from '@anthropic-ai/claude-agent-sdk';\nquery({ prompt: 'x', options: { skills: ['code-re",
        ".claude/agents/typing.md": "---\nname: typing\ndescription: d\nskills: [code-re\n",
    })
    assert all(f["code"].startswith(("CL", "CA")) for f in findings)


def test_the_cli_checks_a_typescript_file_passed_alone(tmp_path: Path) -> None:
    shutil.copytree(PROJECT, tmp_path / "p")
    result = run_cli("check", "app/agent.ts", cwd=tmp_path / "p")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("app/agent.ts:3:") and "CL103" in result.stdout


def test_typescript_working_directories_are_evaluated_statically(check_project) -> None:
    findings = check_project({
        "svc/.claude/skills/billing/SKILL.md": skill_md("billing", "Bill."),
        "svc/src/run.ts": (
            "import { query } from '@anthropic-ai/claude-agent-sdk';\n"
            "import path from 'node:path';\n"
            "query({ prompt: 'x', options: { cwd: path.join(__dirname, '..'), settingSources: ['project'], skills: ['billing', 'bilage'] } });\n"
            "query({ prompt: 'x', options: { cwd: process.cwd(), skills: ['biling'] } });\n"
            "query({ prompt: 'x', options: { cwd: somewhere, skills: ['never-checked'] } });\n"
        ),
    })
    # process.cwd() counts as the file's project; a cwd that cannot be evaluated checks nothing
    assert sorted((f["line"], f["message"].split("'")[1]) for f in findings) == [(3, "bilage"), (4, "biling")]


def test_an_agent_definition_imported_from_another_module_joins_its_options(check_project) -> None:
    findings = check_project({
        "svc/.claude/skills/billing/SKILL.md": skill_md("billing", "Bill."),
        ".claude/skills/code-review/SKILL.md": skill_md("code-review", "Review."),
        "app/agents.py": "from claude_agent_sdk import AgentDefinition\n"
                         "biller = AgentDefinition(description='d', prompt='p', skills=['billing', 'code-review'])\n",
        "app/main.py": "from claude_agent_sdk import ClaudeAgentOptions\nfrom .agents import biller\n"
                       "options = ClaudeAgentOptions(cwd='../svc', setting_sources=['project'], agents={'billing': biller})\n",
    })
    # in svc's session, code-review is not discovered; the subagent is named by its key in agents={...}
    assert [(f["path"], f["message"].split("'")[1], "subagent 'billing'" in f["message"]) for f in findings] == [
        ("app/agents.py", "code-review", True)]


@pytest.mark.parametrize("body", [
    "const a = b; const b = a; query({ prompt: 'x', options: a });",
    "query({ prompt: 'x', options: { skills: " + "[" * 3000 + "]" * 3000 + " } });",
    "query({ prompt: 'x', options: { cwd: path.join(" * 500 + "'a'" + ")" * 500 + ", skills: ['x'] } });",
    "query({ prompt: 'x', options: { skills: ['\\u{110000}', '\\x4', `a${b}`] } });",
    "query(" * 2000,
])
def test_hostile_scripts_parse_without_a_crash(body: str) -> None:
    from skill_lsp.tssource import parse_script

    source = parse_script("import { query } from '@anthropic-ai/claude-agent-sdk';\n" + body + "\n")
    assert source.frameworks  # read, whatever it holds


def test_a_skill_a_subagent_preloads_by_its_display_name_is_not_unused(check_project) -> None:
    findings = check_project({
        ".claude/skills/notes/SKILL.md": skill_md("Release notes", "Write notes."),
        ".claude/skills/idle/SKILL.md": skill_md("idle", "Nobody lists it."),
        ".claude/agents/a.md": "---\nname: a\ndescription: d\nskills: [Release notes]\n---\n",
    }, "--extend-select", "SK303")
    assert [f["path"] for f in having(findings, "SK303")] == [".claude/skills/idle/SKILL.md"]


def test_the_walk_collects_the_suffixes_the_scanner_reads() -> None:
    # discovery keeps its own copy (the walk runs before the tree-sitter grammars are imported)
    from skill_lsp import discovery, tssource

    assert discovery._SCRIPT_SUFFIXES == tssource.SCRIPT_SUFFIXES
