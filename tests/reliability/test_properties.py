"""Property-based tests (Hypothesis): the parsers never raise and keep every span inside the document,
a check is deterministic, and the incremental index always ends where a fresh one starts.

`ci` profile by default (50 examples a test); `HYPOTHESIS_PROFILE=long` for 2,000 (SECURITY.md).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from hypothesis import given, note
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from tree_sitter import QueryCursor

from skill_lsp import bodyscan, pysource, treesitter
from skill_lsp.codecalls import PyValue
from skill_lsp.config import Config
from skill_lsp.model import Finding, Position, Span
from skill_lsp.pysource import parse_python
from skill_lsp.rules import run_rules
from skill_lsp.server.convert import Lines
from skill_lsp.server.protocol import LineIndex, line_starts
from skill_lsp.server.session import Session
from skill_lsp.skillfile import parse_skill
from skill_lsp.textutil import decode, split_lines
from skill_lsp.workspace import Workspace

# -- what documents are made of ---------------------------------------------------------------------

BREAKS = ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029", "\x0c", "\x0b"]
ODD = ["\t", "\x00", "\ufeff", "\ud800", "\U0001f600", "é", "\u200b", "\\", "'", '"', ":", ": ", "#", "&a", "*a", "!!"]

SKILL_FRAGMENTS = [
    "---", "---\n", "name: ", "name: demo", "description: ", "description: Do it.", "metadata:", "  k: v",
    "allowed-tools: Read", "compatibility: x", "user-invocable: yes", "effort: hi", "[", "]", "{", "}", "- ", "|",
    ">", "  ", "key: value: more", "!!python/object/apply:os.system ['true']", "&x [1, *x]", "<b>", "\"quoted\"",
    "'single'", "# Heading", "## Sub #", "```", "~~~", "[link](scripts/run.py)", "![img](<assets/a b.png>)",
    "[ref]: references/x.md", "/home/user/x", "C:\\Users\\x", "file:///tmp/x", "scripts/tool.py",
    "<!-- skill-lsp: ignore[SK202] -->", "$ARGUMENTS", "[a](../../outside)", "[\\[", "[a](b \"t\")",
]

PYTHON_FRAGMENTS = [
    "from agentdeck import Agent, Deck\n", "import agentdeck as ad\n", "from claude_agent_sdk import ClaudeAgentOptions\n",
    "from pathlib import Path\n", "a = Agent(", "ad.Agent(", "Deck(", "Deck.from_project(", "ClaudeAgentOptions(",
    "name=", "skills=", "agents=", "instructions=", "plugins=", "cwd=", "add_dirs=", "setting_sources=", "[", "]", "(",
    ")", "{", "}", ",", "\"demo\"", "'nope'", "f\"{x}\"", "b\"x\"", "r'\\d'", "\"\"\"doc\"\"\"", "\"unterminated",
    "\"a\\\"b\"", "Path(__file__).parent / \"skills\"", "\"./skills\"", "[a]", "None", "\"all\"", "\"*\"", "\"shop:*\"",
    "\" x \"", "# skill-lsp: ignore[AD101]\n", "# comment\n", "def f(:\n", "    ", "\\\n", "lambda: 0", "x.y.z",
    "{\"type\": \"local\", \"path\": \"./plug\"}", "1", "True", "...", ":", "=",
]


def _document(fragments: list[str]) -> st.SearchStrategy[str]:
    piece = st.one_of(st.sampled_from(fragments), st.sampled_from(BREAKS), st.sampled_from(ODD),
                      st.text(max_size=8))
    return st.lists(piece, max_size=60).map("".join)


skill_texts = st.one_of(
    _document(SKILL_FRAGMENTS),
    # mostly well-formed: a frontmatter block then a body
    st.tuples(_document(SKILL_FRAGMENTS), _document(SKILL_FRAGMENTS), st.sampled_from(BREAKS[:3])).map(
        lambda parts: parts[2].join(["---", parts[0], "---", parts[1]])),
)
python_texts = _document(PYTHON_FRAGMENTS)


def assert_inside(span: Span, lines: list[str], what: object) -> None:
    start, end = span.start, span.end
    assert (start.line, start.column) <= (end.line, end.column), (what, span)
    for position in (start, end):
        assert 0 <= position.line < len(lines), (what, span, len(lines))
        assert 0 <= position.column <= len(lines[position.line]), (what, span, lines[position.line])


def _skill_spans(text: str) -> Iterator[tuple[object, Span]]:
    parsed = parse_skill(text)
    for key, entry in parsed.fields.items():
        yield f"key {key}", entry.key_span
        yield f"value {key}", entry.value_span
    for entry in parsed.duplicate_keys:
        yield f"duplicate {entry.key}", entry.key_span
    if parsed.yaml_problem is not None:
        yield parsed.yaml_problem.message, parsed.yaml_problem.span
    if parsed.not_mapping is not None:
        yield "not a mapping", parsed.not_mapping
    for reference in [*parsed.references, *parsed.machine_paths]:
        yield reference.target, reference.span
    for heading in parsed.headings:
        yield heading.text, heading.span
    yield "line 0", parsed.line_span(0)


def _values(value: PyValue) -> Iterator[PyValue]:
    yield value
    for item in value.items:
        yield from _values(item)
    for key, item in value.pairs:
        yield from _values(key)
        yield from _values(item)


def _python_spans(text: str) -> Iterator[tuple[object, Span]]:
    source = parse_python(text)
    for call in source.calls:
        yield call.kind, call.span
        yield "callee", call.callee_span
        for keyword in call.keywords.values():
            yield keyword.name, keyword.name_span
            for value in _values(keyword.value):
                yield value.kind, value.span
                if value.content_span is not None:
                    yield "content", value.content_span


@given(skill_texts)
def test_parse_skill_never_raises_and_spans_stay_inside(text: str) -> None:
    lines = split_lines(text)
    # the server converts positions with the parse's own lines (server/server.lines_for)
    assert parse_skill(text).lines == lines
    for what, span in _skill_spans(text):
        assert_inside(span, lines, what)


@given(skill_texts)
def test_headings_found_at_once_are_those_found_line_by_line(text: str) -> None:
    """Without a fence or a CR, a SKILL.md's headings are found by one pattern over the body: the
    same headings, at the same places, as the line by line scan."""
    parsed = parse_skill(text.replace("\r", "").replace("`", "").replace("~", ""))
    assert bodyscan.scan_headings(parsed) == bodyscan._scan_headings_by_line(parsed)


@given(python_texts)
def test_parse_python_never_raises_and_spans_stay_inside(text: str) -> None:
    lines = split_lines(text)
    for what, span in _python_spans(text):
        assert_inside(span, lines, what)


@given(python_texts)
def test_a_large_file_is_queried_by_subtrees_with_the_same_captures(text: str) -> None:
    """Over _QUERY_RANGE bytes the query runs on subtrees (the GIL goes between them): with a tiny
    range every example takes that path, and finds exactly what one query over the tree finds."""
    data = text.encode("utf-8", errors="surrogatepass")
    tree = treesitter.parse_tree(data, pysource._LANGUAGE)
    whole = {name: sorted((node.start_byte, node.end_byte) for node in nodes)
             for name, nodes in QueryCursor(pysource._QUERY).captures(tree.root_node).items() if nodes}
    saved = pysource._QUERY_RANGE
    pysource._QUERY_RANGE = 8
    try:
        split = {name: sorted((node.start_byte, node.end_byte) for node in nodes)
                 for name, nodes in pysource.query_captures(tree.root_node).items() if nodes}
        small = parse_python(text)
    finally:
        pysource._QUERY_RANGE = saved
    assert split == whole
    assert [call.span for call in small.calls] == [call.span for call in parse_python(text).calls]


def _python_program() -> st.SearchStrategy[str]:
    """Python that mostly parses: imports of the frameworks, calls of them with keywords whose values are
    strings of every quoting, lists laid out every way, nested calls, f-strings, paths and comments."""
    content = st.text(st.sampled_from("ab -_./:*'\"\\\u00e9{}#"), max_size=6)
    string = st.one_of(
        st.tuples(st.sampled_from(["", "", "r", "b", "f", "rb"]), st.sampled_from(['"', "'", '"""', "'''"]), content).map(
            lambda t: t[0] + t[1] + t[2].replace("\\", "\\\\").replace(t[1][0], "\\" + t[1][0]) + t[1]),
        st.sampled_from(['"plain"', "'single'", '""', '"a b"', '"shop:*"', '"./skills"', '"x" "y"', 'f"{Agent()}"',
                         'f"{ad.Agent(name=\'x\')} {y}"', '"""doc\nmore"""', '"\u00e9t\u00e9"']))
    sep = st.sampled_from([", ", ",", ",\n    ", " ,\n", ",\r\n  ", ",  # skill-lsp: ignore[AD101]\n    ", ",\n\n"])
    callee = st.sampled_from(["Agent", "ad.Agent", "Deck", "Deck.from_project", "ClaudeAgentOptions", "AgentDefinition",
                              "sdk.ClaudeAgentOptions", "print", "x.Agent", "Agent.x", "A", "(Agent)"])
    keyword = st.sampled_from(["name", "skills", "agents", "instructions", "cwd", "add_dirs", "setting_sources", "plugins",
                               "description", "model", "env", "tools"])
    atom = st.one_of(string, st.sampled_from(["None", "True", "1", "x", "a.b", "Path(__file__).parent / \"skills\"",
                                              "SKILLS", "os.path.join(\"a\", \"b\")", "{\"k\": \"v\"}"]))

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        items = st.tuples(st.lists(inner, max_size=5), sep, st.booleans())
        listed = items.map(lambda t: "[" + t[1].join(t[0]) + ("," if t[2] and t[0] else "") + "]")
        tupled = items.map(lambda t: "(" + t[1].join(t[0]) + ("," if t[2] or len(t[0]) == 1 else "") + ")")
        arguments = st.lists(st.tuples(keyword, inner), max_size=4).map(lambda kws: ", ".join(f"{k}={v}" for k, v in kws))
        call = st.tuples(callee, arguments, st.sampled_from(["", " ", "\n    "])).map(lambda t: f"{t[0]}({t[2]}{t[1]})")
        return st.one_of(listed, tupled, call, inner.map(lambda v: f"({v})"))

    expression = st.recursive(atom, extend, max_leaves=12)
    statement = st.one_of(
        st.sampled_from(["from agentdeck import Agent, Deck", "import agentdeck as ad", "from agentdeck import Agent as A",
                         "import claude_agent_sdk as sdk", "from claude_agent_sdk import ClaudeAgentOptions, AgentDefinition",
                         "from pathlib import Path", "import os", "from .agents import helper", "# skill-lsp: ignore",
                         "# comment", "SKILLS = \"./skills\"", "def f():\n    pass", "if x:\n    import agentdeck as ad"]),
        st.tuples(st.sampled_from(["", "agent = ", "x.y = ", "opts = (", "z: T = "]), expression).map(
            lambda t: t[0] + t[1] + (")" if t[0].endswith("(") else "")),
        expression.map(lambda e: f"def f():\n    return {e}"),
        expression.map(lambda e: f"x = {e}  # skill-lsp: ignore[AD101, AD102]"))
    imports = st.lists(st.sampled_from(["from agentdeck import Agent, Deck", "import agentdeck as ad", "import claude_agent_sdk as sdk",
                                        "from claude_agent_sdk import ClaudeAgentOptions, AgentDefinition"]), min_size=1, max_size=3)
    return st.tuples(imports, st.lists(statement, max_size=8), st.sampled_from(["\n", "\r\n"])).map(
        lambda t: t[2].join(t[0] + t[1]) + t[2])


