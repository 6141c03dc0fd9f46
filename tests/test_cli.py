"""The command line: output formats, exit codes, `disclosure`, `rules`, and the bundled examples."""

from __future__ import annotations

import json
import re

import pytest

from skill_lsp.catalogue import RULES

from .helpers import REPO, codes, one, run_cli, skill_md, span_of, where, write_files

# One error (SK108), one warning (SK111), one information (SK113).
MIXED = {
    ".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-reqest"),
    ".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare", extra="licence: MIT"),
    ".agentdeck/skills/confirm/SKILL.md": "---\nname: confirm\ndescription: |\n  Read it back.\n  Then ask.\n---\n\nAsk.\n",
}
WARNING_ONLY = {".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare", extra="licence: MIT")}
CLEAN = {".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare")}

TEXT_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]{2}\d{3}) \[(?P<severity>\w+)\] (?P<message>.+)$")


# -- text -----------------------------------------------------------------------------------------------


def test_text_format_lines_and_summary(project):
    project.write(MIXED)
    result = project.run("check")
    assert result.status == 1
    *lines, summary, fixable = result.out.rstrip("\n").split("\n")
    assert fixable == "2 fixable with `skill-lsp check --fix`."  # the name of SK108, the key of SK111
    parsed = [TEXT_LINE.match(line) for line in lines]
    assert all(parsed), lines
    assert [(m["path"], m["line"], m["column"], m["code"], m["severity"]) for m in parsed if m] == [
        (".agentdeck/skills/confirm/SKILL.md", "3", "14", "SK113", "information"),
        (".agentdeck/skills/parse-request/SKILL.md", "2", "7", "SK108", "error"),
        (".agentdeck/skills/quote-fare/SKILL.md", "4", "1", "SK111", "warning"),
    ]
    assert lines[1] == (
        ".agentdeck/skills/parse-request/SKILL.md:2:7: SK108 [error] name 'parse-reqest' differs from the directory "
        "name 'parse-request'; AgentDeck fails Deck.build() naming the bundle"
    )
    assert summary == "Found 1 error, 1 warning, 1 info in 3 files (3 skills, 0 agent definitions)."


def test_text_format_clean_project(project):
    project.write(CLEAN)
    result = project.run("check")
    assert result.status == 0
    assert result.out == "All checks passed (1 skill, 0 agent definitions).\n"


def test_text_format_quiet_has_no_summary(project):
    project.write(WARNING_ONLY)
    result = project.run("check", "--quiet")
    assert len(result.out.strip().split("\n")) == 1
    assert TEXT_LINE.match(result.out.strip())


def test_text_paths_are_relative_to_the_current_directory(project):
    project.write(WARNING_ONLY)
    result = project.run("check", "proj", cwd=project.root.parent)
    assert result.out.startswith("proj/.agentdeck/skills/quote-fare/SKILL.md:4:1: SK111 [warning] ")


# -- json ----------------------------------------------------------------------------------------------------


def test_json_format(project):
    project.write(MIXED)
    result = project.run("check", "--format", "json")
    assert result.status == 1
    findings = result.findings
    assert len(findings) == 3
    for finding in findings:
        assert {"path", "line", "column", "end_line", "end_column", "code", "name", "severity", "message"} <= set(finding)
    finding = one(findings, "SK108")
    assert finding["path"] == ".agentdeck/skills/parse-request/SKILL.md"
    assert where(finding) == (2, 7, 2, 19)
    assert finding["name"] == "name-directory-mismatch"
    assert finding["severity"] == "error"


