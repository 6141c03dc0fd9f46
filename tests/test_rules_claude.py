"""CL101-CL104: `ClaudeAgentOptions(skills=...)`, reported in the Claude Agent SDK's own words."""

from __future__ import annotations

import ast

import pytest

from .helpers import codes, having, one, skill_md, span_of, where

SKILLS = {
    ".claude/skills/refund-policy/SKILL.md": skill_md(
        "refund-policy", "The shop's refund rules. Use when a customer asks what can be refunded."
    ),
    ".claude/skills/order-status/SKILL.md": skill_md("order-status", "Look up where an order is."),
}


def desk(skills: str, extra: str = "") -> str:
    return f'''
from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(skills={skills}{extra})
'''


# -- CL101 invalid-skill-name: one test per SDK rule ------------------------------------------------


def _invalid(name: object, reason: str) -> str:
    # the SDK formats the rejected name with repr()
    return f"Invalid skill name {name!r}: {reason}"


WILDCARD = "wildcard-suffix names are not allowed; list each skill by its exact name."
PADDED = "leading or trailing whitespace can never match — the Skill tool trims the invoked name."
CHARACTERS = ("parentheses, commas, control characters, and byte-order marks are not allowed. Names match the "
              "skill's directory name, or 'plugin:skill' for plugin-qualified skills.")
SLASH = "skill names may not start with '/'. The skills option takes the canonical name, not the slash-command form."
BACKSLASHES = ("consecutive backslashes are not allowed — the per-rule parser collapses them, so the rule would name a "
               "different skill.")
TRAILING_BACKSLASH = "names may not end with an unpaired backslash."
SURROGATE = "contains a surrogate code point, which can never match a skill the CLI discovered."

SDK_RULES = [
    # (Python literal in skills=[...], the SDK's message)
    ('"shop:*"', "Invalid skill name 'shop:*': wildcard-suffix names are not allowed; list each skill by its exact name."),
    ('"refund *"', _invalid("refund *", WILDCARD)),
    ('""', "Skill names must be non-empty strings"),
    ('"   "', "Skill names must be non-empty strings"),
    ('" refund-policy"', _invalid(" refund-policy", PADDED)),
    ('"refund-policy\\n"', _invalid("refund-policy\n", PADDED)),
    ('"refund(policy)"', _invalid("refund(policy)", CHARACTERS)),
    ('"refund,policy"', _invalid("refund,policy", CHARACTERS)),
    ('"refund\\tpolicy"', _invalid("refund\tpolicy", CHARACTERS)),
    ('"refund\\x7fpolicy"', _invalid("refund\x7fpolicy", CHARACTERS)),
    ('"refund\\x9fpolicy"', _invalid("refund\x9fpolicy", CHARACTERS)),
    ('"\\ufeffrefund-policy"', _invalid("\ufeffrefund-policy", CHARACTERS)),
    ('"refund\\ud800"', _invalid("refund\ud800", SURROGATE)),
    ('"/refund-policy"', _invalid("/refund-policy", SLASH)),
    ('"shop\\\\\\\\refund"', _invalid("shop\\\\refund", BACKSLASHES)),
    ('"refund\\\\"', _invalid("refund\\", TRAILING_BACKSLASH)),
    ("3", "Skill names must be strings, got int: 3"),
    ("None", "Skill names must be strings, got NoneType: None"),
    ("True", "Skill names must be strings, got bool: True"),
]


@pytest.mark.parametrize(("literal", "message"), SDK_RULES, ids=[literal for literal, _ in SDK_RULES])
def test_cl101_sdk_name_rules(check_project, literal, message):
    source = desk(f'["order-status", {literal}]')
    findings = check_project({**SKILLS, "desk.py": source})
    finding = one(findings, "CL101")
    assert where(finding) == span_of(source, literal)
    assert finding["severity"] == "error"
    assert finding["message"] == message
    assert codes(findings) == ["CL101"]


def test_cl101_the_literals_mean_what_the_table_says():
    # guard against escaping mistakes in SDK_RULES: the literal evaluates to the name in the message
    assert ast.literal_eval('"shop\\\\\\\\refund"') == "shop\\\\refund"
    assert ast.literal_eval('"refund\\\\"') == "refund\\"


