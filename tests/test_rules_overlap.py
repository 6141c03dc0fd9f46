"""SK310 overlapping-descriptions: two skills of one choice whose descriptions the model cannot tell apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_lsp import overlap
from skill_lsp.config import Config
from skill_lsp.rules import file_findings, run_rules
from skill_lsp.skillfile import parse_skill
from skill_lsp.workspace import Workspace

from .helpers import having, skill_md, where, write_files

PDF = "Extract text and tables from PDF files, fill PDF forms and merge several PDFs into one document."
PDF_TOO = "Extract text and tables from PDF files, fill PDF forms, and merge PDFs into one document quickly."
SHEETS = "Build spreadsheets with formulas, pivot tables and charts from CSV exports."
SLIDES = "Draft slide decks with speaker notes from an outline."

AGENT = '''
from agentdeck import Agent

support = Agent(
    name="support",
    instructions="Help.",
    skills=["pdf", "sheets", "pdf-tools"],
)
'''


def _agentdeck(pdf_tools: str = PDF_TOO) -> dict[str, str]:
    return {
        "agent.py": AGENT,
        ".agentdeck/skills/pdf/SKILL.md": skill_md("pdf", PDF),
        ".agentdeck/skills/pdf-tools/SKILL.md": skill_md("pdf-tools", pdf_tools),
        ".agentdeck/skills/sheets/SKILL.md": skill_md("sheets", SHEETS),
    }


def test_sk310_warns_on_both_entries_of_an_agents_list(check_project):
    findings = having(check_project(_agentdeck()), "SK310")
    entries = sorted((f for f in findings if f["path"] == "agent.py"), key=where)
    assert [where(f) for f in entries] == [(6, 13, 6, 18), (6, 30, 6, 41)]  # "pdf" and "pdf-tools"
    assert all(f["severity"] == "warning" for f in entries)
    first, second = entries
    assert "'pdf' and 'pdf-tools' (line 6)" in first["message"]
    assert "'pdf-tools' and 'pdf' (line 6)" in second["message"]
    assert '"extract text and tables from pdf files fill pdf forms and merge"' in first["message"]
    assert "sheets" not in first["message"] + second["message"]


def test_sk310_information_on_both_skill_files_naming_the_other(check_project):
    findings = having(check_project(_agentdeck()), "SK310")
    on_skills = {f["path"]: f for f in findings if f["path"].endswith("SKILL.md")}
    assert sorted(on_skills) == [".agentdeck/skills/pdf-tools/SKILL.md", ".agentdeck/skills/pdf/SKILL.md"]
    pdf = on_skills[".agentdeck/skills/pdf/SKILL.md"]
    assert pdf["severity"] == "information"
    assert where(pdf) == (3, 14, 3, 14 + len(PDF))  # the description's value
    assert "'pdf-tools' (.agentdeck/skills/pdf-tools/SKILL.md, " in pdf["message"] and "the agent 'support'" in pdf["message"]
    assert '"extract text and tables from pdf files fill pdf forms and merge"' in pdf["message"]
    assert "'pdf' (.agentdeck/skills/pdf/SKILL.md, " in on_skills[".agentdeck/skills/pdf-tools/SKILL.md"]["message"]


def test_sk310_quiet_when_the_descriptions_say_different_things(check_project):
    findings = check_project(_agentdeck(pdf_tools=SLIDES))
    assert having(findings, "SK310") == []


def test_sk310_a_shared_template_makes_no_pair_alike(check_project):
    """A collection whose every description opens with the same long sentence: rarity within the choice
    leaves that sentence out, and the skills' own words differ."""
    template = ("Part of the Acme operations toolkit maintained by the platform team for internal engineers on call. "
                "{} Use when working on Acme services.")
    own = ["Rotate database credentials.", "Restart a stuck deployment.", "Page the owner of a failing service.",
           "Open an incident channel.", "Roll back the last release.", "Scale a worker pool."]
    files = {f".claude/skills/ops-{index}/SKILL.md": skill_md(f"ops-{index}", template.format(text))
             for index, text in enumerate(own)}
    assert having(check_project(files), "SK310") == []


def test_sk310_in_a_projects_claude_skills_without_any_list(check_project):
    findings = having(check_project({
        ".claude/skills/pdf/SKILL.md": skill_md("pdf", PDF),
        ".claude/skills/pdf-tools/SKILL.md": skill_md("pdf-tools", PDF_TOO),
        ".claude/skills/sheets/SKILL.md": skill_md("sheets", SHEETS),
    }), "SK310")
    assert sorted(f["path"] for f in findings) == [".claude/skills/pdf-tools/SKILL.md", ".claude/skills/pdf/SKILL.md"]
    assert all("the skills of .claude/skills/" in f["message"] for f in findings)


def test_sk310_a_session_and_a_subagent_list(check_project):
    findings = having(check_project({
        "app.py": '''
            from claude_agent_sdk import AgentDefinition, ClaudeAgentOptions

            options = ClaudeAgentOptions(
                skills=["pdf", "pdf-tools"],
                agents={"reader": AgentDefinition(description="Reads.", prompt="Read.", skills=["pdf", "pdf-tools"])},
            )
        ''',
        ".claude/skills/pdf/SKILL.md": skill_md("pdf", PDF),
        ".claude/skills/pdf-tools/SKILL.md": skill_md("pdf-tools", PDF_TOO),
    }), "SK310")
    lines = sorted(where(f)[0] for f in findings if f["path"] == "app.py")
    assert lines == [4, 4, 5, 5]  # both entries of the session's list and of the subagent's