def test_json_path_relative_to_cwd_and_absolute_outside_it(project, tmp_path):
    project.write(WARNING_ONLY)
    findings = project.run("check", "--format", "json", "proj", cwd=project.root.parent).findings
    assert [f["path"] for f in findings] == ["proj/.agentdeck/skills/quote-fare/SKILL.md"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    findings = project.run("check", "--format", "json", str(project.root), cwd=elsewhere).findings
    assert [f["path"] for f in findings] == [str(project.path(".agentdeck/skills/quote-fare/SKILL.md"))]


def test_json_clean_project_is_an_empty_array(project):
    project.write(CLEAN)
    result = project.run("check", "--format", "json")
    assert (result.status, json.loads(result.out)) == (0, [])


def test_check_a_single_file_reports_that_file_only(project):
    project.write(MIXED)
    findings = project.run("check", "--format", "json", ".agentdeck/skills/quote-fare/SKILL.md").findings
    assert codes(findings) == ["SK111"]


# -- github --------------------------------------------------------------------------------------------------------


def test_github_format(project):
    project.write(MIXED)
    result = project.run("check", "--format", "github")
    assert result.status == 1
    lines = result.out.rstrip("\n").split("\n")
    assert lines == [
        "::notice file=.agentdeck/skills/confirm/SKILL.md,line=3,col=14,endLine=6,endColumn=1,"
        "title=SK113 multiline-description::SK113 the description spans several lines; AgentDeck lists one "
        "'- name: description' line per skill, so the second line reads as something else — use a folded scalar "
        "('>') or a single line",
        "::error file=.agentdeck/skills/parse-request/SKILL.md,line=2,col=7,endLine=2,endColumn=19,"
        "title=SK108 name-directory-mismatch::SK108 name 'parse-reqest' differs from the directory name "
        "'parse-request'; AgentDeck fails Deck.build() naming the bundle",
        "::warning file=.agentdeck/skills/quote-fare/SKILL.md,line=4,col=1,endLine=4,endColumn=8,"
        "title=SK111 unknown-field::SK111 'licence' is not a field AgentDeck reads; did you mean 'license'?",
    ]


# -- sarif -----------------------------------------------------------------------------------------------------------


def test_sarif_format(project):
    project.write(MIXED)
    result = project.run("check", "--format", "sarif")
    assert result.status == 1
    document = json.loads(result.out)
    assert document["version"] == "2.1.0"
    assert "sarif" in document["$schema"]
    run = document["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "skill-lsp"
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in RULES]
    for rule in driver["rules"]:
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert "Example" in rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert set(by_rule) == {"SK108", "SK111", "SK113"}
    result_108 = by_rule["SK108"]
    assert result_108["level"] == "error"
    assert driver["rules"][result_108["ruleIndex"]]["id"] == "SK108"
    location = result_108["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == ".agentdeck/skills/parse-request/SKILL.md"
    assert location["region"] == {"startLine": 2, "startColumn": 7, "endLine": 2, "endColumn": 19}
    assert by_rule["SK111"]["level"] == "warning"
    assert by_rule["SK113"]["level"] == "note"


def test_sarif_clean_project_still_lists_the_rules(project):
    project.write(CLEAN)
    result = project.run("check", "--format", "sarif")
    document = json.loads(result.out)
    assert (result.status, document["runs"][0]["results"]) == (0, [])
    assert len(document["runs"][0]["tool"]["driver"]["rules"]) == len(RULES)


# -- exit codes -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "args", "status"),
    [
        (CLEAN, (), 0),
        (MIXED, (), 1),
        (WARNING_ONLY, (), 0),
        (WARNING_ONLY, ("--strict",), 1),
        (CLEAN, ("--strict",), 0),
        (MIXED, ("--ignore", "SK108"), 0),
        (MIXED, ("--ignore", "SK108", "--strict"), 1),
    ],
)
def test_exit_status(project, files, args, status):
    project.write(files)
    assert project.run("check", *args).status == status


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("check", "--bogus"), "unrecognized arguments"),
        (("check", "no/such/dir"), "no such file or directory"),
        (("check", "--select", "XX9"), "unknown rule 'XX9'"),
        (("check", "--ignore", "SK1,nope"), "unknown rule 'nope'"),
        (("check", "--format", "xml"), "invalid choice"),
        (("rules", "SK999"), "unknown rule 'SK999'"),
        (("disclosure", "missing.py"), "no such file"),
    ],
)
def test_usage_errors_exit_2(project, args, words):
    project.write(CLEAN)
    result = project.run(*args)
    assert result.status == 2
    assert words in result.err


def test_exit_codes_through_a_real_subprocess(project):
    project.write(WARNING_ONLY)
    assert run_cli("check", cwd=project.root).returncode == 0
    assert run_cli("check", "--strict", cwd=project.root).returncode == 1
    usage = run_cli("check", "--select", "XX9", cwd=project.root)
    assert usage.returncode == 2
    assert "unknown rule 'XX9'" in usage.stderr
    project.write(MIXED)
    result = run_cli("check", "--format", "json", cwd=project.root)
    assert result.returncode == 1
    assert sorted(codes(json.loads(result.stdout))) == ["SK108", "SK111", "SK113"]


def test_unknown_option_through_a_real_subprocess(project):
    result = run_cli("check", "--bogus", cwd=project.root)
    assert result.returncode == 2
    assert "usage:" in result.stderr


