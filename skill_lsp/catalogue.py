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

    @property
    def per_runtime(self) -> bool:
        """The frontmatter rules (SK101-SK114) take each finding's severity from the consequence for the
        runtimes that discover the skill (skill_lsp.runtimes); their default is the strict runtimes'."""
        return self.code.startswith("SK1") and self.code != "SK115"

    def severity_label(self) -> str:
        """E, or E/W (claude) when a profile differs (the per-runtime rules' why says the rest)."""
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
        "Severity by runtime: AgentDeck's build fails (seed 001), Codex skips the skill (openai/codex "
        "`codex-rs/core/src/skills/loader.rs`: \"missing YAML frontmatter delimited by ---\") and skills-ref 0.1.1 "
        "rejects it — errors. Claude Code 2.1.332 names the skill after its directory and takes the description "
        "from the body's first paragraph; its validator (`claude plugin validate`) warns \"No frontmatter block "
        "found\" — a warning.",
        "# Parse request\nSplit the request on '->'.   # no frontmatter",
    ),
    Rule(
        "SK102", "unclosed-frontmatter", E, "The frontmatter has no closing `---` line.",
        "Without a closing `---` the whole file is read as YAML (or the frontmatter is ignored), so the body "
        "becomes part of the metadata: AgentDeck's build fails and Codex skips the skill (errors); Claude Code "
        "loads it with empty metadata (CHANGELOG 2.1.186, a warning).",
        "---\nname: parse-request\ndescription: Extract pickup and dropoff.\n\nSplit the request on '->'.",
    ),
    Rule(
        "SK103", "invalid-yaml", E, "The frontmatter is not valid YAML.",
        "The most common cause is an unquoted `: ` inside a value, which YAML reads as a second key; quote such "
        "values. What follows depends on the runtime: AgentDeck's build fails and Codex and the skills-ref "
        "validator drop the skill (errors). Claude Code retries after quoting single-line values that hold `: ` "
        "or a YAML indicator character and replacing leading tabs (CHANGELOG 2.1.69), and when that fails too "
        "loads the body with empty metadata (2.1.186): a warning, and the other checks run on what it recovered. "
        "The quick fix quotes the way Claude Code's recovery does, so strict loaders accept the file too.",
        "description: Use when: the user asks for refunds   # write \"Use when: ...\"",
    ),
    Rule(
        "SK104", "frontmatter-not-mapping", E, "The frontmatter is YAML but not a mapping of keys to values.",
        "Name and description are keys of a mapping; a list or a plain string in the frontmatter gives the "
        "runtime nothing to read: AgentDeck fails and Codex skips the skill (errors), Claude Code loads the body "
        "with empty metadata (CHANGELOG 2.1.186, a warning).",
        "---\n- name: parse-request\n---",
    ),
    Rule(
        "SK105", "missing-name", E, "The frontmatter has no `name`.",
        "AgentDeck (seed 001) and the Agent Skills specification require a name; `Deck.build()` fails naming the "
        "bundle and Codex skips the skill. In Claude Code the directory name is the skill's name, so the field is "
        "optional there (not reported); VS Code uses the folder name.",
        "---\ndescription: Extract pickup, dropoff, and date.\n---",
        by_profile={_CLAUDE: None},
    ),
    Rule(
        "SK106", "missing-description", E, "The frontmatter has no `description`.",
        "The description is all the model sees when it decides whether a skill applies. AgentDeck, skills-ref "
        "and Codex (loader.rs: an empty or missing description is a skill error) require it (errors). Claude Code "
        "lists the skill anyway (CHANGELOG 2.1.69) with the body's first paragraph as its description (2.1.332), "
        "and its validator warns \"No description in frontmatter\" — a warning; so does VS Code's validator.",
        "---\nname: parse-request\n---",
        by_profile={_CLAUDE: W},
    ),
    Rule(
        "SK107", "wrong-type", E, "A frontmatter field has the wrong type or an invalid value.",
        "A name or description that is not a non-empty string, a value of the wrong type. Each runtime reads "
        "values its own way: Claude Code takes booleans as true/false, yes/no, on/off, 1/0, quoted or not, in any "
        "case (CHANGELOG 2.1.218), a YAML list as `argument-hint` (2.1.47), a number as name or description "
        "(2.1.47), `effort` as a level or an integer, `context: inline|fork`, `shell` in any case, and any "
        "`metadata` mapping; it ignores a value it cannot read (a warning). AgentDeck rejects the skill (errors). "
        "skills-ref 0.1.1 reads every scalar as text (strictyaml) and checks the type of `name`, `description` "
        "and `compatibility` only: a `license: 2`, a `metadata: v1` or non-text metadata values are notes there "
        "(information), and `allowed-tools` as a YAML list is accepted by every runtime. Codex deserialises "
        "`name`, `description` and `metadata` only: `metadata` that is no mapping makes it skip the skill (an "
        "error); other fields it does not read.",
        "---\nname: parse-request\ndescription: 42\nuser-invocable: \"no\"\n---",
    ),
    Rule(
        "SK108", "name-directory-mismatch", E, "The frontmatter `name` differs from the directory name.",
        "AgentDeck and skills-ref (\"Directory name ... must match skill name\") require `name` to equal the "
        "skill's directory name; `Deck.build()` fails otherwise (errors). Codex keeps the name as written "
        "(loader.rs), so in `.agents/skills` only VS Code's validator notes it. Claude Code invokes a skill by its "
        "directory name and shows `name` to users (a plugin's skill is offered by its frontmatter name too, a "
        "lowercase one as an alias); only a session's `skills=[...]` filter needs the directory's name, and its "
        "validator (2.1.332) does not flag the difference: information. Not reported on a template no root "
        "discovers (`template/SKILL.md` with `name: template-skill`): it is copied into a root under the name it "
        "gets there.",
        ".agentdeck/skills/parse-request/SKILL.md with `name: parse_request`",
        by_profile={_CLAUDE: INFO},
    ),
    Rule(
        "SK109", "invalid-name", E, "The `name` breaks the specification's naming rules.",
        "A skill name is 1-64 characters of lowercase letters, digits and hyphens, with no leading, trailing "
        "or doubled hyphen (skills-ref: after NFKC, Unicode letters allowed). AgentDeck and validators reject "
        "other names (errors); Codex checks a name's length only and skips one over 64 (loader.rs); VS Code's validator wants "
        "`^[a-z0-9-]+$` (information: what it then loads is not documented). In Claude Code the name is a "
        "display label: only one over 256 characters, or with control characters or angle brackets, is ignored.",
        "name: Parse-Request",
        by_profile={_CLAUDE: None},
    ),
    Rule(
        "SK110", "description-too-long", E, "The description is longer than the runtime accepts.",
        "The specification caps descriptions at 1,024 characters (AgentDeck and validators: errors; Codex skips "
        "the skill, loader.rs MAX_DESCRIPTION_LEN: an error). Claude Code cuts `description` plus `when_to_use` at `skillListingMaxDescChars` (1,536 by "
        "default, CHANGELOG 2.1.105; read from the project's .claude/settings.json and settings.local.json), so "
        "the end of a longer text never reaches the model (a warning). The 1,024 limit of claude.ai / API upload "
        "does not apply to skills Claude Code loads from disk.",
        "description: <1,100 characters>",
        by_profile={_CLAUDE: W},
    ),
    Rule(
        "SK111", "unknown-field", W, "A frontmatter key the skill's runtime does not know.",
        "A key no runtime that discovers the skill reads is ignored. When it is close to a real field "
        "(`descripton`) or is another file kind's key (a subagent's `tools` in a skill, whose key is "
        "`allowed-tools`) it is most likely a typo that silently does nothing: a warning with the fix. Any other "
        "key is the author's own: information (the specification puts custom keys under `metadata:`). Claude "
        "Code reads many fields the specification does not, parses keys such as `version`, `keywords`, "
        "`displayName`, `author` and `license` for itself, and accepts `disallowedTools` for `disallowed-tools`; "
        "VS Code adds `argument-hint`, `user-invocable`, `disable-model-invocation` and `context`.",
        "descripton: Extract pickup, dropoff, and date.",
    ),
    Rule(
        "SK112", "compatibility-too-long", E, "`compatibility` is longer than 500 characters.",
        "The specification limits `compatibility` to 500 characters; AgentDeck and validators reject longer "
        "values (errors). Codex and Claude Code do not read the field.",
        "compatibility: <600 characters>",
    ),
    Rule(
        "SK113", "multiline-description", INFO, "The description contains a line break.",
        "AgentDeck's disclosure block puts one skill per line (`- name: description`, seed 001); a line break "
        "in the description splits its entry, and the model may read the second line as something else. Claude "
        "Code's and the specification's listings are XML and take several lines, so only AgentDeck skills get it.",
        "description: |\n  Extract pickup.\n  And dropoff.",
    ),
    Rule(
        "SK114", "angle-brackets-in-description", W, "The description contains `<` or `>` (claude.ai / API upload).",
        "Anthropic's `quick_validate.py` (anthropics/skills, `skill-creator/scripts`), the check claude.ai and the "
        "API run on an uploaded skill, rejects `<` and `>` in a description. skills-ref 0.1.1 accepts them, and "
        "skills that Claude Code, the SDK, Codex or VS Code load from disk are not checked, so the rule applies to "
        "skill collections (which are uploaded or packaged) only, as information.",
        "description: Use for <booking> requests.",
    ),
    Rule(
        "SK115", "lowercase-filename", W, "The skill file is not named exactly `SKILL.md`.",
        "Claude Code (2.1.332: its validator joins `SKILL.md` to each skill directory), Codex (loader.rs: "
        "`file_name == \"SKILL.md\"`) and AgentDeck look for `SKILL.md` exactly: on a case-sensitive file system "
        "`skill.md` is never found (a warning). skills-ref 0.1.1 accepts `skill.md` (parser.py `find_skill_md`), "
        "so in a collection it is information; VS Code matches the name in any case (nothing). A page named "
        "`skill.md` outside every root and every `skills/` directory is no skill file at all.",
        ".agentdeck/skills/parse-request/skill.md",
    ),
    Rule(
        "SK116", "invalid-encoding", E, "The file is not valid UTF-8 (or is UTF-16).",
        "Skills and agent code are read as UTF-8. The Agent Skills reference loader (skills-ref 0.1.0, "
        "`parser.py`: `skill_md.read_text()`, strict) refuses such a SKILL.md with a UnicodeDecodeError, and no "
        "UTF-8 reader finds the `---` of a UTF-16 file's frontmatter. Claude Code's loader is not published: a "
        "lenient UTF-8 reader gives the model U+FFFD in place of the bytes, so for Claude skills this is a "
        "warning. Python reads a source file as UTF-8 unless it declares another encoding (PEP 3120, PEP 263) and "
        "refuses it with a SyntaxError on import. Reported once, at the first bad byte; the rest of the file is "
        "analysed as an editor shows it, each bad byte a U+FFFD.",
        "description: Caf\\xe9 orders   # the byte 0xE9 alone: Latin-1, not UTF-8",
        by_profile={_CLAUDE: W},
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
        "that is not there sends the model to read or run nothing. Markdown links and `${CLAUDE_SKILL_DIR}/...` "
        "(expanded by Claude Code since 2.1.69) are resolved against the skill directory; `{baseDir}/...`, a convention "
        "no runtime substitutes (authors use it for the plugin's directory too), and a path written in the text "
        "also count as found in a sibling skill (\"`other`'s `references/x.md`\") or "
        "in the plugin or project directories above (`uv run scripts/validate.py`, run where the agent works). "
        "Not reported: paths given as examples (\"**Example**: `scripts/rotate_pdf.py`\", \"would be helpful\", "
        "a list introduced by \"Create ...:\" or \"Move ... to references/:\"), folder names used as words "
        "(\"references/examples\"), link syntax shown in inline code, links to extension-less pages outside the "
        "skill's folders, GFM footnotes (`[^1]: ...`), file names that stand for any file (`scripts/script_name.py`, "
        "`your_file.md`), patterns and templates (`references/vector-{a..i}-*.md`, `references/api_{version}.md`, "
        "`scripts/*.py`), good and bad examples (\"✓ Good: ...\", \"Avoid: ...\"), lines of a template to fill in "
        "(`[Description]`), table cells of folders or prefixes, cells of a column headed \"Example\", a path the text "
        "gives as an example elsewhere, a file of a new skill (\"Create new skill ... `references/migration.md`\"), "
        "files drawn in a directory tree under another directory than the skill's (an `onboarding/` folder the "
        "skill generates, a lesson's `bigquery-skill/`), and anything in code blocks other than "
        "`${CLAUDE_SKILL_DIR}` paths. Severity from certainty: a link, or a path in a folder the skill has, is a "
        "warning; a path in prose without an extension (a folder to make) or in `scripts/`, `templates/` or "
        "`assets/` that the skill does not have, and a link into a folder that is neither the skill's nor one the "
        "specification names, may be the project's own (`python scripts/deploy.py`), a link to a bare `name.md` in "
        "a body that writes out a document to fill in (headings such as `### [Persona Name]`), and a path in a "
        "changelog's section (a file renamed or removed in the past): information.",
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
        "and agents cannot follow it: a warning in a link or a shell block the agent runs, information in prose "
        "(a sample request or a worked example's output cannot be told from a path the skill needs; the "
        "ecosystem check judged 4 of 8 such warnings false). Another absolute path in a link (`/opt/app/rules.md`) may exist "
        "where the agent runs (information); a site's page (`/en/hooks`, no extension) and `~/...` (the runner's "
        "own home) are not reported. Reference files relative to the skill directory. Reported in prose, in "
        "links and in the shell blocks the agent runs (```bash, ```sh, ```shell, ```zsh, ```console and Claude "
        "Code's ```! blocks); not on lines that show what not to do (\"never hard-code ...\"), on the home "
        "directories of development containers and CI runners (`/home/vscode`, `/home/runner`), on placeholder "
        "users (`/Users/name/`, `<user>`, `{name}`, `$USER`, `%USERNAME%`, `USERNAME`, `myuserName`, `your-email`), "
        "on paths after \"e.g.\", on container-side mount options (`target=/home/...`) or on `file://` URIs "
        "outside a home directory.",
        "Read /Users/alice/skills/parse-request/references/cities.md",
    ),
    Rule(
        "SK205", "argument-placeholder", W,
        "Claude Code replaces a `$N` the author meant as money or as a shell's own positional parameter.",
        "Claude Code substitutes `$0`, `$1`, ... (shorthand for `$ARGUMENTS[0]`, `$ARGUMENTS[1]`, changelog "
        "2.1.19) in a skill's body with the arguments of its invocation (`/skill a b`) before the model reads it; "
        "a placeholder with no matching argument is kept as written (2.1.210). The digits alone make the number, so "
        "\"$2.5M\" and \"$0.50\" become the second and first argument followed by \".5M\" and \".50\", and "
        "`awk '{print $1}'` or a shell function's `$1` receives the skill's argument instead of the field. Reported "
        "only in skills Claude Code loads (.claude/skills, plugins, ~/.claude/skills), for amounts and for `$N` "
        "inside single quotes or braces, or on lines running awk, sed, a function ..., in shell code; a `$N` in "
        "prose or on a command line (`scripts/run.sh $0`) is taken as meant. Write `${1}` (shell) or `$(1)` (awk), "
        "and amounts as \"2.5M USD\". The substitution (read in 2.1.332's binary: `/\\$(\\d+)(?!\\w)/`, replaced "
        "only when that argument exists) matters when the skill is invoked with that many arguments: a warning "
        "for a skill that takes arguments (`argument-hint`, `arguments`, `$ARGUMENTS`), information otherwise.",
        "Revenue grew to $2.5M.   # Claude Code reads '<third argument>.5M' when invoked with three arguments",
    ),
    Rule(
        "SK206", "unknown-tool", W, "A tool in `allowed-tools` that is a near miss of a Claude Code tool.",
        "Claude Code matches `allowed-tools` (and `disallowed-tools`) by exact tool name, so `bash` or `WebFetcher` "
        "grants (or denies) nothing and the agent is asked for permission after all. Reported only for a name "
        "within a typo of a tool of Claude Code's tools reference (2.1.240) or of the TypeScript SDK's "
        "`BUILTIN_TOOL_NAMES` (0.3.333, Claude Code 2.1.332), or of an earlier release's name (`Task`, `MultiEdit`, ...): other names may be a "
        "plugin's, an MCP server's (`mcp__server__tool`) or a newer release's tool. The list lives in "
        "`skill_lsp/claude_tools.py`. Patterns such as `Bash(git status:*)` are checked by their tool name.",
        "allowed-tools: Read, Grep, bash(git:*)   # 'Bash'",
    ),
    Rule(
        "SK207", "hidden-text", W, "Text the model reads and a reviewer does not see: invisible characters, instruction comments.",
        "A runtime gives the model a skill's file as written: Claude Code (2.1.332) builds the skill's prompt from its "
        "body with the base directory before it and the arguments substituted, removing neither HTML comments nor "
        "invisible characters (it hides CLAUDE.md's comments since 2.1.72, not a skill's). An editor, a diff and a "
        "rendered preview show none of them, so they are where instructions hide in a third-party skill. A warning, "
        "with the code points and what tag characters spell: Unicode tag characters (U+E0000-U+E007F, not the "
        "tags of a flag emoji), bidirectional controls (U+202A-U+202E, U+2066-U+2069: CVE-2021-42574), variation "
        "selectors U+E0100-U+E01EF that follow no ideograph. Information: zero-width characters inside a word of "
        "letters (`ig<U+200B>nore`), direction marks in a line of no right-to-left script, and an HTML comment "
        "outside code that addresses the agent or gives an order (not a lint directive or a marker). Not reported: "
        "a byte order mark at the top, zero-width joiners in emoji and scripts that need them, marks among "
        "right-to-left letters. The fix removes the characters (safe) or the comment (with --unsafe-fixes).",
        "description: Formats dates.   # followed by U+E0049 U+E0067 U+E006E ... (tags spelling 'Ignore ...')",
    ),
    Rule(
        "SK301", "duplicate-name", E, "The same skill name is found under two roots of one registry.",
        "A Deck merges all its roots into one name-keyed registry; a name declared under two roots fails "
        "`build()` naming both paths.",
        "Deck(skills=['./skills', './more-skills']) where both hold parse-request/SKILL.md",
    ),
    Rule(
        "SK302", "undiscovered-skill", W, "No skill root discovers this SKILL.md.",
        "Roots are scanned direct-child only (`<root>/<name>/SKILL.md`); a SKILL.md nested deeper below a root "
        "is never loaded there (a warning); one outside every root may be installed by copying (information). "
        "A SKILL.md inside another skill's directory (`<skill>/<topic>/SKILL.md`) is a document of that skill, "
        "not a skill: nothing is reported on it (SPEC 2.6; `claude plugin validate` 2.1.332 reports nothing on "
        "it). Not reported on a catalog's sections "
        "(`skills/.curated/<name>/`, `skills/.system/<name>/` as in openai/skills, whose skills are installed by "
        "copying them; they are checked as a collection's skills), on any other directory of two or more skill "
        "directories outside every root (a catalog such as `composio-skills/<name>/`; below a runtime's own root a "
        "group stays undiscovered, since the runtime scans direct children only), nor on templates (a directory named "
        "`template`, `skill-template`, ..., or a placeholder description such as \"Replace with ...\").",
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
        "SK310", "overlapping-descriptions", W,
        "Two skills one agent chooses from have descriptions so alike that the model cannot tell which applies.",
        "A model picks a skill from its name and description alone: Claude Code 2.1.332's Skill tool tells the model "
        "that \"available skills appear ... with one-line descriptions\" and to call the one \"a listed skill "
        "covers\", and its plugin scaffold says of `description` \"this string is what Claude matches the user's "
        "request against\". Two skills of one choice — an AgentDeck agent's `skills=[...]`, a Claude session's "
        "`skills=[...]`, a subagent's `skills`, or one root a runtime loads whole (`.claude/skills`, a plugin's "
        "skills, `.agents/skills`) — whose descriptions claim the same requests leave it guessing, so one of them "
        "rarely fires. Compared without a model: content words and adjacent word pairs, each weighted by how few "
        "skills of that choice hold it, so a template's wording shared by a whole collection makes no pair alike "
        "(docs/overlap.md; threshold calibrated on the ecosystem check). A warning on both entries of the list, "
        "information on both SKILL.md files naming the other skill and the wording they share. A judgement, not a "
        "runtime's refusal: hence no error.",
        'skills=["pdf", "pdf-tools"]   # both: "Extract text and tables from PDF files, fill forms, merge PDFs"',
    ),
    Rule(
        "AD101", "unknown-skill", E, "An agent lists a skill its Deck's registry does not have.",
        "`Deck.build()` fails on a name in `Agent(skills=[...])` that none of the Deck's roots holds, just as "
        "it does for an unknown handoff or MCP server. The nearest names are suggested for the first 1,000 "
        "unknown names of a list (each search scores every skill of the registry); later ones get none.",
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
        "without it. A user subagent (`~/.claude/agents/`, read by Claude Code in every project, its subdirectories "
        "too: code.claude.com/docs/en/sub-agents, anthropics/claude-code#58950) is checked against the user's "
        "skills (`~/.claude/skills`) only, the skills every session it runs in has: a name only a project has is "
        "reported, as the subagent starts without it elsewhere; a `plugin:skill` name there is not, since the "
        "plugins installed for the user are not read. As for AD101, the first 1,000 unknown names of a list get "
        "the nearest names as suggestions.",
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
        "A file with no frontmatter at all is taken for such a note and not reported. Claude Code 2.1.332's loader "
        "(read in its binary) returns no agent for a project or user file without a `name`, and logs \"Missing "
        "required \\\"description\\\" field\" and loads none without a description; its validator does not check "
        "this. A plugin's agent is named after its file (the validator lists `agents/api-tester.md` as "
        "`<plugin>:api-tester`), so there only a missing description is reported. The same loader refuses a "
        "`name` that starts with `-`, is over 256 characters or holds `:` (kept for plugin namespacing).",
        "---\nname: reviewer\nskills: [code-review]\n---   # no description: never offered",
    ),
    Rule(
        "CA102", "invalid-subagent-frontmatter", W, "A subagent file's frontmatter is not readable YAML.",
        "Without readable frontmatter Claude Code has no name and no description for the subagent and does not "
        "load it (1.0.81 made unparsable agent files stop breaking the other agents' loading). Claude Code reads "
        "the frontmatter again after quoting values that hold `: ` (CHANGELOG 2.1.69); that case loads (Anthropic's "
        "own plugins ship such agent files) and is not reported. What that retry cannot read either is reported "
        "as a warning: `claude plugin validate` (2.1.332) calls it an error and says that at runtime the agent "
        "loads with its name taken from the file name and every other field dropped — it loads, without what "
        "was written, which is a warning by this project's measure (SPEC 2.4).",
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
        "LS101", "listing-over-budget", W, "A Claude Code session's skill listing is over its character budget.",
        "Claude Code 2.1.332 lists each skill the model may invoke as `- name: description - when_to_use` (cut at "
        "`skillListingMaxDescChars`) and gives the whole listing `SLASH_COMMAND_TOOL_CHAR_BUDGET` characters, else "
        "the model's context window x characters a token x `skillListingBudgetFraction` (0.01): 8,000 for a "
        "200,000-token model at 4 characters a token, 30,000 for the 1,000,000-token models at 3, 40,000 for a 4.6 "
        "model with `[1m]`. Over it, the most used skills keep their description and the rest are listed by name "
        "alone (its binary's listing function; docs/runtimes.md, \"Listing budgets\"): the model no longer sees "
        "what they are for. Which ones depends on each user's use, so the finding names the skills at risk and how "
        "many descriptions go at least, on the options call, subagent or `.claude/settings.json` whose skills "
        "overflow. A warning when every model's budget (or the known model's) is exceeded; information when only a "
        "200,000-token model's is. skill-lsp counts the skills it sees (not Claude Code's bundled skills, the "
        "user's, or plugins), so a listing it finds under budget may still be over.",
        ".claude/skills/ with 40 skills of 300-character descriptions: 12,400 characters of 8,000",
    ),
    Rule(
        "CF001", "invalid-config", E, "A setting of `[tool.skill-lsp]` or `skill-lsp.toml` has an invalid value.",
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
