"""Incremental re-analysis of subagent files, AgentDefinitions and TypeScript agents equals a fresh one."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from skill_lsp.server.session import Session

from .helpers import write_files
from .test_incremental import assert_equals_fresh, edit

NAMES = ["review", "notes", "triage", "revew", "Release notes", "nope"]
FILES = [".claude/agents/helper.md", "app/agent.ts", "app/agents.py"]


def listed(rng: random.Random) -> list[str]:
    return rng.sample(NAMES, rng.randint(0, 3))


def subagent(rng: random.Random) -> str:
    names = "\n".join(f"  - {name}" for name in listed(rng))
    return f"---\nname: helper\ndescription: Helps.\nskills:\n{names}\n---\nHelp.\n" if names else "---\nname: helper\n---\n"


def script(rng: random.Random) -> str:
    names = ", ".join(f'"{name}"' for name in listed(rng))
    inner = ", ".join(f'"{name}"' for name in listed(rng))
    return ("import { query } from '@anthropic-ai/claude-agent-sdk';\n"
            f"query({{ prompt: 'x', options: {{ skills: [{names}], agents: {{ a: {{ description: 'd', prompt: 'p', "
            f"skills: [{inner}] }} }} }} }});\n")


def python(rng: random.Random) -> str:
    names = ", ".join(f'"{name}"' for name in listed(rng))
    return ("from claude_agent_sdk import AgentDefinition, ClaudeAgentOptions\n"
            f"helper = AgentDefinition(description='d', prompt='p', skills=[{names}])\n"
            + rng.choice(["options = ClaudeAgentOptions(agents={'helper': helper})\n", ""]))


def skill(label: str) -> str:
    return f"---\nname: {label}\ndescription: Does it.\n---\n\nSteps.\n"


@pytest.mark.parametrize("seed", range(6))
def test_incremental_equals_fresh(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    write_files(tmp_path, {
        **{f".claude/skills/{name}/SKILL.md": skill(name) for name in ("review", "notes", "triage")},
        FILES[0]: subagent(rng), FILES[1]: script(rng), FILES[2]: python(rng),
    })
    live = Session([tmp_path])
    live.full_analysis()
    texts: dict[Path, str] = {}
    for _ in range(25):
        action = rng.choice(["subagent", "script", "python", "label"])
        if action == "label":  # a skill's frontmatter name: subagents also resolve it
            name = rng.choice(["review", "notes", "triage"])
            path = tmp_path / f".claude/skills/{name}/SKILL.md"
            text = skill(rng.choice([name, "Release notes", "revew"]))
        else:
            path = tmp_path / FILES[["subagent", "script", "python"].index(action)]
            text = {"subagent": subagent, "script": script, "python": python}[action](rng)
        edit(live, texts, path, text)
    assert_equals_fresh(live, texts, tmp_path)