@given(st.one_of(python_texts, _python_program()))
def test_a_file_without_errors_reads_as_the_query_and_the_nodes_read_it(text: str) -> None:
    """A file without a parse error is looked at where its text says (pynodes) and its plain string
    literals read from its bytes (pyliterals): the same source, to the last span, as the query over
    the whole tree and the nodes' own reading find."""
    fast = parse_python(text)
    saved, plain = pysource._GUIDED_BYTES, pysource.plain_value
    pysource._GUIDED_BYTES = -1
    pysource.plain_value = lambda *_: None
    try:
        slow = parse_python(text)
    finally:
        pysource._GUIDED_BYTES, pysource.plain_value = saved, plain
    # (the query finds comments in an order of its own: ignores are only ever looked up by line)
    fast.ignores, slow.ignores = dict(sorted(fast.ignores.items())), dict(sorted(slow.ignores.items()))
    assert fast == slow


# -- whole checks ------------------------------------------------------------------------------------

SKILL_PATH = ".agentdeck/skills/demo/SKILL.md"
CLAUDE_PATH = ".claude/skills/demo/SKILL.md"


def _check(root: Path) -> list[tuple[str, str, Span, str]]:
    results = run_rules(Workspace([root]).build(), Config())
    # what a user reads: a message's paths relative to the checked directory (Finding.shown_message), and a
    # path out of it absolute, so the temporary directory holding it is taken out
    return [(f.code, str(f.path.relative_to(root)), f.span, f.shown_message(root).replace(str(root.parent), "<tmp>"))
            for found in results.values() for f in found]


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8", "surrogatepass"))


