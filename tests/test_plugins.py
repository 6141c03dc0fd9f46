"""Claude Code plugins declared in files: marketplace entries without a plugin.json, and the skill
directories a plugin.json names (tests/fixtures/plugin-marketplace)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .helpers import codes, skill_md

FIXTURE = Path(__file__).parent / "fixtures" / "plugin-marketplace"


def _findings(project, cwd: Path = FIXTURE):
    result = project.run("check", "--format", "json", cwd=cwd)
    assert result.status == 0, result.out + result.err  # display-label names are notes, not errors
    return result.findings


def test_every_skill_of_the_marketplace_is_a_claude_code_plugin_skill(project):
    findings = _findings(project)
    assert {(f["code"], f["severity"], f["path"]) for f in findings} == {
        ("SK108", "information", "plugins/billing/skills/refund-policy/SKILL.md"),
        ("SK108", "information", "plugins/docs-kit/custom/glossary/SKILL.md"),
    }
    # no spec errors for display labels (SK109), and no skill is undiscovered (SK302)
    by_path = {f["path"]: f["message"] for f in findings}
    # a plugin without plugin.json is named by its marketplace entry
    assert "names it 'billing-tools:refund-policy' after its directory" in by_path["plugins/billing/skills/refund-policy/SKILL.md"]
    # a directory plugin.json names is a root of the plugin, beside the default skills/
    assert "names it 'docs-kit:glossary' after its directory" in by_path["plugins/docs-kit/custom/glossary/SKILL.md"]


def test_without_the_marketplace_the_plugin_is_a_spec_collection(project, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(FIXTURE, copy)
    (copy / ".claude-plugin" / "marketplace.json").unlink()
    result = project.run("check", "--format", "json", cwd=copy)
    billing = [f for f in result.findings if f["path"].startswith("plugins/billing/")]
    assert sorted(codes(billing)) == ["SK108", "SK109"]  # the spec's rules: what the marketplace entry changes


def test_a_plugin_json_skills_string_and_a_broken_marketplace(project):
    project.write({
        ".claude-plugin/marketplace.json": "{ not json",
        "tools/.claude-plugin/plugin.json": json.dumps({"name": "tools", "skills": "./more"}),
        "tools/more/lint/SKILL.md": skill_md("Lint"),
        "tools/skills/fmt/SKILL.md": skill_md("fmt"),
    })
    findings = project.check()
    assert [(f["code"], f["path"]) for f in findings] == [("SK108", "tools/more/lint/SKILL.md")]
    assert "names it 'tools:lint' after its directory" in findings[0]["message"]


def test_marketplace_sources_outside_the_marketplace_or_remote_are_ignored(project):
    project.write({
        "market/.claude-plugin/marketplace.json": json.dumps({"plugins": [
            {"name": "escape", "source": "../outside"},
            {"name": "remote", "source": {"source": "url", "url": "https://example.com/p.git"}},
            {"name": "odd", "source": 42},
        ]}),
        "outside/skills/thing/SKILL.md": skill_md("Thing"),
    })
    findings = project.check()
    # ../outside is not the marketplace's plugin: its skills are a spec collection's
    assert sorted(codes(findings)) == ["SK108", "SK109"]


def test_two_marketplace_entries_over_one_skills_directory_name_their_own_skills(project):
    # anthropics/skills' layout: entries with source "./" each listing skill directories of skills/
    project.write({
        ".claude-plugin/marketplace.json": json.dumps({"plugins": [
            {"name": "document-skills", "source": "./", "strict": False, "skills": ["./skills/pdf"]},
            {"name": "example-skills", "source": "./", "strict": False, "skills": ["./skills/art"]},
        ]}),
        "skills/pdf/SKILL.md": skill_md("PDF"),
        "skills/art/SKILL.md": skill_md("Art"),
    })
    messages = {f["path"]: f["message"] for f in project.check() if f["code"] == "SK108"}
    assert "names it 'document-skills:pdf' after its directory" in messages["skills/pdf/SKILL.md"]
    assert "names it 'example-skills:art' after its directory" in messages["skills/art/SKILL.md"]


def test_a_plugin_whose_skill_md_is_at_its_top_is_one_skill_named_by_its_frontmatter(check_project):
    # a marketplace entry "./ios-dev" with SKILL.md at the plugin's top and no skills/: Claude Code 2.1.332 loads
    # it as the plugin's skill, named by its frontmatter (claude plugin validate lists ios-dev:developing-ios-apps)
    findings = check_project({
        ".claude-plugin/marketplace.json": json.dumps({"name": "market", "owner": {"name": "me"}, "plugins": [
            {"name": "ios-dev", "source": "./iOS-APP-developer"}]}),
        "iOS-APP-developer/SKILL.md": "---\nname: developing-ios-apps\ndescription: Build iOS apps.\ncompatibility: "
                                      + "x" * 503 + "\n---\nBody.\n",
        ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews.\nskills: [ios-dev:developing-ios-apps,"
                                      " ios-dev:nope]\n---\nReview.\n",
    })
    # no SK108 (named by its frontmatter), no SK112 (Claude Code does not read compatibility): only the
    # subagent's unknown name
    assert [(f["code"], f["path"]) for f in findings] == [("CL103", ".claude/agents/reviewer.md")]
    assert "'ios-dev:nope'" in findings[0]["message"]


def test_a_marketplace_folder_makes_no_plugin_of_its_directory_and_groups_are_weighed_alike(project):
    # a catalog (cli-tool/components/) whose .claude-plugin/ holds a marketplace.json that lists no plugin and no
    # plugin.json: Claude Code loads nothing from it, so its skills/ is a collection, every group alike whatever
    # the order of the directories (a skill directly in skills/ sorts between the groups)
    bad = skill_md(name="Alpha Skill", body="Do it.\n")
    project.write({
        "components/.claude-plugin/marketplace.json": json.dumps({"agents": []}),
        "components/skills/aaa/one/SKILL.md": bad,
        "components/skills/aaa/two/SKILL.md": skill_md(name="two", body="Do it.\n"),
        "components/skills/mmm-direct/SKILL.md": skill_md(name="mmm-direct", body="Do it.\n"),
        "components/skills/zzz/one/SKILL.md": bad,
        "components/skills/zzz/two/SKILL.md": skill_md(name="two", body="Do it.\n"),
    })
    found = {(f["code"], f["severity"], f["path"]) for f in project.check()}
    assert "SK302" not in {code for code, _, _ in found}
    for group in ("aaa", "zzz"):
        assert ("SK108", "error", f"components/skills/{group}/one/SKILL.md") in found
        assert ("SK109", "error", f"components/skills/{group}/one/SKILL.md") in found
    # with a plugin.json it is a plugin: its groups are below its root, which Claude Code scans one level deep
    project.write({"components/.claude-plugin/plugin.json": json.dumps({"name": "components"})})
    assert {f["path"] for f in project.check() if f["code"] == "SK302"} == {
        "components/skills/aaa/one/SKILL.md", "components/skills/aaa/two/SKILL.md",
        "components/skills/zzz/one/SKILL.md", "components/skills/zzz/two/SKILL.md"}


def test_a_codex_plugins_skills_are_judged_by_codex(project):
    # .codex-plugin/plugin.json: Codex 0.171.0 loads its skills/ under their frontmatter names ("stitch::design")
    project.write({
        ".agents/plugins/marketplace.json": json.dumps({"plugins": [{"name": "stitch", "source": {"source": "local", "path": "./plugins/stitch"}}]}),
        "plugins/stitch/.codex-plugin/plugin.json": json.dumps({"name": "stitch", "skills": "./skills/"}),
        "plugins/stitch/skills/design/SKILL.md": skill_md(name="stitch::design", body="Design it.\n"),
    })
    assert [f for f in project.check() if f["severity"] == "error"] == []
    # the same file in a collection is held to the specification (skills-ref refuses the name)
    (project.root / "plugins/stitch/.codex-plugin/plugin.json").unlink()
    assert {f["code"] for f in project.check() if f["severity"] == "error"} >= {"SK108", "SK109"}


def test_a_group_left_out_of_a_plugin_that_lists_its_skills_is_information(project):
    project.write({
        ".claude-plugin/plugin.json": json.dumps({"name": "kit", "skills": ["./skills/engineering/tdd"]}),
        "skills/engineering/tdd/SKILL.md": skill_md(name="tdd", body="Test first.\n"),
        "skills/deprecated/old/SKILL.md": skill_md(name="old", body="Old.\n"),
    })
    found = [f for f in project.check() if f["code"] == "SK302"]
    assert [(f["path"], f["severity"]) for f in found] == [("skills/deprecated/old/SKILL.md", "information")]
    assert "names the skills it ships in its plugin.json and this is not one of them" in found[0]["message"]
