"""The server keeps only facts and own findings of the skills that are not open, and stays exact."""

from __future__ import annotations

import gc
import os
import shutil
import weakref
from pathlib import Path

import pytest

from skill_lsp.config import Config
from skill_lsp.rules import run_rules
from skill_lsp.rules import skills as skill_rules
from skill_lsp.rules.report import Reporter
from skill_lsp.server.session import Session, collected_after
from skill_lsp.workspace import Workspace

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


def test_a_new_full_analysis_lets_the_previous_model_go_without_the_cycle_collector(tmp_path: Path) -> None:
    """The model is frozen out of the cycle collector between full analyses, and the next one does
    not collect the whole heap (it held every request for 0.13-0.36 s): the previous model must be
    freed by its references alone, the moment the session lets it go."""
    write_files(tmp_path, {
        ".agentdeck/skills/refund/SKILL.md": "---\nname: refund\ndescription: Refund an order.\n---\n\nSteps.\n",
        "agent.py": 'from agentdeck import Agent\n\na = Agent(name="a", instructions="x", skills=["refund"])\n',
    })
    session = Session([tmp_path])
    collecting = gc.isenabled()
    try:
        session.full_analysis()
        assert gc.get_freeze_count() > 0
        first = weakref.ref(session.model)
        gc.disable()  # (no collection may free it)
        session.full_analysis()
        assert first() is None and session.model is not None
    finally:
        if collecting:
            gc.enable()
        gc.unfreeze()


def test_frozen_cyclic_garbage_is_collected_now_and_then(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What was frozen alive with a model and has since become cyclic garbage is left to a full
    analysis that collects the whole heap, at most every WHOLE_COLLECTION_EVERY seconds."""
    from skill_lsp.server import session as sessions

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    write_files(tmp_path, {".agentdeck/skills/refund/SKILL.md": "---\nname: refund\ndescription: Refund an order.\n---\n\nSteps.\n"})
    session = Session([tmp_path])
    try:
        session.full_analysis()
        cycle = Cycle()
        gc.freeze()  # (as the next full analysis would freeze it, alive)
        garbage = weakref.ref(cycle)
        del cycle
        session.full_analysis()
        assert garbage() is not None  # not yet: the whole heap was collected less than ten minutes ago
        monkeypatch.setattr(sessions, "WHOLE_COLLECTION_EVERY", 0.0)
        session.full_analysis()
        assert garbage() is None
    finally:
        gc.unfreeze()


def test_a_full_analysis_leaves_no_cyclic_garbage() -> None:
    """What the previous test relies on, over every kind of file the tests hold (each runtime's
    skills and agents, broken frontmatter, undecodable bytes, TypeScript, plugins): neither a model
    nor what its build leaves behind holds a reference cycle. Frozen, a cycle would stay for good."""
    tests = Path(__file__).resolve().parent
    session = Session([tests, EXAMPLES])
    flags = gc.get_debug()
    try:
        session.full_analysis()
        gc.unfreeze()
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept in gc.garbage
        session.full_analysis()
        assert session.model is not None and len(session.model.skills) > 20
        gc.unfreeze()
        gc.collect()
        found = [type(thing).__name__ for thing in gc.garbage]
        assert found == []
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
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


def test_the_load_verdicts_come_from_the_frontmatter_rules_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The code lens and the frontmatter's hover show each runtime's load verdict. No rule of the body
    weighs a runtime's loading, so the verdicts never run them: a body of 5,000 links cost 0.43 s of
    the loop for each code lens of its SKILL.md."""
    links = " ".join(f"[part {number}](references/missing-{number}.md)" for number in range(50))
    write_files(tmp_path, {".claude/skills/refund/SKILL.md": f"---\nname: Refund Orders\n---\n\n{links}\n"})
    session = Session([tmp_path])
    session.full_analysis()
    assert session.model is not None
    skill = session.model.skills[tmp_path / ".claude/skills/refund/SKILL.md"]
    everything = Reporter(Config())
    skill_rules.check_skill(None, skill, everything, {})
    weighed = [finding.code for finding in everything.findings if "verdicts" in finding.data]
    unweighed = {finding.code for finding in everything.findings if "verdicts" not in finding.data}
    assert weighed and "SK202" in unweighed  # the frontmatter's problems weigh; the body's links do not
    with monkeypatch.context() as patched:  # the verdicts as they were when the body's rules ran too
        check = skill_rules.check_skill
        patched.setattr(skill_rules, "check_skill", lambda *args, body=True: check(*args))
        with_body = skill_rules.load_verdicts(skill)
    body_rules: list[object] = []
    real = skill_rules.check_body
    monkeypatch.setattr(skill_rules, "check_body", lambda *args: body_rules.append(args) or real(*args))
    verdicts = skill_rules.load_verdicts(skill)
    assert body_rules == []
    assert verdicts == with_body and any(consequence is not None for _, consequence, _ in verdicts)


def test_a_superseded_analysis_stops_its_walk_and_keeps_nothing_of_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change of folders while the first index walks a huge tree (40,000 directories out of the page
    cache: 14-34 s): the walk stops at its next directory, the session keeps neither it nor a model,
    and the next analysis walks the tree whole."""
    from skill_lsp import discovery
    from skill_lsp.server.indexing import Superseded

    write_files(tmp_path, {f"skills/s{number:03d}/SKILL.md": f"---\nname: s{number:03d}\ndescription: Do it.\n---\nBody.\n"
                           for number in range(120)})
    real_scandir = os.scandir
    listed: list[str] = []
    obsolete = [False]
    changing = [True]

    def scandir(path: str):  # type: ignore[no-untyped-def]
        listed.append(path)
        if changing[0] and len(listed) == 5:
            obsolete[0] = True  # the folders changed meanwhile
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    session = Session([tmp_path])
    session.superseded = lambda: obsolete[0]
    with pytest.raises(Superseded):
        session.full_analysis()
    assert len(listed) == 5  # not one directory more (the tree has 122)
    assert session.model is None and not session.findings
    obsolete[0] = changing[0] = False
    listed.clear()
    session.full_analysis()
    assert len(listed) >= 122 and session.model is not None and len(session.model.skills) == 120
