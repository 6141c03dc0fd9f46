"""`check --fix`, `--diff` and `--unsafe-fixes`: which fixes apply, what is written, and what never is."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from skill_lsp.fixing import plan_fixes
from skill_lsp.model import CreateFile, Finding, Fix, RenamePath, Severity, Span, TextEdit

from .helpers import REPO, Project, codes, run_cli, skill_md

TYPOS = {
    # SK108 (name is not the directory) and SK111 (a key typo): both have one preferred text edit
    ".agentdeck/skills/parse-request/SKILL.md": "---\nname: parse-reqest\ndescripton: Parse it.\n---\n\nBody.\n",
}
FIXED = "---\nname: parse-request\ndescription: Parse it.\n---\n\nBody.\n"
SKILL = ".agentdeck/skills/parse-request/SKILL.md"


def test_fix_applies_the_safe_fixes_and_checks_again(project: Project) -> None:
    project.write(TYPOS)
    result = project.run("check", "--fix")
    assert project.path(SKILL).read_text(encoding="utf-8") == FIXED
    assert result.status == 0, result.out
    assert result.out == "All checks passed (1 skill, 0 agent definitions).\nFixed 2 issues.\n"


def test_fix_reports_what_remains_and_exits_by_it(project: Project) -> None:
    project.write({**TYPOS, ".agentdeck/skills/quote/SKILL.md": skill_md("quote", description=None)})
    result = project.run("check", "--fix")
    assert result.status == 1
    assert ".agentdeck/skills/quote/SKILL.md:1:1: SK106 [error]" in result.out  # no safe fix for a missing description
    assert "SK108" not in result.out and "SK111" not in result.out
    assert result.out.rstrip("\n").endswith("Fixed 2 issues. 1 more fixable with --unsafe-fixes (they create or rename "
                                            "files, or choose a change).")


def test_diff_shows_the_fixes_and_changes_nothing(project: Project) -> None:
    project.write(TYPOS)
    before = project.path(SKILL).read_bytes()
    result = project.run("check", "--diff")
    assert result.status == 1  # as ruff: there is something to fix
    assert project.path(SKILL).read_bytes() == before
    assert result.out == (
        f"--- a/{SKILL}\n+++ b/{SKILL}\n@@ -1,6 +1,6 @@\n ---\n-name: parse-reqest\n-descripton: Parse it.\n"
        "+name: parse-request\n+description: Parse it.\n ---\n \n Body.\n"
    )
    assert "Would fix 2 issues." in result.err


@pytest.mark.skipif(shutil.which("patch") is None, reason="patch(1) is not installed")
def test_the_diff_applies_with_patch_and_gives_what_fix_writes(project: Project, tmp_path: Path) -> None:
    project.write(TYPOS)
    (project.root / SKILL).write_text("---\nname: parse-reqest\ndescripton: Parse it.\n---\n\nno newline at the end",
                                      encoding="utf-8")
    diff = project.run("check", "--diff").out
    copy = tmp_path / "copy"
    shutil.copytree(project.root, copy)
    subprocess.run(["patch", "-p1", "-s"], input=diff, text=True, cwd=copy, check=True)
    project.run("check", "--fix")
    assert (copy / SKILL).read_text(encoding="utf-8") == project.path(SKILL).read_text(encoding="utf-8")
    assert project.path(SKILL).read_text(encoding="utf-8").endswith("\nno newline at the end")


def test_diff_with_nothing_to_fix_exits_0(project: Project) -> None:
    project.write({SKILL: skill_md("parse-request")})
    result = project.run("check", "--diff")
    assert (result.status, result.out) == (0, "")
    assert "No fixes available." in result.err


def test_renames_and_new_files_wait_for_unsafe_fixes(project: Project) -> None:
    project.write({".agentdeck/skills/quote/skill.md": skill_md("quote")})
    result = project.run("check", "--fix")
    assert project.path(".agentdeck/skills/quote/skill.md").exists()
    assert "SK115" in result.out and "1 more fixable with --unsafe-fixes" in result.out
    assert "rename from .agentdeck/skills/quote/skill.md\nrename to .agentdeck/skills/quote/SKILL.md\n" in \
        project.run("check", "--diff", "--unsafe-fixes").out
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert sorted(os.listdir(project.path(".agentdeck/skills/quote"))) == ["SKILL.md"]
    assert result.status == 0 and "Fixed 1 issue." in result.out


def test_fixes_in_an_agent_file(project: Project) -> None:
    agent = 'from agentdeck import Agent\n\nbooking = Agent(name="B", skills=["parse-request", "parse-reqest", "parse-request"])\n'
    project.write({SKILL: skill_md("parse-request"), "agent.py": agent})
    project.run("check", "--fix")
    # the duplicate goes (safe); the unknown name stays: its closest skill may not be the one meant
    fixed = 'from agentdeck import Agent\n\nbooking = Agent(name="B", skills=["parse-request", "parse-reqest"])\n'
    assert project.path("agent.py").read_text(encoding="utf-8") == fixed
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert project.path("agent.py").read_text(encoding="utf-8") == fixed.replace(', "parse-reqest"', "")
    assert result.status == 0


def test_the_closest_name_or_file_is_an_unsafe_fix(project: Project) -> None:
    agent = 'from agentdeck import Agent\n\nbooking = Agent(name="B", skills=["quote-far"])\n'
    skill = skill_md("quote-fare", body="See [the rules](references/waitlist.md).\n")
    project.write({".agentdeck/skills/quote-fare/SKILL.md": skill, ".agentdeck/skills/quote-fare/references/fleet.md": "x",
                   "agent.py": agent})
    result = project.run("check", "--fix")
    assert project.path("agent.py").read_text(encoding="utf-8") == agent
    assert project.path(".agentdeck/skills/quote-fare/SKILL.md").read_text(encoding="utf-8") == skill
    assert "2 more fixable with --unsafe-fixes" in result.out
    project.run("check", "--fix", "--unsafe-fixes")
    assert '"quote-fare"' in project.path("agent.py").read_text(encoding="utf-8")
    assert "references/fleet.md" in project.path(".agentdeck/skills/quote-fare/SKILL.md").read_text(encoding="utf-8")


def test_a_choice_between_close_names_is_never_made(project: Project) -> None:
    agent = 'from agentdeck import Agent\n\nbooking = Agent(name="B", skills=["quote-far"])\n'
    project.write({".agentdeck/skills/quote-fare/SKILL.md": skill_md("quote-fare"),
                   ".agentdeck/skills/quote-farm/SKILL.md": skill_md("quote-farm"), "agent.py": agent})
    project.run("check", "--fix", "--unsafe-fixes")
    assert project.path("agent.py").read_text(encoding="utf-8") == agent


def test_line_endings_and_the_rest_of_the_file_are_kept(project: Project) -> None:
    project.write({SKILL: "x"})
    project.path(SKILL).write_bytes(b"---\r\nname: parse-reqest\r\ndescription: Caf\xc3\xa9 \xe2\x9c\x93.\r\n---\r\n\r\nBody.\r\n")
    os.chmod(project.path(SKILL), 0o640)
    project.run("check", "--fix")
    assert project.path(SKILL).read_bytes() == (
        b"---\r\nname: parse-request\r\ndescription: Caf\xc3\xa9 \xe2\x9c\x93.\r\n---\r\n\r\nBody.\r\n")
    assert os.stat(project.path(SKILL)).st_mode & 0o777 == 0o640
    assert [name for name in os.listdir(project.path(".agentdeck/skills/parse-request"))] == ["SKILL.md"]  # no temp left


def test_a_file_that_is_not_plain_utf8_is_left_alone(project: Project) -> None:
    project.write({SKILL: "x"})
    original = b"---\nname: parse-reqest\ndescription: Caf\xe9.\n---\n\nBody.\n"  # Latin-1: decoded with a replacement
    project.path(SKILL).write_bytes(original)
    result = project.run("check", "--fix")
    assert project.path(SKILL).read_bytes() == original
    assert "not plain UTF-8" in result.err
    assert "SK108" in result.out


def test_a_symlink_out_of_the_project_is_never_written_through(project: Project, tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "SKILL.md"
    outside.parent.mkdir()
    outside.write_text(TYPOS[SKILL], encoding="utf-8")
    (project.root / ".agentdeck/skills/parse-request").mkdir(parents=True)
    os.symlink(outside, project.path(SKILL))
    project.run("check", "--fix", "--unsafe-fixes")
    assert outside.read_text(encoding="utf-8") == TYPOS[SKILL]
    assert os.path.islink(project.path(SKILL))


def test_no_fix_writes_outside_the_checked_folders(tmp_path: Path) -> None:
    """Whatever a rule proposes: an edit, a new file or a rename that leaves the folder (through a
    symlinked directory too) is left out, and said so."""
    folder = tmp_path / "proj"
    (folder / "skills").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "SKILL.md").write_text("name: x\n", encoding="utf-8")
    os.symlink(outside, folder / "skills" / "linked")
    inside = folder / "skills" / "linked" / "SKILL.md"
    fixes = [Fix("edit", edits=(TextEdit(inside, Span.of(0, 0, 0, 4), "nom"),), preferred=True),
             Fix("create", creates=(CreateFile(tmp_path / "new" / "SKILL.md", "x"),), preferred=True),
             Fix("rename", renames=(RenamePath(folder / "skills", tmp_path / "moved"),), preferred=True)]
    findings = [Finding("SK111", Severity.WARNING, inside, Span.of(0, 0, 0, 4), "m", fixes=[fix]) for fix in fixes]
    plan = plan_fixes(findings, [folder], unsafe=True)
    assert not plan
    assert len(plan.skipped) == 3 and all("outside the checked folders" in reason for reason in plan.skipped)


def test_files_named_on_the_command_line_are_the_only_ones_fixed(project: Project) -> None:
    other = ".agentdeck/skills/quote-fare/SKILL.md"
    project.write({**TYPOS, other: "---\nname: quote-fare\ndescripton: Quote.\n---\n\nBody.\n"})
    result = project.run("check", "--fix", other)
    assert project.path(other).read_text(encoding="utf-8") == "---\nname: quote-fare\ndescription: Quote.\n---\n\nBody.\n"
    assert project.path(SKILL).read_text(encoding="utf-8") == TYPOS[SKILL]
    assert codes(project.check(SKILL)) == ["SK106", "SK108", "SK111"]
    assert result.status == 0


def test_a_file_that_cannot_be_written_is_said_and_left_whole(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    other = ".agentdeck/skills/quote-fare/SKILL.md"
    project.write({**TYPOS, other: "---\nname: quote-fare\ndescripton: Quote.\n---\n\nBody.\n"})
    replace = os.replace

    def refuse(source: str, target: str) -> None:
        if str(target).endswith("parse-request/SKILL.md"):
            raise PermissionError(13, "Permission denied")
        replace(source, target)

    monkeypatch.setattr("skill_lsp.fixing.os.replace", refuse)
    result = project.run("check", "--fix")
    assert project.path(SKILL).read_text(encoding="utf-8") == TYPOS[SKILL]
    assert os.listdir(project.path(".agentdeck/skills/parse-request")) == ["SKILL.md"]  # the temporary file is gone
    assert project.path(other).read_text(encoding="utf-8").startswith("---\nname: quote-fare\ndescription: Quote.")
    assert result.err.count("cannot fix") == 1 and "Permission denied" in result.err
    assert "Fixed 1 issue." in result.out and "SK108" in result.out and result.status == 1


def test_a_missing_file_is_never_created_to_silence_its_finding(project: Project) -> None:
    skill = skill_md("quote-fare", body="Read [the rules](references/rules.md) first.\n")
    project.write({".agentdeck/skills/quote-fare/SKILL.md": skill})
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert not project.path(".agentdeck/skills/quote-fare/references").exists()
    assert "SK202" in result.out and "Fixed" not in result.out and "fixable" not in result.out
    assert project.run("check", "--diff", "--unsafe-fixes").out == ""


DESCRIBED = "---\nname: quote\ndescription: \"Quote a fare: the base price, then taxes.\"\n---\n\n"


@pytest.mark.parametrize("body", [
    "Quote a fare: the base price, then taxes.\n\nMore.\n",
    "# Quote\n\n<!-- notes -->\n\n- not a description\n\n```\ncode\n```\n\nQuote a **fare**: the base\nprice, then taxes.\n",
])
def test_a_missing_description_is_the_bodys_first_paragraph(project: Project, body: str) -> None:
    skill = ".agentdeck/skills/quote/SKILL.md"
    project.write({skill: skill_md("quote", description=None, body=body)})
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert (result.status, result.out) == (0, "All checks passed (1 skill, 0 agent definitions).\nFixed 1 issue.\n")
    assert project.path(skill).read_text(encoding="utf-8") == DESCRIBED + body


def test_a_body_without_a_paragraph_gives_no_description_fix(project: Project) -> None:
    skill = ".agentdeck/skills/quote/SKILL.md"
    text = skill_md("quote", description=None, body="# Quote\n\n- step one\n- step two\n")
    project.write({skill: text})
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert "SK106" in result.out and "fixable" not in result.out and "Fixed" not in result.out
    assert project.path(skill).read_text(encoding="utf-8") == text


def test_frontmatter_is_added_with_the_first_paragraph_or_not_at_all(project: Project) -> None:
    project.write({".agentdeck/skills/quote/SKILL.md": "Quote the fare.\n",
                   ".agentdeck/skills/steps/SKILL.md": "# Steps\n\n1. one\n"})
    assert "1 more fixable with --unsafe-fixes" in project.run("check", "--fix").out  # the description is a choice
    assert project.path(".agentdeck/skills/quote/SKILL.md").read_text(encoding="utf-8") == "Quote the fare.\n"
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert project.path(".agentdeck/skills/quote/SKILL.md").read_text(encoding="utf-8") == (
        "---\nname: quote\ndescription: Quote the fare.\n---\n\nQuote the fare.\n")
    # nothing to describe it with: the editor's fix puts the cursor there; the command line writes no placeholder
    assert project.path(".agentdeck/skills/steps/SKILL.md").read_text(encoding="utf-8") == "# Steps\n\n1. one\n"
    assert result.out.rstrip("\n").endswith("Fixed 1 issue.")
    assert ".agentdeck/skills/steps/SKILL.md:1:1: SK101" in result.out


def test_a_key_typo_is_not_fixed_onto_a_key_that_is_there(project: Project) -> None:
    text = "---\nname: quote\ndescription: Quote it.\ndescripton: Quote.\n---\n\nBody.\n"
    project.write({SKILL.replace("parse-request", "quote"): text})
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert "SK111" in result.out and "Fixed" not in result.out
    assert project.path(SKILL.replace("parse-request", "quote")).read_text(encoding="utf-8") == text


def test_a_new_skill_for_an_unknown_name_is_the_editors_fix_alone(project: Project) -> None:
    # its description is the author's to write: `check --fix` never creates it with an empty one
    agent = 'from agentdeck import Agent\n\nbooking = Agent(name="B", skills=["refund-policy"])\n'
    project.write({SKILL: skill_md("parse-request"), "agent.py": agent})
    result = project.run("check", "--fix", "--unsafe-fixes")
    assert "AD101" in result.out and "fixable" not in result.out
    assert not project.path(".agentdeck/skills/refund-policy").exists()


# -- every fix, on every tree the repository holds ----------------------------------------------------------------------

TREES = sorted([REPO / "examples", REPO / "tests" / "lsp" / "project", REPO / "tests" / "agents_project",
                REPO / "tests" / "reliability" / "fixable",
                *(path for path in (REPO / "tests" / "fixtures").iterdir() if path.is_dir())])


def _files(root: Path) -> dict[str, int]:
    return {path.relative_to(root).as_posix(): path.stat().st_size for path in root.rglob("*") if path.is_file()}


@pytest.mark.parametrize("tree", TREES, ids=[tree.relative_to(REPO).as_posix() for tree in TREES])
def test_every_fix_leaves_no_placeholder_and_no_new_finding(project: Project, tree: Path) -> None:
    """`--fix --unsafe-fixes` on a copy of each tree: no finding appears that was not there before (by code,
    and for a file that stays where it was, by file and code), and no file it creates is empty."""
    copy = project.root / tree.name
    shutil.copytree(tree, copy, symlinks=True)
    files = _files(copy)
    before = project.run("check", "--format", "json", cwd=copy).findings
    fixed = project.run("check", "--fix", "--unsafe-fixes", cwd=copy)
    assert fixed.status in (0, 1), fixed.err
    after = project.run("check", "--format", "json", cwd=copy).findings
    new_codes = Counter(codes(after)) - Counter(codes(before))
    assert not new_codes, f"the fixes left new findings: {[f for f in after if f['code'] in new_codes]}"
    new_here = Counter((f["path"], f["code"]) for f in after if f["path"] in files) \
        - Counter((f["path"], f["code"]) for f in before)
    assert not new_here, new_here
    created = {path: size for path, size in _files(copy).items() if path not in files}
    assert all(created.values()), f"empty files created: {[path for path, size in created.items() if not size]}"


# -- --diff and the counts agree with what --fix does ----------------------------------------------------------------

COUNTED = [REPO / "examples", REPO / "tests" / "reliability" / "fixable"]
NOTE = re.compile(r"^(?:(\d+) fixable with `skill-lsp check --fix`\.)? ?(?:(\d+) more fixable with --unsafe-fixes.*)?$")


def _contents(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("tree", COUNTED, ids=[tree.name for tree in COUNTED])
def test_the_fixable_counts_and_the_diff_are_what_fix_does(project: Project, tree: Path, unsafe: bool) -> None:
    copy = project.root / tree.name
    shutil.copytree(tree, copy, symlinks=True)
    flags = ["--unsafe-fixes"] if unsafe else []
    original = _contents(copy)
    # the counts after a check: "N fixable ... M more fixable with --unsafe-fixes"
    note = NOTE.match(project.run("check", cwd=copy).out.rstrip("\n").rsplit("\n", 1)[-1])
    assert note is not None and note.group(1)
    counted = int(note.group(1)) + (int(note.group(2) or 0) if unsafe else 0)
    before = project.run("check", "--format", "json", cwd=copy).findings
    assert counted == sum(1 for f in before if f["fix"] == "safe" or (unsafe and f["fix"] == "unsafe"))
    diff = project.run("check", "--diff", *flags, cwd=copy)
    assert _contents(copy) == original  # --diff writes nothing
    assert f"Would fix {counted} issues." in diff.err

    fixed = project.run("check", "--fix", *flags, cwd=copy)
    assert f"Fixed {counted} issues." in fixed.out
    after = project.run("check", "--format", "json", cwd=copy).findings
    # every finding counted is gone (by code and message: a rename moves its file)
    remaining = Counter((f["code"], f["message"]) for f in after)
    counted_findings = [f for f in before if f["fix"] == "safe" or (unsafe and f["fix"] == "unsafe")]
    assert not [f for f in counted_findings if remaining[(f["code"], f["message"])]]
    # and the diff showed every change --fix made
    now = _contents(copy)
    changed = sorted(path for path in now if path in original and now[path] != original[path])
    created = sorted(path for path in now if path not in original)
    gone = sorted(path for path in original if path not in now)
    assert changed or created or gone
    for path in changed:
        assert f"--- a/{path}\n+++ b/{path}\n" in diff.out, path
    for path in created:  # a new file, or one renamed there
        assert f"--- /dev/null\n+++ b/{path}\n" in diff.out or any(
            f"rename to {moved}\n" in diff.out for moved in (path, *map(str, Path(path).parents))), path
    for path in gone:
        assert any(f"rename from {moved}\n" in diff.out for moved in (path, *map(str, Path(path).parents))), path


def test_the_diff_keeps_the_line_endings_of_the_file(project: Project) -> None:
    project.write({SKILL: "x"})
    project.path(SKILL).write_bytes(b"---\r\nname: parse-reqest\r\ndescription: Parse it.\r\n---\r\n\r\nBody.\r\n")
    diff = project.run("check", "--diff").out
    assert "-name: parse-reqest\r\n+name: parse-request\r\n" in diff


def test_the_diff_of_the_users_own_subagents(tmp_path: Path) -> None:
    """A subagent in ~/.claude/agents is checked against the user's skills: so is --diff's copy of it."""
    home = tmp_path / "home"
    shutil.copytree(REPO / "tests" / "user_agents" / "home", home)
    environment = {"HOME": str(home), "SKILL_LSP_USER_SKILLS_DIR": str(home / ".claude" / "skills")}
    args = ["check", "--unsafe-fixes", ".claude/agents/reviewer.md"]
    before = (home / ".claude/agents/reviewer.md").read_bytes()
    diff = run_cli(*args, "--diff", cwd=home, env=environment)
    assert diff.returncode == 1, diff.stderr
    assert "-skills: [code-reveiw, project-only, tools:lint]\n+skills: [code-review, project-only, tools:lint]\n" in diff.stdout
    assert "Would fix 1 issue." in diff.stderr
    assert (home / ".claude/agents/reviewer.md").read_bytes() == before
    assert "Fixed 1 issue." in run_cli(*args, "--fix", cwd=home, env=environment).stdout