@given(skill_texts, skill_texts, python_texts)
def test_a_whole_check_is_deterministic_and_its_spans_stay_inside(skill: str, claude: str, python: str) -> None:
    files = {SKILL_PATH: skill, CLAUDE_PATH: claude, "agent.py": python,
             ".agentdeck/skills/other/SKILL.md": "---\nname: other\ndescription: Other.\n---\n\nBody.\n"}
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        # the same directory name in two places: a message names the checked directory by its name
        first, second = Path(one) / "project", Path(two) / "project"
        _write(first, files)
        _write(second, files)
        found = _check(first)
        assert found == _check(first)  # the same input twice
        assert found == _check(second)  # and in another directory
        for code, relative, span, _ in found:
            text = decode((first / relative).read_bytes())
            assert_inside(span, split_lines(text), code)


# -- the incremental index ---------------------------------------------------------------------------

SKILL_DIRS = [".agentdeck/skills/alpha", ".agentdeck/skills/beta", ".claude/skills/alpha", "sub/.agentdeck/skills/gamma",
              "extra/alpha", ".agentdeck/skills/alpha/nested"]
PY_FILES = ["agent.py", "shop.py", "sub/deck.py", "pyproject.toml"]


def _skill_text(name: str, variant: int) -> str:
    return [
        f"---\nname: {name}\ndescription: Does {name}.\n---\n\nSee [x](scripts/x.py).\n",
        f"---\nname: {name}-typo\ndescription: Does {name}.\n---\n\nBody.\n",
        f"---\nname: {name}\n---\n\n",
        "---\nname: [broken\n---\nBody.\n",
        "no frontmatter at all\n",
        f"---\nname: {name}\ndescription: <b>{name}</b>\nunknwon: 1\n---\n\nBody.\n",
    ][variant]


