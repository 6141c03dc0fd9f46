"""LS101 listing-over-budget through `skill-lsp check`: a Claude Code listing over its budget is reported on the
options call, subagent or project settings file whose skills overflow, with the skills at risk; a listing under
every budget, or one whose skills are not known, is never reported."""

from __future__ import annotations

from .helpers import having, one, skill_md, span_of, where


def many(count: int, size: int, root: str = ".claude/skills") -> dict[str, str]:
    return {f"{root}/s{index:02d}/SKILL.md": skill_md(f"s{index:02d}", "d" * size) for index in range(count)}


def test_project_settings_file_carries_the_overflow_as_information(check_project) -> None:
    # 12 x (7 + 760) + 11 = 9,215 characters: over a 200,000-token model's 8,000, under a 1,000,000-token one's
    findings = check_project({**many(12, 760), ".claude/settings.json": '{\n  "permissions": {}\n}\n'})
    finding = one(findings, "LS101")
    assert finding["path"] == ".claude/settings.json"
    assert where(finding) == (1, 1, 1, 2)
    assert finding["severity"] == "information"
    assert "12 skills is 9,215 characters, over the 8,000 of a 200,000-token model" in finding["message"]
    assert "at least 2 of them by name alone" in finding["message"]
    assert "12 at risk: s00, s01, s02, s03, s04, s05, s06, s07 and 4 more" in finding["message"]


def test_a_known_model_makes_it_a_warning(check_project) -> None:
    settings = '{"model": "claude-sonnet-4-6"}'
    finding = one(check_project({**many(12, 760), ".claude/settings.json": settings}), "LS101")
    assert finding["severity"] == "warning"
    assert "over 8,000 (1% of claude-sonnet-4-6's 200,000-token context at 4 characters a token)" in finding["message"]


def test_a_listing_under_budget_or_raised_by_the_settings_is_not_reported(check_project) -> None:
    assert having(check_project({**many(10, 700), ".claude/settings.json": "{}"}), "LS101") == []


def test_raised_fraction_and_name_only_overrides_fit_it(check_project) -> None:
    raised = '{"skillListingBudgetFraction": 0.02}'
    assert having(check_project({**many(12, 760), ".claude/settings.json": raised}), "LS101") == []


def test_name_only_overrides_in_the_local_settings_fit_it(check_project) -> None:
    local = '{"skillOverrides": {"s00": "name-only", "s01": "name-only"}}'
    findings = check_project({**many(12, 760), ".claude/settings.json": "{}", ".claude/settings.local.json": local})
    assert having(findings, "LS101") == []


OPTIONS = '''from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(model="claude-haiku-4-5", skills=[{names}])
'''


def test_an_options_call_over_its_models_budget(check_project) -> None:
    names = ", ".join(f'"s{index:02d}"' for index in range(12))
    source = OPTIONS.format(names=names)
    finding = one(check_project({**many(12, 760), "agent.py": source}), "LS101")
    assert finding["path"] == "agent.py"
    assert where(finding) == span_of(source, "ClaudeAgentOptions", 2)
    assert finding["severity"] == "warning"
    assert finding["message"].startswith("Claude Code's skill listing for this session's 12 skills is 9,215 characters")


def test_an_options_call_filtering_few_skills_fits(check_project) -> None:
    source = OPTIONS.format(names='"s00", "s01"')
    assert having(check_project({**many(12, 760), "agent.py": source}), "LS101") == []


def test_skills_not_known_statically_are_never_reported(check_project) -> None:
    source = 'from claude_agent_sdk import ClaudeAgentOptions\nnames = load()\noptions = ClaudeAgentOptions(skills=names)\n'
    assert having(check_project({**many(12, 760), "agent.py": source}), "LS101") == []


def test_a_subagent_runs_with_its_own_models_budget(check_project) -> None:
    agent = "---\nname: helper\ndescription: Helps.\nmodel: claude-sonnet-4-5\n---\nYou help.\n"
    finding = one(check_project({**many(12, 760), ".claude/agents/helper.md": agent}), "LS101")
    assert finding["path"] == ".claude/agents/helper.md"
    assert finding["severity"] == "warning"
    assert "this subagent's 12 skills" in finding["message"]
    # the same project with a 1,000,000-token model fits
    fits = agent.replace("claude-sonnet-4-5", "claude-opus-4-8")
    assert having(check_project({".claude/agents/helper.md": fits}), "LS101") == []


def test_a_session_reads_the_settings_of_its_setting_sources_only(check_project) -> None:
    names = ", ".join(f'"s{index:02d}"' for index in range(12))
    raised = '{"skillListingBudgetFraction": 0.02}'
    files = {**many(12, 760), ".claude/settings.local.json": raised}
    # the local settings raise the budget to 16,000: it fits
    local = OPTIONS.format(names=names).replace("model=", 'setting_sources=["project", "local"], model=')
    assert having(check_project({**files, "agent.py": local}), "LS101") == []
    # a session that loads the project's settings, not the local ones (skills= alone: user and project), does not
    # read them: 8,000
    assert one(check_project({**files, "agent.py": OPTIONS.format(names=names)}), "LS101")["severity"] == "warning"
    source = OPTIONS.format(names=names).replace("model=", 'setting_sources=["project"], model=')
    assert one(check_project({**files, "agent.py": source}), "LS101")["severity"] == "warning"


def test_a_session_without_skills_or_setting_sources_loads_no_project_skills(check_project) -> None:
    # the SDK loads filesystem settings and skills only with setting_sources, or skills= (user and project)
    source = 'from claude_agent_sdk import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(model="claude-haiku-4-5")\n'
    assert having(check_project({**many(12, 760), "agent.py": source}), "LS101") == []
    listed = source.replace('model="claude-haiku-4-5"', 'model="claude-haiku-4-5", setting_sources=["project"]')
    assert one(check_project({"agent.py": listed}), "LS101")["severity"] == "warning"


def test_a_typescript_session_lists_project_skills_with_setting_sources_only(check_project) -> None:
    names = ", ".join(f"'s{index:02d}'" for index in range(12))
    source = ("import { query } from '@anthropic-ai/claude-agent-sdk';\n"
              f"query({{ prompt: 'x', options: {{ model: 'claude-haiku-4-5', skills: [{names}] }} }});\n")
    assert having(check_project({**many(12, 760), "agent.ts": source}), "LS101") == []
    loaded = source.replace("model:", "settingSources: ['project'], model:")
    finding = one(check_project({"agent.ts": loaded}), "LS101")
    assert finding["severity"] == "warning" and where(finding)[:2] == (2, 1)
