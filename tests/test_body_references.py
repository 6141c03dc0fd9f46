"""SK202 / SK204 on a project whose skills mention files the ways real skills do (tests/fixtures/body-references)."""

from __future__ import annotations

from pathlib import Path

from .helpers import one, where

FIXTURE = Path(__file__).parent / "fixtures" / "body-references"
WRITER = ".claude/skills/writer/SKILL.md"


def _findings(project):
    result = project.run("check", "--format", "json", cwd=FIXTURE)
    assert result.status == 0, result.err  # warnings only
    return result.findings


def test_only_true_missing_files_and_machine_paths_are_reported(project):
    found = {(f["code"], f["path"], f["line"], f["column"]) for f in _findings(project)}
    assert found == {
        ("SK202", WRITER, 9, 6),  # See `references/tone.md` for the voice to use.
        ("SK202", WRITER, 10, 91),  # ${CLAUDE_SKILL_DIR}/jobs/publish.md
        ("SK202", WRITER, 12, 29),  # [the editor skill](../editor/SKILL.md)
        ("SK202", WRITER, 34, 28),  # ${CLAUDE_SKILL_DIR}/scripts/publish.py, in a bash block
        ("SK204", WRITER, 35, 5),  # cat /Users/alice/notes/todo.md, in a bash block
    }


def test_a_skill_dir_path_is_reported_on_the_path_after_the_variable(project):
    finding = next(f for f in _findings(project) if f["code"] == "SK202" and f["line"] == 10)
    assert where(finding)[1:] == (91, 10, 106)  # 'jobs/publish.md', not '${CLAUDE_SKILL_DIR}/'
    assert "'jobs/publish.md' does not exist in the skill directory; did you mean 'jobs/scan.md'?" in finding["message"]


def test_a_missing_link_out_of_the_skill_directory_is_not_found_rather_than_missing_from_it(project):
    finding = next(f for f in _findings(project) if f["code"] == "SK202" and f["line"] == 12)
    assert finding["message"] == ("'../editor/SKILL.md' is not found: from the skill directory it leads to "
                                  ".claude/skills/editor/SKILL.md, which does not exist")
    assert finding.get("fixes", []) == []  # neither "Create" outside the skill nor one of its own files


def test_machine_path_in_a_shell_block_spans_the_path_only(project):
    finding = one(_findings(project), "SK204")
    assert where(finding) == (35, 5, 35, 31)
    assert "'/Users/alice/notes/todo.md'" in finding["message"]