PY_TEXTS = [
    'from agentdeck import Agent\nbooking = Agent(name="B", skills=["alpha", "beta", "gamma"])\n',
    'from agentdeck import Agent, Deck\nbooking = Agent(name="B", skills=["alpha", "alpha", "zeta"])\n'
    'deck = Deck(agents=[booking], skills="./.agentdeck/skills")\n',
    'from agentdeck import Agent, Deck\nfrom pathlib import Path\nb = Agent(skills=["gamma"])\n'
    'deck = Deck(agents=[b], skills=[Path(__file__).parent / ".agentdeck/skills", "extra", "missing"])\n',
    'from claude_agent_sdk import ClaudeAgentOptions\noptions = ClaudeAgentOptions(skills=["alpha", "nope", "shop:*"])\n',
    'from agentdeck import Deck\ndeck = Deck.from_project()\n',
    "def broken(:\n",
    '[tool.skill-lsp]\nignore = ["SK111"]\nroots = [{path = "extra", profile = "claude"}]\n',
    '[tool.skill-lsp]\nselect = "SK1"\n',
]

operations = st.lists(st.one_of(
    st.tuples(st.just("write skill"), st.sampled_from(SKILL_DIRS), st.integers(0, 5)),
    st.tuples(st.just("write code"), st.sampled_from(PY_FILES), st.integers(0, len(PY_TEXTS) - 1)),
    st.tuples(st.just("delete"), st.sampled_from(SKILL_DIRS + PY_FILES), st.just(0)),
    st.tuples(st.just("rename dir"), st.sampled_from(SKILL_DIRS), st.sampled_from(["alpha", "beta", "delta", "gamma"])),
    st.tuples(st.just("edit skill"), st.sampled_from(SKILL_DIRS), st.integers(0, 5)),
    st.tuples(st.just("edit code"), st.sampled_from(PY_FILES), st.integers(0, len(PY_TEXTS) - 1)),
    st.tuples(st.just("close"), st.sampled_from(SKILL_DIRS + PY_FILES), st.just(0)),
), max_size=12)


