"""Hostile files: each is answered by a diagnostic or a clean skip, within bounds, never a traceback.

Every test runs the real `skill-lsp check` (in-process, JSON output) and asserts what a
user sees; the costly cases also measure the analysis core (`Workspace.build()` plus
every rule, what the server runs) against a benign input of the same size with
`bounds.assert_bounded`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from skill_lsp import skillfile
from skill_lsp.bodyscan import MAX_BODY_ITEMS
from skill_lsp.config import Config
from skill_lsp.model import Finding
from skill_lsp.pysource import parse_python
from skill_lsp.rules import run_rules
from skill_lsp.server.session import Session
from skill_lsp.skillfile import MAX_FRONTMATTER_CHARS, parse_skill
from skill_lsp.textutil import MAX_FILE_BYTES, split_lines
from skill_lsp.workspace import Workspace

from ..helpers import Project, codes, one, skill_md
from .bounds import Cost, assert_bounded, cost, measure

SKILL = ".agentdeck/skills/demo/SKILL.md"
FRONTMATTER = "---\nname: demo\ndescription: Do the demo thing.\n---\n\n"


def benign_body(size: int) -> str:
    """Ordinary Markdown instructions of about size characters; like real skills they link to a file
    beside them (it exists: see baseline), so the benign side pays for resolving links too."""
    paragraph = "## Step\n\nRead the request, then follow [the guide](references/guide.md) carefully, one step at a time.\n\n"
    return (paragraph * (size // len(paragraph) + 1))[:size]


def analyse(root: Path) -> dict[Path, list[Finding]]:
    return run_rules(Workspace([root]).build(), Config())


def write(root: Path, relative: str, data: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    return path


def project_cost(root: Path) -> Cost:
    return cost(lambda: analyse(root))


def analysed(root: Path) -> tuple[Cost, list[Finding]]:
    """The cost of analysing root, and its findings (the core's: for inputs too big to print as JSON twice)."""
    spent, results = measure(lambda: analyse(root))
    return spent, sorted((finding for found in results.values() for finding in found), key=Finding.sort_key)


def baseline(tmp_path: Path, relative: str, data: str | bytes) -> Cost:
    """The cost of a benign project holding one file (the same size as the hostile one), and the
    file its body links to."""
    guide = str(Path(relative).parent / "references" / "guide.md")
    return baseline_files(tmp_path, {relative: data, guide: "# Guide\n"})


def baseline_files(tmp_path: Path, files: dict[str, str | bytes]) -> Cost:
    root = tmp_path / "benign"
    shutil.rmtree(root, ignore_errors=True)
    for relative, data in files.items():
        write(root, relative, data)
    return project_cost(root)


def check(project: Project, *args: str) -> tuple[int, list[dict[str, object]], str]:
    result = project.run("check", "--format", "json", *args)
    assert "Traceback" not in result.err, result.err
    assert result.status in (0, 1), result.err
    return result.status, result.findings, result.err


def at(finding: dict[str, object]) -> tuple[object, object]:
    """(line, column), 1-based, as the CLI prints them."""
    return finding["line"], finding["column"]


# -- YAML ---------------------------------------------------------------------------------------------


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["---", "name: demo", "description: Do it.", "a0: &a0 [" + ",".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join([*lines, "---", "", "Body.", ""])


def test_billion_laughs_is_refused_within_bounds(project: Project, tmp_path: Path) -> None:
    text = alias_bomb()
    path = write(project.root, SKILL, text)
    status, findings, _ = check(project)
    refused = [f for f in findings if f["code"] == "SK103" and "aliases" in str(f["message"])]
    assert refused, findings
    # on a4, the first value whose expansion passes the node budget (with a0..a3: 8,304 + 66,430 > 20,000)
    assert refused[0]["line"] == 8
    assert status == 1
    assert_bounded(project_cost(project.root), baseline(tmp_path, SKILL, FRONTMATTER + benign_body(len(text))),
                   "alias bomb")
    assert path.read_text() == text


def test_a_recursive_alias_is_refused() -> None:
    parsed = parse_skill("---\nname: demo\ndescription: &d [*d]\n---\nBody.\n")
    assert parsed.fields["description"].error is not None


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("{a: ", "}")], ids=["sequences", "mappings"])
def test_flow_collections_nested_10000_deep(project: Project, tmp_path: Path, opening: str, closing: str) -> None:
    value = opening * 10_000 + closing * 10_000
    text = f"---\nname: demo\ndescription: {value}\n---\n\nBody.\n"
    write(project.root, SKILL, text)
    _, findings, _ = check(project)
    finding = one(findings, "SK103")
    assert finding["line"] == 3
    line = split_lines(text)[2]
    assert 1 <= int(finding["column"]) <= int(finding["end_column"]) <= len(line) + 1
    assert_bounded(project_cost(project.root), baseline(tmp_path, SKILL, FRONTMATTER + benign_body(len(text))),
                   f"{opening!r} nested 10,000 deep")


