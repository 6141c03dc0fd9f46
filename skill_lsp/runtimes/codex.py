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

# -- the skill listing (Codex 0.171.0; openai/codex codex-rs/core-skills/src/render.rs, read at 0899b7c) -----------
# The listing gets 2 % of the model's context window in tokens (SKILL_METADATA_CONTEXT_WINDOW_PERCENT), each
# line `- NAME: DESCRIPTION (file: PATH)` costing its UTF-8 bytes plus a newline over 4, rounded up
# (approx_token_count); PATH is the SKILL.md's path, or `rN/...` under a table of the roots when that fits more.
# When the full lines do not fit, the descriptions are shortened, a character at a time round the skills,
# while every line without its description still fits; when even those do not fit, every description is
# removed and the skills are listed in order until the budget is spent: the rest are left out whole ("Exceeded
# skills context budget of 2%. All skill descriptions were removed and N additional skills were not included
# in the model-visible skills list."). Observed with 0.171.0's `codex debug prompt-input`: 60 skills of 960
# characters each had their descriptions shortened; of 1,200 skills with short descriptions, 1,105 were listed
# by name and path and 95 left out. Codex's own system skills (CODEX_HOME/skills/.system) come first.
LISTING_PERCENT = 2
BYTES_PER_TOKEN = 4
# the context windows of the models in 0.171.0's bundled catalogue: the budget is 2 % of the one in use
CONTEXT_WINDOWS = (272_000, 500_000)


def line_tokens(line: str) -> int:
    """approx_token_count of a listing line and its newline."""
    return (len(line.encode("utf-8")) + 1 + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


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
