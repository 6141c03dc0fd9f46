"""SK301-SK303: a skill's place in its registry (duplicates, undiscovered, unused)."""

from __future__ import annotations

import pytest

from .helpers import codes, having, one, skill_md, where

TWO_ROOTS_AGENT = '''
from agentdeck import Agent, Deck

booking = Agent(name="Booking", instructions="Help.", skills=["parse-request"])
deck = Deck(agents=[booking], skills=["./skills", "./more-skills"])
'''


# -- SK301 duplicate-name ---------------------------------------------------------------------


def test_sk301_same_name_under_two_roots_of_one_deck(check_project):
    findings = check_project({
        "app/agent.py": TWO_ROOTS_AGENT,
        "app/skills/parse-request/SKILL.md": skill_md("parse-request"),
        "app/more-skills/parse-request/SKILL.md": skill_md("parse-request"),
    })
    duplicates = having(findings, "SK301")
    assert sorted(finding["path"] for finding in duplicates) == [
        "app/more-skills/parse-request/SKILL.md",
        "app/skills/parse-request/SKILL.md",
    ]
    for finding in duplicates:
        assert where(finding) == (2, 7, 2, 20)  # the name value
        assert finding["severity"] == "error"
        other = "more-skills" if finding["path"].startswith("app/skills/") else "app/skills"
        assert other in finding["message"], "each names the other path"
        assert finding["related"], "and links to it"
    assert codes(findings) == ["SK301", "SK301"]


def test_sk301_distinct_names_under_two_roots(check_project):
    findings = check_project({
        "app/agent.py": TWO_ROOTS_AGENT,
        "app/skills/parse-request/SKILL.md": skill_md("parse-request"),
        "app/more-skills/quote-fare/SKILL.md": skill_md("quote-fare"),
    })
    assert findings == []


def test_sk301_same_name_in_two_separate_decks_is_fine(check_project):
    findings = check_project({
        "a/agent.py": '''
            from agentdeck import Agent, Deck
            booking = Agent(name="Booking", instructions="Help.", skills=["parse-request"])
            deck = Deck(agents=[booking], skills="./skills")
            ''',
        "a/skills/parse-request/SKILL.md": skill_md("parse-request"),
        "b/agent.py": '''
            from agentdeck import Agent, Deck
            support = Agent(name="Support", instructions="Help.", skills=["parse-request"])
            deck = Deck(agents=[support], skills="./skills")
            ''',
        "b/skills/parse-request/SKILL.md": skill_md("parse-request"),
    })
    assert findings == []


def test_sk301_same_name_in_different_ecosystems_is_fine(check_project):
    findings = check_project({
        ".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request"),
        ".claude/skills/parse-request/SKILL.md": skill_md("parse-request"),
    })
    assert findings == []


# -- SK302 undiscovered-skill ------------------------------------------------------------------


def test_sk302_nested_one_level_too_deep_says_where_it_belongs(check_project):
    findings = check_project({
        ".agentdeck/skills/booking/parse-request/SKILL.md": skill_md("parse-request"),
    })
    finding = one(findings, "SK302")
    assert finding["path"] == ".agentdeck/skills/booking/parse-request/SKILL.md"
    assert where(finding) == (1, 1, 1, 4)
    assert finding["severity"] == "warning"
    assert "direct-child only" in finding["message"]
    assert ".agentdeck/skills/parse-request/SKILL.md" in finding["message"]


def test_sk302_not_on_a_skills_own_documents(check_project):
    # SPEC 2.6: a SKILL.md inside another skill's directory is a document of that skill (linked from it as
    # reading material), which no runtime discovers as a skill: no rule applies, and no advice to move it
    findings = check_project({
        ".claude/skills/refund-policy/SKILL.md": skill_md("refund-policy"),
        ".claude/skills/refund-policy/examples/legacy/SKILL.md": skill_md("legacy"),
        ".claude/skills/refund-policy/topics/SKILL.md": "# Topics\n\nNo frontmatter: reading material.\n",
        ".agents/skills/pdf/forms/SKILL.md": "# Forms\n",
        ".agents/skills/pdf/SKILL.md": skill_md("pdf"),
        "skills/xlsx/SKILL.md": skill_md("xlsx"),
        "skills/xlsx/charts/SKILL.md": "---\nname: Charts\n---\nbody\n",
    })
    assert findings == []


def test_sk302_below_a_root_in_a_directory_that_is_no_skill(check_project):
    # a group directory without a SKILL.md of its own: the runtime scans direct children only
    findings = check_project({
        ".claude/skills/refund-policy/SKILL.md": skill_md("refund-policy"),
        ".claude/skills/group/legacy/SKILL.md": skill_md("legacy"),
    })
    finding = one(findings, "SK302")
    assert finding["severity"] == "warning"
    assert finding["path"] == ".claude/skills/group/legacy/SKILL.md"
    assert ".claude/skills/legacy/SKILL.md" in finding["message"]


def test_sk302_outside_every_root(check_project):
    # outside every root: installed by copying or kept for reference, which the file cannot tell (information);
    # below a root it was meant to load from (test_sk302_below_a_root_in_a_directory_that_is_no_skill): a warning
    findings = check_project({"docs/notes/SKILL.md": skill_md("notes")})
    finding = one(findings, "SK302")
    assert finding["severity"] == "information"
    assert "no skill root discovers" in finding["message"]
    assert ".agentdeck/skills/" in finding["message"]  # where roots are


