"""`skill-lsp new`: a SKILL.md that every runtime of its root accepts, checked clean by `skill-lsp check`, never over
an existing file, with a clear error for an invalid name, a place no runtime reads or a name a Deck already has."""

from __future__ import annotations

import pytest

from .helpers import Project, skill_md

DESCRIPTION = "Extract text and tables from PDF files: forms too. Use when the user asks about a PDF."


@pytest.mark.parametrize(
    ("root", "runtimes"),
    [
        (".claude/skills", "Claude Code and VS Code Copilot"),
        (".agents/skills", "Codex and VS Code Copilot"),
        (".github/skills", "VS Code Copilot"),
        (".agentdeck/skills", "AgentDeck"),
    ],
)
def test_a_new_skill_in_each_root_is_checked_clean(project: Project, root: str, runtimes: str) -> None:
    project.write({".git/HEAD": "ref: refs/heads/main\n"})
    result = project.run("new", f"{root}/pdf-tools", "--description", DESCRIPTION)
    assert (result.status, result.out, result.err) == (0, f"created {root}/pdf-tools/SKILL.md, for {runtimes}\n", "")
    text = project.path(f"{root}/pdf-tools/SKILL.md").read_text(encoding="utf-8")
    # the description has ': ', so it is quoted (plain, YAML would read a second key)
    assert text.startswith(f'---\nname: pdf-tools\ndescription: "{DESCRIPTION}"\n---\n\n# Pdf Tools\n\n')
    checked = project.run("check", "--extend-select", "ALL", "--ignore", "SK303")  # every rule, but "no agent lists it"
    assert (checked.status, checked.out) == (0, "All checks passed (1 skill, 0 agent definitions).\n"), checked.out


def test_a_bare_name_goes_to_the_one_root_of_the_current_directory(project: Project) -> None:
    project.write({".claude/skills/other/SKILL.md": skill_md("other")})
    result = project.run("new", "csv-clean", "-d", "Clean a CSV file. Use when a CSV will not load.")
    assert result.out == "created .claude/skills/csv-clean/SKILL.md, for Claude Code and VS Code Copilot\n"
    assert "description: Clean a CSV file. Use when a CSV will not load.\n" in project.path(
        ".claude/skills/csv-clean/SKILL.md").read_text(encoding="utf-8")
    (project.root / ".agents/skills").mkdir(parents=True)
    both = project.run("new", "other-one", "-d", "Another. Use for another.")
    assert both.status == 2
    assert both.err.endswith("skill-lsp new: error: other-one: the current directory has 2 skill roots (.claude/skills, "
                             ".agents/skills); give the skill's path, e.g. skill-lsp new .claude/skills/other-one\n")


def test_a_deck_root_and_a_name_the_deck_has_already(project: Project) -> None:
    project.write({"agent.py": 'from agentdeck import Agent, Deck\n\nhelper = Agent(name="H", instructions="Help.", '
                               'skills=["quote"])\ndeck = Deck(agents=[helper], skills=["./skills", "./more"])\n',
                   "skills/quote/SKILL.md": skill_md("quote")})
    created = project.run("new", "more/summary", "-d", "Summarise a booking. Use when asked for a summary.")
    assert created.out == "created more/summary/SKILL.md, for AgentDeck\n"
    again = project.run("new", "more/quote", "-d", "Quote a fare. Use when a fare is asked for.")
    assert again.status == 2
    assert "more/quote/SKILL.md is not written: skill-lsp check would report\n  SK301 the skill 'quote' is also defined " \
           "at skills/quote/SKILL.md;" in again.err
    assert not project.path("more/quote").exists()


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("PDF_Tools", "invalid skill name 'PDF_Tools': it must be lowercase (a name is 1-64 lowercase letters, digits "
                      "and single '-' between them, and the directory's name); for example 'pdf-tools'"),
        ("pdf--tools", "invalid skill name 'pdf--tools': it must not contain consecutive hyphens '--'"),
        ("-pdf", "invalid skill name '-pdf': it must not start or end with '-'"),
        ("café", "invalid skill name 'café': only lowercase ASCII letters, digits and '-' are allowed"),
        ("x" * 65, f"invalid skill name '{'x' * 65}': it is 65 characters long; at most 64 are allowed"),
    ],
)
def test_an_invalid_name_is_refused_and_nothing_written(project: Project, name: str, error: str) -> None:
    project.write({".claude/skills/.keep": ""})
    result = project.run("new", f".claude/skills/{name}", "-d", DESCRIPTION)
    assert result.status == 2
    assert result.err.startswith("usage: skill-lsp new ")
    assert f"skill-lsp new: error: {error}" in result.err
    assert sorted(path.name for path in (project.root / ".claude/skills").iterdir()) == [".keep"]


def test_nothing_is_overwritten(project: Project) -> None:
    project.write({".claude/skills/pdf-tools/SKILL.md": "---\nname: pdf-tools\ndescription: Mine.\n---\n\nMine.\n"})
    result = project.run("new", ".claude/skills/pdf-tools", "-d", DESCRIPTION)
    assert result.status == 2
    assert result.err.endswith("skill-lsp new: error: .claude/skills/pdf-tools/SKILL.md exists; nothing is overwritten\n")
    assert "Mine." in project.path(".claude/skills/pdf-tools/SKILL.md").read_text(encoding="utf-8")


def test_a_place_no_runtime_reads_and_a_description_a_runtime_refuses(project: Project) -> None:
    project.write({".git/HEAD": "ref: refs/heads/main\n"})
    nowhere = project.run("new", "docs/pdf-tools", "-d", DESCRIPTION)
    assert nowhere.status == 2
    assert "docs/pdf-tools/SKILL.md is not written: skill-lsp check would report\n  SK302 no skill root discovers" in nowhere.err
    long = project.run("new", ".agents/skills/pdf-tools", "-d", "Extract text. " * 80)
    assert long.status == 2 and "SK1" in long.err and "1024" in long.err, long.err
    assert not (project.root / "docs").exists() and not (project.root / ".agents/skills/pdf-tools").exists()
    empty = project.run("new", ".agents/skills/pdf-tools", "-d", "  ")
    assert empty.err.endswith("error: the description is empty: say what the skill does and when to use it\n")


def test_the_command_is_offered_for_a_misspelt_option(project: Project) -> None:
    result = project.run("new", "x", "--descripton", "y")
    assert result.status == 2
    assert result.err.endswith("skill-lsp new: error: unrecognized arguments: --descripton y; did you mean --description?\n")
    missing = project.run("new", "x")
    assert missing.err.endswith("skill-lsp new: error: give the skill's --description: what it does and when to use it, "
                                "the text the model decides from whether the skill applies\n")
