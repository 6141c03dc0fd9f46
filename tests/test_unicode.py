"""Non-ASCII text before a finding on the same line: columns count Unicode code points (an emoji is one)."""

from __future__ import annotations

import pytest

from .helpers import codes, one, skill_md, span_of, where


def test_yaml_error_after_accents_and_an_emoji(check_skill):
    text = '---\nname: demo\ndescription: "Réservez 🚗 un trajet" vite\n---\n\nBody.\n'
    finding = one(check_skill(text), "SK103")
    # 13 + 22 code points precede 'vite' ("Réservez 🚗 un trajet" with its quotes)
    assert (finding["line"], finding["column"]) == (3, 37) == span_of(text, "vite")[:2]


@pytest.mark.parametrize("description", ["Réservez un trajet: vite", "予約する: 早く", "🚗 Book a ride: fast 🚕"])
def test_unquoted_colon_value_span_in_code_points(check_skill, description):
    text = skill_md(description=description)
    finding = one(check_skill(text), "SK103")
    # from the parser's mark (the ': ' inside the value) to the end of the value, in code points
    colon = description.index(": ")
    assert where(finding) == span_of(text, description[colon:])
    assert finding["end_column"] == 14 + len(description)


def test_body_link_after_an_emoji_and_guillemets(check_skill):
    body = "🚗 Réservez: lisez «le guide» [guide](references/guide.md).\n"
    text = skill_md(body=body)
    finding = one(check_skill(text), "SK202")
    assert where(finding) == span_of(text, "references/guide.md") == (6, 38, 6, 57)


def test_machine_path_after_cjk(check_skill):
    text = skill_md(body="日本語のメモは /Users/alice/notes.md にあります。\n")
    finding = one(check_skill(text), "SK204")
    assert where(finding) == span_of(text, "/Users/alice/notes.md") == (6, 9, 6, 30)


def test_angle_brackets_in_a_cjk_description(check_skill):
    text = skill_md(description="予約 <booking> リクエスト")
    finding = one(check_skill(text, profile="collection"), "SK114")  # an upload's check: collections only
    assert where(finding) == span_of(text, "予約 <booking> リクエスト")


def test_description_length_counts_code_points(check_skill):
    # 1,024 emoji are 1,024 characters (4,096 bytes in UTF-8): within the limit
    assert check_skill(skill_md(description="🚗" * 1024)) == []
    finding = one(check_skill(skill_md(description="🚗" * 1025)), "SK110")
    assert "1025" in finding["message"]
    assert where(finding) == (3, 14, 3, 14 + 1025)


def test_unicode_skill_names(check_skill):
    # skills-ref 0.1.1: NFKC, then lowercase isalnum() characters and '-'
    assert check_skill(skill_md("données-client"), directory="données-client", profile="collection") == []
    finding = one(check_skill(skill_md("Données"), directory="Données", profile="collection"), "SK109")
    assert "lowercase" in finding["message"]
    # Codex checks a name's length only, and VS Code's note alone is not reported where Codex reads it
    assert codes(check_skill(skill_md("Données"), directory="Données", profile="spec")) == []


def test_python_finding_after_cjk_on_the_same_line(check_project):
    source = 'from agentdeck import Agent\n\nx = "日本"; a = Agent(skills=["nope"])\n'
    finding = one(check_project({"agent.py": source}), "AD101")
    assert where(finding) == span_of(source, '"nope"') == (3, 29, 3, 35)


def test_python_finding_after_emoji(check_project):
    source = 'from agentdeck import Agent\n\nb = Agent(name="🚗🚗", instructions="Réservez", skills=["nope"])\n'
    finding = one(check_project({"agent.py": source}), "AD101")
    assert where(finding) == span_of(source, '"nope"')


def test_claude_finding_after_emoji(check_project):
    source = 'from claude_agent_sdk import ClaudeAgentOptions\n\no = ClaudeAgentOptions(system_prompt="🛒 Shop", skills=["shop:*"])\n'
    finding = one(check_project({"desk.py": source}), "CL101")
    assert where(finding) == span_of(source, '"shop:*"')


def test_non_ascii_skill_name_in_python(check_project):
    source = 'from agentdeck import Agent\n\na = Agent(name="Café", skills=["réserver", "résrver"])\n'
    findings = check_project({".agentdeck/skills/réserver/SKILL.md": skill_md("réserver"), "agent.py": source})
    finding = one(findings, "AD101")
    assert where(finding) == span_of(source, '"résrver"')
    assert "did you mean 'réserver'" in finding["message"]


def test_text_output_columns_match_json(project):
    project.write({"agent.py": 'from agentdeck import Agent\n\nx = "日本"; a = Agent(skills=["nope"])\n'})
    assert project.run("check").out.startswith("agent.py:3:29: AD101 [error] ")


# -- line endings and byte-order marks ----------------------------------------------------------------------------


def test_crlf_line_endings(check_skill):
    text = "---\r\nname: demo-x\r\ndescription: Réservez.\r\n---\r\n\r\nBody.\r\n"
    finding = one(check_skill(text), "SK108")
    assert where(finding) == (2, 7, 2, 13)


def test_byte_order_mark_before_the_frontmatter(check_skill):
    assert check_skill("\ufeff" + skill_md()) == []


def test_python_with_crlf(check_project):
    source = 'from agentdeck import Agent\r\n\r\nx = "日本"; a = Agent(skills=["nope"])\r\n'
    assert codes(check_project({"agent.py": source})) == ["AD101"]
    assert where(check_project({})[0]) == (3, 29, 3, 35)


def test_no_line_with_a_hidden_character_is_passed_over():
    """check_hidden asks the regular expression only about the lines _may_hide keeps: each hidden character,
    printable or not, keeps its line."""
    from skill_lsp.rules import hidden

    for first, last in hidden._HIDDEN_RANGES:
        for point in range(first, last + 1):
            line = f"caf\u00e9 {chr(point)} x"
            assert hidden._HIDDEN.search(line) and hidden._may_hide(line), hex(point)
    assert not hidden._may_hide("caf\u00e9 \u2014 na\u00efve \u4e2d\u6587 \U0001f600")
