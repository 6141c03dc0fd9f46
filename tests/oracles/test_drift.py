"""scripts/drift.py without the network: the comparison, and the extractors on small made-up sources."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "drift.py"
_SPEC = importlib.util.spec_from_file_location("skill_lsp_drift", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
drift = importlib.util.module_from_spec(_SPEC)
sys.modules["skill_lsp_drift"] = drift
_SPEC.loader.exec_module(drift)


def test_same_facts_no_change() -> None:
    facts = {"keys": ["a", "b"], "limit": 1536, "nested": {"x": 1}}
    assert drift.compare(facts, json.loads(json.dumps(facts))) == []


def test_list_added_and_removed() -> None:
    assert drift.compare({"hooks": ["Stop", "PreToolUse"]}, {"hooks": ["PreToolUse", "Interrupt"]}) == [
        "hooks: added Interrupt; removed Stop"]


def test_scalar_and_nested_change() -> None:
    lines = drift.compare({"listing": {"cap": 1536, "fraction": 0.01}}, {"listing": {"cap": 2048, "fraction": 0.01}})
    assert lines == ["listing.cap: 1536 -> 2048"]


def test_fact_no_longer_found_is_drift() -> None:
    old = {"shells": ["bash", "powershell"], "cap": 1536}
    new = {"cap": 1536, "_missing": ["shells: the validator's message \"shell must be 'bash' or ...\" not found"]}
    lines = drift.compare(old, new)
    assert lines == ["(source): can no longer be found: shells: the validator's message \"shell must be 'bash' or ...\" not found"]


def test_new_fact_reported() -> None:
    assert drift.compare({}, {"tools": ["Read", "Write"]}) == ["tools: new fact (2 items)"]


def test_report_exit_status() -> None:
    pinned = {"skills-ref": {"version": "0.1.1", "facts": {"name_max": 64}}}
    same, changed = drift.report(pinned, {"skills-ref": {"version": "0.1.2", "facts": {"name_max": 64}}})
    assert not changed and same == ["skills-ref: 0.1.1 -> 0.1.2: no change in the facts"]
    lines, changed = drift.report(pinned, {"skills-ref": {"version": "0.2.0", "facts": {"name_max": 128}}})
    assert changed and lines == ["skills-ref: 0.1.1 -> 0.2.0: CHANGED", "  name_max: 64 -> 128"]


def test_js_object_keys_skip_strings_and_nesting() -> None:
    text = 'x={name:a().describe("a, b: {c}"),"allowed-tools":n(),context:U(["inline","fork"]).optional(),hooks:de({x:1})}'
    keys = drift.js_object(text, text.index("{"))
    assert list(keys) == ["name", "allowed-tools", "context", "hooks"]
    assert ".optional()" in keys["context"] and ".optional()" not in keys["name"]


def test_claude_code_facts_from_a_made_up_binary(tmp_path: Path) -> None:
    binary = tmp_path / "claude"
    binary.write_bytes(
        b"\x00junk\x00var Sx=p(()=>u({name:Ek().optional().describe(\"The name, shown\"),shell:Ek().optional()})),"
        b"Kx=p(()=>Sx().extend({when_to_use:Ek().optional(),context:U([\"inline\",\"fork\"]).nullable().optional()})),"
        b"Fa=p(()=>u({name:Ek().describe(\"n\"),description:Ek(),skills:n1().optional()})),"
        b"Ex={skill:p(()=>Kx().strict()),agent:p(()=>Fa().strict())};"
        b"var Hb=0.01,U3=4,Ub=200000;var Lm=1536;function nB(){return Rt().skillListingMaxDescChars??Lm}"
        b"function Cd(e,n=U3){let o=Q(process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET);if(o)return o;"
        b"let g=Rt().skillListingBudgetFraction,h=(e??Ub)*n*(g??Hb);return h}"
        b"function Rd(e){let n=e.description;return e.whenToUse?`${n} - ${e.whenToUse}`:n}"
        b'["PreToolUse","PostToolUse","Stop"]["default","acceptEdits","plan"]["low","medium","high","xhigh","max"]'
        b'["on","name-only","off"]"shell must be \'bash\' or \'powershell\', got"'
        b'"a name may not hold hidden characters, < or >, or be over 256 characters"\x00')
    facts = drift.claude_code_facts(binary)
    assert "_missing" not in facts, facts.get("_missing")
    assert facts["skill_frontmatter_keys"] == ["context", "name", "shell", "when_to_use"]
    assert facts["agent_frontmatter_keys"] == ["description", "name", "skills"]
    assert facts["agent_required_keys"] == ["description", "name"]
    assert facts["skill_context_values"] == ["fork", "inline"]
    assert facts["skill_listing"] == {"max_desc_chars_default": 1536, "budget_fraction_default": 0.01, "chars_per_token": 4,
                                      "context_tokens_default": 200000, "budget_env": "SLASH_COMMAND_TOOL_CHAR_BUDGET",
                                      "entry": "description - when_to_use"}
    assert facts["hook_events"] == ["PostToolUse", "PreToolUse", "Stop"]
    assert facts["effort_levels"] == ["low", "medium", "high", "xhigh", "max"]
    assert facts["shells"] == ["bash", "powershell"]
    assert facts["skill_name_max_chars"] == 256


def test_claude_code_facts_say_what_is_missing(tmp_path: Path) -> None:
    binary = tmp_path / "claude"
    binary.write_bytes(b"nothing to see here")
    missing = drift.claude_code_facts(binary)["_missing"]
    assert any("skillListingMaxDescChars" in item for item in missing)
    assert any("frontmatter schema map" in item for item in missing)


def test_typescript_and_python_extractors() -> None:
    dts = ("export declare type AgentDefinition = {\n    /** when to use */\n    description: string;\n    tools?: string[];\n"
           "    nested?: {\n        inner: string;\n    };\n};\nexport declare type PermissionMode = 'default' | 'plan';\n"
           "export declare const BUILTIN_TOOL_NAMES: readonly ['Read', 'Bash'];\n")
    assert drift.ts_type_keys(dts, "AgentDefinition") == ["description", "nested", "tools"]
    assert drift.ts_union(dts, "PermissionMode") == ["default", "plan"]
    assert drift.ts_const_array(dts, "BUILTIN_TOOL_NAMES") == ["Bash", "Read"]
    with pytest.raises(drift.Missing):
        drift.ts_type_keys(dts, "Options")
    py = ('HookEvent = (\n    Literal["PreToolUse"]\n    | Literal["Stop"]\n)\n\n@dataclass\nclass AgentDefinition:\n'
          '    """Doc.\n\n    Examples: not a field\n    """\n\n    description: str\n    skills: list[str] | None = None\n'
          '    """The skills.\n\n    A: neither\n    """\n\n\nclass Other:\n    x: int\n')
    assert drift.py_class_fields(py, "AgentDefinition") == ["description", "skills"]
    assert drift.py_literal(py, "HookEvent") == ["PreToolUse", "Stop"]


def test_the_committed_facts_are_well_formed() -> None:
    stored = json.loads((_PATH.parent / "drift-facts.json").read_text())
    assert set(stored["sources"]) == set(drift.SOURCES)
    for name, entry in stored["sources"].items():
        assert entry["version"], name
        assert "_missing" not in entry["facts"], (name, entry["facts"].get("_missing"))