@pytest.mark.parametrize("text", [
    "---\nname: demo\ndescription: " + "[" * 10_000 + "]" * 10_000 + "\n---\nBody.\n",
    "---\nname: demo\ndescription: " + "- " * 10_000 + "x\n---\nBody.\n",
    alias_bomb(),
    "---\nname: demo\ndescription: &d [*d]\n---\nBody.\n",
    "---\nname: demo\ndescription: !!python/object/apply:os.system ['true']\n---\nBody.\n",
], ids=["flow", "block", "aliases", "recursive", "tag"])
def test_the_pure_python_loader_is_as_safe(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """Without libyaml (PyYAML's pure-Python loader, recursive): a problem, never a RecursionError."""
    monkeypatch.setattr(skillfile, "_compose", skillfile._compose_pure)
    parsed = parse_skill(text)
    problems = [parsed.yaml_problem] + [entry.error for entry in parsed.fields.values()]
    assert any(problem is not None for problem in problems), parsed.fields


@pytest.mark.parametrize("tag", [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/name:os.system",
    "!!python/object/apply:subprocess.call [['touch', '{marker}']]",
    "{{x: !!python/object/apply:os.system ['touch {marker}']}}",
])
def test_yaml_tags_are_never_constructed(project: Project, outside: Path, tag: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    marker = outside / "pwned"
    text = skill_md(description="Do it.", extra="metadata: " + tag.format(marker=marker))
    write(project.root, SKILL, text)
    for compose in (skillfile._compose, skillfile._compose_pure):
        monkeypatch.setattr(skillfile, "_compose", compose)
        _, findings, _ = check(project)
        finding = one(findings, "SK103")
        assert finding["line"] == 4  # the metadata line
        assert not marker.exists()
    # and by the language server's session, on an unsaved buffer
    session = Session([project.root])
    session.set_text(project.root / SKILL, text.replace("metadata", "metadata "))
    session.full_analysis()
    assert "SK103" in [f.code for f in session.findings[project.root / SKILL]]
    assert not marker.exists()


def test_duplicate_keys(project: Project) -> None:
    write(project.root, SKILL, "---\nname: demo\ndescription: One.\ndescription: Two.\n---\n\nBody.\n")
    _, findings, _ = check(project)
    assert at(one(findings, "SK103")) == (4, 1)


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"], ids=["NEL", "LS", "PS"])
def test_yaml_only_line_breaks_keep_spans_on_the_documents_lines(project: Project, separator: str) -> None:
    """YAML ends a line at U+0085/U+2028/U+2029, LSP does not: spans follow the document's lines."""
    # two keys on one LSP line, as YAML sees them; the second is the mismatched name
    text = f"---\ndescription: Do it.{separator}name: other\n---\n\nBody.\n"
    write(project.root, SKILL, text)
    _, findings, _ = check(project)
    finding = one(findings, "SK108")
    line = split_lines(text)[1]
    assert at(finding) == (2, line.index("other") + 1)
    assert finding["end_column"] == line.index("other") + len("other") + 1
    # a YAML error after the separator lands on the document's line, inside it
    text = f"---\nname: demo{separator}description: [unclosed\n---\n\nBody.\n"
    parsed = parse_skill(text)
    assert parsed.yaml_problem is not None
    span = parsed.yaml_problem.span
    assert span.start.line == 1 and span.end.column <= len(split_lines(text)[1])


def test_a_character_yaml_refuses_is_reported_where_it_is(project: Project) -> None:
    write(project.root, SKILL, "---\nname: demo\ndescription: Do \x00it.\n---\n\nBody.\n")
    _, findings, _ = check(project)
    finding = one(findings, "SK103")
    assert at(finding) == (3, len("description: Do ") + 1)
    assert "#x0000" in str(finding["message"])


# -- size ---------------------------------------------------------------------------------------------


def test_a_50_mb_skill_is_skipped_and_says_so(project: Project, tmp_path: Path) -> None:
    size = 50 * 1024 * 1024
    write(project.root, SKILL, FRONTMATTER + benign_body(size))
    write(project.root, ".agentdeck/skills/other/SKILL.md", skill_md(name="other", description="Fine."))
    _, findings, err = check(project)
    finding = one(findings, "SK203")
    assert finding["path"] == SKILL
    assert at(finding) == (1, 1)
    assert "larger than 8 MB" in str(finding["message"]) and "not analysed" in str(finding["message"])
    assert f"skill-lsp: {SKILL}: SKILL.md is larger than 8 MB; not analysed" in err  # relative, like the findings
    hostile = project_cost(project.root)
    assert_bounded(hostile, baseline(tmp_path, SKILL, FRONTMATTER + benign_body(1024 * 1024)), "50 MB SKILL.md")
    assert hostile.peak < 2 * MAX_FILE_BYTES + 8 * 1024 * 1024  # never the whole file in memory


def test_an_editor_buffer_over_the_limit_is_skipped_too(project: Project) -> None:
    path = write(project.root, SKILL, skill_md())
    session = Session([project.root])
    session.full_analysis()
    assert path not in session.findings
    session.set_text(path, FRONTMATTER + "x" * (MAX_FILE_BYTES + 1))
    session.reanalyse(path)
    assert [f.code for f in session.findings[path]] == ["SK203"]
    assert session.text(path) is None  # features get nothing to work on, rather than 8 MB to scan
    session.set_text(path, skill_md())
    session.reanalyse(path)
    assert path not in session.findings


def _fill(parts: list[str], size: int) -> str:
    """The parts (each a hostile pattern) one after the other, repeated up to size characters."""
    line = "".join(parts)
    return (line * (size // len(line) + 1))[:size]


BODY_LINES = {
    "prose": lambda n: _fill(["Read the request and follow the steps. "], n),
    # each pattern once made the link scan quadratic or worse: '[' after '[', unclosed '](' and '<',
    # escaped brackets, titles that never close
    "links": lambda n: _fill(["[" * 50_000, "[a](" * 20_000, "[\\[" * 20_000, '[a](b "' * 10_000, "[a](<" * 20_000,
                              "[a](b) " * 10_000], n),
    # '# a' then 2 MB of spaces and hashes: minutes with the old heading pattern
    "heading": lambda n: "# a" + _fill([" " * 100_000, " #" * 50_000], n) + "b",
    "paths": lambda n: _fill([" scripts/x" * 10_000, "[a](scripts/x) /home/u/x " * 5_000, "/home/u/" + "a." * 50_000], n),
}


@pytest.mark.parametrize("kind", list(BODY_LINES))
def test_a_2_mb_single_line_body(project: Project, tmp_path: Path, kind: str) -> None:
    size = 2 * 1024 * 1024
    text = FRONTMATTER + BODY_LINES[kind](size) + "\n"
    write(project.root, SKILL, text)
    spent, findings = analysed(project.root)
    assert_bounded(spent, baseline(tmp_path, SKILL, FRONTMATTER + benign_body(len(text))), f"2 MB line of {kind}")
    assert {finding.code for finding in findings} <= {"SK202", "SK204"}
    assert len(findings) <= 2 * MAX_BODY_ITEMS  # the first 5,000 references and machine paths


def test_a_2_mb_frontmatter_line_is_not_parsed(project: Project, tmp_path: Path) -> None:
    text = "---\nname: demo\ndescription: " + "x" * (2 * 1024 * 1024) + "\n---\n\nBody.\n"
    write(project.root, SKILL, text)
    _, findings, _ = check(project)
    finding = one(findings, "SK103")
    assert f"over {MAX_FRONTMATTER_CHARS // 1024} KB" in str(finding["message"]) and at(finding) == (1, 1)
    assert_bounded(project_cost(project.root), baseline(tmp_path, SKILL, FRONTMATTER + benign_body(len(text))),
                   "2 MB frontmatter line")


@pytest.mark.parametrize("line", ["# a", "[a](b)", "skill-lsp: ignore", "ab"], ids=["headings", "links", "ignores", "short"])
def test_a_body_of_a_million_tiny_lines(project: Project, tmp_path: Path, line: str) -> None:
    size = 1024 * 1024
    text = FRONTMATTER + (line + "\n") * (size // (len(line) + 1))
    write(project.root, SKILL, text)
    spent, _ = analysed(project.root)
    assert_bounded(spent, baseline(tmp_path, SKILL, FRONTMATTER + benign_body(len(text))),
                   f"1 MB of {line!r} lines")


# -- bytes, encodings, line endings -------------------------------------------------------------------


def test_binary_data_named_skill_md(project: Project) -> None:
    data = bytes(range(256)) * 64 + os.urandom(4096)
    write(project.root, SKILL, data)
    write(project.root, ".agentdeck/skills/framed/SKILL.md", b"---\nname: framed\n" + data + b"\n---\n\nBody.\n")
    _, findings, _ = check(project)
    assert codes(f for f in findings if f["path"] == SKILL) == ["SK101", "SK116"]
    assert {"SK103", "SK116"} <= set(codes(f for f in findings if f["path"] == ".agentdeck/skills/framed/SKILL.md"))


def test_invalid_utf8_is_replaced_and_positions_hold(project: Project) -> None:
    write(project.root, SKILL, b"---\nname: \xff\xfedemo\ndescription: Do \xc3 it.\n---\n\nSee [x](scripts/\xe2\x82.py).\n")
    _, findings, _ = check(project)
    # U+FFFD stands in for each bad byte: one column each, as an editor shows them
    assert at(one(findings, "SK108")) == (2, 7)
    assert at(one(findings, "SK202")) == (6, 9)
    # and the first bad byte is reported where it is, saying what the runtime does
    encoding = one(findings, "SK116")
    assert at(encoding) == (2, 7) and encoding["severity"] == "error"
    assert "byte 0xFF (at byte 10) is not valid UTF-8" in encoding["message"]
    assert "UnicodeDecodeError" in encoding["message"]


def test_a_utf8_bom(project: Project) -> None:
    write(project.root, SKILL, "\ufeff---\nname: other\ndescription: Do it.\n---\n\nBody.\n")
    _, findings, _ = check(project)
    assert codes(findings) == ["SK108"] and at(findings[0]) == (2, 7)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_a_bom(project: Project, encoding: str) -> None:
    text = "---\nname: other\ndescription: Dö it.\n---\n\nBody.\n"
    data = text.encode(encoding) if encoding == "utf-16" else "\ufeff".encode(encoding) + text.encode(encoding)
    write(project.root, SKILL, data)
    _, findings, _ = check(project)
    assert codes(findings) == ["SK116", "SK108"] and at(findings[1]) == (2, 7)
    assert at(findings[0]) == (1, 1) and "UTF-16" in str(findings[0]["message"])


def test_utf16_without_a_bom_is_not_a_skill(project: Project) -> None:
    write(project.root, SKILL, "---\nname: demo\ndescription: Do it.\n---\n\nBody.\n".encode("utf-16-le"))
    _, findings, _ = check(project)
    assert codes(findings) == ["SK101"]  # NUL bytes are valid UTF-8: the frontmatter is what is missing


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_line_endings_keep_spans_right(project: Project, newline: str) -> None:
    text = "---\nname: other\ndescription: Do it.\n---\n\nRun `x` then see [this](scripts/missing.py).\n"
    write(project.root, SKILL, text.replace("\n", newline))
    agent = 'from agentdeck import Agent\n\na = Agent(name="A",\n          skills=["other", "nope"])\n'
    write(project.root, "agent.py", agent.replace("\n", newline))
    _, findings, _ = check(project)
    assert at(one(findings, "SK108")) == (2, 7)
    sk202 = one(findings, "SK202")
    assert at(sk202) == (6, text.split("\n")[5].index("scripts/") + 1)
    assert sk202["end_column"] == text.split("\n")[5].index(")") + 1
    assert at(one(findings, "AD101")) == (4, agent.split("\n")[3].index('"nope"') + 1)


def test_tabs(project: Project) -> None:
    write(project.root, SKILL, "---\nname: demo\n\tdescription: Do it.\n---\n\n\tSee\t[x](scripts/gone.py).\n")
    _, findings, _ = check(project)
    sk103 = one(findings, "SK103")
    assert sk103["line"] == 3 and "tabs" in str(sk103["message"])
    write(project.root, SKILL, "---\nname: demo\ndescription: Do it.\n---\n\n\tSee\t[x](scripts/gone.py).\n")
    _, findings, _ = check(project)
    assert at(one(findings, "SK202")) == (6, len("\tSee\t[x](") + 1)  # a tab is one column


@pytest.mark.parametrize("text, expected", [
    ("", ["SK101"]),
    ("   \n\n\t\n", ["SK101"]),
    ("---", ["SK102"]),
    ("---\nname: demo\ndescription: Do it.\n---", ["SK201"]),
    ("---\nname: demo\ndescription: Do it.\n---\n", ["SK201"]),
    ("---\nname: demo\ndescription: Do it.\n---\n\n\n   \n", ["SK201"]),
    ("---\n---\n", ["SK105", "SK106", "SK201"]),
], ids=["empty", "blank", "delimiter only", "no body, no newline", "no body", "blank body", "empty frontmatter"])
def test_empty_and_bodiless_files(project: Project, text: str, expected: list[str]) -> None:
    write(project.root, SKILL, text)
    _, findings, _ = check(project)
    assert sorted(codes(findings)) == expected
    for finding in findings:
        assert int(finding["line"]) <= len(split_lines(text))


def test_delimiter_lines_inside_the_body_are_body(project: Project) -> None:
    text = "---\nname: demo\ndescription: Do it.\n---\n\nBody.\n\n---\nname: other\ndescription:\n---\n\nMore.\n---\n"
    write(project.root, SKILL, text)
    _, findings, _ = check(project)
    assert findings == []
    assert parse_skill(text).get_str("name") == "demo"


# -- Python ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [
    'from agentdeck import Agent\n\na = Agent(name="A", skills=["nope"])\n\ndef broken(:\n',
    'from agentdeck import Agent\n\na = Agent(name="A", skills=["nope"]\n',
    'from agentdeck import Agent\n\na = Agent(name="A", skills=["nope\n',
    'from agentdeck import Agent\n\na = Agent(name="A", skills=["nope"])\n\x00\x00 garbage \xff',
    'from agentdeck import (\n\na = Agent(skills=["nope"])',
    "from agentdeck import Agent\n" + "(" * 5000 + "\na = Agent(skills=['nope'])\n",
    "from agentdeck import Agent\n\nclass X(:\n    a = Agent(skills=[\"nope\"])\n" * 50,
], ids=["def", "unclosed call", "unclosed string", "nul bytes", "unclosed import", "5000 parens", "bad classes"])
def test_python_with_syntax_errors(project: Project, source: str) -> None:
    write(project.root, "agent.py", source)
    write(project.root, ".agentdeck/skills/demo/SKILL.md", skill_md())
    _, findings, _ = check(project)
    for finding in findings:
        if finding["path"] == "agent.py":
            assert finding["code"] in ("AD101", "AD105")


def agents_file(entries: int, same: bool = False) -> str:
    names = ", ".join(['"demo"' if same else f'"skill-{i}"' for i in range(entries)])
    return f'from agentdeck import Agent\n\nbig = Agent(name="Big", skills=["demo", {names}])\n'


def ordinary_python(size: int) -> str:
    """An agent file of about size characters: agents listing a known and an unknown skill, and helpers."""
    line = ('agent_{0} = Agent(name="Agent {0}", instructions="Help.", skills=["demo", "skill-{0}"])\n\n'
            "def helper_{0}(value):\n    return [item for item in value if item]  # ordinary code\n\n")
    chunks = []
    total = 0
    index = 0
    while total < size:
        chunk = line.format(index)
        chunks.append(chunk)
        total += len(chunk)
        index += 1
    return "from agentdeck import Agent\n\n" + "".join(chunks)


def test_suggestions_stop_after_a_thousand_unknown_names_of_a_list(project: Project) -> None:
    """Each "did you mean" scores every name of the registry: the first SUGGESTIONS_PER_LIST unknown
    names of a list get one, the rest are reported without."""
    from skill_lsp.rules.code import SUGGESTIONS_PER_LIST

    names = ", ".join(f'"demo-{number}"' for number in range(SUGGESTIONS_PER_LIST + 5))
    project.write({".agentdeck/skills/demo-x/SKILL.md": skill_md("demo-x"),
                   "agent.py": f'from agentdeck import Agent\n\na = Agent(name="A", skills=[{names}])\n'})
    unknown = sorted((finding for finding in project.check() if finding["code"] == "AD101"),
                     key=lambda finding: finding["column"])
    assert len(unknown) == SUGGESTIONS_PER_LIST + 5
    assert all("did you mean 'demo-x'" in finding["message"] for finding in unknown[:SUGGESTIONS_PER_LIST])
    assert not any("did you mean" in finding["message"] for finding in unknown[SUGGESTIONS_PER_LIST:])


@pytest.mark.parametrize("same", [False, True], ids=["20,000 unknown names", "20,000 copies of one name"])
def test_a_20000_entry_skills_list(project: Project, tmp_path: Path, same: bool) -> None:
    source = agents_file(20_000, same)
    write(project.root, "agent.py", source)
    write(project.root, ".agentdeck/skills/demo/SKILL.md", skill_md())
    spent, findings = analysed(project.root)
    expected = "AD104" if same else "AD101"
    assert [finding.code for finding in findings].count(expected) == 20_000
    last = findings[-1]
    assert last.span.start.line == 2 and last.span.end.column <= len(source.split("\n")[2])
    assert source.split("\n")[2][last.span.start.column:last.span.end.column] == ('"demo"' if same else '"skill-19999"')
    benign = {"agent.py": ordinary_python(len(source)), ".agentdeck/skills/demo/SKILL.md": skill_md()}
    assert_bounded(spent, baseline_files(tmp_path, benign),
                   f"skills list of 20,000 ({'same' if same else 'unknown'}) names")


NESTED = {
    "agents": lambda n: "from agentdeck import Agent\nx = " + "Agent(skills=[" * n + "]" + ")]" * (n - 1) + ")\n",
    "calls": lambda n: "from agentdeck import Agent\nx = Agent(skills=[" + "f(" * n + ")" * n + "])\n",
    "lists": lambda n: "from agentdeck import Agent\nx = Agent(skills=" + "[" * n + "]" * n + ")\n",
    "parentheses": lambda n: "from agentdeck import Agent\nx = Agent(skills=" + "(" * n + '["x"]' + ")" * n + ")\n",
    "attributes": lambda n: "import agentdeck\nx = agentdeck" + ".a" * n + '(skills=["x"])\n',
    "paths": lambda n: 'from pathlib import Path\nfrom agentdeck import Deck\nd = Deck(skills=Path("s")' + ' / "x"' * n + ")\n",
    "operators": lambda n: "from agentdeck import Agent\nx = Agent(skills=" + "-" * n + "1)\n",
}


@pytest.mark.parametrize("kind", list(NESTED))
def test_calls_nested_thousands_deep(project: Project, tmp_path: Path, kind: str) -> None:
    source = NESTED[kind](3000)
    write(project.root, "agent.py", source)
    write(project.root, ".agentdeck/skills/demo/SKILL.md", skill_md())
    spent, _ = analysed(project.root)
    parse_python(NESTED[kind](20_000))  # deeper still: no RecursionError
    benign = {"agent.py": ordinary_python(len(source)), ".agentdeck/skills/demo/SKILL.md": skill_md()}
    assert_bounded(spent, baseline_files(tmp_path, benign), f"{kind} nested 3,000 deep")


def test_2000_commented_out_lines_cost_what_the_code_costs(project: Project, tmp_path: Path) -> None:
    """tree-sitter-python is quadratic in a run of comment lines; the scanner blanks them first."""
    code = ordinary_python(120_000)
    lines = code.split("\n")
    commented = "\n".join(lines[:2] + ["# " + line for line in lines[2:2002]] + lines[2002:])
    # an ignore comment inside the run keeps working
    hidden = commented.replace("\n# agent_0 =", "\nagent_0 = Agent(skills=['nope'])  # skill-lsp: ignore[AD101]\n# agent_0 =", 1)
    write(project.root, "agent.py", hidden)
    write(project.root, ".agentdeck/skills/demo/SKILL.md", skill_md())
    spent, findings = analysed(project.root)
    _, reported, _ = check(project)
    assert not any(finding["code"] == "AD101" and finding["line"] == 3 for finding in reported)
    # every agent of the commented-out part is gone, those after it are found
    assert not any(finding.span.start.line < 2002 for finding in findings if finding.code == "AD101")
    assert any(finding.span.start.line > 2002 for finding in findings if finding.code == "AD101")
    benign = {"agent.py": code, ".agentdeck/skills/demo/SKILL.md": skill_md()}
    plain = baseline_files(tmp_path, benign)
    # about the cost of the same code uncommented (the quadratic parse: 20 times that and more)
    assert spent.seconds <= 1.5 * plain.seconds, f"commented: {spent}; uncommented: {plain}"


def test_agents_named_by_decks_of_other_files_cost_what_one_file_costs(project: Project, tmp_path: Path) -> None:
    """Four Decks name 2,000 agents that a star import brings from another file: each is matched by
    its name unless the Deck's own file defines one (each match scanned every agent of the workspace:
    16 million steps). It costs about what the same agents and Decks in one file cost."""
    count, decks = 2_000, 4
    agents = "".join(f'agent_{n} = Agent(name="A{n}", instructions="Help.", skills=["demo", "skill-{n}"])\n'
                     for n in range(count))
    listed = ", ".join(f"agent_{n}" for n in range(count))
    head = "from agentdeck import Agent, Deck\n\n"
    skill = skill_md()
    write(project.root, "agents.py", head + agents)
    for number in range(decks):
        write(project.root, f"deck_{number}.py", head + f'from agents import *\n\ndeck = Deck(agents=[{listed}], skills="skills")\n')
    write(project.root, "skills/demo/SKILL.md", skill)
    spent, findings = analysed(project.root)
    # every agent is in the Decks: its unknown skill is reported against their registry
    unknown = [finding for finding in findings if finding.code == "AD101"]
    # the Deck's file as a user reads it (paths in a message relative to the checked directory)
    assert len(unknown) == count and all("Deck at deck_" in finding.shown_message(project.root)
                                         for finding in unknown), unknown[:2]
    one_file = head + agents + "".join(f'\ndeck_{number} = Deck(agents=[{listed}], skills="skills")\n' for number in range(decks))
    plain = baseline_files(tmp_path, {"agents.py": one_file, "skills/demo/SKILL.md": skill})
    assert spent.seconds <= 1.5 * plain.seconds + 0.2, f"other files: {spent}; one file: {plain}"


def test_projects_that_all_name_their_agent_alike_cost_what_distinct_names_cost(project: Project, tmp_path: Path) -> None:
    """400 files each with their `agent = Agent(...)` and `deck = Deck.from_project(agents=[agent])`, the
    common shape: each Deck names the agent of its own file. Every agent was matched against every
    Deck naming an `agent` (160,000 pairs); it costs what the same files cost with distinct names."""
    count = 400
    head = "from agentdeck import Agent, Deck\n\n"

    def files(name: str) -> dict[str, str | bytes]:
        return {f"agents/agent_{number:03d}.py": head + (
            f'{name(number)} = Agent(name="a", instructions="Help.", skills=["demo", "missing-{number}"])\n\n'
            f"deck = Deck.from_project(agents=[{name(number)}])\n") for number in range(count)}

    for relative, text in {**files(lambda number: "agent"), ".agentdeck/skills/demo/SKILL.md": skill_md()}.items():
        write(project.root, relative, text)
    spent, findings = analysed(project.root)
    unknown = [finding for finding in findings if finding.code == "AD101"]
    assert len(unknown) == count and all("missing-" in finding.message for finding in unknown)
    plain = baseline_files(tmp_path, {**files(lambda number: f"agent_{number}"), ".agentdeck/skills/demo/SKILL.md": skill_md()})
    assert spent.seconds <= 1.5 * plain.seconds + 0.1, f"one name: {spent}; distinct names: {plain}"


def test_a_hash_inside_a_string_is_not_a_comment() -> None:
    source = parse_python('from agentdeck import Agent\nx = """\n# skill-lsp: ignore\n"""\n'
                          'a = Agent(name="#x", skills=["a#b", \'#c\'])  # skill-lsp: ignore[AD101]\n')
    assert source.ignores == {4: {"AD101"}}
    call = source.agents()[0]
    assert call.string_arg("name") == "#x"
    skills = call.keyword("skills")
    assert skills is not None and [item.text for item in skills.items] == ["a#b", "#c"]


@pytest.mark.parametrize("profile_root, severity", [(".agentdeck/skills", "error"), (".claude/skills", "warning")])
def test_invalid_utf8_in_each_profile(project: Project, profile_root: str, severity: str) -> None:
    write(project.root, f"{profile_root}/demo/SKILL.md", "---\nname: demo\ndescription: Café.\n---\n\nBody.\n".encode("latin-1"))
    _, findings, _ = check(project)
    encoding = one(findings, "SK116")
    assert at(encoding) == (3, 17) and encoding["severity"] == severity


def test_a_valid_file_with_a_replacement_character_is_fine(project: Project) -> None:
    write(project.root, SKILL, skill_md(body="The \ufffd sign marks bad bytes.\n"))
    write(project.root, "agent.py", 'from agentdeck import Agent\n# \ufffd\na = Agent(name="A", skills=["demo"])\n')
    _, findings, _ = check(project)
    assert "SK116" not in codes(findings)


def test_invalid_utf8_in_an_agent_file(project: Project) -> None:
    write(project.root, SKILL, skill_md())
    agent = b'from agentdeck import Agent\n\na = Agent(name="Caf\xe9", skills=["demo"])\n'
    write(project.root, "agent.py", agent)
    write(project.root, "declared.py", b"# -*- coding: latin-1 -*-\n" + agent)
    _, findings, _ = check(project)
    encoding = one(findings, "SK116")
    assert encoding["path"] == "agent.py" and at(encoding) == (3, 20)
    assert "PEP 3120" in str(encoding["message"])


@pytest.mark.parametrize("body", ["read `references/x.md` then ", "see /home/alice/x.md and "])
def test_a_2_mb_line_of_prose_paths_is_read_in_linear_time(body: str) -> None:
    # each path's example words were searched for over the whole line again: 220 s for 5,000 paths; a
    # count of regular-expression scans, not a clock, says it is linear now
    from skill_lsp import bodyscan

    calls = 0
    search = bodyscan._EXAMPLE_BEFORE.search

    class Counting:
        def search(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal calls
            calls += 1
            return search(*args, **kwargs)

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(search.__self__, name)

    original = bodyscan._EXAMPLE_BEFORE
    bodyscan._EXAMPLE_BEFORE = Counting()  # type: ignore[assignment]
    try:
        text = (body * (2_000_000 // len(body)))
        parsed = parse_skill("---\nname: a\ndescription: b\n---\n" + text + "\n")
    finally:
        bodyscan._EXAMPLE_BEFORE = original
    assert len(parsed.references) + len(parsed.machine_paths) >= 5000
    assert calls <= 5
