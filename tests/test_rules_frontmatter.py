"""SK101-SK115: a SKILL.md's frontmatter, per profile (agentdeck / claude / spec)."""

from __future__ import annotations

import pytest

from .helpers import PROFILES, codes, having, one, skill_md, where

# -- a valid skill is clean in every profile ------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_valid_skill_has_no_finding(check_skill, profile):
    assert check_skill(skill_md("demo", "Do the demo thing."), profile=profile) == []


def test_valid_skill_with_every_spec_field_has_no_finding(check_skill):
    extra = "\n".join([
        "license: Apache-2.0",
        "compatibility: Requires Python 3.11 and network access",
        "metadata:",
        "  author: example-org",
        '  version: "1.0"',
        "allowed-tools: Bash(git:*) Read",
    ])
    for profile in PROFILES:
        assert check_skill(skill_md(extra=extra), profile=profile) == [], profile


# -- SK101 missing-frontmatter ----------------------------------------------------


def test_sk101_file_without_frontmatter(check_skill):
    finding = one(check_skill("# Demo\n\nDo it.\n"), "SK101")
    assert where(finding) == (1, 1, 1, 7)
    assert finding["severity"] == "error"
    assert "'---'" in finding["message"]


@pytest.mark.parametrize("profile", PROFILES)
def test_sk101_reported_in_every_profile(check_skill, profile):
    assert codes(check_skill("Just instructions.\n", profile=profile)) == ["SK101"]


# -- SK102 unclosed-frontmatter -------------------------------------------------------


def test_sk102_frontmatter_never_closed(check_skill):
    findings = check_skill("---\nname: demo\ndescription: Do it.\n\nBody.\n")
    finding = one(findings, "SK102")
    assert where(finding) == (1, 1, 1, 4)
    assert finding["severity"] == "error"
    assert "closing '---'" in finding["message"]
    assert codes(findings) == ["SK102"]


# -- SK103 invalid-yaml ----------------------------------------------------------------


def test_sk103_unquoted_colon_in_value_names_the_cause(check_skill):
    findings = check_skill(skill_md(description="Use when: the user asks"))
    finding = one(findings, "SK103")
    # at the parser's mark (the second ': '), through the end of the value
    assert where(finding) == (3, 22, 3, 37)
    assert finding["severity"] == "error"
    assert "': '" in finding["message"] and "quote" in finding["message"]


def test_sk103_quoted_colon_is_valid(check_skill):
    assert check_skill(skill_md(description='"Use when: the user asks"')) == []


def test_sk103_at_the_parser_mark(check_skill):
    finding = one(check_skill("---\nname: [demo\ndescription: Do it.\n---\n\nBody.\n"), "SK103")
    assert finding["line"] == 3
    assert finding["severity"] == "error"
    assert finding["message"].startswith("invalid YAML")


def test_sk103_unclosed_quote_points_at_the_opening_quote(check_skill):
    finding = one(check_skill('---\nname: demo\ndescription: "Extract pickup\n---\n\nBody.\n'), "SK103")
    assert (finding["line"], finding["column"]) == (3, 14)


def test_sk103_tab_indentation(check_skill):
    finding = one(check_skill("---\nname: demo\ndescription: Do it.\nmetadata:\n\tauthor: me\n---\n\nBody.\n"), "SK103")
    assert finding["line"] == 5
    assert "tab" in finding["message"]


def test_sk103_duplicate_key(check_skill):
    finding = one(check_skill("---\nname: demo\nname: demo\ndescription: Do it.\n---\n\nBody.\n"), "SK103")
    assert where(finding) == (3, 1, 3, 5)
    assert "duplicate key 'name'" in finding["message"]


# -- SK104 frontmatter-not-mapping ---------------------------------------------------------


@pytest.mark.parametrize("frontmatter", ["- name: demo\n- description: Do it.", "just some words"])
def test_sk104_frontmatter_that_is_not_a_mapping(check_skill, frontmatter):
    finding = one(check_skill(f"---\n{frontmatter}\n---\n\nBody.\n"), "SK104")
    assert (finding["line"], finding["column"]) == (2, 1)
    assert finding["severity"] == "error"
    assert "mapping" in finding["message"]


# -- SK105 missing-name / SK106 missing-description, by profile ---------------------------


