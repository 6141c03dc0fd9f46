"""A synthetic workspace of agent skills and agent definitions, for the benchmarks.

N skills spread over the three ecosystems skill-lsp understands:

- AgentDeck: `.agentdeck/skills/` (the project default root) and `skills/`, a second
  root given to `Deck(skills=[...])` in `deck.py`;
- Claude Agent SDK: `.claude/skills/`;
- the Agent Skills specification: `.agents/skills/`;

plus N/10 agent files listing 5 skills each (AgentDeck `Agent(...)` under
`.agentdeck/agents/`, `ClaudeAgentOptions(...)` under `claude_agents/`), a Deck
file, and about 2% of files carrying a mistake real authors make (an unquoted
': ' in a description, a name that differs from its directory, a misspelt key,
a missing description, a link to a missing file, a misspelt skill name in an
agent, a name listed twice).

The corpus is deterministic for a given N and seed.

    python benchmarks/generate.py OUT_DIR --skills 10000
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

GENERATOR_VERSION = 1
MISTAKE_RATE = 0.02

VERBS = ["parse", "extract", "summarize", "review", "format", "convert", "validate", "draft", "plan", "triage",
         "translate", "classify", "merge", "audit", "search", "index", "render", "refactor", "test", "deploy"]
NOUNS = ["invoice", "contract", "pdf", "spreadsheet", "ticket", "request", "email", "report", "schema", "image",
         "changelog", "release", "query", "dataset", "slide", "meeting", "budget", "incident", "resume", "policy"]
TOPICS = ["finance", "legal", "support", "sales", "engineering", "research", "operations", "marketing", "hr", "security"]

# the share of skills each root receives
ROOTS = (
    (".agentdeck/skills", 0.30),
    ("skills", 0.10),  # the Deck(skills=[...]) root
    (".claude/skills", 0.35),
    (".agents/skills", 0.25),
)


@dataclass
class Manifest:
    """What the runner needs to know about a corpus without walking it."""

    root: str
    skills: int
    agents: int
    generator_version: int = GENERATOR_VERSION
    seed: int = 0
    # a listed AgentDeck skill, one agent file that lists it, and its position in that file
    sample_skill: str = ""
    sample_skill_name: str = ""
    sample_agent: str = ""
    sample_agent_line: int = 0
    sample_agent_column: int = 0
    sample_agent_text: str = ""
    mistakes: dict[str, int] = field(default_factory=dict)


def skill_name(index: int) -> str:
    verb = VERBS[index % len(VERBS)]
    noun = NOUNS[(index // len(VERBS)) % len(NOUNS)]
    return f"{verb}-{noun}-{index:05d}"


def skill_text(rng: random.Random, name: str, mistake: str | None, references: bool) -> str:
    verb, noun, _ = name.split("-")
    topic = rng.choice(TOPICS)
    description = (f"{verb.capitalize()} a {noun} for the {topic} team; read the input, check it against the house "
                   f"rules and return a short structured result. Use when the user mentions a {noun}.")
    front = [f"name: {name}"]
    if mistake == "unquoted-colon":
        front.append(f"description: {verb.capitalize()} a {noun}. Use when: the user mentions a {noun}")
    elif mistake == "missing-description":
        pass
    else:
        front.append(f"description: {description}")
    if mistake == "name-mismatch":
        front[0] = f"name: {verb}-{noun}"
    if mistake == "unknown-key":
        front.append("licence: MIT")
    elif rng.random() < 0.3:
        front.append("license: MIT")
    if rng.random() < 0.2:
        front += ["metadata:", f"  owner: {topic}-team", f"  version: \"1.{rng.randint(0, 9)}\""]
    body = [
        f"# {verb.capitalize()} {noun}s",
        "",
        f"Use this skill to {verb} a {noun}. Work through the steps in order and stop at the first",
        "step that fails, explaining what is missing.",
        "",
        "## Steps",
        "",
    ]
    for step in range(rng.randint(3, 8)):
        body.append(f"{step + 1}. {rng.choice(VERBS).capitalize()} the {rng.choice(NOUNS)} and note what changed.")
    body += ["", "## Example", "", "```text", f"input: a {noun} from the {topic} queue", "output: a summary table", "```", ""]
    if mistake == "missing-file":
        body.append("See [the checklist](references/checklist.md) for the edge cases.")
    elif references:
        body.append("See [the guide](references/guide.md) for the house rules.")
    body += ["", "## Notes", ""]
    for _ in range(rng.randint(2, 12)):
        body.append(f"- Keep the {rng.choice(NOUNS)} {rng.choice(['short', 'precise', 'sourced', 'dated', 'reviewed'])}.")
    return "---\n" + "\n".join(front) + "\n---\n\n" + "\n".join(body) + "\n"


def agentdeck_agent(index: int, listed: list[str]) -> str:
    names = ", ".join(f'"{name}"' for name in listed)
    return f'''"""Agent {index}: answers requests for the {TOPICS[index % len(TOPICS)]} team."""

from agentdeck import Agent


def lookup_account(account_id: str) -> dict[str, str]:
    """A tool the agent may call."""
    return {{"id": account_id, "status": "active"}}


agent_{index:05d} = Agent(
    name="agent-{index:05d}",
    instructions="You help the {TOPICS[index % len(TOPICS)]} team. Load a skill before following it.",
    tools=[lookup_account],
    skills=[{names}],
)
'''


def claude_agent(index: int, listed: list[str]) -> str:
    names = ", ".join(f'"{name}"' for name in listed)
    return f'''"""Claude agent {index}."""

import anyio
from claude_agent_sdk import ClaudeAgentOptions, query

options_{index:05d} = ClaudeAgentOptions(
    allowed_tools=["Skill", "Read", "Grep"],
    setting_sources=["project"],
    skills=[{names}],
)


async def main() -> None:
    async for message in query(prompt="Help with the queue.", options=options_{index:05d}):
        print(message)


if __name__ == "__main__":
    anyio.run(main)
'''


def typo(name: str) -> str:
    verb, noun, number = name.split("-")
    return f"{verb}-{noun[:-1]}-{number}"  # a dropped letter


def generate(root: Path, skills: int, seed: int = 0) -> Manifest:
    """Write a fresh corpus of `skills` skills and skills // 10 agent files under root."""
    rng = random.Random(seed)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / ".agentdeck").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "skill-corpus"\nversion = "0.0.0"\n', encoding="utf-8")
    mistakes: dict[str, int] = {}

    def mistake(kinds: list[str]) -> str | None:
        if rng.random() >= MISTAKE_RATE:
            return None
        kind = rng.choice(kinds)
        mistakes[kind] = mistakes.get(kind, 0) + 1
        return kind

    by_root: dict[str, list[str]] = {where: [] for where, _ in ROOTS}
    cumulative = []
    total = 0.0
    for where, share in ROOTS:
        total += share
        cumulative.append((total, where))
    skill_kinds = ["unquoted-colon", "name-mismatch", "unknown-key", "missing-description", "missing-file"]
    for index in range(skills):
        draw = rng.random()
        where = next((w for bound, w in cumulative if draw < bound), ROOTS[-1][0])
        name = skill_name(index)
        directory = root / where / name
        directory.mkdir(parents=True)
        references = rng.random() < 0.3
        (directory / "SKILL.md").write_text(skill_text(rng, name, mistake(skill_kinds), references), encoding="utf-8")
        if references:
            (directory / "references").mkdir()
            (directory / "references" / "guide.md").write_text(f"# {name} guide\n\nHouse rules.\n", encoding="utf-8")
        by_root[where].append(name)

    deck_names = by_root[".agentdeck/skills"] + by_root["skills"]
    claude_names = by_root[".claude/skills"]
    agents = max(1, skills // 10)
    deck_members: list[tuple[str, str]] = []
    sample: tuple[str, str, str] | None = None
    for index in range(agents):
        claude = index % 5 == 4 and len(claude_names) >= 5  # a fifth of the agents are Claude's
        pool = claude_names if claude else deck_names
        listed = rng.sample(pool, min(5, len(pool)))
        kind = mistake(["misspelt-skill", "listed-twice"])
        if kind == "misspelt-skill" and listed:
            listed[0] = typo(listed[0])
        elif kind == "listed-twice" and listed:
            listed.append(listed[0])
        if claude:
            path = root / "claude_agents" / f"agent_{index:05d}.py"
            text = claude_agent(index, listed)
        else:
            path = root / ".agentdeck" / "agents" / f"agent_{index:05d}" / "agent.py"
            text = agentdeck_agent(index, listed)
            if index % 10 == 0:
                deck_members.append((f".agentdeck.agents.agent_{index:05d}.agent", f"agent_{index:05d}"))
            if sample is None and kind is None and listed and listed[0] in by_root[".agentdeck/skills"]:
                sample = (str(path), listed[0], text)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    imports = "\n".join(f"from {module} import {name}" for module, name in deck_members)
    members = ", ".join(name for _, name in deck_members)
    (root / "deck.py").write_text(
        f'"""The project\'s Deck: its agents and its two skill roots."""\n\nfrom agentdeck import Deck\n\n{imports}\n\n'
        f'deck = Deck(agents=[{members}], skills=["./.agentdeck/skills", "./skills"])\n',
        encoding="utf-8",
    )

    manifest = Manifest(root=str(root), skills=skills, agents=agents, seed=seed, mistakes=mistakes)
    if sample is not None:
        agent_path, name, text = sample
        manifest.sample_agent = agent_path
        manifest.sample_skill_name = name
        manifest.sample_skill = str(root / ".agentdeck/skills" / name / "SKILL.md")
        line = next(number for number, content in enumerate(text.split("\n")) if "skills=[" in content)
        manifest.sample_agent_line = line
        manifest.sample_agent_column = text.split("\n")[line].index(f'"{name}"') + 1
        manifest.sample_agent_text = text
    return manifest


def ensure_corpus(root: Path, skills: int, seed: int = 0) -> Manifest:
    """The corpus at root, generated again only when it is missing or from another generator."""
    stamp = root.parent / f"{root.name}.json"
    if stamp.exists() and root.exists():
        data = json.loads(stamp.read_text(encoding="utf-8"))
        # (a corpus made under another name, a relative one say, holds paths the runner cannot use)
        if (data.get("generator_version") == GENERATOR_VERSION and data.get("skills") == skills
                and data.get("seed") == seed and data.get("root") == str(root)):
            return Manifest(**data)
    manifest = generate(root, skills, seed)
    stamp.write_text(json.dumps(asdict(manifest), indent=1), encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the directory to write (replaced)")
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    manifest = generate(args.out, args.skills, args.seed)
    print(f"{manifest.skills} skills, {manifest.agents} agent files in {manifest.root}; mistakes: {manifest.mistakes}")


if __name__ == "__main__":
    main()
