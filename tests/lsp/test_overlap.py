"""SK310 over the protocol: the warnings on an agent's list entries and the information on both SKILL.md files,
and both kept up to date when one description is edited (the other files' diagnostics are published again)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import change_document, diagnostics_for, encoding_of, position_of
from .test_agent_definitions import open_file, range_of

PROJECT = Path(__file__).parents[1] / "overlap_project"
AGENT = "agent.py"
PDF = ".agentdeck/skills/pdf/SKILL.md"
PDF_TOOLS = ".agentdeck/skills/pdf-tools/SKILL.md"

pytestmark = pytest.mark.shared_server


@pytest.fixture(scope="module")
def lsp_project() -> Path:
    return PROJECT


def sk310(items: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return sorted((item for item in items if item.code == "SK310"), key=lambda item: item.range.start.character)


async def test_alike_descriptions_on_the_list_entries_and_both_skills(client: LanguageClient, workspace: Path) -> None:
    encoding = encoding_of(client)
    agent, pdf, tools = workspace / AGENT, workspace / PDF, workspace / PDF_TOOLS
    for path in (agent, pdf, tools):
        open_file(client, path)
    entries = sk310(await diagnostics_for(client, agent, lambda items: len(sk310(items)) == 2))
    assert [item.range for item in entries] == [range_of(agent, '"pdf"', encoding), range_of(agent, '"pdf-tools"', encoding)]
    assert all(item.severity == types.DiagnosticSeverity.Warning for item in entries)
    assert "'pdf' and 'pdf-tools'" in entries[0].message and "'pdf-tools' and 'pdf'" in entries[1].message
    assert '"extract text and tables from pdf files fill pdf forms and merge"' in entries[0].message
    (on_pdf,) = sk310(await diagnostics_for(client, pdf, lambda items: len(sk310(items)) == 1))
    description = "Extract text and tables from PDF files, fill PDF forms and merge several PDFs into one document."
    assert on_pdf.range == types.Range(start=position_of(pdf, description, 0, encoding),
                                       end=position_of(pdf, description, len(description), encoding))
    assert on_pdf.severity == types.DiagnosticSeverity.Information
    assert "'pdf-tools' (.agentdeck/skills/pdf-tools/SKILL.md, " in on_pdf.message and "the agent 'support'" in on_pdf.message
    (on_tools,) = sk310(await diagnostics_for(client, tools, lambda items: len(sk310(items)) == 1))
    assert "'pdf' (.agentdeck/skills/pdf/SKILL.md, " in on_tools.message


async def test_an_edit_that_sets_one_apart_clears_the_pair_everywhere(client: LanguageClient, workspace: Path) -> None:
    agent, pdf, tools = workspace / AGENT, workspace / PDF, workspace / PDF_TOOLS
    for path in (agent, pdf, tools):
        open_file(client, path)
    await diagnostics_for(client, pdf, lambda items: len(sk310(items)) == 1)
    text = tools.read_text(encoding="utf-8")
    apart = text.replace("Extract text and tables from PDF files, fill PDF forms, and merge PDFs into one document quickly.",
                         "Draft slide decks with speaker notes from an outline.")
    change_document(client, tools, apart, 2)
    # the other skill and the agent file were not edited: their diagnostics are published again without it
    assert sk310(await diagnostics_for(client, pdf, lambda items: not sk310(items))) == []
    assert sk310(await diagnostics_for(client, agent, lambda items: not sk310(items))) == []
    change_document(client, tools, text, 3)
    assert len(sk310(await diagnostics_for(client, pdf, lambda items: len(sk310(items)) == 1))) == 1
    assert len(sk310(await diagnostics_for(client, agent, lambda items: len(sk310(items)) == 2))) == 2


async def test_an_edit_in_other_words_with_the_same_terms_names_the_new_shared_phrase(client: LanguageClient,
                                                                                      workspace: Path) -> None:
    """A common word added to a description leaves its terms as they were but not the wording the two share: the
    agent's entries name the new shared phrase, as a fresh start would."""
    agent, pdf, tools = workspace / AGENT, workspace / PDF, workspace / PDF_TOOLS
    for path in (agent, pdf, tools):
        open_file(client, path)
    old = '"extract text and tables from pdf files fill pdf forms and merge"'
    new = '"text and tables from pdf files fill pdf forms and merge"'
    await diagnostics_for(client, agent, lambda items: len(sk310(items)) == 2 and old in sk310(items)[0].message)
    text = tools.read_text(encoding="utf-8")
    reworded = text.replace("Extract text and tables", "Extract the text and tables")
    assert reworded != text
    change_document(client, tools, reworded, 2)
    entries = sk310(await diagnostics_for(client, agent, lambda items: len(sk310(items)) == 2 and new in sk310(items)[0].message))
    assert all(new in item.message and old not in item.message for item in entries)
    change_document(client, tools, text, 3)
    await diagnostics_for(client, agent, lambda items: len(sk310(items)) == 2 and old in sk310(items)[0].message)
