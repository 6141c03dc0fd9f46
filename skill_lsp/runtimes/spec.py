"""The Agent Skills specification as a runtime: the skills-ref validator and claude.ai / API upload.

Sources: agentskills/agentskills `docs/specification.mdx` (fields unchanged since December 2025, later edits
wording only) and skills-ref 0.1.x (`validator.py`: NFKC names, `str.isalnum()` letters, strict parse);
Anthropic's `quick_validate.py` in anthropics/skills (`skill-creator/scripts`), the check claude.ai and the API
apply to an uploaded skill: it rejects `<` and `>` in a description and a description over 1,024 characters.
No runtime scans a generic `skills/` collection in place: it is validated, uploaded or copied into a runtime's
root, so there the reference validator is the judge: an error only where skills-ref 0.1.1 reports one. Its
parser (strictyaml) reads every scalar as text, so a number where text is meant, a `license: 2` or metadata
values that are not strings pass; its validator does not check the type of `license`, `allowed-tools` or
`metadata`. Those are notes (information) where the specification's document defines another type.
Documented differences (docs/oracles.md): skills-ref rejects keys the specification does not define and JSON-
style flow collections (`[a, b]`, strictyaml); no runtime does either, so skill-lsp reports the first as
information (SK111) and not the second.
"""

from __future__ import annotations

import re
import unicodedata

from . import Consequence, FieldSpec, Outcome, Runtime, dropped

NAME_LIMIT = 64
DESCRIPTION_LIMIT = 1024
COMPATIBILITY_LIMIT = 500
BODY_LINE_LIMIT = 500  # "keep SKILL.md under 500 lines" (specification, progressive disclosure)

FIELDS: dict[str, FieldSpec] = {spec.key: spec for spec in (
    FieldSpec("name", "str", "The skill's name: 1-64 lowercase letters, digits and hyphens, equal to the directory name.", True),
    FieldSpec("description", "str", "What the skill does and when to use it (at most 1,024 characters). It is all the model "
              "sees when deciding whether the skill applies.", True),
    FieldSpec("license", "str", "The license of the skill, a name or a reference to a bundled license file."),
    FieldSpec("compatibility", "str", "Environment requirements (intended product, system packages, network access); "
              "at most 500 characters."),
    FieldSpec("metadata", "str-map", "A mapping of string keys to string values for properties the specification does not define."),
    # a space-separated string in the specification; skills-ref 0.1.1 (validator.py) and quick_validate.py
    # do not check its type, and Claude Code also reads a YAML list (2.1.0): a list is not refused
    FieldSpec("allowed-tools", "str|list", "Space-separated tools the skill may use without asking (experimental)."),
)}

# Names that break no rule and need no normalising: most names, checked in one match.
_PLAIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def name_problem(name: str) -> str | None:
    """Which of the specification's naming rules name breaks, or None (skills-ref: NFKC, then lowercase
    `isalnum()` characters and '-', no leading, trailing or doubled '-', at most 64)."""
    if len(name) <= NAME_LIMIT and _PLAIN_NAME.fullmatch(name):
        return None
    normalized = unicodedata.normalize("NFKC", name)
    if not normalized:
        return "it is empty"
    if len(normalized) > NAME_LIMIT:
        return f"it is {len(normalized)} characters long; at most {NAME_LIMIT} are allowed"
    if normalized != normalized.lower():
        return "it must be lowercase"
    if normalized.startswith("-") or normalized.endswith("-"):
        return "it must not start or end with '-'"
    if "--" in normalized:
        return "it must not contain consecutive hyphens '--'"
    bad = sorted({ch for ch in normalized if not (ch.isalnum() or ch == "-")})
    if bad:
        shown = ", ".join(repr(ch) for ch in bad[:5])
        return f"only lowercase letters, digits and '-' are allowed, not {shown}"
    return None


def suggest_name(text: str) -> str:
    """A name that follows the rules, derived from text."""
    out = []
    for ch in unicodedata.normalize("NFKC", text).lower():
        out.append(ch if ch.isalnum() else "-")
    name = "-".join(part for part in "".join(out).split("-") if part)
    return name[:NAME_LIMIT].strip("-")


RUNTIME = Runtime(
    key="spec",
    label="the Agent Skills specification (skills-ref)",
    fields=FIELDS,
    yaml_error=dropped("rejects the skill"),
    missing_name=dropped("requires a name"),
    missing_description=dropped("requires a description"),
    not_a_mapping=dropped("rejects the skill"),
    bad_text=dropped("rejects the skill"),
    name_mismatch=dropped("requires it to equal the directory name"),
    invalid_name=dropped("rejects the name"),
    name_rule=name_problem,
    description_limit=DESCRIPTION_LIMIT,
    long_description=dropped(f"allows at most {DESCRIPTION_LIMIT} characters"),
    compatibility_limit=COMPATIBILITY_LIMIT,
    long_compatibility=dropped(f"allows at most {COMPATIBILITY_LIMIT} characters"),
    # not checked by skills-ref 0.1.1 (validator.py checks name, description and compatibility only)
    wrong_type=Outcome(Consequence.PORTABILITY, "defines another type (skills-ref does not check it)"),
    # strictyaml reads every scalar as text: 1.10 stays '1.10' there; a runtime's YAML parser reads 1.1
    metadata_values=Outcome(Consequence.PORTABILITY, "wants string values (YAML parsers other than skills-ref's read this one as the number {text})"),
    numbers_as_text=True,
    duplicate_key=dropped("rejects the file"),
    source="agentskills/agentskills docs/specification.mdx; skills-ref 0.1.x; anthropics/skills quick_validate.py",
)
