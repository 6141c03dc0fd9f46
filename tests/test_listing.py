"""listing.py: each runtime's listing of a project's skills against its budget, as Claude Code 2.1.332 and Codex
0.171.0 compute it (docs/runtimes.md, "Listing budgets"), through the public API the report and the view use."""

from __future__ import annotations

from pathlib import Path

from skill_lsp import listing, listingmath
from skill_lsp.index import Model
from skill_lsp.runtimes import claude_code
from skill_lsp.workspace import Workspace

from .helpers import Project


def skill(name: str, description: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody.\n"


def build(project: Project, files: dict[str, str]) -> Model:
    project.write(files)
    return Workspace([project.root]).build()


def claude_skills(count: int, size: int) -> dict[str, str]:
    return {f".claude/skills/s{index:02d}/SKILL.md": skill(f"s{index:02d}", "d" * size) for index in range(count)}


def test_a_project_listing_counts_entries_separators_and_names(project: Project) -> None:
    model = build(project, {".claude/skills/alpha/SKILL.md": skill("alpha", "Does alpha."),
                            ".claude/skills/beta/SKILL.md": skill("beta", "Does beta.", "when_to_use: Before release.\n")})
    [found] = [each for each in listing.listings(model) if each.runtime == "claude-code"]
    assert [entry.text for entry in found.entries] == ["- alpha: Does alpha.", "- beta: Does beta. - Before release."]
    # two entries and one newline between them
    assert found.characters == len("- alpha: Does alpha.") + 1 + len("- beta: Does beta. - Before release.")
    assert (found.budget.smallest, found.budget.largest) == (8_000, 40_000)
    assert found.over == 0 and found.at_risk == [] and found.summary() == f"2 skills · {found.characters} characters of 8,000–40,000"


def test_an_overflowing_listing_names_every_skill_at_risk_and_the_fewest_dropped(project: Project) -> None:
    model = build(project, claude_skills(12, 760))
    [found] = [each for each in listing.listings(model) if each.runtime == "claude-code"]
    entry = len("- s00: ") + 760
    assert found.characters == 12 * entry + 11
    # 9,215 of 8,000: two descriptions at least must go, and any of the twelve can be one of them
    assert found.dropped_at_least == 2
    assert len(found.at_risk) == 12
    assert found.summary() == "12 skills · 9,215 characters of 8,000–40,000 · 12 at risk"


def test_a_short_description_that_always_fits_is_not_at_risk(project: Project) -> None:
    # eleven descriptions of 772 columns (with ': ') and one of 7: 8,571 of 8,000, and no ten of the eleven
    # leave less than 7 of the 7,928 the descriptions have
    files = claude_skills(11, 770)
    files[".claude/skills/tiny/SKILL.md"] = skill("tiny", "Tiny.")
    model = build(project, files)
    [found] = [each for each in listing.listings(model) if each.runtime == "claude-code"]
    assert found.characters > 8_000
    assert "tiny" not in {entry.skill.key for entry in found.at_risk}
    assert len(found.at_risk) == 11


def test_settings_override_name_only_off_fraction_and_model(project: Project) -> None:
    files = claude_skills(12, 760)
    files[".claude/settings.json"] = '{"skillOverrides": {"s00": "name-only", "s01": "off"}, "skillListingBudgetFraction": 0.02}'
    files[".claude/settings.local.json"] = '{"skillOverrides": {"s02": "user-invocable-only"}, "model": "claude-opus-4-8"}'
    model = build(project, files)
    [found] = [each for each in listing.listings(model) if each.runtime == "claude-code"]
    assert [skill.key for skill, _ in found.hidden] == ["s01", "s02"]
    assert found.entries[0].text == "- s00" and found.entries[0].fixed
    # 2 % of Opus 4.8's 1,000,000 tokens at 3 characters a token
    assert (found.budget.smallest, found.budget.largest) == (60_000, 60_000)
    assert found.path == project.root / ".claude" / "settings.json"


def test_the_cut_and_the_display_name(project: Project) -> None:
    model = build(project, {".claude/skills/long/SKILL.md": skill("Long Skill", "x" * 2000)})
    [found] = [each for each in listing.listings(model) if each.runtime == "claude-code"]
    [entry] = found.entries
    assert entry.cut == 2000 - (claude_code.LISTING_CAP - 1)
    assert entry.text.endswith("x\u2026") and len(entry.text) == len("- long: ") + claude_code.LISTING_CAP
    # a display name with a space is not a valid name: the directory's name alone (rBn)
    assert entry.name == "long"


def test_disable_model_invocation_leaves_the_skill_out(project: Project) -> None:
    model = build(project, {".claude/skills/manual/SKILL.md": skill("manual", "Manual.", "disable-model-invocation: yes\n")})
    [found] = [each for each in listing.listings(model) if each.runtime == "claude-code"]
    assert found.entries == [] and [reason for _, reason in found.hidden] == ["disable-model-invocation: true"]


def test_at_risk_is_exact_on_small_sets() -> None:
    # room 10 for {6, 5, 3}: 6 and 5 cannot both stay, 3 always fits (no subset of {6, 5} sums to 8-10)
    assert listingmath.at_risk([6, 5, 3], 10) == [True, True, False]
    # room 10: {9, 1}: 1 always fits beside 9
    assert listingmath.at_risk([9, 1, 1], 10) == [True, True, True]
    assert listingmath.at_risk([9, 1], 10) == [False, False]
    assert listingmath.at_risk([8, 8, 1], 10) == [True, True, False]
    assert listingmath.dropped_at_least([8, 8, 1], 10) == 1


def test_codex_shortens_descriptions_then_leaves_skills_out(project: Project) -> None:
    files = {f".agents/skills/s{index:04d}/SKILL.md": skill(f"s{index:04d}", "Does a thing for the user.")
             for index in range(800)}
    model = build(project, files)
    [found] = [each for each in listing.listings(model) if each.runtime == "codex"]
    assert found.budget.unit == "tokens" and (found.budget.smallest, found.budget.largest) == (5_440, 10_000)
    # each bare line `- s0000: (file: r1/s0000/SKILL.md)` and its newline: 35 bytes, 9 tokens
    assert found.entries[0].bare == 9
    assert len(found.left_out) == 800 - 5_440 // 9
    assert found.left_out[0].skill.key == f"s{5_440 // 9:04d}"


def test_agentdeck_block_size_has_no_budget(project: Project) -> None:
    model = build(project, {
        ".agentdeck/skills/quote/SKILL.md": skill("quote", "Quote a fare."),
        "agent.py": 'from agentdeck import Agent\nagent = Agent(name="a", instructions="Hi.", skills=["quote"])\n',
    })
    [found] = [each for each in listing.listings(model) if each.runtime == "agentdeck"]
    assert found.budget.smallest is None and found.over == 0
    assert [entry.text for entry in found.entries] == ["- quote: Quote a fare."]
    assert found.summary().startswith("1 skill · ")


def test_skill_listings_and_listings_in(project: Project) -> None:
    files = claude_skills(3, 10)
    files[".claude/settings.json"] = "{}"
    model = build(project, files)
    target = model.skills[Path(project.root / ".claude/skills/s01/SKILL.md")]
    [(found, entry)] = listing.skill_listings(model, target)
    assert entry.skill is target and found.kind == "project"
    assert [each.kind for each in listing.listings_in(model, project.root / ".claude" / "settings.json")] == ["project"]
