"""AD101-AD105: AgentDeck `Agent(skills=[...])` and `Deck(skills=...)` calls."""

from __future__ import annotations

import pytest

from .helpers import codes, having, one, skill_md, span_of, where

AGENT_PATH = ".agentdeck/agents/booking/agent.py"
SKILLS = {
    ".agentdeck/skills/parse-request/SKILL.md": skill_md(
        "parse-request", "Extract pickup, dropoff, and date from a free-text booking request."
    ),
    ".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare", "Quote a fare for a ride."),
}


def agent_file(skills: str, deck: str = "Deck.from_project(agents=[booking])") -> str:
    return f'''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", instructions="Help the user book a ride.", skills={skills})
deck = {deck}
'''


# -- AD101 unknown-skill ---------------------------------------------------------------


def test_ad101_unknown_name_suggests_the_closest(check_project):
    source = agent_file('["parse-reqest"]')
    findings = check_project({**SKILLS, AGENT_PATH: source})
    finding = one(findings, "AD101")
    assert finding["path"] == AGENT_PATH
    assert where(finding) == span_of(source, '"parse-reqest"')  # the string literal, quotes included
    assert finding["severity"] == "error"
    assert "unknown skill 'parse-reqest'" in finding["message"]
    assert "did you mean 'parse-request'" in finding["message"]
    assert codes(findings) == ["AD101"]


def test_ad101_known_names(check_project):
    assert check_project({**SKILLS, AGENT_PATH: agent_file('["parse-request", "quote-fare"]')}) == []


def test_ad101_checks_each_name(check_project):
    source = agent_file('["nope", "parse-request", "zilch"]')
    findings = check_project({**SKILLS, AGENT_PATH: source})
    assert [where(f) for f in having(findings, "AD101")] == [span_of(source, '"nope"'), span_of(source, '"zilch"')]


def test_ad101_against_a_deck_root(check_project):
    source = agent_file('["parse-request", "quote-fare"]', 'Deck(agents=[booking], skills="./skills")')
    findings = check_project({
        "app/agent.py": source,
        "app/skills/parse-request/SKILL.md": skill_md("parse-request"),
        # quote-fare exists, but in the project default root, not in this Deck's root
        ".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare"),
    })
    finding = one(findings, "AD101")
    assert where(finding) == span_of(source, '"quote-fare"')
    assert "app/skills" in finding["message"]


def test_ad101_listing_the_frontmatter_name_of_a_misnamed_directory_is_left_to_sk108(check_project):
    source = agent_file('["confirm-booking"]')
    findings = check_project({AGENT_PATH: source, ".agentdeck/skills/confirm/SKILL.md": skill_md("confirm-booking")})
    assert codes(findings) == ["SK108"]


def test_ad101_listing_the_directory_name_of_a_misnamed_skill_points_at_sk108(check_project):
    # the registry is keyed by the frontmatter name, so the directory name is unknown to it
    source = agent_file('["confirm-booking"]')
    findings = check_project({AGENT_PATH: source, ".agentdeck/skills/confirm-booking/SKILL.md": skill_md("confirm_booking")})
    finding = one(findings, "AD101")
    assert where(finding) == span_of(source, '"confirm-booking"')
    assert "'confirm_booking'" in finding["message"] and "SK108" in finding["message"]
    assert sorted(codes(findings)) == ["AD101", "SK108", "SK109"]


def test_ad101_not_reported_when_a_root_is_not_a_literal(check_project):
    source = agent_file('["anything"]', "Deck(agents=[booking], skills=os.environ['SKILLS'])")
    assert check_project({**SKILLS, AGENT_PATH: "import os\n" + source}) == []


# -- AD102 deck-without-skills -----------------------------------------------------------


def test_ad102_deck_without_skills(check_project):
    source = agent_file('["parse-request"]', "Deck(agents=[booking])")
    findings = check_project({**SKILLS, AGENT_PATH: source})
    finding = one(findings, "AD102")
    assert where(finding) == span_of(source, '"parse-request"')
    assert finding["severity"] == "error"
    assert "no skills=" in finding["message"]
    assert codes(findings) == ["AD102"]


def test_ad102_deck_without_skills_and_agent_without_skills(check_project):
    source = '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", instructions="Help the user book a ride.")
deck = Deck(agents=[booking])
'''
    assert check_project({AGENT_PATH: source}) == []


# -- AD103 missing-root ---------------------------------------------------------------------


@pytest.mark.parametrize("skills", ['"./skils"', '["./skills", "./skils"]', 'Path("skils")'])
def test_ad103_root_that_does_not_exist(check_project, skills):
    source = "from pathlib import Path\n" + agent_file('["parse-request"]', f"Deck(agents=[booking], skills={skills})")
    findings = check_project({"app/agent.py": source, "app/skills/parse-request/SKILL.md": skill_md("parse-request")})
    finding = one(findings, "AD103")
    literal = 'Path("skils")' if skills.startswith("Path") else '"./skils"'
    assert where(finding) == span_of(source, literal)
    assert finding["severity"] == "error"
    assert "does not exist" in finding["message"] and "skils" in finding["message"]


def test_ad103_existing_root(check_project):
    source = agent_file('["parse-request"]', 'Deck(agents=[booking], skills="./skills")')
    assert check_project({"app/agent.py": source, "app/skills/parse-request/SKILL.md": skill_md("parse-request")}) == []


# -- AD104 duplicate-entry -------------------------------------------------------------------------


def test_ad104_name_listed_twice(check_project):
    source = agent_file('["parse-request", "quote-fare", "parse-request"]')
    findings = check_project({**SKILLS, AGENT_PATH: source})
    finding = one(findings, "AD104")
    assert where(finding) == span_of(source, '"parse-request"', occurrence=2)
    assert finding["severity"] == "warning"
    assert "'parse-request' is listed twice" in finding["message"]
    assert codes(findings) == ["AD104"]


def test_ad104_distinct_names(check_project):
    assert check_project({**SKILLS, AGENT_PATH: agent_file('["parse-request", "quote-fare"]')}) == []


# -- AD105 dynamic-skills (off by default) ------------------------------------------------------------

DYNAMIC = agent_file("enabled_skills()")


def test_ad105_is_off_by_default(check_project):
    assert check_project({**SKILLS, AGENT_PATH: DYNAMIC}) == []


@pytest.mark.parametrize("flag", ["--extend-select", "--select"])
def test_ad105_when_selected(check_project, flag):
    findings = check_project({**SKILLS, AGENT_PATH: DYNAMIC}, flag, "AD105")
    finding = one(findings, "AD105")
    assert where(finding) == span_of(DYNAMIC, "enabled_skills()")
    assert finding["severity"] == "information"
    assert "not a literal" in finding["message"]


def test_ad105_for_a_non_literal_entry(check_project):
    source = agent_file('["parse-request", EXTRA_SKILL]')
    finding = one(check_project({**SKILLS, AGENT_PATH: source}, "--extend-select", "AD105"), "AD105")
    assert where(finding) == span_of(source, "EXTRA_SKILL")


def test_ad105_for_a_dynamic_deck_root(check_project):
    source = "import os\n" + agent_file('["parse-request"]', 'Deck(agents=[booking], skills=os.environ["ROOT"])')
    finding = one(check_project({AGENT_PATH: source}, "--extend-select", "AD105"), "AD105")
    assert where(finding) == span_of(source, 'os.environ["ROOT"]')


def test_ad105_literal_lists_are_checkable(check_project):
    assert check_project({**SKILLS, AGENT_PATH: agent_file('["parse-request"]')}, "--extend-select", "AD105") == []
