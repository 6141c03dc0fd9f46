"""The runtime model through the CLI: what each runtime that discovers a SKILL.md loads, and the findings
that follow from it (tests/fixtures/runtimes holds one skill per class of the issue)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_lsp.model import Profile
from skill_lsp.runtimes import discovering

from .helpers import codes, one, run_cli, skill_md, where

FIXTURE = Path(__file__).parent / "fixtures" / "runtimes"


@pytest.fixture(scope="module")
def fixture_findings():
    result = run_cli("check", "--format", "json", "--no-cache", ".", cwd=FIXTURE)
    by_skill: dict[str, list[dict]] = {}
    for finding in json.loads(result.stdout):
        by_skill.setdefault(Path(finding["path"]).parent.name, []).append(finding)
    return result.returncode, by_skill


def test_claude_code_accepts_its_own_fields_and_coercions(fixture_findings):
    # background, context: inline, an integer effort, quoted and yes/no/Off booleans, metadata with
    # non-string values, argument-hint as a list, shell: Bash, the disallowedTools alias, and the keys
    # Claude Code parses for itself (version, keywords, displayName)
    _, by_skill = fixture_findings
    assert by_skill.get("claude-fields", []) == []


def test_custom_keys_are_information_and_typos_warnings(fixture_findings):
    _, by_skill = fixture_findings
    custom, typo = by_skill["custom-keys"]
    assert (custom["code"], custom["severity"], where(custom)) == ("SK111", "information", (4, 1, 4, 11))
    assert custom["message"] == ("'owner-team' is not a field Claude Code or VS Code Copilot reads; it is ignored "
                                 "(custom keys belong under 'metadata:')")
    assert (typo["code"], typo["severity"], where(typo)) == ("SK111", "warning", (5, 1, 5, 11))
    assert "did you mean 'description'?" in typo["message"]
    assert len(typo["message"]) < 120  # no list of every key


def test_a_subagent_key_in_a_skill_points_to_the_skill_key(fixture_findings):
    _, by_skill = fixture_findings
    finding = one(by_skill["misplaced-tools"], "SK111")
    assert finding["severity"] == "warning"
    assert finding["message"].startswith("'tools' is a subagent's key (.claude/agents); in a skill Claude Code ignores it")
    assert "'allowed-tools' pre-approves tools" in finding["message"]


def test_recoverable_yaml_is_a_warning_that_names_each_runtime(fixture_findings):
    _, by_skill = fixture_findings
    finding = one(by_skill["colon-desc"], "SK103")
    assert finding["severity"] == "warning"
    assert where(finding) == (3, 30, 3, 62)
    assert "Claude Code loads it after quoting line 3" in finding["message"]
    assert "strict loaders (AgentDeck, the skills-ref validator, claude.ai upload) drop the skill" in finding["message"]


def test_checks_keep_running_on_the_recovered_frontmatter(fixture_findings):
    _, by_skill = fixture_findings
    # the recovered name differs from the directory: SK108 is still reported beside SK103
    assert sorted(codes(by_skill["colon-desc"])) == ["SK103", "SK108"]
    # the recovered description is over Claude Code's listing cap
    long = by_skill["long-listing"]
    assert sorted(codes(long)) == ["SK103", "SK110"]
    cut = one(long, "SK110")
    assert (cut["severity"], cut["line"], cut["column"]) == ("warning", 3, 14)
    assert "Claude Code cuts it at 1536 characters" in cut["message"]


def test_yaml_claude_code_cannot_repair_loads_with_empty_metadata(fixture_findings):
    _, by_skill = fixture_findings
    finding = one(by_skill["hopeless-yaml"], "SK103")
    assert finding["severity"] == "warning"
    assert where(finding) == (3, 14, 3, 27)
    assert "the quote opened here is never closed" in finding["message"]
    assert "Claude Code loads the body with empty metadata" in finding["message"]


def test_vs_code_fields_in_github_skills(fixture_findings):
    _, by_skill = fixture_findings
    assert by_skill.get("copilot-fields", []) == []


def test_codex_skips_what_the_client_guide_skips(fixture_findings):
    # Codex 0.171.0 (`codex debug prompt-input`, tests/oracles) loads a description with an unquoted ': ' as
    # written and names a skill without `name` after its directory
    _, by_skill = fixture_findings
    colon = one(by_skill["codex-colon"], "SK103")
    assert colon["severity"] == "warning" and "Codex loads it after quoting line 3" in colon["message"]
    assert "strict loaders (AgentDeck, the skills-ref validator, claude.ai upload) drop the skill" in colon["message"]
    assert codes(by_skill.get("codex-missing-name", [])) == []


def test_angle_brackets_matter_only_for_an_upload(fixture_findings):
    _, by_skill = fixture_findings
    finding = one(by_skill["upload-brackets"], "SK114")
    assert finding["severity"] == "information"
    assert "uploaded to claude.ai or the API" in finding["message"]
    assert "skills-ref and the runtimes that load skills from disk accept it" in finding["message"]


def test_agentdeck_drops_what_claude_code_recovers(check_skill):
    text = "---\nname: demo\ndescription: Use when: the user asks\n---\n\nBody.\n"
    agentdeck = one(check_skill(text, profile="agentdeck"), "SK103")
    assert agentdeck["severity"] == "error" and "AgentDeck fails Deck.build()" in agentdeck["message"]
    claude = one(check_skill(text, profile="claude"), "SK103")
    assert claude["severity"] == "warning"


def test_listing_cap_comes_from_the_project_settings(project):
    long = "a" * 1700
    project.write({".claude/skills/demo/SKILL.md": skill_md(description=long)})
    assert codes(project.check()) == ["SK110"]
    project.write({".claude/settings.json": '{"skillListingMaxDescChars": 2000}'})
    assert project.check() == []
    project.write({".claude/settings.local.json": '{"skillListingMaxDescChars": 1000}'})
    finding = one(project.check(), "SK110")
    assert "cuts it at 1000 characters" in finding["message"]


def test_a_bare_key_is_reported_on_its_own_line(check_skill):
    finding = one(check_skill("---\nname: demo\ndescription\nlicense: MIT\n---\n\nBody.\n"), "SK103")
    assert where(finding) == (3, 1, 3, 12)
    assert "'description' has no ':'" in finding["message"]


def test_an_over_indented_key_is_explained(check_skill):
    finding = one(check_skill("---\nname: demo\n  description: Do it.\n---\n\nBody.\n"), "SK103")
    assert where(finding) == (3, 3, 3, 22)
    assert "'description' is indented under 'name'" in finding["message"]


def test_a_tab_is_reported_where_it_is(check_skill):
    finding = one(check_skill("---\nname: demo\ndescription: Do it.\nmetadata:\n\towner: me\n---\n\nBody.\n"), "SK103")
    assert where(finding) == (5, 1, 5, 2)
    assert "tab" in finding["message"]


def test_claude_code_repairs_a_tab_and_says_so(check_skill):
    findings = check_skill("---\ndescription: Do it.\nmetadata:\n\towner: me\n---\n\nBody.\n", profile="claude")
    finding = one(findings, "SK103")
    assert finding["severity"] == "warning"
    assert "replacing the tabs on line 4" in finding["message"]


@pytest.mark.parametrize(
    ("origin", "root", "expected"),
    [
        ("agentdeck", "/p/.agentdeck/skills", ["agentdeck"]),
        ("claude", "/p/.claude/skills", ["claude-code", "vscode"]),
        ("plugin", "/p/plug/skills", ["claude-code"]),
        ("spec", "/p/.github/skills", ["vscode"]),
        ("spec", "/p/.agents/skills", ["codex", "vscode"]),
        ("collection", "/p/skills", ["spec"]),
    ],
)
def test_which_runtimes_discover_a_root(origin, root, expected):
    profile = {"agentdeck": Profile.AGENTDECK, "claude": Profile.CLAUDE, "plugin": Profile.CLAUDE}.get(origin, Profile.SPEC)
    assert [each.key for each in discovering(origin, Path(root), profile)] == expected


@pytest.mark.parametrize(
    ("key", "severity", "suggestion"),
    [
        ("hook", "warning", "hooks"),
        ("whenToUse", "warning", "when_to_use"),
        ("disable-model-invokation", "warning", "disable-model-invocation"),
        ("requirements", "information", None),  # the author's own key, not a typo of 'arguments'
        ("usage", "information", None),
        ("category", "information", None),
    ],
)
def test_only_a_near_miss_of_a_real_field_is_a_typo(check_skill, key, severity, suggestion):
    finding = one(check_skill(skill_md(extra=f"{key}: x"), profile="claude"), "SK111")
    assert finding["severity"] == severity
    assert (f"did you mean '{suggestion}'?" in finding["message"]) if suggestion else ("did you mean" not in finding["message"])


def test_a_claude_code_field_in_github_skills_is_information(project):
    project.write({".github/skills/demo/SKILL.md": skill_md(extra="effort: high")})
    finding = one(project.check(), "SK111")
    assert (finding["severity"], where(finding)) == ("information", (4, 1, 4, 7))
    assert finding["message"].startswith("'effort' is not a field VS Code Copilot reads; it is ignored")


@pytest.mark.parametrize(("profile", "severity"), [("agentdeck", "error"), ("claude", "warning"), ("spec", "error")])
def test_a_duplicate_key_by_runtime(check_skill, profile, severity):
    finding = one(check_skill(skill_md(extra="license: MIT\nlicense: Apache-2.0"), profile=profile), "SK103")
    assert finding["severity"] == severity
    assert where(finding) == (5, 1, 5, 8)


def test_multiline_descriptions_matter_to_agentdeck_only(check_skill):
    text = "---\nname: demo\ndescription: |\n  Extract pickup.\n  And dropoff.\n---\n\nBody.\n"
    assert codes(check_skill(text, profile="agentdeck")) == ["SK113"]
    for profile in ("claude", "spec", "collection"):
        assert check_skill(text, profile=profile) == [], profile


def test_codex_loads_no_frontmatter_indented_with_a_tab(check_skill):
    # Claude Code's recovery replaces leading tabs; Codex 0.171.0 loads no such skill (tests/oracles: tab-indent)
    text = "---\nname: demo\ndescription: Do it.\nmetadata:\n\tversion: '1'\n---\n\nBody.\n"
    finding = one(check_skill(text, profile="spec"), "SK103")
    assert finding["severity"] == "error" and "Codex skips the skill" in finding["message"]
    finding = one(check_skill(text, profile="claude"), "SK103")
    assert finding["severity"] == "warning"
