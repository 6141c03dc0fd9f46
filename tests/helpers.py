"""Helpers the tests share: building projects from dicts, running the CLI, reading findings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skill_lsp.cli import main

REPO = Path(__file__).resolve().parents[1]
Finding = dict[str, Any]

# Where a skill lands for each profile: the root that discovers it decides the profile.
# "spec" is `.agents/skills` (Codex and the spec's clients, and VS Code); "collection" a generic `skills/`
# collection, held to the specification itself (validators, claude.ai upload).
ROOTS = {"agentdeck": ".agentdeck/skills", "claude": ".claude/skills", "spec": ".agents/skills", "collection": "skills"}
PROFILES = tuple(ROOTS)


def text_of(text: str) -> str:
    """Dedent a triple-quoted file body; a leading newline right after the quotes is dropped."""
    text = textwrap.dedent(text)
    return text[1:] if text.startswith("\n") else text


def skill_md(name: str | None = "demo", description: str | None = "", *, extra: str = "",
             body: str = "Follow these steps.\n") -> str:
    """A SKILL.md with the given frontmatter fields (None leaves a field out) and body. The description is by default
    the skill's own ("Do the demo thing."): skills whose descriptions were all the same would be alike (SK310)."""
    if description == "":
        description = f"Do the {name or 'demo'} thing."
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines += extra.rstrip("\n").split("\n")
    lines.append("---")
    return "\n".join(lines) + "\n\n" + body


def write_files(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text_of(text), encoding="utf-8")


@dataclass
class Result:
    status: int
    out: str
    err: str

    @property
    def findings(self) -> list[Finding]:
        data: list[Finding] = json.loads(self.out)
        return data


@dataclass
class Project:
    root: Path
    capsys: pytest.CaptureFixture[str]
    monkeypatch: pytest.MonkeyPatch

    def write(self, files: dict[str, str]) -> Project:
        write_files(self.root, files)
        return self

    def path(self, relative: str) -> Path:
        return self.root / relative

    def run(self, *args: str, cwd: Path | None = None) -> Result:
        """`skill-lsp ARGS` in-process, in the project directory (or cwd)."""
        self.monkeypatch.chdir(cwd or self.root)
        self.capsys.readouterr()
        try:
            status = main(list(args))
        except SystemExit as stop:  # argparse usage errors
            status = int(stop.code or 0)
        captured = self.capsys.readouterr()
        return Result(status, captured.out, captured.err)

    def check(self, *args: str) -> list[Finding]:
        """The JSON findings of `skill-lsp check --format json ARGS`."""
        result = self.run("check", "--format", "json", *args)
        assert result.status in (0, 1), result.err
        return result.findings


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m skill_lsp ARGS` in a real subprocess (for exit codes and the entry point)."""
    environment = dict(os.environ)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "skill_lsp", *args], cwd=cwd, env=environment,
        capture_output=True, text=True, timeout=120, check=False,
    )


def copy_working_tree(target: Path) -> Path:
    """A copy of this checkout's files as they are now (tracked and untracked, minus git-ignored ones and any
    environment inside it), for tests that install or commit the repository as a user would."""
    listing = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                             cwd=REPO, capture_output=True, text=True, timeout=60)
    if listing.returncode != 0:
        pytest.skip(f"{REPO} is not a git checkout: {listing.stderr.strip()}")
    names = [name for name in listing.stdout.split("\0") if name]
    # an environment created inside the checkout but not git-ignored (a CI venv, node_modules) is no source
    environments = {Path(name).parent for name in names if Path(name).name == "pyvenv.cfg"} - {Path(".")}
    for name in names:
        if "node_modules" in Path(name).parts or any(Path(name).is_relative_to(env) for env in environments):
            continue
        source = REPO / name
        if source.is_file() and not source.is_symlink():  # a file deleted in the working tree is still listed
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


# -- reading findings ---------------------------------------------------------


def codes(findings: Iterable[Finding]) -> list[str]:
    return [finding["code"] for finding in findings]


def having(findings: Iterable[Finding], code: str) -> list[Finding]:
    return [finding for finding in findings if finding["code"] == code]


def one(findings: Iterable[Finding], code: str) -> Finding:
    """The single finding with code; fails listing everything when there is not exactly one."""
    findings = list(findings)
    matching = having(findings, code)
    assert len(matching) == 1, f"expected one {code}, got {json.dumps(findings, indent=1, ensure_ascii=False)}"
    return matching[0]


def where(finding: Finding) -> tuple[int, int, int, int]:
    """(line, column, end_line, end_column), 1-based as printed."""
    return finding["line"], finding["column"], finding["end_line"], finding["end_column"]


def at_or_above(findings: Iterable[Finding], severity: str) -> list[Finding]:
    order = ["error", "warning", "information", "hint"]
    limit = order.index(severity)
    return [finding for finding in findings if order.index(finding["severity"]) <= limit]


def span_of(source: str, needle: str, occurrence: int = 1) -> tuple[int, int, int, int]:
    """The 1-based (line, column, end_line, end_column) of needle in a file written with write_files.

    Columns count code points; needle must lie on one line.
    """
    lines = text_of(source).split("\n")
    seen = 0
    for number, line in enumerate(lines, start=1):
        start = line.find(needle)
        while start != -1:
            seen += 1
            if seen == occurrence:
                return number, start + 1, number, start + 1 + len(needle)
            start = line.find(needle, start + 1)
    raise AssertionError(f"{needle!r} not found {occurrence} time(s)")


def counting_forks(monkeypatch: Any, module: Any) -> list[int]:
    """The pids this process forks through module's os.fork from now on (a child appends to its own
    copy of the list, never to this one)."""
    forked: list[int] = []
    real_fork = os.fork

    def counting_fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(module.os, "fork", counting_fork)
    return forked


def wait_for(condition: Callable[[], bool], timeout: float = 120) -> None:
    """Until condition holds, or timeout seconds: a bound against a hang, not a timing (the test's
    assertions then fail)."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
