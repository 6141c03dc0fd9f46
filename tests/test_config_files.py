"""A configuration file of its own (`skill-lsp.toml`, `.skill-lsp.toml`), its precedence over pyproject.toml, and
per-file ignores, through `check`."""

from __future__ import annotations

import pytest

from .helpers import codes, skill_md, where

# SK108 (error) in the project's skill, SK111 (warning) in a legacy skill, AD101 (error) in the agent.
FILES = {
    ".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-reqest"),
    "legacy/.agentdeck/skills/old/SKILL.md": skill_md("old", extra="licence: MIT"),
    "agent.py": 'from agentdeck import Agent\n\nbooking = Agent(name="Booking", instructions="Help.", skills=["quote-fare"])\n',
}


def found(findings: list[dict]) -> list[tuple[str, str]]:
    return sorted((finding["path"], finding["code"]) for finding in findings)


def test_without_configuration(check_project):
    assert found(check_project(FILES)) == [(".agentdeck/skills/parse-request/SKILL.md", "SK108"), ("agent.py", "AD101"),
                                           ("legacy/.agentdeck/skills/old/SKILL.md", "SK111")]


@pytest.mark.parametrize("name", ["skill-lsp.toml", ".skill-lsp.toml"])
def test_a_file_of_its_own_takes_the_keys_of_tool_skill_lsp(check_project, name):
    """A project without a pyproject.toml: the same keys, at the top of the file."""
    findings = check_project({**FILES, name: 'ignore = ["AD"]\n\n[severity]\nSK108 = "warning"\n'})
    assert sorted((f["code"], f["severity"]) for f in findings) == [("SK108", "warning"), ("SK111", "warning")]


def test_a_wrong_key_or_value_is_cf001_on_its_line(check_project):
    text = 'ignore = ["AD"]\nignor = ["SK111"]\nseverity = { SK108 = "loud" }\n'
    findings = check_project({**FILES, "skill-lsp.toml": text})
    problems = [(f["path"], where(f)[0], f["message"]) for f in findings if f["code"] == "CF001"]
    assert problems == [
        ("skill-lsp.toml", 2, "unknown setting 'ignor'; known: exclude, extend-select, ignore, max-files, per-file-ignores, "
                              "roots, select, severity, user-agents-dir, user-skills-dir"),
        ("skill-lsp.toml", 3, "severity of SK108 must be error, warning, information, hint or off; got 'loud'"),
    ]
    assert sorted(codes(findings)) == ["CF001", "CF001", "SK108", "SK111"]  # ignore = ["AD"] applies all the same


def test_the_pyproject_form_pasted_into_skill_lsp_toml_is_said_so(check_project):
    findings = check_project({**FILES, "skill-lsp.toml": '[tool.skill-lsp]\nignore = ["AD"]\n'})
    (problem,) = [f for f in findings if f["code"] == "CF001"]
    assert (problem["severity"], where(problem)[0]) == ("error", 1)
    assert "without the [tool.skill-lsp] header of pyproject.toml" in problem["message"]


def test_precedence_in_one_directory_and_the_files_not_read(check_project):
    files = {**FILES, "pyproject.toml": '[tool.skill-lsp]\nignore = ["SK1"]\n',
             "skill-lsp.toml": 'ignore = ["AD"]\nseverity = { SK999 = "error" }\n'}
    # skill-lsp.toml over pyproject.toml: AD ignored, SK1 not; the pyproject.toml says it is not read
    findings = check_project(files)
    assert found(findings) == [(".agentdeck/skills/parse-request/SKILL.md", "SK108"),
                               ("legacy/.agentdeck/skills/old/SKILL.md", "SK111"),
                               ("pyproject.toml", "CF001"), ("skill-lsp.toml", "CF001")]
    shadowed = next(f for f in findings if f["path"] == "pyproject.toml")
    assert shadowed["severity"] == "warning"
    assert shadowed["message"].startswith("not read: skill-lsp.toml in the same directory applies instead")
    # .skill-lsp.toml over both; the problems of a file not read are not told
    findings = check_project({**files, ".skill-lsp.toml": 'ignore = ["SK"]\n'})
    assert found(findings) == [("agent.py", "AD101"), ("pyproject.toml", "CF001"), ("skill-lsp.toml", "CF001")]
    assert all(f["message"].startswith("not read: .skill-lsp.toml") for f in findings if f["code"] == "CF001")