def test_sk310_can_be_ignored(check_project):
    assert having(check_project(_agentdeck(), "--ignore", "SK310"), "SK310") == []


def test_overlapping_pairs_of_one_agent(tmp_path: Path):
    write_files(tmp_path, _agentdeck())
    model = Workspace([tmp_path]).build()
    (agent,) = model.agents
    pairs = overlap.overlapping_pairs(model, agent)
    (pair,) = pairs
    assert {pair.first.key, pair.second.key} == {"pdf", "pdf-tools"}
    assert overlap.THRESHOLD <= pair.score <= 1
    assert pair.phrase == "extract text and tables from pdf files fill pdf forms and merge"
    assert "pdf" in pair.words


def test_an_edit_that_trades_two_shared_words_weights_tells_the_pair_anew():
    """Two words a pair shares trade their numbers of holders (5 and 6) after an edit elsewhere: the pair's score
    is the same sum, yet the rarer word, named first, is the other one now, as a fresh choice names it."""

    class Skill:  # what a Choice reads of a skill
        def __init__(self, name: str, description: str) -> None:
            self.path = Path(f"/p/{name}/SKILL.md")
            self.description = description

    pair = [Skill("a", "alpha beta"), Skill("b", "alpha beta")]
    alphas = [Skill(f"c{index}", f"alpha zeta{index}") for index in range(3)]
    betas = [Skill(f"d{index}", f"beta zeta{index}") for index in range(4)]
    others = [Skill(f"e{index}", f"gamma{index} delta{index}") for index in range(16)]
    skills = pair + alphas + betas + others  # 25: a large choice, its index kept through the edit
    choice = overlap.Choice(skills, "the skills")
    (before,) = choice.pairs()
    assert before.words == ("alpha", "beta")
    betas[0].description = "alpha omega"  # alpha: 6 holders, beta: 5
    choice.update(betas[0])
    (after,) = choice.pairs()
    (fresh,) = overlap.Choice(skills, "the skills").pairs()
    assert after.score == before.score == fresh.score
    assert after.words == fresh.words == ("beta", "alpha")


class _Described:  # what a Choice reads of a skill
    def __init__(self, name: str, description: str) -> None:
        self.path = Path(f"/p/{name}/SKILL.md")
        self.description = description


@pytest.mark.parametrize("others", [0, 30])  # a small choice (judged whole) and a large one (its index)
def test_an_edit_in_other_words_with_the_same_terms_names_the_new_phrase(others: int):
    """A description edited without a change to its terms (a common word added) names another shared phrase:
    the edited choice says what a fresh one says."""
    pair = [_Described("a", "Extract tables from PDF files quickly"), _Described("b", "Extract tables from PDF files quickly")]
    skills = pair + [_Described(f"o{index}", f"gamma{index} delta{index}") for index in range(others)]
    choice = overlap.Choice(skills, "the skills")
    (before,) = choice.pairs()
    assert before.phrase == "extract tables from pdf files quickly"
    pair[0].description = "Extract the tables from PDF files quickly"
    assert choice.update(pair[0]) == set(pair)
    (after,) = choice.pairs()
    (fresh,) = overlap.Choice(skills, "the skills").pairs()
    assert after.phrase == fresh.phrase == "tables from pdf files quickly"


@pytest.mark.parametrize("repeats", [3, 6])  # a small choice (judged whole) and a large one (its index)
def test_an_edited_description_gives_what_a_fresh_model_gives(tmp_path: Path, repeats: int):
    """Choice.update is exact: after each edit the incremental findings equal a fresh build's."""
    queues = [f"Handle the {word} queue for the ops team." for word in ("billing", "refunds", "payroll", "audit",
                                                                           "tax", "hiring")]
    texts = [PDF, PDF_TOO, SHEETS, SLIDES] + queues * repeats
    write_files(tmp_path, {f".claude/skills/s{index}/SKILL.md": skill_md(f"s{index}", text)
                           for index, text in enumerate(texts)})
    model = Workspace([tmp_path]).build()
    assert overlap.choices_of(model).involved()  # the choices are made
    target = model.skills[tmp_path / ".claude/skills/s3/SKILL.md"]
    seen = set()
    for text in [PDF, SHEETS + " Also PDF files.", PDF_TOO, queues[0], "Handle billing.", SLIDES]:
        old_description, old_key, old_name = target.description, target.key, target.name
        target.path.write_text(skill_md("s3", text), encoding="utf-8")
        target.file = parse_skill(target.path.read_text(encoding="utf-8"))
        affected = overlap.skill_changed(model, target, old_description, old_key, old_name)
        fresh = run_rules(Workspace([tmp_path]).build(), Config())
        expected = {path: [f.message for f in found if f.code == "SK310"] for path, found in fresh.items()}
        got = {path: [f.message for f in file_findings(model, path, Config()) if f.code == "SK310"]
               for path in model.skills}
        assert {path: found for path, found in got.items() if found} == \
            {path: found for path, found in expected.items() if found}
        seen |= affected
    assert tmp_path / ".claude/skills/s0/SKILL.md" in seen  # s3 was alike s0, then not
