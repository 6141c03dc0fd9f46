"""VS Code's GitHub Copilot agent as a runtime: the skill folders it scans and the frontmatter it reads.

Sources: microsoft/vscode (VS Code 1.139), `src/vs/workbench/contrib/chat/common/promptSyntax/config/
promptFileLocations.ts` (`DEFAULT_SKILL_SOURCE_FOLDERS`: `.github/skills`, `.agents/skills`, `.claude/skills`,
`~/.copilot/skills`, `~/.agents/skills`, `~/.claude/skills`) and `promptValidator.ts` (PR #293173): the known
skill attributes are the specification's plus `argument-hint`, `user-invocable`, `disable-model-invocation` and
`context`; a name outside `^[a-z0-9-]+$` is an error of its validator, a name that differs from its folder and
a missing name or description are warnings; booleans must be unquoted `true`/`false`; `argument-hint` is a
scalar; unknown attributes are a hint ("not supported by VS Code agents", microsoft/vscode#294520).

What VS Code then loads is not documented beyond its validator, so its findings are reported one step lower
than its validator shows them (its errors as warnings or information, its warnings as information), and its YAML parser's
behaviour on invalid YAML is not modelled (a warning, not a claim that it drops the skill).
"""

from __future__ import annotations

import re

from . import Consequence, FieldSpec, Outcome, Runtime, altered
from .spec import FIELDS as SPEC_FIELDS

_NAME = re.compile(r"[a-z0-9-]+")


def name_problem(name: str) -> str | None:
    if _NAME.fullmatch(name):
        return None
    return "VS Code wants ^[a-z0-9-]+$ (lowercase letters, digits and '-')"


def _notes(does: str) -> Outcome:
    return Outcome(Consequence.PORTABILITY, does)


FIELDS: dict[str, FieldSpec] = {
    **SPEC_FIELDS,
    # what VS Code does with metadata values that are not strings is not documented: not claimed
    "metadata": FieldSpec("metadata", "mapping", "Properties the specification does not define."),
    # a list of tools is not documented as refused: not claimed
    "allowed-tools": FieldSpec("allowed-tools", "str|list", "Tools the skill may use without asking."),
    "name": FieldSpec("name", "str", "The skill's name: lowercase letters, digits and '-', the folder's name."),
    "description": FieldSpec("description", "str", "What the skill does and when to use it; what Copilot decides from."),
    "argument-hint": FieldSpec("argument-hint", "str", "Hint shown for the arguments when the skill is invoked as a "
                               "slash command."),
    "user-invocable": FieldSpec("user-invocable", "bool", "`false` hides the skill from the `/` menu."),
    "disable-model-invocation": FieldSpec("disable-model-invocation", "bool", "`true`: only the user can invoke the skill."),
    "context": FieldSpec("context", "str", "`fork` runs the skill in a sub-agent.", enum=("inline", "fork")),
}

RUNTIME = Runtime(
    key="vscode",
    label="VS Code Copilot",
    fields=FIELDS,
    yaml_error=altered("may not read it (its YAML parser is not modelled)"),
    missing_name=None,  # it warns, and uses the folder name: the skill loads
    missing_description=_notes("warns that the description is missing"),
    not_a_mapping=altered("reads no attributes"),
    bad_text=_notes("flags the value (its validator wants a string)"),
    name_mismatch=_notes("warns that the name differs from the folder"),
    invalid_name=_notes("flags the name (its validator wants ^[a-z0-9-]+$)"),
    name_rule=name_problem,
    # booleans must be unquoted true/false, argument-hint a scalar: its validator's errors; what it then
    # loads is not documented
    wrong_type=_notes("flags the value (its validator wants another type)"),
    duplicate_key=altered("keeps one of the values"),
    source="microsoft/vscode promptFileLocations.ts, promptValidator.ts (1.139)",
)