@pytest.mark.parametrize(
    ("args", "usage", "meant"),
    [
        (("check", "--frmat", "json", "."), "usage: skill-lsp check ", "; did you mean --format?"),
        (("check", "--formt=json", "."), "usage: skill-lsp check ", "; did you mean --format?"),
        (("check", "--user-skill-dir", "x"), "usage: skill-lsp check ", "; did you mean --user-skills-dir?"),
        (("rules", "--frmat", "json"), "usage: skill-lsp rules ", "; did you mean --format?"),
        (("disclosure", "--nope", "agent.py"), "usage: skill-lsp disclosure ", ""),
    ],
)
def test_an_unknown_option_of_a_command_gives_that_commands_usage(project, args, usage, meant):
    project.write(CLEAN)
    result = run_cli(*args, cwd=project.root)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(usage), result.stderr
    assert result.stderr.endswith(f"skill-lsp {args[0]}: error: unrecognized arguments: {args[1]}{meant}\n"), result.stderr


def test_python_dash_m_and_version(project):
    project.write(CLEAN)
    result = run_cli("check", cwd=project.root)
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 skill, 0 agent definitions).\n")
    version = run_cli("--version", cwd=project.root)
    assert version.returncode == 0
    assert version.stdout.startswith("skill-lsp ")


# -- disclosure -----------------------------------------------------------------------------------------------------------

SEED_SKILL = '''---
name: parse-request
description: Extract pickup, dropoff, and date from a free-text booking request.
---

Split the request on "->". The part before is the pickup city, the part after is the dropoff
city. If a date appears, use it; otherwise ask the user for one.
'''
SEED_AGENT = '''# .agentdeck/agents/booking/agent.py
from agentdeck import Agent, Deck

booking = Agent(name="Booking", instructions="Help the user book a ride.", skills=["parse-request"])

deck = Deck.from_project(agents=[booking])
'''
SEED_BLOCK = """Help the user book a ride.

### Skills available
Each entry below is a name and a description. Call `load_skill(name)` to read the
full instructions before following one.
- parse-request: Extract pickup, dropoff, and date from a free-text booking request.
"""
BOOKING = {
    ".agentdeck/skills/parse-request/SKILL.md": SEED_SKILL,
    ".agentdeck/agents/booking/agent.py": SEED_AGENT,
}


@pytest.mark.parametrize("target", [
    ".agentdeck/agents/booking/agent.py:booking",
    ".agentdeck/agents/booking/agent.py:Booking",
    ".agentdeck/agents/booking/agent.py",
])
def test_disclosure_prints_the_seed_block_exactly(project, target):
    project.write(BOOKING)
    result = project.run("disclosure", target)
    assert (result.status, result.out, result.err) == (0, SEED_BLOCK, "")


def test_disclosure_from_the_agent_directory(project):
    project.write(BOOKING)
    result = project.run("disclosure", "agent.py:booking", cwd=project.path(".agentdeck/agents/booking"))
    assert (result.status, result.out) == (0, SEED_BLOCK)


def test_check_a_file_from_inside_the_project(project):
    # the project's skill roots are above the current directory: still found
    project.write({**BOOKING, ".agentdeck/agents/booking/agent.py": SEED_AGENT.replace('"parse-request"', '"parse-reqest"')})
    result = project.run("check", "--format", "json", "agent.py", cwd=project.path(".agentdeck/agents/booking"))
    finding = one(result.findings, "AD101")
    assert finding["path"] == "agent.py"
    assert "did you mean 'parse-request'" in finding["message"]


def test_check_a_file_never_indexes_the_home_directory(project, tmp_path, monkeypatch):
    # a dotfiles repository at ~ does not make the home directory the project
    home = tmp_path / "home"
    write_files(home, {".git/HEAD": "ref: refs/heads/main\n", ".agentdeck/skills/parse-request/SKILL.md": SEED_SKILL})
    monkeypatch.setenv("HOME", str(home))
    agent = home / "code" / "desk" / "agent.py"
    write_files(agent.parent, {"agent.py": SEED_AGENT})
    result = project.run("check", "--format", "json", "agent.py", cwd=agent.parent)
    assert codes(result.findings) == ["AD101"]


def test_disclosure_of_an_agent_in_no_deck(project):
    # the seed's first snippet: the agent alone, checked against the project default root
    project.write({**BOOKING, ".agentdeck/agents/booking/agent.py": SEED_AGENT.split("\ndeck =")[0] + "\n"})
    assert project.run("disclosure", ".agentdeck/agents/booking/agent.py:booking").out == SEED_BLOCK


