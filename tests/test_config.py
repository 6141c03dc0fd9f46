"""`[tool.skill-lsp]` in pyproject.toml, CLI --select/--ignore, inline suppressions, and CF001."""

from __future__ import annotations

import pytest

from .helpers import codes, one, skill_md, span_of, where

# Three findings of three families: SK108 (error), SK111 (warning), AD101 (error).
NOISY = {
    ".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-reqest", extra="licence: MIT"),
    "agent.py": '''
from agentdeck import Agent

booking = Agent(name="Booking", instructions="Help.", skills=["quote-fare"])
''',
}


def with_config(table: str) -> dict[str, str]:
    return {**NOISY, "pyproject.toml": '[project]\nname = "demo"\n\n' + table}


def test_baseline(check_project):
    assert sorted(codes(check_project(NOISY))) == ["AD101", "SK108", "SK111"]


# -- select / ignore -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('[tool.skill-lsp]\nselect = ["SK1"]\n', ["SK108", "SK111"]),
        ('[tool.skill-lsp]\nselect = ["AD101", "SK111"]\n', ["AD101", "SK111"]),
        ('[tool.skill-lsp]\nignore = ["SK111"]\n', ["AD101", "SK108"]),
        ('[tool.skill-lsp]\nignore = ["AD"]\n', ["SK108", "SK111"]),
        ('[tool.skill-lsp]\nignore = ["unknown-field"]\n', ["AD101", "SK108"]),
        # selecting a prefix selects the rules under it that are off by default too (SK303)
        ('[tool.skill-lsp]\nselect = ["SK"]\nignore = ["SK108"]\n', ["SK111", "SK303"]),
    ],
)
def test_select_and_ignore_in_pyproject(check_project, table, expected):
    assert sorted(codes(check_project(with_config(table)))) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--select", "SK1"), ["SK108", "SK111"]),
        (("--select", "SK108,AD101"), ["AD101", "SK108"]),
        (("--ignore", "SK111"), ["AD101", "SK108"]),
        (("--ignore", "SK1,AD"), []),
        (("--select", "ALL", "--ignore", "AD101"), ["SK108", "SK111", "SK303"]),
    ],
)
def test_select_and_ignore_on_the_command_line(check_project, args, expected):
    assert sorted(codes(check_project(NOISY, *args))) == expected


def test_command_line_select_overrides_pyproject_select(check_project):
    files = with_config('[tool.skill-lsp]\nselect = ["SK1"]\n')
    assert codes(check_project(files, "--select", "AD")) == ["AD101"]


# -- per-code severity ---------------------------------------------------------------------------


def test_per_code_severity_table(check_project):
    findings = check_project(with_config('[tool.skill-lsp.severity]\nSK108 = "warning"\nAD101 = "hint"\nSK111 = "off"\n'))
    assert sorted((f["code"], f["severity"]) for f in findings) == [("AD101", "hint"), ("SK108", "warning")]


def test_per_code_severity_inline_table(check_project):
    findings = check_project(with_config('[tool.skill-lsp]\nseverity = { SK111 = "error" }\n'))
    assert one(findings, "SK111")["severity"] == "error"


def test_severity_makes_warnings_fail_the_run(project):
    project.write(with_config('[tool.skill-lsp]\nignore = ["SK108", "AD101"]\nseverity = { SK111 = "error" }\n'))
    assert project.run("check").status == 1
    project.write(with_config('[tool.skill-lsp]\nignore = ["SK108", "AD101"]\n'))
    assert project.run("check").status == 0


def test_nearest_pyproject_applies(check_project):
    findings = check_project({
        "a/.agentdeck/skills/demo/SKILL.md": skill_md("demo", extra="licence: MIT"),
        "a/pyproject.toml": '[tool.skill-lsp]\nignore = ["SK111"]\n',
        "b/.agentdeck/skills/demo/SKILL.md": skill_md("demo", extra="licence: MIT"),
    })
    assert [(f["path"], f["code"]) for f in findings] == [("b/.agentdeck/skills/demo/SKILL.md", "SK111")]


# -- inline suppression in Python ------------------------------------------------------------------


def test_inline_ignore_on_a_python_line(check_project):
    source = '''
from agentdeck import Agent

booking = Agent(name="Booking", instructions="Help.", skills=["quote-fare"])  # skill-lsp: ignore[AD101]
'''
    assert check_project({"agent.py": source}) == []


