"""The rule catalogue: every code with its name, default severity, why and example."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Profile, Severity

E, W, INFO, H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    why: str
    example: str
    enabled_by_default: bool = True
    # profile -> severity (None: the rule does not apply to that profile)
    by_profile: dict[Profile, Severity | None] = field(default_factory=dict)

    def severity_for(self, profile: Profile | None) -> Severity | None:
        if profile is not None and profile in self.by_profile:
            return self.by_profile[profile]
        return self.severity

    def severity_label(self) -> str:
        """E, or E/W (claude) when a profile differs."""
        text = self.severity.name[0]
        extras = []
        for profile, severity in self.by_profile.items():
            extras.append(f"{severity.name[0] if severity else 'off'} ({profile.value})")
        return text + ("; " + ", ".join(extras) if extras else "")


_CLAUDE = Profile.CLAUDE

RULES: tuple[Rule, ...] = (
    Rule(
        "SK101", "missing-frontmatter", E, "SKILL.md does not start with a `---` line.",
        "Runtimes read a skill's name and description from YAML frontmatter that opens on the very first line. "
        "Without it the skill has no name and no description: AgentDeck's build fails and Claude offers nothing "
        "the model could choose from.",
        "# Parse request\nSplit the request on '->'.   # no frontmatter",
    ),
    Rule(
        "SK102", "unclosed-frontmatter", E, "The frontmatter has no closing `---` line.",
        "Without a closing `---` the whole file is read as YAML (or the frontmatter is ignored), so the body "
        "becomes part of the metadata and the skill fails to load.",
        "---\nname: parse-request\ndescription: Extract pickup and dropoff.\n\nSplit the request on '->'.",
    ),
    Rule(
        "SK103", "invalid-yaml", E, "The frontmatter is not valid YAML.",
        "A YAML error makes the loader drop the skill, often silently. The most common cause is an unquoted "
        "`: ` inside a value, which YAML reads as a second key; quote such values.",
        "description: Use when: the user asks for refunds   # write \"Use when: ...\"",
    ),
    Rule(
        "SK104", "frontmatter-not-mapping", E, "The frontmatter is YAML but not a mapping of keys to values.",
        "Name and description are keys of a mapping; a list or a plain string in the frontmatter gives the "
        "runtime nothing to read.",
        "---\n- name: parse-request\n---",
    ),
    Rule(
        "SK105", "missing-name", E, "The frontmatter has no `name`.",
        "AgentDeck and the Agent Skills specification require a name; `Deck.build()` fails naming the bundle. "
        "In Claude Code the directory name is the skill's name, so the field is optional there.",
        "---\ndescription: Extract pickup, dropoff, and date.\n---",
        by_profile={_CLAUDE: None},
    ),
    Rule(
        "SK106", "missing-description", E, "The frontmatter has no `description`.",
        "The description is all the model sees when it decides whether a skill applies. AgentDeck and the "
        "specification require it; Claude loads the skill but the model has nothing to choose it by.",
        "---\nname: parse-request\n---",
        by_profile={_CLAUDE: W},
    ),
    Rule(
        "SK107", "wrong-type", E, "A frontmatter field has the wrong type or an invalid value.",
        "Runtimes validate field types when they load a skill: a name or description that is not a non-empty "
        "string, a boolean written as text, a metadata value that is not a string, an effort outside its enum. "
        "The skill is rejected or the field silently ignored.",
        "---\nname: parse-request\ndescription: 42\nuser-invocable: \"no\"\n---",
    ),
    Rule(
        "SK108", "name-directory-mismatch", E, "The frontmatter `name` differs from the directory name.",
        "AgentDeck and the specification require `name` to equal the skill's directory name; `Deck.build()` "
        "fails otherwise. Claude Code invokes a skill by its directory name and shows `name` as a display "
        "label, so there it is a warning: the label and the name users type differ.",
        ".agentdeck/skills/parse-request/SKILL.md with `name: parse_request`",
        by_profile={_CLAUDE: W},
    ),
    Rule(
        "SK109", "invalid-name", E, "The `name` breaks the specification's naming rules.",
        "A skill name is 1-64 characters of lowercase letters, digits and hyphens, with no leading, trailing "
        "or doubled hyphen. Names outside these rules are rejected by validators and cannot be typed as "
        "commands reliably. In Claude Code the name is a display label, so the rule does not apply there.",
        "name: Parse-Request",
        by_profile={_CLAUDE: None},
    ),
    Rule(
        "SK110", "description-too-long", E, "The description is longer than the runtime accepts.",
        "The specification caps descriptions at 1,024 characters. Claude Code cuts `description` plus "
        "`when_to_use` at 1,536 characters, so the end of a longer text never reaches the model (a warning).",
        "description: <1,100 characters>",
        by_profile={_CLAUDE: W},
    ),
    Rule(
        "SK111", "unknown-field", W, "A frontmatter key the skill's runtime does not know.",
        "Unknown keys are ignored, or rejected by strict validators; most often they are a typo of a real "
        "field (`descripton`), which then silently does nothing. Which keys are known depends on the "
        "profile: Claude Code accepts many fields the specification does not.",
        "descripton: Extract pickup, dropoff, and date.",
    ),
    Rule(
        "SK112", "compatibility-too-long", E, "`compatibility` is longer than 500 characters.",
        "The specification limits `compatibility` to 500 characters; validators reject longer values.",
        "compatibility: <600 characters>",
    ),
    Rule(
        "SK113", "multiline-description", INFO, "The description contains a line break.",
        "Disclosure lists put one skill per line (`- name: description`); a line break in the description "
        "splits its entry, and the model may read the second line as something else.",
        "description: |\n  Extract pickup.\n  And dropoff.",
    ),
    Rule(
        "SK114", "angle-brackets-in-description", W, "The description contains `<` or `>`.",
        "Descriptions are embedded in XML-like prompt blocks; Anthropic's skill packager rejects angle "
        "brackets in them.",
        "description: Use for <booking> requests.",
    ),
    Rule(
        "SK115", "lowercase-filename", W, "The skill file is not named exactly `SKILL.md`.",
        "Runtimes look for `SKILL.md` exactly; on case-sensitive file systems `skill.md` is never found and "
        "the skill does not exist.",
        ".agentdeck/skills/parse-request/skill.md",
    ),
    Rule(
        "SK201", "empty-body", W, "There are no instructions after the frontmatter.",
        "The body is what `load_skill` returns and what the model follows once it chose the skill; an empty "
        "body gives it nothing to do.",
        "---\nname: parse-request\ndescription: Extract pickup and dropoff.\n---\n",
    ),
    Rule(
        "SK202", "missing-file", W, "A relative file referenced in the body does not exist.",
        "Skills point the model at files beside SKILL.md (`scripts/`, `references/`); a reference to a file "
        "that is not there sends the model to read or run nothing. Paths are relative to the skill directory.",
        "Run [the extractor](scripts/extract.py) when ...   # scripts/extract.py is missing",
    ),
    Rule(
        "SK203", "body-too-long", INFO, "The body is longer than 500 lines.",
        "The whole body enters the context when the skill is loaded; the specification recommends keeping it "
        "under 500 lines and moving detail to referenced files. A SKILL.md larger than 8 MB is not analysed at "
        "all (skill-lsp reads no more): this rule then reports it on line 1.",
        "A SKILL.md with 800 lines of instructions.",
    ),
    Rule(
        "SK204", "absolute-path", W, "The body contains an absolute or machine-specific path.",
        "A path such as `/Users/alice/...` or `C:\\Users\\...` exists only on the author's machine; other users "
        "and agents cannot follow it. Reference files relative to the skill directory.",
        "Read /Users/alice/skills/parse-request/references/cities.md",
    ),
    Rule(
        "SK301", "duplicate-name", E, "The same skill name is found under two roots of one registry.",
        "A Deck merges all its roots into one name-keyed registry; a name declared under two roots fails "
        "`build()` naming both paths.",
        "Deck(skills=['./skills', './more-skills']) where both hold parse-request/SKILL.md",
    ),
    Rule(
        "SK302", "undiscovered-skill", W, "No skill root discovers this SKILL.md.",
        "Roots are scanned direct-child only (`<root>/<name>/SKILL.md`); a SKILL.md nested deeper, or outside "
        "every root, is never loaded by any runtime.",
        ".agentdeck/skills/booking/parse-request/SKILL.md   # one level too deep",
    ),
    Rule(
        "SK303", "unused-skill", H, "No agent lists this skill.",
        "A skill that no agent's `skills=[...]` names is never disclosed to a model. Off by default: skills "
        "are often used by agents outside the workspace.",
        "A skill in .agentdeck/skills that no Agent(skills=[...]) names.",
        enabled_by_default=False,
    ),
    Rule(
        "AD101", "unknown-skill", E, "An agent lists a skill its Deck's registry does not have.",
        "`Deck.build()` fails on a name in `Agent(skills=[...])` that none of the Deck's roots holds, just as "
        "it does for an unknown handoff or MCP server.",
        'Agent(name="Booking", instructions="...", skills=["parse-reqest"])',
    ),
    Rule(
        "AD102", "deck-without-skills", E, "An agent lists skills but its Deck has no `skills=`.",
        "A Deck without `skills=` has an empty registry, so every name an agent lists fails `build()`.",
        'Deck(agents=[booking])   # booking lists skills=["parse-request"]',
    ),
    Rule(
        "AD103", "missing-root", E, "A `Deck(skills=...)` path does not exist.",
        "A root directory that does not exist contributes no skills; the agents that rely on it fail "
        "`build()`. Relative roots resolve against the file holding the call, then the workspace.",
        'Deck(agents=[booking], skills="./skils")',
    ),
    Rule(
        "AD104", "duplicate-entry", W, "A skill is listed twice in one `skills=[...]`.",
        "The second entry adds nothing but a second copy of the skill in the disclosure block.",
        'Agent(name="Booking", skills=["parse-request", "parse-request"])',
    ),
    Rule(
        "AD105", "dynamic-skills", INFO, "A `skills=` value is not a literal and cannot be checked.",
        "skill-lsp never runs project code, so a list built at run time cannot be checked. Off by default.",
        "Agent(name='Booking', skills=load_skill_names())",
        enabled_by_default=False,
    ),
    Rule(
        "CL101", "invalid-skill-name", E, "A name in the SDK's `skills` option that the SDK rejects.",
        "The Claude Agent SDK validates each name of `ClaudeAgentOptions(skills=[...])` (Python) or "
        "`query({ options: { skills } })` (TypeScript) before it starts Claude Code, and throws for names that "
        "can never match a skill: empty or padded names, parentheses, commas, control characters, wildcard "
        "suffixes, a leading `/`, unpaired backslashes. Each SDK's own wording is reported: Python 0.2.143 "
        "(`_internal/transport/subprocess_cli.py`, `_validate_skill_name`), TypeScript 0.3.333 (`sdk.mjs`, "
        "where U+FEFF is trimmed as whitespace and `__*` is a wildcard suffix too). Neither SDK checks the "
        "names of an `AgentDefinition`'s `skills`.",
        'ClaudeAgentOptions(skills=["shop:*"])',
    ),
    Rule(
        "CL102", "skills-not-a-list", E, "`skills=` is neither a list, `None` nor `\"all\"`.",
        "A bare string iterates as characters; the SDK raises TypeError and suggests the list form.",
        'ClaudeAgentOptions(skills="refund-policy")',
    ),
    Rule(
        "CL103", "unknown-skill", W, "A listed skill that no discovered skill has.",
        "The SDK accepts the name, but the skill is never offered: at run time the Skill tool answers "
        "\"Skill X is not in this session's skills allowlist\". Discovery covers `<cwd>/.claude/skills`, "
        "`add_dirs` (`additionalDirectories`), the user's skills directory and local plugins. The session's "
        "filter matches a skill's canonical name only — its directory name, or `plugin:skill`: both SDKs turn "
        "each name into a `Skill(name)` rule, and their own errors say \"Names match the skill's directory "
        "name\" (Python 0.2.143 `subprocess_cli.py`; TypeScript 0.3.333 `sdk.mjs`, whose `sdk.d.ts` adds "
        "\"Display names and aliases do not match\"), and Claude Code invokes a skill by its directory basename "
        "(CHANGELOG 2.1.94 makes the frontmatter `name` the invocation name only for plugin skills declared as "
        "`\"skills\": [\"./\"]`). A frontmatter `name` that differs from the directory is therefore reported, "
        "with the directory name to list instead. Both SDKs also send the list in the initialize request, whose "
        "filter matches \"the exact canonical name (e.g. my-plugin:my-skill) or a :name suffix of it\" (sdk.d.ts "
        "0.3.333), so a plugin skill's bare name is listed; the `Skill(name)` permission rule added beside it is not "
        "documented to match the qualified name, so a bare plugin name is still reported, with the qualified name "
        "suggested. A subagent's list is more lenient: an `AgentDefinition`'s "
        "`skills` (Python SDK 0.1.49+, TypeScript) and a subagent file's `skills:` (Claude Code 2.0.43+) "
        "\"additionally resolve display names and aliases\" (sdk.d.ts 0.3.333), so there a frontmatter `name` or "
        "a plugin skill's bare name matches, and only a name no skill has is reported: the subagent starts "
        "without it.",
        'ClaudeAgentOptions(skills=["refund-polcy"])',
    ),
    Rule(
        "CL104", "wildcard-all", E, '`"*"` in the skills list.',
        'The SDK rejects a bare `*`; to enable every skill pass `skills="all"`.',
        'ClaudeAgentOptions(skills=["*"])',
    ),
    Rule(
        "CA101", "subagent-not-loaded", E, "A subagent file without a `name` or a `description`.",
        "Claude Code loads a Markdown file in `.claude/agents/` (or `~/.claude/agents/`, a plugin's `agents/`) as "
        "a subagent only when its frontmatter has both: \"Only name and description are required\" "
        "(code.claude.com/docs/en/sub-agents), and since 2.1.43 other Markdown files there are skipped without a "
        "warning (CHANGELOG: \"Fixed spurious warnings for non-agent markdown files in .claude/agents/\"). "
        "A file with no frontmatter at all is taken for such a note and not reported.",
        "---\nname: reviewer\nskills: [code-review]\n---   # no description: never offered",
    ),
    Rule(
        "CA102", "invalid-subagent-frontmatter", W, "A subagent file's frontmatter is not readable YAML.",
        "Without readable frontmatter Claude Code has no name and no description for the subagent and does not "
        "load it (1.0.81 made unparsable agent files stop breaking the other agents' loading). Claude Code reads "
        "the frontmatter again after quoting values that hold `: ` (CHANGELOG 2.1.69); that case loads (Anthropic's "
        "own plugins ship such agent files) and is not reported. What that retry cannot read either is reported; "
        "as the retry for agent files is not documented line by line, as a warning.",
        "---\nname: reviewer\ndescription: [Use when a PR is opened\n---",
    ),
    Rule(
        "CA103", "invalid-subagent-field", W, "A subagent frontmatter field with a value Claude Code does not take.",
        "Values from Claude Code's documentation and the TypeScript SDK's `AgentDefinition` type (0.3.333), which "
        "mirrors the frontmatter: `permissionMode` one of default, acceptEdits, bypassPermissions, plan, dontAsk, "
        "auto (2.0.43); `maxTurns` a positive integer; `effort` low, medium, high, xhigh, max or an integer "
        "(2.1.78); `memory` user, project or local; `background` a boolean (2.1.49); `isolation: worktree` "
        "(2.1.50); `tools`/`disallowedTools`/`skills` a comma-separated string or a list (2.0.30); `hooks` a "
        "mapping. The subagent still loads, without the setting as written.",
        "permissionMode: acceptEdit   # acceptEdits",
    ),
    Rule(
        "CA104", "unknown-subagent-field", INFO, "A subagent frontmatter key Claude Code does not read.",
        "Claude Code ignores keys it does not know, so the subagent loads, but the setting has no effect — "
        "often a misspelt field (`permisionMode`, `skill`). The closest known key is suggested.",
        "colour: blue   # color",
    ),
    Rule(
        "CF001", "invalid-config", E, "A `[tool.skill-lsp]` setting has an invalid value.",
        "A setting that cannot be read is ignored and its default used; the finding says which value and why, "
        "instead of the checker failing or silently doing something else.",
        '[tool.skill-lsp]\nselect = "SK1"   # must be a list: ["SK1"]',
    ),
)

BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
BY_NAME: dict[str, Rule] = {}
for _rule in RULES:
    BY_NAME.setdefault(_rule.name, _rule)


def lookup(code_or_name: str) -> Rule | None:
    return BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())
