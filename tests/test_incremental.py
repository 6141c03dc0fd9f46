"""Incremental re-analysis equals a fresh one: random edits to agent files and skill names.

The server re-checks only what an edit affects (an agent file's own agents, a
renamed skill's registries and listers); after any sequence of edits its
findings must be exactly those of a session that analyses the final texts
from scratch.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from skill_lsp.server.session import Session

from .helpers import write_files

NAMES = ["parse-request", "quote-fare", "refund", "check-dates", "parse-reqest", "book-trip"]
AGENTS = [".agentdeck/agents/booking/agent.py", ".agentdeck/agents/support/agent.py", "claude_app/main.py"]


def skill(name: str, label: str) -> str:
    return f"---\nname: {label}\ndescription: Does {name}.\n---\n\nSteps.\n"


def agentdeck_agent(rng: random.Random, variable: str) -> str:
    listed = rng.sample([*NAMES, "book-trp", "unknown"], rng.randint(0, 4))
    if listed and rng.random() < 0.3:
        listed.append(listed[0])
    names = ", ".join(f'"{name}"' for name in listed)
    extra = rng.choice(["", f'\nother_{variable} = Agent(name="Other", instructions="x", skills=["refund"])\n'])
    ignore = rng.choice(["", "  # skill-lsp: ignore[AD101]"])
    return (f"from agentdeck import Agent\n\n{variable} = Agent(name=\"{variable}\", instructions=\"Help.\", "
            f"skills=[{names}]){ignore}\n{extra}")


def claude_agent(rng: random.Random) -> str:
    listed = rng.sample([*NAMES, "*", "plugin:*", "nope"], rng.randint(0, 3))
    names = ", ".join(f'"{name}"' for name in listed)
    return f'from claude_agent_sdk import ClaudeAgentOptions\n\noptions = ClaudeAgentOptions(skills=[{names}])\n'


def project(root: Path) -> None:
    files = {}
    for name in NAMES[:4]:
        files[f".agentdeck/skills/{name}/SKILL.md"] = skill(name, name)
    for name in NAMES[2:]:
        files[f".claude/skills/{name}/SKILL.md"] = skill(name, name)
    files["skills/book-trip/SKILL.md"] = skill("book-trip", "book-trip")
    files[AGENTS[0]] = 'from agentdeck import Agent\n\nbooking = Agent(name="b", instructions="x", skills=["refund"])\n'
    files[AGENTS[1]] = 'from agentdeck import Agent\n\nsupport = Agent(name="s", instructions="x", skills=["quote-fare"])\n'
    files[AGENTS[2]] = claude_agent(random.Random(0))
    files["deck.py"] = ('from agentdeck import Deck\nfrom .agentdeck.agents.booking.agent import booking\n\n'
                        'deck = Deck(agents=[booking], skills=["./.agentdeck/skills", "./skills"])\n')
    write_files(root, files)


@pytest.mark.parametrize("seed", range(8))
def test_incremental_equals_fresh(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    project(tmp_path)
    live = Session([tmp_path])
    live.full_analysis()
    texts: dict[Path, str] = {}
    for _ in range(30):
        action = rng.choice(["agent", "agent", "claude", "rename", "rename-back", "describe"])
        if action == "agent":
            which = rng.choice(AGENTS[:2])
            path = tmp_path / which
            text = agentdeck_agent(rng, "booking" if "booking" in which else "support")
        elif action == "claude":
            path = tmp_path / AGENTS[2]
            text = claude_agent(rng)
        else:
            skills = [*sorted((tmp_path / ".agentdeck/skills").glob("*/SKILL.md")), tmp_path / "skills/book-trip/SKILL.md"]
            path = rng.choice(skills)
            name = path.parent.name
            label = {"rename": rng.choice([*NAMES, name + "-x", "Bad Name"]), "rename-back": name}.get(action, name)
            text = skill(name, label) if action != "describe" else skill(name, name).replace("Does", "Now does")
        edit(live, texts, path, text)
    assert_equals_fresh(live, texts, tmp_path)


def edit(live: Session, texts: dict[Path, str], path: Path, text: str) -> None:
    """An editor's edit of path, re-analysed incrementally (texts keeps the last text of each file)."""
    texts[path] = text
    live.set_text(path, text)
    live.reanalyse(path)


def assert_equals_fresh(live: Session, texts: dict[Path, str], root: Path) -> None:
    """The live session's findings are those of a session that analyses the final texts from scratch."""
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    fresh = Session([root])
    fresh.full_analysis()
    assert _comparable(live) == _comparable(fresh)


def _comparable(session: Session) -> dict[str, list[tuple[str, int, int, str, str]]]:
    return {
        str(path): [(f.code, f.span.start.line, f.span.start.column, f.message, repr(sorted(str(r.path) for r in f.related)))
                    for f in findings]
        for path, findings in sorted(session.findings.items())
    }
