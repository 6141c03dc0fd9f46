"""skill-lsp's runtime tables against the facts scripts/drift.py extracted from the versions they cite
(scripts/drift-facts.json: Claude Code 2.1.332's binary, the TypeScript SDK's sdk.d.ts, the Python SDK's
types.py, skills-ref 0.1.1). No network: when the runtimes change, `scripts/drift.py` says so; when
skill-lsp's tables fall behind the pinned facts, these tests do. Known gaps are strict xfails."""

from __future__ import annotations

import json
from pathlib import Path

from skill_lsp import agentfile, claude_tools
from skill_lsp.runtimes import claude_code, spec

FACTS = json.loads((Path(__file__).resolve().parents[2] / "scripts" / "drift-facts.json").read_text())["sources"]
CLAUDE = FACTS["claude-code"]["facts"]
SDK_TS = FACTS["claude-agent-sdk-ts"]["facts"]
SKILLS_REF = FACTS["skills-ref"]["facts"]


def test_every_skill_key_of_claude_code_is_known() -> None:
    known = set(claude_code.FIELDS) | set(claude_code.INTERNAL_KEYS) | set(claude_code.ALIASES)
    assert sorted(set(CLAUDE["skill_frontmatter_keys"]) - known) == []


def test_every_subagent_key_of_claude_code_is_known() -> None:
    assert sorted(set(CLAUDE["agent_frontmatter_keys"]) - set(agentfile.KNOWN_FIELDS)) == []


def test_every_builtin_tool_is_known() -> None:
    assert sorted(set(SDK_TS["builtin_tool_names"]) - claude_tools.KNOWN) == []


def test_enumerations() -> None:
    assert list(claude_code.FIELDS["effort"].enum) == CLAUDE["effort_levels"]
    assert sorted(claude_code.FIELDS["shell"].enum) == CLAUDE["shells"]
    assert sorted(claude_code.FIELDS["context"].enum) == CLAUDE["skill_context_values"]
    assert sorted(agentfile.PERMISSION_MODES) == CLAUDE["permission_modes"]
    assert list(agentfile.EFFORT_LEVELS) == CLAUDE["effort_levels"]


def test_listing_budget_facts() -> None:
    """listing.py's budget (docs/runtimes.md, "Listing budgets") from the facts drift.py reads in the binary."""
    listing = CLAUDE["skill_listing"]
    assert claude_code.BUDGET_FRACTION == listing["budget_fraction_default"]
    assert claude_code.CHARS_PER_TOKEN == listing["chars_per_token"]
    assert claude_code.CONTEXT_TOKENS == listing["context_tokens_default"]
    assert claude_code.LISTING_BUDGET_ENV == listing["budget_env"]
    assert listing["entry"] == "description - when_to_use"
    assert list(claude_code.OVERRIDES) == CLAUDE["skill_overrides"]


def test_limits() -> None:
    assert claude_code.LISTING_CAP == CLAUDE["skill_listing"]["max_desc_chars_default"]
    assert claude_code.NAME_CAP == CLAUDE["skill_name_max_chars"]
    assert spec.NAME_LIMIT == SKILLS_REF["name_max"]
    assert spec.DESCRIPTION_LIMIT == SKILLS_REF["description_max"]
    assert spec.COMPATIBILITY_LIMIT == SKILLS_REF["compatibility_max"]
    assert sorted(spec.FIELDS) == SKILLS_REF["allowed_fields"]