@pytest.mark.parametrize(("profile", "severity"), [("agentdeck", "error"), ("collection", "error")])
def test_sk105_missing_name_is_an_error(check_skill, profile, severity):
    # Codex (.agents/skills) 0.171.0 names a skill without `name` after its directory: nothing there
    assert codes(check_skill(skill_md(name=None), profile="spec")) == []
    finding = one(check_skill(skill_md(name=None), profile=profile), "SK105")
    assert where(finding) == (1, 1, 1, 4)
    assert finding["severity"] == severity
    assert "name: demo" in finding["message"]


def test_sk105_missing_name_is_fine_in_claude(check_skill):
    # Claude Code names a skill after its directory; frontmatter name is optional there
    assert check_skill(skill_md(name=None), profile="claude") == []


@pytest.mark.parametrize(("profile", "severity"), [("agentdeck", "error"), ("spec", "error"), ("claude", "warning")])
def test_sk106_missing_description(check_skill, profile, severity):
    findings = check_skill(skill_md(description=None), profile=profile)
    finding = one(findings, "SK106")
    assert where(finding) == (1, 1, 1, 4)
    assert finding["severity"] == severity
    assert codes(findings) == ["SK106"]


def test_empty_frontmatter_misses_both_fields(check_skill):
    assert sorted(codes(check_skill("---\n---\n\nBody.\n"))) == ["SK105", "SK106"]


# -- SK107 wrong-type ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "frontmatter", "line", "column", "words"),
    [
        ("agentdeck", "name: demo\ndescription: 42", 3, 14, "non-empty string"),
        ("agentdeck", 'name: ""\ndescription: Do it.', 2, 7, "non-empty string"),
        ("spec", "name: demo\ndescription:", 3, 1, "non-empty string"),
        ("spec", "name: demo\ndescription: [a, b]", 3, 14, "non-empty string"),
        ("agentdeck", "name: demo\ndescription: Do it.\nmetadata:\n  version: 1.0", 5, 3, "quote it"),
        ("spec", "name: demo\ndescription: Do it.\nmetadata: v1", 4, 11, "mapping"),
        ("claude", 'description: Do it.\nuser-invocable: "perhaps"', 3, 17, "true or false"),
        ("claude", "description: Do it.\ndisable-model-invocation: sometimes", 3, 27, "true or false"),
        ("claude", "description: Do it.\neffort: extreme", 3, 9, "one of low, medium, high, xhigh, max"),
        ("claude", "description: Do it.\ncontext: thread", 3, 10, "fork"),
        ("claude", "description: Do it.\nshell: zsh", 3, 8, "bash, powershell"),
        ("claude", "description: Do it.\nallowed-tools: [Read, 3]", 3, 16, "list of strings"),
        ("claude", "description: Do it.\nhooks: nope", 3, 8, "mapping"),
    ],
)
def test_sk107_wrong_type(check_skill, profile, frontmatter, line, column, words):
    finding = one(check_skill(f"---\n{frontmatter}\n---\n\nBody.\n", profile=profile), "SK107")
    assert (finding["line"], finding["column"]) == (line, column)
    # Claude Code ignores a value it cannot read and loads the rest: a warning; the strict runtimes (and
    # Codex, for a name or description that is no text) refuse the skill
    assert finding["severity"] == ("warning" if profile == "claude" else "error")
    assert words in finding["message"]


@pytest.mark.parametrize(
    "frontmatter",
    [
        # Codex deserialises name, description and metadata only; VS Code's validator flags a license
        # that is no string, but what VS Code then loads is not documented (a note)
        "name: demo\ndescription: Do it.\nlicense: 2",
        "name: demo\ndescription: Do it.\nallowed-tools: [Read, Grep]",
    ],
)
def test_sk107_codex_is_lenient_about_optional_fields(check_skill, frontmatter):
    findings = check_skill(f"---\n{frontmatter}\n---\n\nBody.\n", profile="spec")
    assert [f["severity"] for f in findings if f["code"] == "SK107"] in ([], ["information"])