def _file(root: Path, target: str) -> Path:
    return root / target / "SKILL.md" if target in SKILL_DIRS else root / target


def _apply(session: Session, root: Path, operation: tuple[str, str, object]) -> None:
    """One edit as the server drives the session (did_change, did_close, watched-file events)."""
    kind, target, value = operation
    path = _file(root, target)
    if kind == "write skill" or kind == "write code":
        path.parent.mkdir(parents=True, exist_ok=True)
        text = _skill_text(path.parent.name, int(str(value))) if kind == "write skill" else PY_TEXTS[int(str(value))]
        path.write_text(text)
        session.files_changed([path])
    elif kind == "delete":
        if path.exists():
            path.unlink()
            session.files_changed([path])
    elif kind == "rename dir":
        directory = root / target
        new = directory.with_name(str(value))
        if directory.is_dir() and not new.exists():
            directory.rename(new)
            session.files_changed([directory, new])
    elif kind in ("edit skill", "edit code"):
        text = _skill_text(path.parent.name, int(str(value))) if kind == "edit skill" else PY_TEXTS[int(str(value))]
        session.set_text(path, text)
        session.reanalyse(path)
    elif kind == "close":
        if path in session.workspace.overlays:
            session.drop_text(path)
            session.files_changed([path])


def _findings(session: Session) -> dict[Path, list[Finding]]:
    return {path: found for path, found in session.findings.items() if found}


@given(operations)
def test_any_sequence_of_edits_ends_like_a_fresh_index(ops: Iterable[tuple[str, str, object]]) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        _write(root, {
            ".agentdeck/skills/alpha/SKILL.md": _skill_text("alpha", 0),
            ".claude/skills/alpha/SKILL.md": _skill_text("alpha", 1),
            "agent.py": PY_TEXTS[1],
        })
        session = Session([root])
        session.full_analysis()
        for operation in ops:
            note(f"{operation}")
            _apply(session, root, operation)
        fresh = Session([root])
        for path, text in session.workspace.overlays.items():
            fresh.set_text(path, text)
        fresh.full_analysis()
        assert _findings(session) == _findings(fresh)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- positions: the server's conversion against the definition --------------------------------------

LINE_TEXT = st.lists(st.sampled_from(["a", " ", "é", "€", "\U0001f600", "\u200b", "\t", "\n", "\r\n"]), max_size=40).map("".join)


