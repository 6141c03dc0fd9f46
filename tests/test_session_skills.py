"""The server keeps only facts and own findings of the skills that are not open, and stays exact."""

from __future__ import annotations

import gc
import os
import shutil
import weakref
from pathlib import Path

import pytest

from skill_lsp.config import Config
from skill_lsp.index import Model, Workspace
from skill_lsp.rules import run_rules
from skill_lsp.server.session import Session, collected_after

from .helpers import write_files

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _comparable(findings: dict[Path, list]) -> dict[str, list[tuple[object, ...]]]:  # type: ignore[type-arg]
    return {str(path): [(f.code, f.span, f.message, f.related, f.fixes, f.data) for f in found]
            for path, found in sorted(findings.items())}


def test_the_server_finds_what_check_finds(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    folders = [tmp_path / "examples"]
    session = Session(folders)
    session.full_analysis()
    assert session.findings
    assert _comparable(session.findings) == _comparable(run_rules(Workspace(folders).build(), Config()))


def test_unopened_skills_keep_no_parse_until_a_feature_asks(tmp_path: Path) -> None:
    write_files(tmp_path, {
        ".agentdeck/skills/refund/SKILL.md": "---\nname: refund\ndescription: Refund an order.\n---\n\nSteps.\n",
        ".agentdeck/skills/quote/SKILL.md": "---\nname: quote\ndescription: Quote a fare.\n---\n\nSteps.\n",
    })
    session = Session([tmp_path])
    opened = tmp_path / ".agentdeck/skills/quote/SKILL.md"
    session.set_text(opened, opened.read_text(encoding="utf-8"), 1)
    session.full_analysis()
    assert session.model is not None
    closed = session.model.skills[tmp_path / ".agentdeck/skills/refund/SKILL.md"]
    assert closed._file is None and closed.local_findings is not None
    assert session.model.skills[opened]._file is not None  # open: its parse serves the editor
    assert closed.description == "Refund an order."  # one of its facts: completion offers it without a read
    assert closed._file is None
    assert closed.file.fields["name"].value_span == closed.facts.name_span  # read again on demand


def test_a_new_full_analysis_lets_the_previous_model_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model is frozen out of the cycle collector between full analyses; the next one must
    still free it, reference cycles included (frozen cyclic garbage would otherwise stay for good)."""

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    probes: list[weakref.ref[Cycle]] = []
    real_build = Workspace.build

    def build(self: Workspace) -> Model:
        model = real_build(self)
        probe = Cycle()  # a cycle that only this model holds, as a model's own cycles would be
        model.__dict__["probe"] = probe
        probes.append(weakref.ref(probe))
        return model

    monkeypatch.setattr(Workspace, "build", build)
    write_files(tmp_path, {
        ".agentdeck/skills/refund/SKILL.md": "---\nname: refund\ndescription: Refund an order.\n---\n\nSteps.\n",
        "agent.py": 'from agentdeck import Agent\n\na = Agent(name="a", instructions="x", skills=["refund"])\n',
    })
    session = Session([tmp_path])
    try:
        session.full_analysis()
        assert gc.get_freeze_count() > 0
        session.full_analysis()
        assert probes[0]() is None and probes[1]() is not None
    finally:
        gc.unfreeze()


def test_analyses_are_reused_until_their_directories_change(tmp_path: Path) -> None:
    write_files(tmp_path, {
        ".agentdeck/skills/refund/SKILL.md": "---\nname: refund\ndescription: Refund an order.\n---\n\nSee [the form](form.md).\n",
    })
    skill = tmp_path / ".agentdeck/skills/refund/SKILL.md"
    # written long ago (an analysis of a file changed in the last seconds is not kept: a later change
    # within the clock's granularity would not move its mtime)
    for path in (skill, skill.parent, skill.parent.parent):
        os.utime(path, (1_600_000_000, 1_600_000_000))
    session = Session([tmp_path])
    session.full_analysis()
    assert [f.code for f in session.findings[skill]] == ["SK202"]
    assert session.model is not None
    facts = session.model.skills[skill].facts
    session.full_analysis(rescan=False)
    assert session.model.skills[skill].facts is facts  # not analysed again
    # the link's target appears: the skill's directory changed, so its analysis is redone
    (skill.parent / "form.md").write_text("A form.\n", encoding="utf-8")
    session.full_analysis()
    assert skill not in session.findings


def test_an_analysis_runs_without_the_cycle_collector_and_collects_when_done() -> None:
    """A keystroke in a list of 20,000 unknown names set off collections of the whole heap over and
    over: the worker's jobs run with the collector off, and collect what they left at their end."""

    class Node:
        pass

    assert gc.isenabled()
    with collected_after():
        assert not gc.isenabled()
        node = Node()
        node.loop = node  # type: ignore[attr-defined]
        alive = weakref.ref(node)
        del node
        gc_free = alive() is not None  # no collection meanwhile
    assert gc_free and alive() is None and gc.isenabled()
    gc.disable()
    try:
        with collected_after():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()