def test_disclosure_keeps_the_skills_order_and_never_the_body(project):
    project.write({
        **BOOKING,
        ".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare", "Quote a fare for a ride.", body="SECRET BODY\n"),
        ".agentdeck/agents/booking/agent.py": SEED_AGENT.replace('["parse-request"]', '["quote-fare", "parse-request"]'),
    })
    out = project.run("disclosure", ".agentdeck/agents/booking/agent.py:booking").out
    assert out.endswith(
        "- quote-fare: Quote a fare for a ride.\n"
        "- parse-request: Extract pickup, dropoff, and date from a free-text booking request.\n"
    )
    assert "SECRET BODY" not in out


def test_disclosure_unknown_agent(project):
    project.write(BOOKING)
    result = project.run("disclosure", ".agentdeck/agents/booking/agent.py:nobody")
    assert result.status == 2
    assert "booking" in result.err


def test_disclosure_of_claude_options_is_the_available_skills_xml(project):
    project.write({
        ".claude/skills/refund-policy/SKILL.md": skill_md(
            "refund-policy", "The shop's refund rules. Use when a customer asks what can be refunded & why."),
        ".claude/skills/order-status/SKILL.md": skill_md("Order status", "Look up <where> an order is."),
        "desk.py": '''
from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(skills=["refund-policy", "order-status"])
''',
    })
    result = project.run("disclosure", "desk.py:options")
    refund = project.path(".claude/skills/refund-policy/SKILL.md")
    order = project.path(".claude/skills/order-status/SKILL.md")
    assert result.status == 0
    assert result.out == (
        "<available_skills>\n"
        "<skill>\n<name>\nrefund-policy\n</name>\n<description>\n"
        "The shop&#x27;s refund rules. Use when a customer asks what can be refunded &amp; why.\n"
        f"</description>\n<location>\n{refund}\n</location>\n</skill>\n"
        "<skill>\n<name>\norder-status\n</name>\n<description>\n"
        "Look up &lt;where&gt; an order is.\n"
        f"</description>\n<location>\n{order}\n</location>\n</skill>\n"
        "</available_skills>\n"
    )


def test_disclosure_of_claude_options_leaves_out_unknown_names(project):
    project.write({
        ".claude/skills/refund-policy/SKILL.md": skill_md("refund-policy", "Refund rules."),
        "desk.py": 'from claude_agent_sdk import ClaudeAgentOptions\noptions = ClaudeAgentOptions(skills=["refund-polcy"])\n',
    })
    result = project.run("disclosure", "desk.py")
    assert result.out == "<available_skills>\n</available_skills>\n"
    assert "refund-polcy" in result.err


# -- rules ---------------------------------------------------------------------------------------------------------------


def test_rules_lists_every_rule(project):
    result = project.run("rules")
    assert result.status == 0
    lines = result.out.rstrip("\n").split("\n")
    assert [line.split()[0] for line in lines] == [rule.code for rule in RULES]
    assert [line.split()[1] for line in lines] == [rule.name for rule in RULES]
    assert "(off by default)" in next(line for line in lines if line.startswith("SK303"))


@pytest.mark.parametrize("query", ["SK108", "sk108", "name-directory-mismatch"])
def test_rules_code_prints_the_documentation(project, query):
    result = project.run("rules", query)
    assert result.status == 0
    rule = next(rule for rule in RULES if rule.code == "SK108")
    assert result.out.startswith("SK108 name-directory-mismatch [E; I (claude)]\n")
    assert rule.why in result.out
    assert "Example:" in result.out


def test_rules_code_marks_off_by_default(project):
    assert project.run("rules", "AD105").out.split("\n")[0].endswith("(off by default)")


# -- the bundled examples ----------------------------------------------------------------------------------------------------

EXAMPLE_MISTAKES = {
    ("booking/.agentdeck/agents/booking/agent.py", 7, "AD101"),
    ("booking/.agentdeck/agents/support/agent.py", 7, "AD104"),
    # AgentDeck's registry is keyed by the frontmatter name, and confirm-booking/ calls itself confirm_booking
    ("booking/.agentdeck/agents/support/agent.py", 7, "AD101"),
    ("booking/.agentdeck/skills/check-availability/SKILL.md", 10, "SK202"),
    ("booking/.agentdeck/skills/confirm-booking/SKILL.md", 2, "SK108"),
    ("booking/.agentdeck/skills/confirm-booking/SKILL.md", 2, "SK109"),
    ("booking/.agentdeck/skills/quote-fare/SKILL.md", 3, "SK103"),
    ("shop/.claude/skills/order-status/SKILL.md", 2, "SK108"),
    ("shop/.claude/skills/shipping-times/SKILL.md", 1, "SK106"),
    ("shop/.claude/skills/shipping-times/SKILL.md", 6, "SK202"),
    ("shop/.claude/agents/returns-clerk.md", 8, "CL103"),
    ("shop/desk.ts", 7, "CL103"),
    ("shop/shop_desk.py", 11, "CL101"),
    ("shop/shop_desk.py", 15, "CL103"),
}