@given(text=LINE_TEXT, line=st.integers(0, 6), column=st.integers(0, 50), units=st.integers(0, 120),
       encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_position_conversion_counts_code_units(text: str, line: int, column: int, units: int, encoding: str) -> None:


    codec = PositionCodec(types.PositionEncodingKind(encoding))
    lines = Lines(text)
    rows = split_lines(text)
    row = min(line, len(rows) - 1)
    # to the client: the units of the line's prefix (past the end: the end of the document)
    client = lines.to_client(codec, Position(line, column))
    expected_row, expected_column = (row, min(column, len(rows[row]))) if line < len(rows) else (row, len(rows[row]))
    prefix = rows[expected_row][:expected_column]
    assert (client.line, client.character) == (expected_row, len(prefix.encode({"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[encoding])) // {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding])
    # from the client: the first column with at least that many units before it
    back = lines.from_client(codec, types.Position(line=line, character=units))
    if line >= len(rows):
        assert back == Position(row, len(rows[row]))
    else:
        widths = [codec.client_num_units(char) for char in rows[row]]
        first = next((index for index in range(len(widths) + 1) if sum(widths[:index]) >= units), len(widths))
        assert back == Position(row, first)


def _reference_apply(text: str, start: tuple[int, int], end: tuple[int, int], new: str, encoding: str) -> str:
    """An edit applied the slow way: lines split afresh, columns counted character by character."""

    codec = PositionCodec(types.PositionEncodingKind(encoding))
    starts = [0]
    ends = []
    for match in re.finditer(r"\r\n|\r|\n", text):
        ends.append(match.start())
        starts.append(match.end())
    ends.append(len(text))

    def offset(line: int, character: int) -> int:
        if line >= len(starts):
            return len(text)
        index, units = starts[line], 0
        while index < ends[line] and units < character:
            units += codec.client_num_units(text[index])
            index += 1
        return index

    first, last = sorted((offset(*start), offset(*end)))
    return text[:first] + new + text[last:]


EDIT_TEXT = st.lists(st.sampled_from(["a", "é", "\U0001f600", "\n", "\r", "\r\n", " "]), max_size=30).map("".join)


@given(text=EDIT_TEXT)
def test_line_starts_are_where_each_line_break_ends(text: str) -> None:
    """line_starts sums line lengths where the text holds no CR: the same starts as the pattern."""
    assert line_starts(text) == [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", text))]
    plain = text.replace("\r", "")
    assert line_starts(plain) == [0, *(match.end() for match in re.finditer(r"\n", plain))]


@given(text=EDIT_TEXT, edits=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 12), st.integers(0, 6), st.integers(0, 12),
                                                EDIT_TEXT), max_size=8),
       encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_incremental_edits_keep_the_line_index_exact(text: str, edits: list[tuple[int, int, int, int, str]], encoding: str) -> None:


    index = LineIndex(text)
    for start_line, start_char, end_line, end_char, new in edits:
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=start_line, character=start_char),
                              end=types.Position(line=end_line, character=end_char)), text=new)
        text = _reference_apply(text, (start_line, start_char), (end_line, end_char), new, encoding)
        index.apply(change, encoding)
        assert index.text == text
        assert index.starts == line_starts(text)


OUTLINE_PIECES = st.sampled_from(["# Top é\n", "## Sub \U0001f600 x\n", "### Deep\n", "#\n", "## \n", "text \u2713\n", "\n",
                                  "```\n# fenced\n```\n", "#### four\n", "  ## indented\n"])
OUTLINE_FRONTS = st.sampled_from(["", "---\nname: d\u00e9mo\ndescription: Do \U0001f600 it.\nlicense: [a, b]\n---\n",
                                  "---\nname: x\n---\n", "---\nname: y\ndescription: >\n  folded\n---\n"])


@given(front=OUTLINE_FRONTS, pieces=st.lists(OUTLINE_PIECES, max_size=30),
       encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_a_skill_outline_is_the_json_of_its_document_symbols(front: str, pieces: list[str], encoding: str) -> None:
    """The outline is built as JSON directly (5,000 protocol objects took 0.24 s to make and convert):
    the JSON lsprotocol's converter makes of the DocumentSymbols it stands for."""
    from types import SimpleNamespace

    from skill_lsp.server.app import server
    from skill_lsp.server.symbols import _skill_symbols

    text = front + "".join(pieces)
    file = parse_skill(text)
    codec = PositionCodec(types.PositionEncodingKind(encoding))
    lines = Lines(text, file.lines)
    expected: list[types.DocumentSymbol] = []
    for name, entry in file.lenient_fields.items():
        detail = entry.value if isinstance(entry.value, str) else None
        expected.append(types.DocumentSymbol(
            name=name, kind=types.SymbolKind.Property, detail=(detail or "")[:80] or None,
            range=lines.range(codec, Span(entry.key_span.start, max(entry.key_span.end, entry.value_span.end))),
            selection_range=lines.range(codec, entry.key_span)))
    stack: list[tuple[int, list[types.DocumentSymbol]]] = []
    for heading in file.headings:
        where = lines.range(codec, heading.span)
        children: list[types.DocumentSymbol] = []
        symbol = types.DocumentSymbol(name=heading.text or "#", kind=types.SymbolKind.String, range=where,
                                      selection_range=where, children=children)
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        (stack[-1][1] if stack else expected).append(symbol)
        stack.append((heading.level, children))
    state = SimpleNamespace(codec=codec, symbols_cache={}, protocol=server.protocol)
    assert _skill_symbols(state, Path("/p/SKILL.md"), file, lines).decoded() == server.protocol.converter.unstructure(expected)  # type: ignore[arg-type]
