"""A template SKILL.md that no root discovers (`template/SKILL.md`) is copied into a root under another name:
neither SK302 nor SK108 speaks of the directory it is kept in, while a real skill's mismatch is still an error."""

from __future__ import annotations

TEMPLATE = "---\nname: template-skill\ndescription: Replace with what the skill does and when to use it.\n---\n\n# Insert instructions\n"


def test_a_template_outside_every_root_gets_no_name_mismatch(project):
    project.write({"template/SKILL.md": TEMPLATE})
    result = project.run("check", "--format", "json")
    assert result.status == 0, result.out
    assert '"SK108"' not in result.out and '"SK302"' not in result.out


def test_a_skill_in_a_collection_with_another_name_still_gets_sk108(project):
    project.write({"skills/refunds/SKILL.md": TEMPLATE.replace("template-skill", "refund-policy")})
    result = project.run("check")
    assert result.status == 1
    assert "skills/refunds/SKILL.md:2:7: SK108 [error]" in result.out
