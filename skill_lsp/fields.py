"""What each profile knows about frontmatter fields: types, enums and documentation."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Profile


@dataclass(frozen=True)
class FieldSpec:
    key: str
    # "str", "bool", "str|list", "mapping", "str-map", "any"
    kind: str
    doc: str
    required: bool = False
    enum: tuple[str, ...] = ()


_SPEC_FIELDS = (
    FieldSpec("name", "str", "The skill's name: 1-64 lowercase letters, digits and hyphens, equal to the directory name.", True),
    FieldSpec("description", "str", "What the skill does and when to use it (at most 1,024 characters). It is all the model "
              "sees when deciding whether the skill applies.", True),
    FieldSpec("license", "str", "The license of the skill, a name or a reference to a bundled license file."),
    FieldSpec("compatibility", "str", "Environment requirements (intended product, system packages, network access); "
              "at most 500 characters."),
    FieldSpec("metadata", "str-map", "A mapping of string keys to string values for properties the specification does not define."),
    FieldSpec("allowed-tools", "str", "Space-separated tools the skill may use without asking (experimental)."),
)

_CLAUDE_EXTRA = (
    FieldSpec("when_to_use", "str", "Extra guidance on when Claude should use the skill; appended to the description "
              "(the two are cut at 1,536 characters together)."),
    FieldSpec("argument-hint", "str", "Hint shown in autocomplete for the arguments, e.g. `[issue-number]`."),
    FieldSpec("arguments", "any", "Named positional arguments for `$name` substitution in the body."),
    FieldSpec("disable-model-invocation", "bool", "`true` stops Claude from loading the skill by itself; only the user can invoke it."),
    FieldSpec("user-invocable", "bool", "`false` hides the skill from the `/` menu; Claude can still load it."),
    FieldSpec("allowed-tools", "str|list", "Tools Claude may use without asking while the skill is active (string or list)."),
    FieldSpec("disallowed-tools", "str|list", "Tools Claude may not use while the skill is active (string or list)."),
    FieldSpec("model", "str", "The model to use while the skill is active."),
    FieldSpec("effort", "str", "Effort level while the skill is active.", enum=("low", "medium", "high", "xhigh", "max")),
    FieldSpec("context", "str", "`fork` runs the skill in a forked sub-agent context.", enum=("fork",)),
    FieldSpec("agent", "str", "The sub-agent type to use with `context: fork`."),
    FieldSpec("hooks", "mapping", "Hooks scoped to the skill's lifecycle."),
    FieldSpec("paths", "str|list", "Glob patterns that limit when the skill is activated automatically."),
    FieldSpec("shell", "str", "Shell for `!` command blocks in the body.", enum=("bash", "powershell")),
)


def _claude_fields() -> dict[str, FieldSpec]:
    fields = {spec.key: spec for spec in _SPEC_FIELDS}
    fields["name"] = FieldSpec("name", "str", "Display label for the skill; the skill is invoked by its directory name. Optional.")
    fields["description"] = FieldSpec("description", "str", "What the skill does and when to use it. Claude decides from it "
                                      "whether to load the skill; recommended.")
    for spec in _CLAUDE_EXTRA:
        fields[spec.key] = spec
    return fields


_AGENTDECK = {spec.key: spec for spec in _SPEC_FIELDS}
_AGENTDECK["name"] = FieldSpec("name", "str", "Required. Must equal the skill's directory name, or `Deck.build()` fails naming the bundle.", True)
_AGENTDECK["description"] = FieldSpec("description", "str", "Required. The text `disclosure_text` puts in an agent's instructions: "
                                      "the model decides from it whether the skill applies.", True)

FIELDS: dict[Profile, dict[str, FieldSpec]] = {
    Profile.SPEC: {spec.key: spec for spec in _SPEC_FIELDS},
    Profile.AGENTDECK: _AGENTDECK,
    Profile.CLAUDE: _claude_fields(),
}

DESCRIPTION_LIMIT = 1024
CLAUDE_LISTING_LIMIT = 1536
COMPATIBILITY_LIMIT = 500
NAME_LIMIT = 64
BODY_LINE_LIMIT = 500
