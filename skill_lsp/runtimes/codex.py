"""Codex and the other clients of the Agent Skills client guide, which scan `.agents/skills`.

Sources: Codex's skill loader (openai/codex `codex-rs/core/src/skills/loader.rs`, read at commit f793618):
it deserialises `name`, `description` and `metadata.short-description` only (serde_yaml, other keys ignored);
a file without `---` frontmatter, YAML that does not parse, a missing or empty name or description, a name
over 64 or a description over 1,024 characters go to its skill errors and the skill is not loaded; the name
need not match the directory nor follow the specification's characters. It scans a root six levels deep
(MAX_SCAN_DEPTH). The client guide (agentskills/agentskills `docs/client-implementation/adding-skills-
support.mdx`) says clients warn on a name that differs from its directory; RUNTIMES.md reports that recent
releases name a skill without `name` after its directory: where the two disagree, the lower severity.
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
    missing_name=altered("skips the skill (loader.rs at f793618), or names it after its directory (recent releases)"),
    missing_description=dropped("skips the skill"),
    not_a_mapping=dropped("skips the skill"),
    # openai/codex codex-rs/core/src/skills/loader.rs: "missing YAML frontmatter delimited by ---"
    no_frontmatter=dropped("skips the skill (missing YAML frontmatter)"),
    bad_text=dropped("skips the skill"),
    name_mismatch=None,  # the loader keeps the name as written
    invalid_name=dropped("skips the skill"),
    name_rule=name_problem,
    description_limit=DESCRIPTION_LIMIT,
    long_description=dropped(f"skips the skill (at most {DESCRIPTION_LIMIT} characters)"),
    # it reads no field but name, description and metadata (a struct: anything else fails to deserialise)
    wrong_type=dropped("skips the skill (its loader cannot read the value)"),
    metadata_values=None,
    duplicate_key=dropped("skips the skill (strict YAML)"),
    source="openai/codex codex-rs/core/src/skills/loader.rs (f793618)",
)