def test_sk302_direct_children_are_discovered(check_project):
    assert check_project({".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request")}) == []


def test_sk302_not_on_a_catalogs_sections(check_project):
    # openai/skills' layout: skills/.curated/<name>/SKILL.md, installed by copying into a root
    findings = check_project({
        "skills/.curated/gh-fix-ci/SKILL.md": skill_md("gh-fix-ci"),
        "skills/.system/skill-installer/SKILL.md": skill_md("skill-installer"),
    })
    assert findings == []


def test_a_catalogs_skills_are_still_checked(check_project):
    findings = check_project({"skills/.experimental/create-plan/SKILL.md": skill_md("make-plan")})
    assert codes(findings) == ["SK108"]  # checked as a collection's skill, not skipped


@pytest.mark.parametrize(("path", "description"), [
    ("template/SKILL.md", "Do the demo thing."),
    ("skill-template/SKILL.md", "Do the demo thing."),
    ("starter/SKILL.md", "Replace with description of the skill and when Claude should use it."),
    ("starter/SKILL.md", "TODO - say when to use it"),
])
def test_sk302_not_on_a_template(check_project, path, description):
    findings = check_project({path: skill_md(path.split("/")[0], description)})
    assert "SK302" not in codes(findings)


# -- SK303 unused-skill (off by default) ----------------------------------------------------------

UNUSED = {
    ".agentdeck/skills/parse-request/SKILL.md": skill_md("parse-request"),
    ".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare"),
    ".agentdeck/agents/booking/agent.py": '''
        from agentdeck import Agent, Deck
        booking = Agent(name="Booking", instructions="Help.", skills=["parse-request"])
        deck = Deck.from_project(agents=[booking])
        ''',
}


def test_sk303_is_off_by_default(check_project):
    assert check_project(UNUSED) == []


def test_sk303_with_extend_select(check_project):
    findings = check_project(UNUSED, "--extend-select", "SK303")
    finding = one(findings, "SK303")
    assert finding["path"] == ".agentdeck/skills/quote-fare/SKILL.md"
    assert where(finding) == (1, 1, 1, 4)
    assert finding["severity"] == "hint"
    assert "'quote-fare'" in finding["message"]


def test_sk303_with_select(check_project):
    assert codes(check_project(UNUSED, "--select", "SK303")) == ["SK303"]


def test_sk303_enabled_in_pyproject(check_project):
    files = {**UNUSED, "pyproject.toml": '[tool.skill-lsp]\nextend-select = ["SK303"]\n'}
    assert codes(check_project(files)) == ["SK303"]


def test_a_page_named_skill_md_outside_every_root_is_no_skill(check_project):
    # docs/cli/skill.md documents a command: only in a root or a skills/ directory is a lowercase
    # skill.md read as a skill file at all
    assert check_project({"docs/cli/skill.md": "# skill\n\nThe `skill` command.\n"}) == []


def test_sk115_names_the_runtimes_that_want_skill_md_exactly(check_project):
    findings = check_project({
        ".claude/skills/pdf/skill.md": skill_md("pdf"),
        "skills/docx/skill.md": skill_md("docx"),
        "skills/xlsx/SKILL.md": skill_md("xlsx"),
        ".github/skills/pptx/skill.md": skill_md("pptx"),
    })
    by_path = {f["path"]: f for f in findings if f["code"] == "SK115"}
    assert by_path[".claude/skills/pdf/skill.md"]["severity"] == "warning"
    assert "Claude Code look for 'SKILL.md' exactly" in by_path[".claude/skills/pdf/skill.md"]["message"]
    # skills-ref 0.1.1 accepts skill.md (parser.py find_skill_md); VS Code matches any case
    assert by_path["skills/docx/skill.md"]["severity"] == "information"
    assert ".github/skills/pptx/skill.md" not in by_path


def test_a_catalogs_section_of_one_skill_beside_sections_of_several(check_project):
    findings = check_project({
        "catalog/skills/(cloud)/deploy/SKILL.md": skill_md("deploy"),
        "catalog/skills/(cloud)/monitor/SKILL.md": skill_md("monitor"),
        "catalog/skills/(learning)/tutor/SKILL.md": skill_md("tutor"),
    })
    assert findings == []


def test_a_top_level_skill_md_leaves_the_skills_collection_below_it_alone(check_project):
    # a repository that is itself a skill (SKILL.md at its top) and also holds skills/<name>/: those are skills
    findings = check_project({
        "SKILL.md": skill_md("proj"),
        "skills/context-compression/SKILL.md": skill_md("context-compression"),
        "skills/memory/SKILL.md": skill_md("Memory"),
    })
    assert [(f["path"], f["code"]) for f in findings if f["severity"] == "error"] == [
        ("skills/memory/SKILL.md", "SK108"), ("skills/memory/SKILL.md", "SK109")]


def test_a_group_below_a_plugins_skills_root_is_no_collection(check_project):
    findings = check_project({
        "plug/.claude-plugin/plugin.json": '{"name": "plug"}\n',
        "plug/skills/create-plans/SKILL.md": skill_md("create-plans"),
        "plug/skills/expertise/iphone-apps/SKILL.md": skill_md("build-iphone-apps"),
        "plug/skills/expertise/macos-apps/SKILL.md": skill_md("build-macos-apps"),
    })
    # not discovered by Claude Code (a warning); what the specification says of them is a note until they are
    assert {(f["code"], f["severity"]) for f in findings if f["severity"] in ("error", "warning")} == {("SK302", "warning")}