@pytest.mark.parametrize(
    "frontmatter",
    [
        # skills-ref 0.1.1 reads every scalar as text (strictyaml) and does not check these fields' types
        "name: demo\ndescription: Do it.\nlicense: 2",
        "name: demo\ndescription: Do it.\nmetadata: v1",
        "name: demo\ndescription: Do it.\nmetadata:\n  version: 1.10",
    ],
)
def test_sk107_skills_ref_reads_metadata_values_as_text(check_skill, frontmatter):
    finding = one(check_skill(f"---\n{frontmatter}\n---\n\nBody.\n", profile="collection"), "SK107")
    assert finding["severity"] == "information"
    assert "skills-ref does not check it" in finding["message"] or "as the number '1.1'" in finding["message"]


# -- profile differences: Claude Code fields --------------------------------------------------

CLAUDE_FIELDS = "\n".join([
    "when_to_use: The user asks where an order is.",
    'argument-hint: "[order-number]"',
    "arguments: [order]",
    "disable-model-invocation: true",
    "user-invocable: false",
    "allowed-tools:",
    "  - Read",
    "  - Grep",
    "disallowed-tools: Bash",
    "model: sonnet",
    "effort: high",
    "context: fork",
    "agent: Explore",
    "hooks:",
    "  PreToolUse: []",
    "paths:",
    '  - "src/**"',
    "shell: bash",
])


def test_claude_code_fields_are_valid_in_a_claude_root(check_skill):
    assert check_skill(skill_md(extra=CLAUDE_FIELDS), profile="claude") == []


@pytest.mark.parametrize("profile", ["spec", "agentdeck", "collection"])
def test_claude_code_fields_are_unknown_elsewhere(check_skill, profile):
    # not a typo of a field these runtimes read: ignored, so information (was a warning)
    findings = check_skill(skill_md(extra="when_to_use: The user asks where an order is."), profile=profile)
    finding = one(findings, "SK111")
    assert where(finding) == (4, 1, 4, 12)
    assert finding["severity"] == "information"
    assert "'when_to_use'" in finding["message"]


def test_allowed_tools_list_is_claude_only(check_skill):
    # skills-ref 0.1.1 accepts a block list (it does not check the field's type), Claude Code reads it
    # (2.1.0), Codex does not read the field: no runtime refuses it
    extra = "allowed-tools:\n  - Read\n  - Grep"
    for profile in ("claude", "spec", "collection", "agentdeck"):
        assert check_skill(skill_md(extra=extra), profile=profile) == [], profile


# -- SK108 name-directory-mismatch -----------------------------------------------------------------


@pytest.mark.parametrize("profile", ["agentdeck", "collection"])
def test_sk108_name_differs_from_directory_is_an_error(check_skill, profile):
    findings = check_skill(skill_md(name="parse-reqest"), profile=profile, directory="parse-request")
    finding = one(findings, "SK108")
    assert where(finding) == (2, 7, 2, 19)
    assert finding["severity"] == "error"
    assert "'parse-reqest'" in finding["message"] and "'parse-request'" in finding["message"]
    assert codes(findings) == ["SK108"]


def test_sk108_display_label_in_claude_is_a_warning_and_no_error(check_skill):
    # a display label is a documented use of the field, which `claude plugin validate` 2.1.332 does not flag
    findings = check_skill(skill_md(name="Order status"), profile="claude", directory="order-status")
    finding = one(findings, "SK108")
    assert where(finding) == (2, 7, 2, 19)
    assert finding["severity"] == "information"
    assert "Claude Code names it 'order-status' after its directory" in finding["message"]
    assert "shows the frontmatter name to users" in finding["message"]
    assert [f for f in findings if f["severity"] == "error"] == []


def test_sk108_codex_keeps_the_name_as_written(check_skill):
    # Codex's loader (loader.rs) keeps the name as written, whatever the directory: VS Code's note alone is
    # not reported where another runtime of the root reads the name as written
    assert check_skill(skill_md(name="parse-reqest"), profile="spec", directory="parse-request") == []
    finding = one(check_skill(skill_md(name="parse-reqest"), profile="collection", directory="parse-request"), "SK108")
    assert finding["severity"] == "error"  # skills-ref: "Directory name ... must match skill name"


@pytest.mark.parametrize("profile", PROFILES)
def test_sk108_name_equal_to_directory(check_skill, profile):
    assert check_skill(skill_md(name="order-status"), profile=profile, directory="order-status") == []


