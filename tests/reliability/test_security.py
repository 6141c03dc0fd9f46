"""The security model of SECURITY.md, enforced: no execution of project code, safe YAML, no network,
no writes, bounded reads — by grepping the source and by watching a real check run."""

from __future__ import annotations

import io
import os
import re
import socket
import sys
import tokenize
from pathlib import Path
from typing import ClassVar

import pytest

from skill_lsp.config import Config
from skill_lsp.rules import run_rules
from skill_lsp.server.session import Session
from skill_lsp.workspace import Workspace

from ..helpers import REPO, Project, skill_md

PACKAGE = REPO / "skill_lsp"

# What may never appear in skill_lsp's code (comments and strings are not code).
FORBIDDEN = {
    "subprocess": r"\bsubprocess\b",
    "eval": r"(?<![\w.])eval\(",
    "exec": r"(?<![\w.])exec\(|\bos\.exec\w*\(",
    "unsafe yaml": r"\byaml\.(load|load_all|full_load|unsafe_load|unsafe_load_all)\(|"
                   r"\b(C?UnsafeLoader|C?FullLoader|UnsafeConstructor|FullConstructor)\b|\byaml\.C?Loader\b",
    "socket": r"\bsocket\b",
    "http": r"\burllib\.request\b|\bhttp\.client\b|\brequests\b|\bhttpx\b|\baiohttp\b|\burlopen\b",
    "dynamic import": r"\b__import__\(|\bimportlib\b|\brunpy\b",
    "compile": r"(?<![\w.])compile\(",
    "shell": r"\bos\.(system|popen|spawn\w*|fork\w*)\b",
    "processes": r"\bmultiprocessing\b|\bProcessPoolExecutor\b",
    "serialised code": r"\bpickle\b|\bmarshal\b|\bshelve\b|\bdill\b",
    "reads": r"\.read_text\(|\.read_bytes\(|(?<![\w.])open\(|\.open\(|\bos\.open\(",
    "writes": r"\.write_text\(|\.write_bytes\(|\bos\.(replace|rename|unlink|remove|rmdir|makedirs|mkdir)\(|"
              r"\.mkdir\(|\.unlink\(|\.rename\(|\bshutil\b|\btempfile\b",
}

# (file, rule) -> why it is allowed there.
ALLOWED = {
    ("textutil.py", "reads"): "read_text() is the one bounded reader: regular files only, at most MAX_FILE_BYTES",
    ("cache.py", "reads"): "check's cache file, in the user cache directory (SKILL_LSP_CACHE_DIR)",
    ("pool.py", "processes"): "the standard library's process pool, fork context: workers forked from skill-lsp walk "
                              "and analyse shares of a large workspace with skill-lsp's own code; nothing is executed, "
                              "and the results come back through the pool's own pipes, which only those workers hold",
    ("outcome.py", "reads"): "check's outcome file, in the user cache directory (SKILL_LSP_CACHE_DIR)",
    ("outcome.py", "serialised code"): "check's outcome and cache files are pickles of our own data, loaded by an "
                                       "Unpickler that refuses every class outside skill_lsp",
    ("outcome.py", "writes"): "check's cache files: a temporary file then os.replace, never in the workspace",
    ("fixing.py", "reads"): "check --fix: the bytes of a file it is asked to fix (bounded like read_text), compared "
                            "with its decoded text so that a rewrite changes the fixed spans only",
    ("fixing.py", "writes"): "check --fix writes the fixes the user asked for: only inside the checked folders with "
                             "symlinks resolved, a temporary file then os.replace, new files exclusively (never "
                             "over an existing one)",
    ("newskill.py", "reads"): "skill-lsp new: open(path, 'x') creates the SKILL.md the user asked for, exclusively "
                              "(never over an existing file); nothing is read",
    ("newskill.py", "writes"): "skill-lsp new writes the one SKILL.md the user asked for: its directory made, the file "
                               "created exclusively, after the text was checked in place as an unsaved buffer",
    ("fixrun.py", "reads"): "check --diff: the fixed copies' texts, to show them as a diff of the originals",
    ("fixrun.py", "writes"): "check --diff tries the fixes on a scratch copy in a temporary directory (hard links to "
                             "the files, which fixing.py only ever replaces, never writes through) and removes it; "
                             "the checked folders are never written",
}


