"""Codex and the other clients of the Agent Skills client guide, which scan `.agents/skills`.

Source: agentskills/agentskills `docs/client-implementation/adding-skills-support.mdx` ("Lenient validation":
a name that differs from its directory or is over 64 characters → warn and load; a missing or empty
description → skip the skill; YAML that does not parse at all → skip the skill; retrying with quotes is only
recommended, so a client may not), and RUNTIMES.md: Codex reads `.agents/skills` and skips an invalid
SKILL.md. Limits the guide does not relax (the description's 1,024 characters, the spec's field types) are
the specification's, reported as warnings: the guide does not say whether a client refuses or cuts them.
"""

from __future__ import annotations

from . import FieldSpec, Runtime, altered, dropped
from .spec import COMPATIBILITY_LIMIT, DESCRIPTION_LIMIT, name_problem
from .spec import FIELDS as SPEC_FIELDS

FIELDS: dict[str, FieldSpec] = dict(SPEC_FIELDS)

RUNTIME = Runtime(
    key="codex",
    label="Codex",
    fields=FIELDS,
    yaml_error=dropped("skips the skill"),
    missing_name=dropped("skips the skill"),
    missing_description=dropped("skips the skill"),
    not_a_mapping=dropped("skips the skill"),
    bad_text=dropped("skips the skill"),
    name_mismatch=altered("warns and loads it"),
    invalid_name=altered("warns and loads it"),
    name_rule=name_problem,
    description_limit=DESCRIPTION_LIMIT,
    long_description=altered(f"follows the specification, which allows at most {DESCRIPTION_LIMIT} characters"),
    compatibility_limit=COMPATIBILITY_LIMIT,
    long_compatibility=altered(f"follows the specification, which allows at most {COMPATIBILITY_LIMIT} characters"),
    wrong_type=altered("may ignore the value"),
    metadata_values=altered("follows the specification, which wants string values ({text} if read as text)"),
    duplicate_key=dropped("skips the skill (strict YAML)"),
    source="agentskills/agentskills docs/client-implementation/adding-skills-support.mdx",
)