@pytest.mark.parametrize("name", ["refund-policy", "shop:refund", "my skill", "résumé", "a:b:c"])
def test_cl101_names_the_sdk_accepts(check_project, name):
    findings = check_project({**SKILLS, "desk.py": desk(f'["{name}"]')})
    assert having(findings, "CL101") == []


# -- CL102 skills-not-a-list ----------------------------------------------------------------------


def test_cl102_bare_string(check_project):
    source = desk('"refund-policy"')
    finding = one(check_project({**SKILLS, "desk.py": source}), "CL102")
    assert where(finding) == span_of(source, '"refund-policy"')
    assert finding["severity"] == "error"
    assert finding["message"] == (
        'ClaudeAgentOptions.skills must be a list of skill names or "all", got \'refund-policy\'. '
        "Did you mean ['refund-policy']?"
    )


def test_cl102_single_character_string(check_project):
    finding = one(check_project({**SKILLS, "desk.py": desk('"x"')}), "CL102")
    assert finding["message"].endswith("got 'x'. Did you mean ['x']?")


def test_cl102_tuple(check_project):
    source = desk('("refund-policy",)')
    finding = one(check_project({**SKILLS, "desk.py": source}), "CL102")
    assert where(finding) == span_of(source, '("refund-policy",)')
    assert "must be a list of skill names" in finding["message"]


@pytest.mark.parametrize("skills", ['"all"', "None", '["refund-policy"]', "[]"])
def test_cl102_accepted_values(check_project, skills):
    assert check_project({**SKILLS, "desk.py": desk(skills)}) == []


def test_cl102_no_skills_keyword(check_project):
    source = '''
from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(system_prompt="Help customers.")
'''
    assert check_project({**SKILLS, "desk.py": source}) == []


# -- CL103 unknown-skill ---------------------------------------------------------------------------------


def test_cl103_name_no_discovered_skill_has(check_project):
    source = desk('["refund-polcy", "order-status"]')
    findings = check_project({**SKILLS, "desk.py": source})
    finding = one(findings, "CL103")
    assert where(finding) == span_of(source, '"refund-polcy"')
    assert finding["severity"] == "warning"
    assert "Skill refund-polcy is not in this session's skills allowlist" in finding["message"]
    assert "did you mean 'refund-policy'" in finding["message"]
    assert codes(findings) == ["CL103"]


def test_cl103_discovered_names(check_project):
    assert check_project({**SKILLS, "desk.py": desk('["refund-policy", "order-status"]')}) == []


def test_cl103_project_skills_are_not_discovered_with_user_sources_only(check_project):
    source = desk('["refund-policy"]', ', setting_sources=["user"]')
    finding = one(check_project({**SKILLS, "desk.py": source}), "CL103")
    assert where(finding) == span_of(source, '"refund-policy"')


def test_cl103_default_sources_include_the_project(check_project):
    # skills set and setting_sources not: the SDK uses ["user", "project"]
    assert check_project({**SKILLS, "desk.py": desk('["refund-policy"]')}) == []


def test_cl103_cwd_decides_where_project_skills_are(check_project):
    source = desk('["refund-policy"]', ', cwd="shop"')
    files = {"shop/.claude/skills/refund-policy/SKILL.md": skill_md("refund-policy"), "desk.py": source}
    assert check_project(files) == []
    source = desk('["order-status"]', ', cwd="shop"')
    assert codes(check_project({**SKILLS, **files, "desk.py": source})) == ["CL103"]


# -- CL104 wildcard-all -----------------------------------------------------------------------------------


def test_cl104_bare_star(check_project):
    source = desk('["*"]')
    findings = check_project({**SKILLS, "desk.py": source})
    finding = one(findings, "CL104")
    assert where(finding) == span_of(source, '"*"')
    assert finding["severity"] == "error"
    assert finding["message"] == "Invalid skill name '*': use skills=\"all\" to enable every skill."
    assert codes(findings) == ["CL104"]


def test_cl104_all_is_the_way_to_enable_every_skill(check_project):
    assert check_project({**SKILLS, "desk.py": desk('"all"')}) == []