# -- SK109 invalid-name ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("Parse", "lowercase"),
        ("-parse", "start or end with '-'"),
        ("parse-", "start or end with '-'"),
        ("parse--request", "consecutive hyphens"),
        ("parse_request", "'_'"),
        ("parse.request", "'.'"),
        ("a" * 65, "at most 64"),
    ],
)
def test_sk109_says_which_rule_the_name_breaks(check_skill, name, rule):
    # the directory carries the same name, so only SK109 applies
    findings = check_skill(skill_md(name=name), directory=name)
    finding = one(findings, "SK109")
    assert (finding["line"], finding["column"]) == (2, 7)
    assert finding["severity"] == "error"
    assert rule in finding["message"]
    assert codes(findings) == ["SK109"]


@pytest.mark.parametrize("name", ["a", "pdf", "parse-request", "v2-api", "a" * 64, "café", "données-client"])
def test_sk109_valid_names(check_skill, name):
    assert check_skill(skill_md(name=name), directory=name, profile="collection") == []


def test_sk109_does_not_apply_to_claude_display_labels(check_skill):
    findings = check_skill(skill_md(name="Order status"), profile="claude", directory="order-status")
    # Claude Code takes any display label; VS Code's validator (it also reads .claude/skills) would note it,
    # but nothing loads differently
    assert having(findings, "SK109") == []


# -- SK110 description-too-long --------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["agentdeck", "collection"])
def test_sk110_description_over_1024(check_skill, profile):
    finding = one(check_skill(skill_md(description="a" * 1025), profile=profile), "SK110")
    assert where(finding) == (3, 14, 3, 14 + 1025)
    assert finding["severity"] == "error"
    assert "1025" in finding["message"] and "1024" in finding["message"]


@pytest.mark.parametrize("profile", PROFILES)
def test_sk110_description_of_exactly_1024(check_skill, profile):
    assert check_skill(skill_md(description="a" * 1024), profile=profile) == []


def test_sk110_claude_allows_up_to_1536(check_skill):
    assert check_skill(skill_md(description="a" * 1536), profile="claude") == []
    finding = one(check_skill(skill_md(description="a" * 1537), profile="claude"), "SK110")
    assert finding["severity"] == "warning"
    assert "1536" in finding["message"]


def test_sk110_claude_counts_when_to_use(check_skill):
    text = skill_md(description="a" * 1000, extra="when_to_use: " + "b" * 600)
    finding = one(check_skill(text, profile="claude"), "SK110")
    assert (finding["line"], finding["column"]) == (3, 14)
    assert finding["severity"] == "warning"
    assert "when_to_use" in finding["message"] and "1600" in finding["message"]


# -- SK111 unknown-field ------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_sk111_typo_suggests_the_closest_key(check_skill, profile):
    finding = one(check_skill(skill_md(extra="licence: MIT"), profile=profile), "SK111")
    assert where(finding) == (4, 1, 4, 8)
    assert finding["severity"] == "warning"
    assert "did you mean 'license'" in finding["message"]


def test_sk111_custom_key_points_to_metadata(check_skill):
    finding = one(check_skill(skill_md(extra="version: 1.0.0"), profile="spec"), "SK111")
    assert "metadata" in finding["message"]


def test_sk111_custom_keys_under_metadata_are_fine(check_skill):
    assert check_skill(skill_md(extra='metadata:\n  version: "1.0.0"'), profile="spec") == []


# -- SK112 compatibility-too-long ---------------------------------------------------------------------


def test_sk112_compatibility_over_500(check_skill):
    finding = one(check_skill(skill_md(extra="compatibility: " + "c" * 501)), "SK112")
    assert where(finding) == (4, 16, 4, 16 + 501)
    assert finding["severity"] == "error"
    assert "501" in finding["message"] and "500" in finding["message"]


def test_sk112_compatibility_of_500(check_skill):
    assert check_skill(skill_md(extra="compatibility: " + "c" * 500)) == []


# -- SK113 multiline-description -------------------------------------------------------------------------


@pytest.mark.parametrize("indicator", ["|", "|-"])
def test_sk113_literal_block_description(check_skill, indicator):
    text = f"---\nname: demo\ndescription: {indicator}\n  Extract pickup.\n  And dropoff.\n---\n\nBody.\n"
    finding = one(check_skill(text), "SK113")
    assert (finding["line"], finding["column"]) == (3, 14)
    assert finding["severity"] == "information"
    assert "several lines" in finding["message"]