def test_inline_ignore_on_the_line_of_the_entry(check_project):
    source = '''
from agentdeck import Agent

booking = Agent(
    name="Booking",
    instructions="Help.",
    skills=[
        "quote-fare",  # skill-lsp: ignore[AD101]
        "parse-request",
    ],
)
'''
    findings = check_project({"agent.py": source})
    assert [where(f) for f in findings] == [span_of(source, '"parse-request"')]


def test_inline_ignore_of_another_code_keeps_the_finding(check_project):
    source = '''
from agentdeck import Agent

booking = Agent(name="Booking", instructions="Help.", skills=["quote-fare"])  # skill-lsp: ignore[AD104]
'''
    assert codes(check_project({"agent.py": source})) == ["AD101"]


def test_bare_inline_ignore_suppresses_every_code_on_the_line(check_project):
    source = '''
from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(skills=["*", "shop:*"])  # skill-lsp: ignore
'''
    assert check_project({"desk.py": source}) == []


# -- CF001 invalid-config: reported on the key, never a crash ------------------------------------------


@pytest.mark.parametrize(
    ("table", "needle", "words"),
    [
        ('[tool.skill-lsp]\nselect = "SK1"\n', 'select = "SK1"', "must be a list"),
        ('[tool.skill-lsp]\nignore = ["SK1", "XX9"]\n', 'ignore = ["SK1", "XX9"]', "XX9"),
        ('[tool.skill-lsp]\nselct = ["SK1"]\n', 'selct = ["SK1"]', "unknown setting 'selct'"),
        ('[tool.skill-lsp]\nexclude = "build"\n', 'exclude = "build"', "glob patterns"),
        ('[tool.skill-lsp]\nroots = [{ path = "prompts", profile = "vscode" }]\n', "roots = ", "agentdeck, claude or spec"),
        ('[tool.skill-lsp]\nuser-skills-dir = 3\n', "user-skills-dir = 3", "path string"),
        ('[tool.skill-lsp]\nuser-agents-dir = ["a"]\n', 'user-agents-dir = ["a"]', "path string"),
        ('[tool.skill-lsp.severity]\nSK108 = "warning"\nSK999 = "error"\n', 'SK999 = "error"', "SK999"),
        ('[tool.skill-lsp.severity]\nSK108 = "loud"\n', 'SK108 = "loud"', "error, warning, information, hint or off"),
    ],
)
def test_cf001_bad_value_at_the_key(check_project, table, needle, words):
    files = with_config(table)
    findings = check_project(files, "--select", "CF")
    finding = one(findings, "CF001")
    assert finding["path"] == "pyproject.toml"
    line, column, _, _ = span_of(files["pyproject.toml"], needle)
    assert (finding["line"], finding["column"]) == (line, column)
    assert finding["severity"] == "error"
    assert words in finding["message"]


def test_cf001_in_an_inline_severity_table_points_at_the_entry(check_project):
    files = with_config('[tool.skill-lsp]\nseverity = { SK108 = "warning", SK999 = "error" }\n')
    finding = one(check_project(files, "--select", "CF"), "CF001")
    assert (finding["line"], finding["column"]) == span_of(files["pyproject.toml"], "SK999")[:2]


def test_cf001_keeps_the_rest_of_the_configuration(check_project):
    # the bad key is dropped; the good ones still apply
    findings = check_project(with_config('[tool.skill-lsp]\nselect = "SK1"\nignore = ["SK111", "AD101"]\n'))
    assert sorted(codes(findings)) == ["CF001", "SK108"]


def test_cf001_invalid_toml_is_a_finding_not_a_crash(project):
    project.write({**NOISY, "pyproject.toml": "[tool.skill-lsp]\nselect = [\n"})
    result = project.run("check", "--format", "json")
    assert result.status == 1
    finding = one(result.findings, "CF001")
    assert finding["path"] == "pyproject.toml"
    assert "not valid TOML" in finding["message"]


def test_pyproject_without_our_table_is_ignored(check_project):
    files = {**NOISY, "pyproject.toml": '[project]\nname = "demo"\n\n[tool.ruff]\nline-length = 100\n'}
    assert sorted(codes(check_project(files))) == ["AD101", "SK108", "SK111"]
