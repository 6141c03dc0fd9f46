"""Where a directory of skill directories by another name is a catalog (checked as a collection), and where
a SKILL.md is still undiscovered (SK302): below a runtime's own root, which is scanned direct-child only."""

from __future__ import annotations

from .helpers import skill_md


def test_a_directory_of_skill_directories_is_a_collection(project):
    project.write({
        "catalog/pdf-tools/SKILL.md": skill_md("pdf-tools"),
        "catalog/ahrefs/SKILL.md": skill_md("Ahrefs Automation"),
    })
    result = project.run("check")
    assert "SK302" not in result.out
    # checked as the specification's: the display-label name is one skills-ref and claude.ai upload reject
    assert "catalog/ahrefs/SKILL.md:2:7: SK109 [error]" in result.out


def test_skills_grouped_below_a_runtime_root_stay_undiscovered(project):
    project.write({
        ".claude/skills/group/one/SKILL.md": skill_md("one"),
        ".claude/skills/group/two/SKILL.md": skill_md("two"),
    })
    result = project.run("check")
    assert result.out.count("SK302 [warning]") == 2, result.out


def test_footnotes_and_placeholder_file_names_are_not_missing_files(project):
    body = (
        "Run `python scripts/script_name.py --help` for any script's options.\n\n"
        "See [the guide](references/guide.md).\n\n"
        '[^2]: Mermaid. "Mermaid Diagramming and Charting Tool." https://mermaid.js.org/\n'
    )
    project.write({".claude/skills/charts/SKILL.md": skill_md("charts", body=body)})
    result = project.run("check")
    # the real missing link is the only SK202
    assert result.out.count("SK202") == 1, result.out
    assert ".claude/skills/charts/SKILL.md:8:17: SK202 [warning] 'references/guide.md'" in result.out