def test_the_nearest_directory_with_a_configuration_file_applies(check_project):
    findings = check_project({**FILES, "pyproject.toml": '[tool.skill-lsp]\nignore = ["SK108"]\n',
                              "legacy/skill-lsp.toml": 'ignore = ["SK111"]\n'})
    assert found(findings) == [("agent.py", "AD101")]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[tool.skill-lsp.per-file-ignores]\n"legacy/**" = ["SK1"]\n"agent.py" = ["AD101"]\n'),
        ("skill-lsp.toml", '[per-file-ignores]\n"legacy/**" = ["SK1"]\n"agent.py" = ["AD101"]\n'),
        ("skill-lsp.toml", 'per-file-ignores = { "legacy/*" = ["unknown-field"], "*.py" = ["AD"] }\n'),
    ],
)
def test_per_file_ignores(check_project, name, text):
    assert found(check_project({**FILES, name: text})) == [(".agentdeck/skills/parse-request/SKILL.md", "SK108")]


def test_per_file_ignores_by_file_name_anywhere_and_relative_to_the_file(check_project):
    """A glob without '/' matches the file name in any directory, as ruff's; one with '/' is relative to the
    directory of the configuration file that holds it."""
    assert found(check_project({**FILES, "skill-lsp.toml": 'per-file-ignores = { "SKILL.md" = ["SK"] }\n'})) == [
        ("agent.py", "AD101")]
    assert found(check_project({**FILES, "skill-lsp.toml": "",  # an empty file: the defaults
                                "legacy/skill-lsp.toml": 'per-file-ignores = { ".agentdeck/**" = ["SK111"] }\n'})) == [
        (".agentdeck/skills/parse-request/SKILL.md", "SK108"), ("agent.py", "AD101")]


def test_a_wrong_per_file_ignores_is_cf001(check_project):
    findings = check_project({**FILES, "skill-lsp.toml": 'per-file-ignores = { "legacy/**" = "SK111", "x" = ["SK9"] }\n'})
    messages = sorted(f["message"] for f in findings if f["code"] == "CF001")
    assert messages == ["'per-file-ignores.legacy/**' must be a list of rule codes such as [\"SK1\", \"AD101\"]; got 'SK111'",
                        "'per-file-ignores.x' names no known rule: SK9 (see `skill-lsp rules`)"]
    assert "SK111" in codes(findings)  # nothing ignored by a wrong entry


def test_the_command_line_adds_to_the_files_ignores(check_project):
    findings = check_project({**FILES, "skill-lsp.toml": 'per-file-ignores = { "legacy/**" = ["SK111"] }\n'}, "--ignore", "AD")
    assert found(findings) == [(".agentdeck/skills/parse-request/SKILL.md", "SK108")]


def test_the_documented_skill_lsp_toml_is_read_as_written(check_project):
    """docs/configuration.md's skill-lsp.toml, exactly as the page prints it."""
    from .docs import snippet

    legacy = "---\nname: Old\n---\n\nSee references/gone.md.\n"  # SK106, SK108 (SK1: ignored) and SK202 (an error)
    findings = check_project({**FILES, "skill-lsp.toml": snippet("skill-lsp-toml"),
                              "legacy/.agentdeck/skills/old/SKILL.md": legacy,
                              "examples/.claude/skills/demo/SKILL.md": "---\nname: demo\ndescription: A demo. Use for demos.\n---\n\n"
                                                        "See references/none.md.\n",
                              "fixtures/.agentdeck/skills/bad/SKILL.md": "---\nname: Bad\n---\n"})
    assert not [f for f in findings if f["code"] == "CF001"], findings
    assert sorted((f["path"], f["code"], f["severity"]) for f in findings) == [
        (".agentdeck/skills/parse-request/SKILL.md", "SK108", "error"), ("agent.py", "AD101", "error"),
        ("legacy/.agentdeck/skills/old/SKILL.md", "SK202", "error")]


def test_a_problem_is_on_its_own_line_past_a_per_file_ignores_table(check_project):
    text = '[tool.skill-lsp.per-file-ignores]\n"legacy/**" = ["SK1"]\n\n[tool.skill-lsp]\nignor = ["AD"]\n'
    (problem,) = [f for f in check_project({**FILES, "pyproject.toml": text}) if f["code"] == "CF001"]
    assert where(problem)[0] == 5