@pytest.mark.parametrize("indicator", [">", ">-"])
def test_sk113_folded_description_is_one_line(check_skill, indicator):
    text = f"---\nname: demo\ndescription: {indicator}\n  Extract pickup\n  and dropoff.\n---\n\nBody.\n"
    assert check_skill(text) == []


# -- SK114 angle-brackets-in-description --------------------------------------------------------------------


def test_sk114_angle_brackets(check_skill):
    # only an upload to claude.ai / the API rejects them (quick_validate.py): information, and only for a
    # collection, which is what gets uploaded
    finding = one(check_skill(skill_md(description="Use for <booking> requests."), profile="collection"), "SK114")
    assert where(finding) == (3, 14, 3, 41)
    assert finding["severity"] == "information"
    assert "'<'" in finding["message"] and "upload" in finding["message"]


@pytest.mark.parametrize("profile", ["claude", "agentdeck", "spec"])
def test_sk114_not_for_skills_loaded_from_disk(check_skill, profile):
    assert having(check_skill(skill_md(description="Use for <booking> requests."), profile=profile), "SK114") == []


def test_sk114_no_angle_brackets(check_skill):
    assert check_skill(skill_md(description="Use for booking requests (rides, not hotels).")) == []


# -- SK115 lowercase-filename ----------------------------------------------------------------------------------


@pytest.mark.parametrize("filename", ["skill.md", "Skill.md"])
def test_sk115_misnamed_skill_file(check_skill, filename):
    finding = one(check_skill(skill_md(), filename=filename), "SK115")
    assert where(finding) == (1, 1, 1, 4)
    assert finding["severity"] == "warning"
    assert f"'{filename}'" in finding["message"] and "'SKILL.md'" in finding["message"]


# -- inline suppression on a frontmatter line ----------------------------------------------------------------------


def test_inline_ignore_on_the_frontmatter_line(check_skill):
    assert check_skill(skill_md(extra="licence: MIT  # skill-lsp: ignore[SK111]")) == []


def test_inline_ignore_without_codes_suppresses_the_line(check_skill):
    assert check_skill(skill_md(extra="licence: MIT  # skill-lsp: ignore")) == []


def test_inline_ignore_of_another_code_keeps_the_finding(check_skill):
    assert codes(check_skill(skill_md(extra="licence: MIT  # skill-lsp: ignore[SK109]"))) == ["SK111"]


def test_sk108_a_slug_that_is_not_the_directory_is_a_note_in_claude(check_skill):
    # a plugin's skill is offered to users by its frontmatter name too (a lowercase one is an alias): only a
    # session's skills=[...] filter needs the directory's name; the validator says nothing
    finding = one(check_skill(skill_md(name="zoom-oauth"), profile="claude", directory="oauth"), "SK108")
    assert finding["severity"] == "information"
    assert "Claude Code names it 'oauth' after its directory (the name a session's skills=[...] filter must use)" \
        in finding["message"]


def test_sk111_in_a_collection_says_which_runtimes_read_the_key(check_skill):
    # skills-ref 0.1.1 rejects keys the specification does not define; Claude Code and VS Code read these
    findings = check_skill(skill_md(extra="argument-hint: <file>\nowner-team: billing"), profile="collection")
    by_key = {f["message"].split("'")[1]: f for f in findings if f["code"] == "SK111"}
    assert by_key["argument-hint"]["severity"] == "information"
    assert "Claude Code and VS Code Copilot read it" in by_key["argument-hint"]["message"]
    assert "skills-ref rejects keys it does not define" in by_key["owner-team"]["message"]
    assert "runtimes ignore it" in by_key["owner-team"]["message"]


def test_sk111_a_misspelt_name_equal_to_the_directory_changes_nothing_in_claude_code(check_skill):
    finding = one(check_skill("---\nName: refunds\ndescription: Refunds.\n---\n\nBody.\n", profile="claude",
                              directory="refunds"), "SK111")
    assert finding["severity"] == "information" and "did you mean 'name'" in finding["message"]
    finding = one(check_skill("---\nName: refund-desk\ndescription: Refunds.\n---\n\nBody.\n", profile="claude",
                              directory="refunds"), "SK111")
    assert finding["severity"] == "warning"