@pytest.fixture
def examples():
    path = REPO / "examples"
    if not path.is_dir():
        pytest.skip("examples/ is not in this checkout")
    return path


def test_examples_report_exactly_the_deliberate_mistakes(project, examples):
    result = project.run("check", "--format", "json", cwd=examples)
    assert result.status == 1
    assert {(f["path"], f["line"], f["code"]) for f in result.findings} == EXAMPLE_MISTAKES
    assert len(result.findings) == len(EXAMPLE_MISTAKES)


def test_examples_from_the_repository_root(project, examples):
    result = project.run("check", "--format", "json", "examples/", cwd=REPO)
    assert {(f["path"].removeprefix("examples/"), f["line"], f["code"]) for f in result.findings} == EXAMPLE_MISTAKES


def test_examples_through_the_console_entry_point(examples):
    result = run_cli("check", "examples", "--format", "json", cwd=REPO)
    assert result.returncode == 1, result.stderr
    assert len(json.loads(result.stdout)) == len(EXAMPLE_MISTAKES)


def test_examples_disclosure(project, examples):
    result = project.run("disclosure", "booking/.agentdeck/agents/support/agent.py:support", cwd=examples)
    assert result.out == (
        "Answer questions about existing bookings.\n\n"
        "### Skills available\n"
        "Each entry below is a name and a description. Call `load_skill(name)` to read the\n"
        "full instructions before following one.\n"
        "- parse-request: Extract pickup, dropoff, and date from a free-text booking request.\n"
    )
    # the misnamed skill is not in the name-keyed registry: left out, and said so
    assert "'confirm-booking'" in result.err


def test_examples_disclosure_of_a_typescript_agent_and_a_subagent_file(project, examples):
    listing = project.run("disclosure", "shop/desk.ts", cwd=examples)
    assert listing.status == 0
    assert listing.out.startswith("==> query() options at line 13 <==\n<available_skills>\n")
    assert "==> AgentDefinition tracker <==\n" in listing.out
    assert "'order-staus' is not a discovered skill and is not preloaded" in listing.err
    clerk = project.run("disclosure", "shop/.claude/agents/returns-clerk.md", cwd=examples)
    policy = examples / "shop/.claude/skills/refund-policy"
    assert clerk.out == (f"Base directory for this skill: {policy}\n\n\n"
                         "Say exactly: Refunds run for 14 days from delivery, minus return postage.\n\n")
    assert "'shiping-times' is not a discovered skill and is not preloaded" in clerk.err


def test_span_helper_agrees_with_a_cli_column(project):
    # a sanity check of the helper the other tests lean on
    source = 'from agentdeck import Agent\nbooking = Agent(name="B", skills=["nope"])\n'
    project.write({"agent.py": source})
    assert where(one(project.check(), "AD101")) == span_of(source, '"nope"') == (2, 35, 2, 41)


def test_disclosure_leaves_out_a_skill_agentdeck_cannot_load(project):
    # one model, one answer: SK103 says AgentDeck drops quote-fare, so the block has no '- quote-fare: ' entry
    project.write({
        **BOOKING,
        ".agentdeck/skills/quote-fare/SKILL.md": "---\nname: quote-fare\ndescription: Quote a fare: city to city\n---\n\nQuote it.\n",
        ".agentdeck/agents/booking/agent.py": SEED_AGENT.replace('["parse-request"]', '["quote-fare", "parse-request"]'),
    })
    result = project.run("disclosure", ".agentdeck/agents/booking/agent.py:booking")
    assert "quote-fare" not in result.out
    assert result.out.endswith("- parse-request: Extract pickup, dropoff, and date from a free-text booking request.\n")
    assert result.err == ("skill-lsp: 'quote-fare' is left out: AgentDeck cannot load it (its frontmatter is invalid "
                          "YAML at line 3), so build() would fail\n")
    finding = one(project.check(), "SK103")
    assert finding["severity"] == "error" and "AgentDeck fails Deck.build()" in finding["message"]
