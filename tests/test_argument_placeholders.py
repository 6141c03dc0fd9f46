"""SK205: `$N` that Claude Code would replace with an argument where the author meant money or a shell positional."""

from __future__ import annotations

import pytest

from .helpers import codes, having, one, skill_md, where

BODY_LINE = 6  # skill_md() puts the body on line 6


@pytest.mark.parametrize(("body", "column", "text"), [
    ("Revenue grew to $2.5M last year.", 17, "$2"),
    ("Year 2 ended at $0.5M in revenue.", 17, "$0"),
    ("Each call costs $0.50.", 17, "$0"),
    ("The budget is $1,000 in total.", 15, "$1"),
    ("Plans start at $5/month.", 16, "$5"),
    ("Count fields with `awk '{print $1}' data.csv` first.", 32, "$1"),
])
def test_sk205_money_and_shell_positionals_in_a_claude_code_skill(check_skill, body, column, text):
    # Claude Code 2.1.332 replaces `$N` only when invoked with N+1 arguments or more: a warning for a skill
    # that takes arguments, information for one that says nothing of them
    finding = one(check_skill(skill_md(body=body + "\n"), profile="claude"), "SK205")
    assert where(finding) == (BODY_LINE, column, BODY_LINE, column + len(text))
    assert finding["severity"] == "information"
    assert "(this skill declares none)" in finding["message"]
    assert f"'{text}'" in finding["message"] and "Claude Code replaces it" in finding["message"]
    taking = skill_md(body=body + "\n", extra="argument-hint: <ticker> <period>")
    finding = one(check_skill(taking, profile="claude"), "SK205")
    assert where(finding) == (BODY_LINE + 1, column, BODY_LINE + 1, column + len(text))
    assert finding["severity"] == "warning"


def test_sk205_in_shell_blocks(check_skill):
    body = ("```bash\n"
            "awk -F, '{print $2}' file.csv\n"
            "greet() { echo \"hello $1\"; }\n"
            "python scripts/run.py $0\n"
            "```\n")
    findings = having(check_skill(skill_md(body=body), profile="claude"), "SK205")
    assert [(f["line"], f["column"]) for f in findings] == [(BODY_LINE + 1, 17), (BODY_LINE + 2, 23)]
    assert "awk's field" in findings[0]["message"] and "'$(2)'" in findings[0]["message"]
    assert "positional parameter" in findings[1]["message"] and "'${1}'" in findings[1]["message"]


@pytest.mark.parametrize("body", [
    "Review the file $0 and compare it with $1.",  # meant: the invocation's arguments
    "Run `scripts/compare.sh $0 $1` on them.",
    "Read $ARGUMENTS and $ARGUMENTS[0] first.",
    "```python\nprint('$1')\n```",  # not shell
    "Escape it as \\$1 or ${1} in shell.",
    "Plans cost $29/mo and $10.00 a seat.",  # $29 and $10 would take 30 and 11 arguments
])
def test_sk205_not_on_placeholders_that_are_meant(check_skill, body):
    assert "SK205" not in codes(check_skill(skill_md(body=body + "\n"), profile="claude"))


@pytest.mark.parametrize("profile", ["agentdeck", "spec"])
def test_sk205_only_where_claude_code_loads_the_skill(check_skill, profile):
    assert check_skill(skill_md(body="Revenue grew to $2.5M.\n"), profile=profile) == []


def test_sk205_quick_fix_keeps_the_shell_positional(check_skill):
    text = skill_md(body="```sh\nfor x in \"$@\"; do echo $1; done\n```\n")
    finding = one(check_skill(text, profile="claude"), "SK205")
    assert where(finding) == (BODY_LINE + 1, 24, BODY_LINE + 1, 26)
    assert finding["fixes"] == ["Change to '${1}'"]
