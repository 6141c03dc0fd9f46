"""Running the oracles — the runtimes' own validators and loaders — and skill-lsp on a fixture tree.

Oracles (pinned; installed by scripts/install-oracles into ~/.cache/skill-lsp/oracles or $SKILL_LSP_ORACLES):

- claude: Claude Code's `claude plugin validate --json PATH` (npm @anthropic-ai/claude-code, native binary),
  run with a throwaway HOME; findings per file (errors, warnings).
- skills_ref: the specification's reference validator `agentskills validate DIR` (PyPI skills-ref).
- codex: Codex's loader through `codex debug prompt-input` (npm @openai/codex, native binary), run with a
  throwaway CODEX_HOME and HOME: the skills it lists from the project's `.agents/skills` are the ones it loads.

Each finding is normalised to "severity: message" (severity error, warning or note); skill-lsp's to
"CODE severity". Everything here is the standard library plus the subprocesses.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CLAUDE_VERSION = "2.1.332"
SKILLS_REF_VERSION = "0.1.1"
CODEX_VERSION = "0.171.0"

TIMEOUT = 60


def cache_dir() -> Path:
    return Path(os.environ.get("SKILL_LSP_ORACLES") or Path.home() / ".cache" / "skill-lsp" / "oracles")


def _arch() -> str:
    return "arm64" if platform.machine() in ("aarch64", "arm64") else "x64"


def find_claude() -> Path | None:
    env = os.environ.get("SKILL_LSP_CLAUDE")
    if env:
        return Path(env) if Path(env).is_file() else None
    path = cache_dir() / f"claude-code-{CLAUDE_VERSION}" / "node_modules" / "@anthropic-ai" / f"claude-code-linux-{_arch()}" / "claude"
    return path if path.is_file() else None


def find_skills_ref() -> Path | None:
    env = os.environ.get("SKILL_LSP_SKILLS_REF")
    if env:
        return Path(env) if Path(env).is_file() else None
    path = cache_dir() / f"skills-ref-{SKILLS_REF_VERSION}" / "bin" / "agentskills"
    return path if path.is_file() else None


def find_codex() -> Path | None:
    env = os.environ.get("SKILL_LSP_CODEX")
    if env:
        return Path(env) if Path(env).is_file() else None
    triple = "aarch64-unknown-linux-musl" if _arch() == "arm64" else "x86_64-unknown-linux-musl"
    path = (cache_dir() / f"codex-{CODEX_VERSION}" / "node_modules" / "@openai" / f"codex-linux-{_arch()}" / "vendor" / triple
            / "bin" / "codex")
    return path if path.is_file() else None


def _rel(path: str, tree: Path) -> str:
    try:
        return Path(path).resolve().relative_to(tree.resolve()).as_posix()
    except ValueError:
        return path


def run_claude(binary: Path, tree: Path) -> dict[str, list[str]]:
    """`claude plugin validate --json TREE` → {relative path: ["error: message", "warning: message"]}."""
    with tempfile.TemporaryDirectory() as home:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "LANG": "C.UTF-8", "DISABLE_AUTOUPDATER": "1",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        done = subprocess.run([str(binary), "plugin", "validate", "--json", str(tree.resolve())], capture_output=True, text=True,
                              env=env, timeout=TIMEOUT, cwd=home)
    try:
        report = json.loads(done.stdout)
    except ValueError as error:
        raise RuntimeError(f"claude plugin validate gave no JSON (exit {done.returncode}): {done.stdout[:500]} {done.stderr[:500]}") from error
    out: dict[str, list[str]] = {}

    def add(file: str, entry: dict, severity: str) -> None:
        message = entry.get("message", "") if isinstance(entry, dict) else str(entry)
        out.setdefault(_rel(file, tree), []).append(f"{severity}: {message}")

    manifest = report.get("manifest")
    if isinstance(manifest, dict):
        file = manifest.get("file") or manifest.get("path") or ""
        for severity, key in (("error", "errors"), ("warning", "warnings")):
            for entry in manifest.get(key) or []:
                add(file, entry, severity)
    for item in report.get("contents") or []:
        for severity, key in (("error", "errors"), ("warning", "warnings")):
            for entry in item.get(key) or []:
                add(item.get("file", ""), entry, severity)
    for entry in report.get("errors") or []:
        add(entry.get("file", "") if isinstance(entry, dict) else "", entry, "error")
    return {key: sorted(value) for key, value in out.items()}


def run_skills_ref(binary: Path, tree: Path) -> dict[str, list[str]]:
    """`agentskills validate DIR` on each direct child of TREE/skills → {SKILL.md path: ["error: first line"]}."""
    out: dict[str, list[str]] = {}
    skills = tree / "skills"
    for directory in sorted(p for p in skills.iterdir() if p.is_dir()):
        files = [p for p in directory.iterdir() if p.name.lower() == "skill.md"]
        file = _rel(str(files[0] if files else directory / "SKILL.md"), tree)
        done = subprocess.run([str(binary), "validate", str(directory)], capture_output=True, text=True, timeout=TIMEOUT,
                              env={**os.environ, "LANG": "C.UTF-8"})
        if done.returncode == 0:
            out[file] = []
            continue
        messages = [line[4:] for line in done.stdout.splitlines() + done.stderr.splitlines() if line.startswith("  - ")]
        if not messages:  # a crash: its last line
            lines = (done.stderr or done.stdout).strip().splitlines()
            messages = [f"crash: {lines[-1] if lines else done.returncode}"]
        out[file] = sorted(f"error: {message}" for message in messages)
    return out


_ENTRY = re.compile(r"^- (?P<name>.+?): (?P<description>.*) \(file: (?P<root>r\d+)/(?P<path>[^)]+)\)$")
_ROOT = re.compile(r"^- `(?P<alias>r\d+)` = `(?P<path>[^`]+)`$")


def run_codex(binary: Path, tree: Path) -> dict[str, list[str]]:
    """`codex debug prompt-input` in TREE → {SKILL.md path: ["note: loaded as NAME"] or ["error: not loaded"]} for
    every SKILL.md under TREE/.agents/skills (any depth), with "warning: description cut to N characters" when
    the listing holds less of the description than the file."""
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as codex_home:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "CODEX_HOME": codex_home, "LANG": "C.UTF-8"}
        done = subprocess.run([str(binary), "debug", "prompt-input"], capture_output=True, text=True, env=env,
                              timeout=TIMEOUT, cwd=tree.resolve())
    texts: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str) and "<skills_instructions>" in node:
            texts.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    try:
        walk(json.loads(done.stdout))
    except ValueError as error:
        raise RuntimeError(f"codex debug prompt-input gave no JSON (exit {done.returncode}): {done.stderr[:500]}") from error
    roots: dict[str, str] = {}
    loaded: dict[str, str] = {}
    listed: dict[str, str] = {}
    for text in texts:
        for line in text.splitlines():
            if match := _ROOT.match(line):
                roots[match["alias"]] = match["path"]
            elif match := _ENTRY.match(line):
                base = roots.get(match["root"])
                if base:
                    rel = _rel(str(Path(base) / match["path"]), tree)
                    loaded[rel] = match["name"]
                    listed[rel] = match["description"]
    out: dict[str, list[str]] = {}
    base = tree / ".agents" / "skills"
    for file in sorted(base.rglob("*")):
        if file.is_file() and file.name.lower() == "skill.md":
            rel = _rel(str(file), tree)
            out[rel] = [f"note: loaded as {loaded[rel]}"] if rel in loaded else ["error: not loaded"]
            cut = _cut(file, listed.get(rel))
            if cut:
                out[rel].append(cut)
    for rel, name in loaded.items():
        if not Path(rel).is_absolute():  # Codex's own system skills live in CODEX_HOME
            out.setdefault(rel, [f"note: loaded as {name}"])
    return out


def _cut(file: Path, description: str | None) -> str | None:
    """"warning: description cut ..." when the description Codex lists is a proper prefix of a longer one on
    the same line of the file (the fixtures write descriptions on one line)."""
    if not description:
        return None
    text = file.read_bytes().decode("utf-8", "replace")
    for marker in ("...", "…"):  # Codex marks a cut description
        if description.endswith(marker) and description not in text:
            description = description[: -len(marker)]
    at = text.find(description)
    if at < 0:
        return None
    rest = text[at + len(description):].split("\n", 1)[0]
    if rest.strip():
        return f"warning: description cut to {len(description)} characters (of {len(description) + len(rest.rstrip())})"
    return None


def skill_lsp_command() -> list[str]:
    found = shutil.which("skill-lsp", path=str(Path(sys.executable).parent)) or shutil.which("skill-lsp")
    return [found] if found else [sys.executable, "-m", "skill_lsp"]


def run_skill_lsp(tree: Path) -> dict[str, list[str]]:
    """`skill-lsp check --format json .` in TREE (no cache, an empty user directory) → {path: ["SK103 warning"]},
    and the full diagnostics for the record."""
    return {path: sorted(f"{d['code']} {d['severity']}" for d in diags) for path, diags in run_skill_lsp_full(tree).items()}


def run_skill_lsp_full(tree: Path) -> dict[str, list[dict]]:
    with tempfile.TemporaryDirectory() as home:
        user = Path(home) / ".claude"
        (user / "skills").mkdir(parents=True)
        (user / "agents").mkdir()
        env = {**os.environ, "HOME": home, "SKILL_LSP_CACHE_DIR": str(Path(home) / "cache")}
        done = subprocess.run([*skill_lsp_command(), "check", "--format", "json", "--no-cache", "--user-skills-dir",
                               str(user / "skills"), "--user-agents-dir", str(user / "agents"), "."],
                              capture_output=True, text=True, env=env, timeout=TIMEOUT, cwd=tree)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"skill-lsp check failed (exit {done.returncode}): {done.stderr[-1000:]}")
    out: dict[str, list[dict]] = {}
    for diagnostic in json.loads(done.stdout or "[]"):
        out.setdefault(diagnostic["path"], []).append(diagnostic)
    return out


ORACLE_OF_LAYOUT = {"claude": "claude", "spec": "skills_ref", "codex": "codex"}


def observe(case_dir: Path, layout: str, binaries: dict[str, Path | None]) -> dict[str, dict[str, list[str]]] | None:
    """{path: {"oracle": [...], "skill_lsp": [...]}} for one layout of one case, or None when its oracle is absent."""
    tree = case_dir / layout
    oracle = ORACLE_OF_LAYOUT[layout]
    binary = binaries.get(oracle)
    if binary is None:
        return None
    said = {"claude": run_claude, "skills_ref": run_skills_ref, "codex": run_codex}[oracle](binary, tree)
    ours = run_skill_lsp(tree)
    paths = set(said) | set(ours)
    for file in tree.rglob("*"):
        if file.is_file() and (file.name.lower() == "skill.md" or file.suffix == ".json" or "/agents/" in file.as_posix()):
            paths.add(_rel(str(file), tree))
    return {path: {"oracle": said.get(path, []), "skill_lsp": ours.get(path, [])} for path in sorted(paths)}