def _code_of(path: Path) -> str:
    """The file without comments and string literals (a help text may say 'socket')."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    kept = []
    for token in tokens:
        if token.type in (tokenize.COMMENT, tokenize.STRING) or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            continue
        kept.append(token.string)
    # tokens joined by spaces, then dotted names and calls put back together ("os . fork (" -> "os.fork(")
    return re.sub(r" ?\. ?", ".", " ".join(kept)).replace(" (", "(")


def test_the_source_has_no_dangerous_calls() -> None:
    problems = []
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 10
    for path in files:
        code = _code_of(path)
        for rule, pattern in FORBIDDEN.items():
            if (path.name, rule) in ALLOWED:
                continue
            for match in re.finditer(pattern, code):
                problems.append(f"{path.relative_to(REPO)}: {rule}: {match.group(0)!r}")
    assert problems == [], "\n".join(problems)


def test_literal_eval_is_only_used_on_literals() -> None:
    """ast.literal_eval evaluates no code; it is used on a single string literal or a number token."""
    uses = [(path.name, line) for path in PACKAGE.rglob("*.py")
            for line in path.read_text(encoding="utf-8").splitlines() if "literal_eval(" in line]
    assert {name for name, _ in uses} <= {"pysource.py", "code.py"}, uses


def test_the_yaml_loader_is_safe() -> None:
    import yaml

    from skill_lsp import skillfile

    # the composer builds nodes only (no constructor of its own); values go through SafeConstructor
    composer = getattr(skillfile, "_Composer", None)
    if composer is not None:
        assert not issubclass(composer, yaml.constructor.BaseConstructor)
        assert composer.yaml_implicit_resolvers is yaml.SafeLoader.yaml_implicit_resolvers
    assert "Loader=yaml.SafeLoader" in (PACKAGE / "skillfile.py").read_text(encoding="utf-8")
    code = _code_of(PACKAGE / "skillfile.py")
    assert "SafeConstructor" in code and "construct_object" in code


# -- a real run --------------------------------------------------------------------------------------------


@pytest.fixture
def hostile_project(project: Project, tmp_path: Path) -> tuple[Project, Path]:
    """A project whose code, config and skills each try to run something, and a marker that proves it did."""
    marker = tmp_path / "executed"
    touch = f"open({str(marker)!r}, 'w').write('x')"
    project.write({
        ".agentdeck/skills/demo/SKILL.md": skill_md(extra=f"metadata: !!python/object/apply:os.system ['touch {marker}']"),
        ".agentdeck/skills/other/SKILL.md": skill_md(name="other", description="!!python/name:os.system"),
        "agent.py": f"{touch}\nfrom agentdeck import Agent, Deck\n"
                    f"a = Agent(name=__import__('os').system('touch {marker}'), skills=[\"demo\", eval('1')])\n"
                    f"d = Deck(agents=[a], skills=__import__('pathlib').Path('{marker}'))\n",
        "__init__.py": touch + "\n",
        "conftest.py": touch + "\n",
        "setup.py": touch + "\n",
        "sitecustomize.py": touch + "\n",
        "skill_lsp_project_marker.py": touch + "\n",
        "pyproject.toml": '[tool.skill-lsp]\nuser-skills-dir = "~/../../etc"\nexclude = ["$(touch x)"]\n',
        "plug/.claude-plugin/plugin.json": '{"name": "__import__(\'os\')"}',
        "shop.py": "from claude_agent_sdk import ClaudeAgentOptions\n"
                   "o = ClaudeAgentOptions(skills=[\"demo\"], plugins=[{\"type\": \"local\", \"path\": \"./plug\"}])\n",
    })
    return project, marker


class _Watch:
    """Audit events while recording: writes, network use, processes, and code run from the project."""

    WRITE_EVENTS: ClassVar[set[str]] = {"os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.utime", "os.symlink",
                    "os.truncate", "os.link", "shutil.copyfile", "shutil.move", "shutil.rmtree"}
    NETWORK_EVENTS: ClassVar[set[str]] = {"socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname", "urllib.Request"}

    def __init__(self) -> None:
        self.recording = False
        self.project: str | None = None
        self.events: list[tuple[str, object]] = []

    def __call__(self, event: str, args: tuple[object, ...]) -> None:
        if not self.recording:
            return
        if event == "exec":  # a code object about to run: importing a module runs one too
            filename = getattr(args[0], "co_filename", "") if args else ""
            if self.project is not None and str(filename).startswith(self.project):
                self.events.append((event, filename))
        elif event in self.WRITE_EVENTS or event in self.NETWORK_EVENTS or event.startswith("subprocess") or event in (
                "os.system", "os.exec", "os.posix_spawn", "os.fork", "os.forkpty"):
            self.events.append((event, args[:1]))
        elif event == "open" and len(args) >= 3:
            mode, flags = args[1], args[2]
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC))
            if writes:
                self.events.append((event, args[:1]))


_WATCH = _Watch()
sys.addaudithook(_WATCH)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_a_check_executes_nothing_writes_nothing_and_never_connects(
    hostile_project: tuple[Project, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, marker = hostile_project
    before = _snapshot(project.root)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network use: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    modules = set(sys.modules)
    _WATCH.events = []
    _WATCH.project = str(project.root)
    _WATCH.recording = True
    try:
        result = project.run("check", "--format", "json")
        session = Session([project.root])
        session.full_analysis()
        session.set_text(project.root / "agent.py", (project.root / "agent.py").read_text() + "\n# edited\n")
        session.reanalyse(project.root / "agent.py")
        for path in list(session.findings):
            session.text(path)
    finally:
        _WATCH.recording = False
    assert result.status in (0, 1) and "Traceback" not in result.err, result.err
    assert _WATCH.events == []
    assert not marker.exists()
    assert _snapshot(project.root) == before
    imported = set(sys.modules) - modules
    assert not any(name in ("agent", "shop", "setup", "conftest", "sitecustomize", "skill_lsp_project_marker")
                   for name in imported), imported


def test_the_check_cache_writes_only_in_its_own_directory(project: Project, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    project.write({".agentdeck/skills/demo/SKILL.md": skill_md(name="other")})
    cache = tmp_path / "cache"
    monkeypatch.setenv("SKILL_LSP_CACHE_DIR", str(cache))
    before = _snapshot(project.root)
    _WATCH.events = []
    _WATCH.recording = True
    try:
        project.run("check", "--format", "json")
    finally:
        _WATCH.recording = False
    assert _snapshot(project.root) == before
    for event, args in _WATCH.events:
        assert event in ("open", "os.rename", "os.mkdir", "os.remove", "os.chmod"), event
        path = os.fsdecode(args[0]) if isinstance(args[0], (str, bytes, os.PathLike)) else ""
        assert not path or Path(path).resolve().is_relative_to(cache.resolve()), (event, path)


def test_an_unsaved_buffer_never_reaches_the_disk(project: Project) -> None:
    path = project.root / ".agentdeck/skills/demo/SKILL.md"
    project.write({".agentdeck/skills/demo/SKILL.md": skill_md()})
    session = Session([project.root])
    session.set_text(path, skill_md(name="edited"))
    session.full_analysis()
    assert path.read_text() == skill_md()
    assert run_rules(Workspace([project.root]).build(), Config()) == {}
