"""Writes tests/oracles/fixtures/: one small tree per question, laid out as each runtime discovers it.

Run `python tests/oracles/make_fixtures.py` after editing a case; the trees are committed. All content is
our own. A case's SKILL.md questions are laid out three times, one tree per runtime that discovers it:

- `claude/.claude/skills/<dir>/SKILL.md` — Claude Code's project skills (oracle: `claude plugin validate`)
- `spec/skills/<dir>/SKILL.md` — a collection of the specification (oracle: skills-ref `agentskills validate`)
- `codex/.agents/skills/<dir>/SKILL.md` — Codex's project skills (oracle: `codex debug prompt-input`)

Plugin, marketplace and subagent cases are Claude Code only (`claude/`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent / "fixtures"

BODY = "# Instructions\n\nRead the request, then follow these steps.\n"


def fm(*lines: str, body: str = BODY) -> str:
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body


LONG_1100 = ("Summarise quarterly sales reports for the finance team and flag anomalies. " * 15)[:1100].strip()
LONG_1600 = ("Summarise quarterly sales reports for the finance team and flag anomalies. " * 22)[:1600].strip()
NAME_70 = "a" + "-report" * 9 + "-xyzxyz"  # 70 characters


# case -> (question, {dir: content}) for SKILL.md questions, laid out for every runtime
SKILLS: dict[str, tuple[str, dict[str, str | bytes]]] = {
    "valid": ("a valid skill (control)", {"pdf-tools": fm("name: pdf-tools", "description: Fill PDF forms. Use when the user sends a PDF form.")}),
    "name-not-directory": ("frontmatter name differs from the directory", {
        "report-tool": fm("name: reports", "description: Build weekly reports from CSV files.")}),
    "missing-name": ("no name", {"csv-clean": fm("description: Clean CSV files before import.")}),
    "missing-description": ("no description", {"csv-clean": fm("name: csv-clean")}),
    "no-frontmatter": ("no frontmatter at all", {"csv-clean": "# CSV cleaning\n\nClean CSV files before import.\n"}),
    "unclosed-frontmatter": ("opening --- without a closing one", {
        "csv-clean": "---\nname: csv-clean\ndescription: Clean CSV files before import.\n\n# CSV cleaning\n\nSteps.\n"}),
    "colon-in-description": ("YAML broken by an unquoted ': ' in the description", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files. Use when: the user uploads a CSV.")}),
    "yaml-unrecoverable": ("YAML broken beyond recovery (an unterminated quoted scalar)", {
        "csv-clean": fm("name: csv-clean", 'description: "Clean CSV files before import.', "license: MIT")}),
    "allowed-tools-block-list": ("allowed-tools as a YAML block list", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "allowed-tools:", "  - Read", "  - Grep")}),
    "allowed-tools-flow-list": ("allowed-tools as a YAML flow list", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "allowed-tools: [Read, Grep]")}),
    "allowed-tools-string": ("allowed-tools as a space-separated string", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "allowed-tools: Read Grep")}),
    "unknown-key": ("a key no runtime defines", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "owner-team: data-platform")}),
    "angle-brackets": ("< and > in the description", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files. Use for <file>.csv uploads > 1 MB.")}),
    "description-1100": ("a description of 1,100 characters (over 1,024, under 1,536)", {
        "csv-clean": fm("name: csv-clean", f"description: {LONG_1100}")}),
    "description-1600": ("a description of 1,600 characters (over 1,536)", {
        "csv-clean": fm("name: csv-clean", f"description: {LONG_1600}")}),
    "name-uppercase": ("an uppercase name, equal to its directory", {
        "CsvClean": fm("name: CsvClean", "description: Clean CSV files before import.")}),
    "name-underscore": ("an underscore in the name, equal to its directory", {
        "csv_clean": fm("name: csv_clean", "description: Clean CSV files before import.")}),
    "name-unicode": ("a lowercase Unicode name, equal to its directory", {
        "café-notes": fm("name: café-notes", "description: Take notes about café orders.")}),
    "name-too-long": ("a 70-character name, equal to its directory", {
        NAME_70: fm(f"name: {NAME_70}", "description: Build reports.")}),
    "boolean-yes": ("a boolean written as yes", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "disable-model-invocation: yes")}),
    "boolean-quoted": ('a boolean written as "true"', {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", 'user-invocable: "true"')}),
    "argument-hint-list": ("argument-hint as a YAML list", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "argument-hint: [file-name]")}),
    "bad-effort": ("an effort level that does not exist", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "effort: extreme")}),
    "bad-context": ("a context that does not exist", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "context: background")}),
    "bad-shell": ("a shell that does not exist", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "shell: fish")}),
    "metadata-non-string": ("metadata with a number and a boolean value", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "metadata:", "  version: 1.10",
                        "  internal: true")}),
    "nested-doc-with-frontmatter": ("a <skill>/<topic>/SKILL.md sub-document with frontmatter", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.",
                        body=BODY + "\nFor encodings read [encodings/SKILL.md](encodings/SKILL.md).\n"),
        "csv-clean/encodings": fm("name: Encodings guide", "description: How to detect encodings.")}),
    "nested-doc-no-frontmatter": ("a <skill>/<topic>/SKILL.md sub-document without frontmatter", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.",
                        body=BODY + "\nFor encodings read [encodings/SKILL.md](encodings/SKILL.md).\n"),
        "csv-clean/encodings": "# Encodings\n\nDetect the encoding before parsing.\n"}),
    "empty-body": ("frontmatter and no body", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", body="")}),
    "non-utf8": ("a Latin-1 byte in the description", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files for the caf\udce9.").encode("utf-8", "surrogateescape")}),
    "description-number": ("a bare number as the description", {
        "csv-clean": fm("name: csv-clean", "description: 42")}),
    "description-list": ("a list as the description", {
        "csv-clean": fm("name: csv-clean", "description:", "  - Clean CSV files", "  - before import")}),
    "compatibility-too-long": ("a compatibility of 600 characters", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "compatibility: " + "Requires Python 3 and pandas. " * 20 + "x" * 0)}),
    "duplicate-key": ("the description key twice", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files.", "description: Clean CSV files before import.")}),
    "when-to-use-long": ("description + when_to_use together over 1,536", {
        "csv-clean": fm("name: csv-clean", f"description: {LONG_1100}", f"when_to_use: {LONG_1100[:600]}")}),
    "name-angle-brackets": ("< and > in the name", {
        "csv-clean": fm("name: csv <clean>", "description: Clean CSV files before import.")}),
    "boolean-invalid": ("a boolean written as maybe", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "user-invocable: maybe")}),
    "tab-indent": ("a metadata entry indented with a tab", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "metadata:", "\towner: data-team")}),
    "hooks-invalid": ("hooks that are not a mapping of events, beside allowed-tools", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "allowed-tools: Read",
                        "hooks: run-lint")}),
    "claude-fields": ("Claude Code's own fields (valid values)", {
        "csv-clean": fm("name: csv-clean", "description: Clean CSV files before import.", "when_to_use: When a CSV arrives.",
                        "model: inherit", "effort: high", "context: fork", "agent: general-purpose", "shell: Bash",
                        "paths:", "  - '**/*.csv'", "disallowedTools: WebFetch")}),
}

# the file name is the question: {directory/file: content}
LOWER: dict[str, tuple[str, dict[str, str]]] = {
    "lowercase-filename": ("skill.md instead of SKILL.md (beside a SKILL.md, so that the validator has a tree to read)", {
        "csv-clean/skill.md": fm("name: csv-clean", "description: Clean CSV files before import."),
        "csv-split/SKILL.md": fm("name: csv-split", "description: Split large CSV files.")}),
}

# Claude Code only: whole trees under claude/
CLAUDE: dict[str, tuple[str, dict[str, str]]] = {
    "agent-no-description": ("a subagent file without a description", {
        ".claude/agents/reviewer.md": fm("name: reviewer", body="You review code.\n")}),
    "agent-unknown-fields": ("a subagent file with unknown fields", {
        ".claude/agents/reviewer.md": fm("name: reviewer", "description: Reviews code changes.", "colour: blue", "owner: platform",
                                         body="You review code.\n")}),
    "agent-with-skills": ("a subagent preloading skills, one of them absent", {
        ".claude/agents/reviewer.md": fm("name: reviewer", "description: Reviews code changes.", "skills:", "  - csv-clean",
                                         "  - no-such-skill", body="You review code.\n"),
        ".claude/skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "agent-bad-values": ("a subagent with a bad model, permissionMode and maxTurns", {
        ".claude/agents/reviewer.md": fm("name: reviewer", "description: Reviews code changes.", "model: gpt-4",
                                         "permissionMode: yolo", "maxTurns: many", body="You review code.\n")}),
    "agent-name-colon": ("a subagent whose name holds a ':'", {
        ".claude/agents/reviewer.md": fm("name: team:reviewer", "description: Reviews code changes.", body="You review code.\n")}),
    "plugin-skills-path": ("plugin.json listing a custom skills directory and a file path", {
        ".claude-plugin/plugin.json": '{\n  "name": "csv-kit",\n  "skills": ["./extra", "./README.md"]\n}\n',
        "README.md": "# csv-kit\n",
        "extra/csv-split/SKILL.md": fm("name: csv-split", "description: Split large CSV files."),
        "skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "agent-name-dash": ("a subagent whose name starts with '-'", {
        ".claude/agents/reviewer.md": fm("name: -reviewer", "description: Reviews code changes.", body="You review code.\n")}),
    "plugin-root-skill": ("a marketplace plugin whose SKILL.md is at its top (no skills/), its name not the directory's", {
        ".claude-plugin/marketplace.json": '{\n  "name": "data-tools",\n  "owner": {"name": "Data Team"},\n  "plugins": [\n'
        '    {"name": "csv-kit", "source": "./csv-kit", "description": "CSV tools."}\n  ]\n}\n',
        "csv-kit/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "nested-claude-skills": ("a .claude/skills directory in a subdirectory of the project, with a skill missing its description", {
        ".claude/skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import."),
        "packages/api/.claude/skills/api-docs/SKILL.md": fm("name: api-docs")}),
    "agent-no-frontmatter": ("a subagent file without frontmatter", {
        ".claude/agents/reviewer.md": "You review code.\n"}),
    "plugin-valid": ("a plugin: manifest and a skill (control)", {
        ".claude-plugin/plugin.json": '{\n  "name": "csv-kit",\n  "version": "1.0.0",\n  "description": "CSV tools."\n}\n',
        "skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "plugin-skill-problems": ("a plugin whose skills have a mismatched name and no description", {
        ".claude-plugin/plugin.json": '{\n  "name": "csv-kit"\n}\n',
        "skills/csv-clean/SKILL.md": fm("name: cleaner", "description: Clean CSV files before import."),
        "skills/csv-split/SKILL.md": fm("name: csv-split")}),
    "plugin-json-broken": ("plugin.json that is not JSON", {
        ".claude-plugin/plugin.json": '{\n  "name": "csv-kit",\n}\n',
        "skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "plugin-json-no-name": ("plugin.json without a name", {
        ".claude-plugin/plugin.json": '{\n  "version": "1.0.0"\n}\n',
        "skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "plugin-json-bad-name": ("plugin.json with spaces and capitals in the name", {
        ".claude-plugin/plugin.json": '{\n  "name": "CSV Kit"\n}\n',
        "skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "plugin-json-bad-fields": ("plugin.json with an unknown field and a version that is a number", {
        ".claude-plugin/plugin.json": '{\n  "name": "csv-kit",\n  "version": 1,\n  "colour": "blue"\n}\n',
        "skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
    "marketplace": ("a marketplace with two nested plugins, one without plugin.json", {
        ".claude-plugin/marketplace.json": '{\n  "name": "data-tools",\n  "owner": {"name": "Data Team"},\n  "plugins": [\n'
        '    {"name": "csv-kit", "source": "./plugins/csv-kit", "description": "CSV tools."},\n'
        '    {"name": "json-kit", "source": "./plugins/json-kit", "description": "JSON tools."}\n  ]\n}\n',
        "plugins/csv-kit/.claude-plugin/plugin.json": '{\n  "name": "csv-kit"\n}\n',
        "plugins/csv-kit/skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import."),
        "plugins/json-kit/skills/json-fmt/SKILL.md": fm("name: json-format", "description: Format JSON files.")}),
    "marketplace-broken": ("a marketplace.json without owner, an entry without source, a duplicate plugin name", {
        ".claude-plugin/marketplace.json": '{\n  "name": "data-tools",\n  "plugins": [\n'
        '    {"name": "csv-kit", "source": "./plugins/csv-kit"},\n    {"name": "csv-kit", "source": "./plugins/other"},\n'
        '    {"name": "json-kit"}\n  ]\n}\n',
        "plugins/csv-kit/.claude-plugin/plugin.json": '{\n  "name": "csv-kit"\n}\n',
        "plugins/csv-kit/skills/csv-clean/SKILL.md": fm("name: csv-clean", "description: Clean CSV files before import.")}),
}


def write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def main() -> None:
    if HERE.exists():
        shutil.rmtree(HERE)
    for case, (question, skills) in SKILLS.items():
        root = HERE / case
        write(root / "QUESTION", question + "\n")
        for directory, content in skills.items():
            for layout, base in (("claude", ".claude/skills"), ("spec", "skills"), ("codex", ".agents/skills")):
                write(root / layout / base / directory / "SKILL.md", content)
    for case, (question, skills) in LOWER.items():
        root = HERE / case
        write(root / "QUESTION", question + "\n")
        for relative, content in skills.items():
            for layout, base in (("claude", ".claude/skills"), ("spec", "skills"), ("codex", ".agents/skills")):
                write(root / layout / base / relative, content)
    for case, (question, files) in CLAUDE.items():
        root = HERE / case
        write(root / "QUESTION", question + "\n")
        for relative, content in files.items():
            write(root / "claude" / relative, content)


if __name__ == "__main__":
    main()
