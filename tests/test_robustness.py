"""Hostile or broken input is reported, never a crash, and nothing in it is ever executed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import codes, one, skill_md, span_of, where


def test_empty_skill_file(check_skill):
    assert codes(check_skill("")) == ["SK101"]


def test_frontmatter_delimiter_only(check_skill):
    assert codes(check_skill("---\n")) == ["SK102"]


def test_binary_skill_file(project):
    project.path(".agentdeck/skills/blob").mkdir(parents=True)
    project.path(".agentdeck/skills/blob/SKILL.md").write_bytes(bytes(range(256)) * 4)
    result = project.run("check", "--format", "json")
    assert result.status == 1
    assert codes(result.findings) == ["SK101", "SK116"]  # no frontmatter, and byte 0x80 is not UTF-8


def test_unsafe_yaml_tag_is_an_error_and_never_runs(check_skill, project):
    marker = project.root / "pwned"
    text = skill_md(description=f"!!python/object/apply:os.system ['touch {marker}']")
    finding = one(check_skill(text), "SK103")
    assert (finding["line"], finding["column"]) == (3, 14)
    assert not marker.exists()


def test_yaml_alias_bomb_is_refused(check_skill):
    lines = ["---", "name: demo", "description: Do it.", 'a: &a ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, 10):
        this, previous = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{this}: &{this} [" + ",".join([f"*{previous}"] * 9) + "]")
    findings = check_skill("\n".join([*lines, "---", "", "Body.", ""]))
    assert any(f["code"] == "SK103" and "aliases" in f["message"] for f in findings)


def test_skill_md_that_is_a_directory_is_ignored(project):
    project.path(".agentdeck/skills/odd/SKILL.md").mkdir(parents=True)
    assert project.check() == []


def test_python_with_a_syntax_error_elsewhere(check_project):
    source = 'from agentdeck import Agent\n\nb = Agent(name="B", skills=["zilch"])\n\n\ndef broken(:\n    return\n'
    finding = one(check_project({"agent.py": source}), "AD101")
    assert where(finding) == span_of(source, '"zilch"')


def test_python_with_an_unclosed_call_is_not_a_crash(project):
    project.write({"agent.py": 'from agentdeck import Agent\n\na = Agent(name="A", skills=["nope"]\n'})
    assert project.run("check").status in (0, 1)


def test_python_with_invalid_utf8(project):
    project.path("agent.py").write_bytes(b'from agentdeck import Agent\nx = "\xff\xfe"\na = Agent(skills=["nope"])\n')
    finding = one(project.check(), "AD101")
    assert (finding["line"], finding["column"]) == (3, 19)


def test_agent_code_is_never_imported(check_project, project):
    marker = project.root / "imported"
    source = f'''
from pathlib import Path
from agentdeck import Agent, Deck

Path("{marker}").touch()
booking = Agent(name="Booking", skills=["nope"])
deck = Deck(agents=[booking], skills=Path("{marker}").parent / "skills")
'''
    assert "AD101" in codes(check_project({"agent.py": source}))
    assert not marker.exists()


@pytest.mark.parametrize("text", ["---\nname: demo\ndescription: Do it.\n---\n" + "x" * 200_000 + "\n"])
def test_very_long_line(check_skill, text):
    assert check_skill(text) == []


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from(['"', "'", "a", "é", " ", "\n", "\\", "#"]), min_size=2, max_size=9))
def test_a_plain_python_literal_is_read_as_python_reads_it(literal):
    """The shortcut for quoted literals without prefix or escapes gives what ast.literal_eval gives,
    and the width of the quotes around it."""
    import ast

    from skill_lsp.pyliterals import plain_literal_width

    plain = plain_literal_width(literal)
    if plain is None:
        return
    inner, width = plain
    assert ast.literal_eval(literal) == inner
    assert literal == literal[0] * width + inner + literal[0] * width
