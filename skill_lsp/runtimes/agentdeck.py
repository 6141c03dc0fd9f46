"""AgentDeck as a runtime: strict, as its seed describes `Deck.build()`.

Source: the AgentDeck seed (SPEC §2.1, `seeds/001_*`): "name must match the directory name; description is
what disclosure_text puts in an agent's instructions ... both are required, or Deck.build() fails naming the
bundle". It reads the frontmatter with a strict YAML parser and has no recovery, so a frontmatter that does
not parse fails the build too; the specification's other limits are held to the same strictness (it is the
format AgentDeck documents its bundles in).
"""

from __future__ import annotations

from . import FieldSpec, Runtime, dropped
from .spec import COMPATIBILITY_LIMIT, DESCRIPTION_LIMIT, name_problem
from .spec import FIELDS as SPEC_FIELDS

FAILS = "fails Deck.build() naming the bundle"

FIELDS: dict[str, FieldSpec] = {
    **SPEC_FIELDS,
    "name": FieldSpec("name", "str", "Required. Must equal the skill's directory name, or `Deck.build()` fails naming the bundle.", True),
    "description": FieldSpec("description", "str", "Required. The text `disclosure_text` puts in an agent's instructions: "
                             "the model decides from it whether the skill applies.", True),
}

RUNTIME = Runtime(
    key="agentdeck",
    label="AgentDeck",
    fields=FIELDS,
    yaml_error=dropped(FAILS),
    missing_name=dropped(FAILS),
    missing_description=dropped(FAILS),
    not_a_mapping=dropped(FAILS),
    bad_text=dropped(FAILS),
    name_mismatch=dropped(FAILS),
    invalid_name=dropped("rejects the name (the specification's naming rules)"),
    name_rule=name_problem,
    description_limit=DESCRIPTION_LIMIT,
    long_description=dropped(f"allows at most {DESCRIPTION_LIMIT} characters"),
    compatibility_limit=COMPATIBILITY_LIMIT,
    long_compatibility=dropped(f"allows at most {COMPATIBILITY_LIMIT} characters"),
    wrong_type=dropped(FAILS),
    duplicate_key=dropped("rejects the file (strict YAML)"),
    source="AgentDeck seed 001 (SPEC §2.1)",
)
