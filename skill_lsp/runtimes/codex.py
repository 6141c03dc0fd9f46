"""Codex and the other clients of the Agent Skills client guide, which scan `.agents/skills`.

Sources, newest first:
- Codex 0.171.0 itself (`@openai/codex` on npm), run offline: `codex debug prompt-input` lists the skills it
  loads (tests/oracles, docs/oracles.md). It loads a description holding an unquoted `: ` (its YAML is read
  leniently, as Claude Code's recovery reads it), a skill without `name` under its directory's name, a number
  as description, a name that differs from its directory under the name written, and a description over 1,024
  characters cut to 1,024 in its listing. It does not load a file without frontmatter, YAML beyond that
  recovery, a missing description or a name over 64 characters. It scans `.agents/skills` recursively: a
  `<skill>/<topic>/SKILL.md` with frontmatter is listed as a skill of its own (see docs/runtimes.md).
- Its skill loader's source (openai/codex `codex-rs/core/src/skills/loader.rs`, read at commit f793618): it
  deserialises `name`, `description` and `metadata.short-description` only (other keys ignored); `metadata`
  must be a mapping; MAX_SCAN_DEPTH 6.
"""

from __future__ import annotations

from . import FieldSpec, Runtime, altered, dropped
from .spec import DESCRIPTION_LIMIT, NAME_LIMIT
from .spec import FIELDS as SPEC_FIELDS

# what its loader deserialises (SkillFrontmatter); metadata is a struct, so a value that is no mapping fails
FIELDS: dict[str, FieldSpec] = {
    "name": SPEC_FIELDS["name"],
    "description": SPEC_FIELDS["description"],
    "metadata": FieldSpec("metadata", "mapping", "A mapping; Codex reads its `short-description` (at most 1,024 characters)."),
}
# the specification's other fields: known, not read
SILENT = frozenset(SPEC_FIELDS) - frozenset(FIELDS)


def name_problem(name: str) -> str | None:
    """Codex checks a name's length only (loader.rs validate_len, after joining its whitespace)."""
    size = len(" ".join(name.split()))
    return f"it is {size} characters long; Codex allows at most {NAME_LIMIT}" if size > NAME_LIMIT else None

RUNTIME = Runtime(
    key="codex",
    label="Codex",
    fields=FIELDS,
    silent_keys=SILENT,
    yaml_error=dropped("skips the skill"),
    recovers_yaml=True,
    recovery_replaces_tabs=False,
    missing_name=None,  # named after its directory (0.171.0)
    missing_description=dropped("skips the skill"),
    not_a_mapping=dropped("skips the skill"),
    # openai/codex codex-rs/core/src/skills/loader.rs: "missing YAML frontmatter delimited by ---"
    no_frontmatter=dropped("skips the skill (missing YAML frontmatter)"),
    bad_text=dropped("skips the skill"),
    name_mismatch=None,  # the loader keeps the name as written
    invalid_name=dropped("skips the skill"),
    name_rule=name_problem,
    description_limit=DESCRIPTION_LIMIT,
    long_description=altered(f"cuts it at {DESCRIPTION_LIMIT} characters in its listing"),
    # it reads no field but name, description and metadata (a struct: anything else fails to deserialise)
    wrong_type=dropped("skips the skill (its loader cannot read the value)"),
    metadata_values=None,
    duplicate_key=dropped("skips the skill (strict YAML)"),
    numbers_as_text=True,
    source="Codex 0.171.0 (codex debug prompt-input); openai/codex codex-rs/core/src/skills/loader.rs (f793618)",
)
