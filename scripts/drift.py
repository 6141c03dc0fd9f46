#!/usr/bin/env python3
"""Drift check: have the runtimes changed the facts skill-lsp's runtime model relies on?

    python scripts/drift.py             # newest releases vs scripts/drift-facts.json; exit 1 on a change
    python scripts/drift.py --pinned    # re-extract from the pinned versions (checks the extractors)
    python scripts/drift.py --update    # write the newest releases' facts into scripts/drift-facts.json
    python scripts/drift.py --only skills-ref,claude-agent-sdk-py
    python scripts/drift.py --update --at claude-code=2.1.332 --at skills-ref=0.1.1   # pin a baseline

For each source — Claude Code (npm @anthropic-ai/claude-code and its native linux package), the TypeScript
Agent SDK (npm @anthropic-ai/claude-agent-sdk, `sdk.d.ts`), the Python Agent SDK (PyPI claude-agent-sdk,
`types.py`) and skills-ref (PyPI, `validator.py`, `parser.py`) — it asks the registry for the newest version
(`npm view`, `pip index versions`), fetches it (`npm pack`, `pip download`) into ~/.cache/skill-lsp/drift
($SKILL_LSP_DRIFT_CACHE), extracts the facts that skill_lsp/runtimes/, skill_lsp/claude_tools.py and
skill_lsp/agentfile.py rely on, and compares them with scripts/drift-facts.json, which holds the facts of the
versions those modules cite. A fact that can no longer be found is drift too: the message says what was
looked for. Standard library only. Exit codes: 0 no change, 1 drift, 2 a registry or download failed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

FACTS_FILE = Path(__file__).with_name("drift-facts.json")

Facts = dict[str, Any]


class Missing(Exception):
    """A fact the extractor can no longer find: the source changed shape (drift in itself)."""


class FetchError(Exception):
    """The registry or the download failed (not drift)."""


# -- JavaScript / TypeScript / Python scraps -------------------------------------------------------------------


def js_object(text: str, start: int) -> dict[str, str]:
    """The top-level keys of the JavaScript object literal whose `{` is at text[start], each with its value's
    source text (strings, nesting and template literals skipped; good enough for minified schemas)."""
    if text[start] != "{":
        raise ValueError("not at an object")
    keys: dict[str, str] = {}
    depth = 0
    i = start
    key: str | None = None
    value_start = 0
    expect_key = True
    while i < len(text):
        ch = text[i]
        if ch in "\"'`":
            end = _string_end(text, i)
            if depth == 1 and expect_key:
                key = text[i + 1:end - 1]
            i = end
            continue
        if ch in "{([":
            depth += 1
            if depth == 1:
                expect_key = True
        elif ch in "})]":
            depth -= 1
            if depth == 0:
                if key is not None:
                    keys[key] = text[value_start:i]
                return keys
        elif depth == 1 and ch == ",":
            if key is not None:
                keys[key] = text[value_start:i]
            key, expect_key = None, True
        elif depth == 1 and ch == ":" and expect_key:
            if key is None:
                name = re.search(r"([\w$]+)\s*$", text[start:i])
                key = name.group(1) if name else ""
            expect_key = False
            value_start = i + 1
        elif depth == 1 and expect_key and not (ch.isspace() or ch.isalnum() or ch in "_$"):
            expect_key = ch != "."  # a spread `...x` is no key
        i += 1
    raise ValueError("unterminated object")


def _string_end(text: str, i: int) -> int:
    quote = text[i]
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if quote == "`" and text.startswith("${", i):
            depth = 1
            i += 2
            while i < len(text) and depth:
                if text[i] == "{":
                    depth += 1
                elif text[i] == "}":
                    depth -= 1
                elif text[i] in "\"'`":
                    i = _string_end(text, i) - 1
                i += 1
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return i


def js_string_array(text: str) -> list[str]:
    return re.findall(r"[\"']([^\"']*)[\"']", text)


def ts_type_keys(text: str, name: str) -> list[str]:
    """The property names of `export declare type NAME = { ... }` (comments skipped), sorted."""
    match = re.search(r"export declare type " + re.escape(name) + r"\s*=\s*\{", text)
    if not match:
        raise Missing(f"`export declare type {name} = {{` not found")
    body = re.sub(r"/\*.*?\*/", "", text[match.end() - 1:], flags=re.S)
    body = re.sub(r"//[^\n]*", "", body)
    keys, depth = [], 0
    for line in body.splitlines():
        if depth == 1:
            found = re.match(r"\s*(?:readonly\s+)?['\"]?([\w$-]+)['\"]?\??\s*:", line)
            if found:
                keys.append(found.group(1))
        depth += line.count("{") - line.count("}")
        if depth <= 0 and "}" in line:
            break
    if not keys:
        raise Missing(f"no properties found in type {name}")
    return sorted(keys)


def ts_union(text: str, name: str) -> list[str]:
    match = re.search(r"export declare type " + re.escape(name) + r"\s*=\s*([^;]+);", text)
    if not match:
        raise Missing(f"`export declare type {name} = ...;` not found")
    return sorted(re.findall(r"'([^']*)'", match.group(1)))


def ts_const_array(text: str, name: str) -> list[str]:
    match = re.search(r"export declare const " + re.escape(name) + r":\s*readonly\s*\[([^\]]*)\]", text)
    if not match:
        raise Missing(f"`export declare const {name}: readonly [...]` not found")
    return sorted(re.findall(r"'([^']*)'", match.group(1)))


def py_class_fields(text: str, name: str) -> list[str]:
    """The annotated attributes of `class NAME` (a dataclass or TypedDict), sorted."""
    match = re.search(r"^class " + re.escape(name) + r"\b[^\n]*:\n", text, flags=re.M)
    if not match:
        raise Missing(f"`class {name}` not found")
    fields = []
    in_string = False
    for line in text[match.end():].splitlines():
        if line and not line[0].isspace() and not in_string:
            break
        quotes = line.count('"""') + line.count("'''")
        if not in_string:
            found = re.match(r"    ([A-Za-z_]\w*)\s*:\s*\S", line)
            if found:
                fields.append(found.group(1))
        if quotes % 2:
            in_string = not in_string
    if not fields:
        raise Missing(f"no fields found in class {name}")
    return sorted(fields)


def py_literal(text: str, name: str) -> list[str]:
    """The strings of `NAME = Literal[...]` or `NAME = (Literal["a"] | Literal["b"] ...)`, sorted."""
    match = re.search(r"^" + re.escape(name) + r"\s*=\s*(\(.*?\n\)|Literal\[.*?\])", text, flags=re.M | re.S)
    if not match:
        raise Missing(f"`{name} = Literal[...]` not found")
    return sorted(set(re.findall(r"\"([^\"]*)\"", match.group(1))))


# -- Claude Code's native binary ------------------------------------------------------------------------------


def _near_constant(data: bytes, var: bytes, before: int, span: int = 20000) -> float:
    window = data[max(0, before - span):before]
    found = list(re.finditer(rb"(?<![\w$.])" + re.escape(var) + rb"=([0-9][0-9.e]*)[,;]", window))
    if not found:
        raise Missing(f"the value of {var.decode()} (a constant defined before the listing code)")
    text = found[-1].group(1).decode()
    return float(text) if any(c in text for c in ".e") else int(text)


def _schema_keys(data: bytes, var: bytes, near: int) -> dict[str, str]:
    """The keys of a schema defined as `VAR=lazy(()=>object({...}))` or `VAR=lazy(()=>BASE().extend({...}))`."""
    pattern = rb"(?<![\w$.])" + re.escape(var) + rb"=[\w$]+\(\(\)=>"
    matches = [m for m in re.finditer(pattern, data[max(0, near - 400000):near + 400000])]
    if not matches:
        raise Missing(f"the definition of the frontmatter schema {var.decode()}")
    offset = max(0, near - 400000) + matches[-1].end()
    head = data[offset:offset + 200].decode("latin-1")
    extend = re.match(r"([\w$]+)\(\)\.extend\(\{", head)
    plain = re.match(r"[\w$]+\(\{", head)
    window = data[offset:offset + 60000].decode("latin-1")
    if extend:
        keys = _schema_keys(data, extend.group(1).encode(), offset)
        keys.update(js_object(window, window.index("{")))
        return keys
    if plain:
        return js_object(window, window.index("{"))
    raise Missing(f"the schema {var.decode()} is neither an object nor an extension of one: {head[:80]!r}")


def _arrays(data: bytes, first: list[str]) -> list[list[str]]:
    prefix = b"\\[" + b",".join(b'"' + re.escape(item.encode()) + b'"' for item in first)
    return [json.loads(m.group(0)) for m in re.finditer(prefix + rb'(?:,"[\w-]+")*\]', data)]


def claude_code_facts(binary: Path) -> Facts:
    data = binary.read_bytes()
    facts: Facts = {}
    problems: list[str] = []

    def fact(name: str, get: Callable[[], Any]) -> None:
        try:
            facts[name] = get()
        except (Missing, ValueError) as error:
            problems.append(f"{name}: {error}")

    schemas = re.search(rb"\{skill:[\w$]+\(\(\)=>([\w$]+)\(\)\.strict\(\)\),agent:[\w$]+\(\(\)=>([\w$]+)\(\)\.strict\(\)\)", data)
    if schemas is None:
        problems.append("skill_frontmatter_keys, agent_frontmatter_keys: the frontmatter schema map "
                        "`{skill:...(()=>X().strict()),agent:...(()=>Y().strict())}` not found")
    else:
        skill = agent = None

        def skill_keys() -> list[str]:
            nonlocal skill
            skill = _schema_keys(data, schemas.group(1), schemas.start())
            return sorted(skill)

        def agent_keys() -> list[str]:
            nonlocal agent
            agent = _schema_keys(data, schemas.group(2), schemas.start())
            return sorted(agent)

        fact("skill_frontmatter_keys", skill_keys)
        fact("agent_frontmatter_keys", agent_keys)
        if agent is not None:
            facts["agent_required_keys"] = sorted(key for key, value in agent.items() if ".optional()" not in value)
        if skill is not None and "context" in skill:
            facts["skill_context_values"] = sorted(js_string_array(skill["context"].split(")")[0]))

    def listing() -> dict[str, Any]:
        cap = re.search(rb"skillListingMaxDescChars\?\?([\w$]+)", data)
        if cap is None:
            raise Missing("`skillListingMaxDescChars??DEFAULT` (the per-skill description cap) not found")
        budget = re.search(rb"function [\w$]+\([\w$]+,[\w$]+=([\w$]+)\)\{let [\w$]+=[\w$]+\(process\.env\.SLASH_COMMAND_TOOL_CHAR_BUDGET\)", data)
        if budget is None:
            raise Missing("the listing budget function reading process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET not found")
        body = data[budget.end():budget.end() + 600]
        parts = re.search(rb"skillListingBudgetFraction,[\w$]+=\([\w$]+\?\?([\w$]+)\)\*[\w$]+\*\([\w$]+\?\?([\w$]+)\)", body)
        if parts is None:
            raise Missing("`(context??DEFAULT)*charsPerToken*(fraction??DEFAULT)` in the budget function not found")
        return {
            "max_desc_chars_default": _near_constant(data, cap.group(1), cap.start()),
            "budget_fraction_default": _near_constant(data, parts.group(2), budget.start()),
            "chars_per_token": _near_constant(data, budget.group(1), budget.start()),
            "context_tokens_default": _near_constant(data, parts.group(1), budget.start()),
            "budget_env": "SLASH_COMMAND_TOOL_CHAR_BUDGET",
            "entry": "description - when_to_use" if re.search(rb"whenToUse\?`\$\{[\w$]+\} - \$\{[\w$]+\.whenToUse\}`", data)
            else "not found",
        }

    fact("skill_listing", listing)

    def longest(first: list[str], what: str) -> list[str]:
        found = _arrays(data, first)
        if not found:
            raise Missing(f"no array literal starting with {first} ({what})")
        return max(found, key=len)

    fact("hook_events", lambda: sorted(longest(["PreToolUse", "PostToolUse"], "hook events")))
    fact("permission_modes", lambda: sorted(longest(["default", "acceptEdits"], "permission modes")))

    def effort() -> list[str]:
        found = [tuple(a) for a in _arrays(data, ["low", "medium", "high"]) if a[-1] == "max"]
        if not found:
            raise Missing('no array literal ["low","medium","high",...,"max"] (effort levels)')
        return list(Counter(found).most_common(1)[0][0])

    fact("effort_levels", effort)

    def shells() -> list[str]:
        found = re.search(rb"shell must be ((?:'[\w-]+'(?:, |,? or )?)+)", data)
        if found is None:
            raise Missing("the validator's message \"shell must be 'bash' or ...\" not found")
        return sorted(re.findall(r"'([\w-]+)'", found.group(1).decode()))

    fact("shells", shells)

    def name_limit() -> int:
        found = re.search(rb"a name may not hold [^\"`]*? or be over (\d+) characters", data)
        if found is None:
            raise Missing("the message \"a name may not hold ... or be over N characters\" not found")
        return int(found.group(1))

    fact("skill_name_max_chars", name_limit)

    def overrides() -> list[str]:
        return longest(["on", "name-only"], "skillOverrides values")

    fact("skill_overrides", overrides)
    fact("settings", lambda: sorted({m.decode() for m in re.findall(
        rb"(skillListing\w+|skillOverrides|disableSkillShellExecution|disableBundledSkills|syncClaudeAiSkills)", data)}))
    if problems:
        facts["_missing"] = problems
    return facts


# -- the sources ----------------------------------------------------------------------------------------------


def _run(command: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise FetchError(f"{' '.join(command)}: {error}") from error
    if done.returncode != 0:
        raise FetchError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def cache_dir() -> Path:
    path = Path(os.environ.get("SKILL_LSP_DRIFT_CACHE") or Path.home() / ".cache" / "skill-lsp" / "drift")
    path.mkdir(parents=True, exist_ok=True)
    return path


def npm_newest(package: str) -> str:
    return _run(["npm", "view", package, "version"]).strip()


def npm_tarball(package: str, version: str) -> Path:
    cached = cache_dir() / f"{package.replace('/', '+')}-{version}.tgz"
    if not cached.exists():
        with tempfile.TemporaryDirectory() as tmp:
            out = _run(["npm", "pack", "--silent", f"{package}@{version}", "--pack-destination", tmp])
            produced = Path(tmp) / out.strip().splitlines()[-1]
            shutil.move(str(produced), cached)
    return cached


def npm_member(package: str, version: str, member: str) -> bytes:
    with tarfile.open(npm_tarball(package, version)) as archive:
        try:
            handle = archive.extractfile(f"package/{member}")
        except KeyError as error:
            raise Missing(f"{package}@{version} has no {member}") from error
        assert handle is not None
        return handle.read()


def pypi_newest(package: str) -> str:
    out = _run([sys.executable, "-m", "pip", "index", "versions", package, "--disable-pip-version-check"])
    found = re.search(re.escape(package) + r" \(([^)]+)\)", out)
    if not found:
        raise FetchError(f"pip index versions {package}: no version in {out[:200]!r}")
    return found.group(1)


def pypi_files(package: str, version: str, suffixes: tuple[str, ...]) -> dict[str, str]:
    """The files of a release whose paths end with one of suffixes (from its sdist, or its wheel)."""
    target = cache_dir() / f"{package}-{version}"
    if not target.exists():
        with tempfile.TemporaryDirectory() as tmp:
            try:
                _run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--no-build-isolation",
                      "-q", "--disable-pip-version-check", "-d", tmp, f"{package}=={version}"])
            except FetchError:
                _run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "--disable-pip-version-check", "-d", tmp,
                      f"{package}=={version}"])
            target.mkdir(parents=True)
            for file in Path(tmp).iterdir():
                shutil.move(str(file), target / file.name)
    out: dict[str, str] = {}
    for file in target.iterdir():
        if file.name.endswith((".tar.gz", ".tgz")):
            with tarfile.open(file) as archive:
                for member in archive.getmembers():
                    if member.isfile() and member.name.endswith(suffixes):
                        handle = archive.extractfile(member)
                        assert handle is not None
                        out[member.name] = handle.read().decode("utf-8")
        elif file.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(file) as archive:
                for name in archive.namelist():
                    if name.endswith(suffixes):
                        out[name] = archive.read(name).decode("utf-8")
    return out


def _one(files: dict[str, str], suffix: str) -> str:
    for name, text in files.items():
        if name.endswith(suffix):
            return text
    raise Missing(f"no file ending in {suffix}")


def _arch() -> str:
    return "arm64" if platform.machine() in ("aarch64", "arm64") else "x64"


def claude_code(version: str) -> Facts:
    native = f"@anthropic-ai/claude-code-linux-{_arch()}"
    oracle = (Path(os.environ.get("SKILL_LSP_ORACLES") or Path.home() / ".cache" / "skill-lsp" / "oracles")
              / f"claude-code-{version}" / "node_modules" / "@anthropic-ai" / f"claude-code-linux-{_arch()}" / "claude")
    if oracle.is_file():  # scripts/install-oracles put this very version there
        return claude_code_facts(oracle)
    return _native_facts(native, version)


def _native_facts(package: str, version: str) -> Facts:
    """The Claude Code facts of the `claude` binary in an npm package (streamed to a temporary file)."""
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(npm_tarball(package, version)) as archive:
        try:
            handle = archive.extractfile("package/claude")
        except KeyError as error:
            raise Missing(f"{package}@{version} has no claude binary") from error
        assert handle is not None
        binary = Path(tmp) / "claude"
        with binary.open("wb") as out:
            shutil.copyfileobj(handle, out, 1 << 20)
        return claude_code_facts(binary)


def claude_code_in_sdk(version: str) -> Facts:
    """The Claude Code the TypeScript Agent SDK bundles (its native package), which can be newer than the
    `@anthropic-ai/claude-code` release on npm (SDK 0.3.335 bundles 2.1.335 while npm has 2.1.332)."""
    package = json.loads(npm_member("@anthropic-ai/claude-agent-sdk", version, "package.json"))
    facts = _native_facts(f"@anthropic-ai/claude-agent-sdk-linux-{_arch()}", version)
    facts["claude_code_version"] = package.get("claudeCodeVersion", "not found")
    return facts


def _guard(facts: Facts, problems: list[str], name: str, get: Callable[[], Any]) -> None:
    try:
        facts[name] = get()
    except Missing as error:
        problems.append(f"{name}: {error}")


def agent_sdk_ts(version: str) -> Facts:
    text = npm_member("@anthropic-ai/claude-agent-sdk", version, "sdk.d.ts").decode("utf-8")
    package = json.loads(npm_member("@anthropic-ai/claude-agent-sdk", version, "package.json"))
    facts: Facts = {"bundled_claude_code": package.get("claudeCodeVersion", "not found")}
    problems: list[str] = []
    _guard(facts, problems, "options_fields", lambda: ts_type_keys(text, "Options"))
    _guard(facts, problems, "agent_definition_fields", lambda: ts_type_keys(text, "AgentDefinition"))
    _guard(facts, problems, "builtin_tool_names", lambda: ts_const_array(text, "BUILTIN_TOOL_NAMES"))
    _guard(facts, problems, "hook_events", lambda: ts_const_array(text, "HOOK_EVENTS"))
    _guard(facts, problems, "permission_modes", lambda: ts_union(text, "PermissionMode"))
    _guard(facts, problems, "setting_sources", lambda: ts_union(text, "SettingSource"))
    if problems:
        facts["_missing"] = problems
    return facts


def agent_sdk_py(version: str) -> Facts:
    files = pypi_files("claude-agent-sdk", version, ("claude_agent_sdk/types.py", "claude_agent_sdk/query.py",
                                                    "claude_agent_sdk/_internal/transport/subprocess_cli.py"))
    facts: Facts = {}
    problems: list[str] = []
    try:
        types = _one(files, "claude_agent_sdk/types.py")
    except Missing as error:
        return {"_missing": [f"types.py: {error}"]}
    _guard(facts, problems, "options_fields", lambda: py_class_fields(types, "ClaudeAgentOptions"))
    _guard(facts, problems, "agent_definition_fields", lambda: py_class_fields(types, "AgentDefinition"))
    _guard(facts, problems, "hook_events", lambda: py_literal(types, "HookEvent"))
    _guard(facts, problems, "permission_modes", lambda: py_literal(types, "PermissionMode"))
    _guard(facts, problems, "setting_sources", lambda: py_literal(types, "SettingSource"))
    everything = "\n".join(files.values())

    def skill_name_errors() -> list[str]:
        """The messages of the `skills=[...]` checks (CL101 quotes them): each raise's adjacent literals joined."""
        messages = []
        for found in re.finditer(r"raise (?:Type|Value)Error\(\s*((?:f?\"(?:[^\"\\]|\\.)*\"\s*)+)", everything):
            text = "".join(re.findall(r"f?\"((?:[^\"\\]|\\.)*)\"", found.group(1)))
            if "skill" in text.lower():
                messages.append(text)
        if not any("wildcard-suffix" in text for text in messages):
            raise Missing("the skills check's message 'wildcard-suffix names are not allowed' not found")
        return sorted(set(messages))

    _guard(facts, problems, "skill_name_errors", skill_name_errors)
    if problems:
        facts["_missing"] = problems
    return facts


def skills_ref(version: str) -> Facts:
    files = pypi_files("skills-ref", version, ("skills_ref/validator.py", "skills_ref/parser.py"))
    facts: Facts = {}
    problems: list[str] = []
    try:
        validator = _one(files, "skills_ref/validator.py")
        parser = _one(files, "skills_ref/parser.py")
    except Missing as error:
        return {"_missing": [str(error)]}

    def constant(name: str) -> int:
        found = re.search(r"^" + name + r"\s*=\s*(\d+)", validator, flags=re.M)
        if not found:
            raise Missing(f"`{name} = N` not found in validator.py")
        return int(found.group(1))

    def allowed() -> list[str]:
        found = re.search(r"^ALLOWED_FIELDS\s*=\s*\{([^}]*)\}", validator, flags=re.M)
        if not found:
            raise Missing("`ALLOWED_FIELDS = {...}` not found in validator.py")
        return sorted(re.findall(r"\"([^\"]+)\"", found.group(1)))

    _guard(facts, problems, "allowed_fields", allowed)
    _guard(facts, problems, "name_max", lambda: constant("MAX_SKILL_NAME_LENGTH"))
    _guard(facts, problems, "description_max", lambda: constant("MAX_DESCRIPTION_LENGTH"))
    _guard(facts, problems, "compatibility_max", lambda: constant("MAX_COMPATIBILITY_LENGTH"))
    facts["yaml_parser"] = "strictyaml" if "strictyaml.load" in parser else ("yaml.safe_load" if "safe_load" in parser else "unknown")
    facts["name_normalization"] = "NFKC" if '"NFKC"' in validator else "none"
    found = re.search(r"for name in \(([^)]*)\)", parser)
    facts["file_names"] = re.findall(r"\"([^\"]+)\"", found.group(1)) if found else "not found"
    if problems:
        facts["_missing"] = problems
    return facts


SOURCES: dict[str, tuple[str, Callable[[], str], Callable[[str], Facts]]] = {
    "claude-code": ("npm @anthropic-ai/claude-code (native linux binary)",
                    lambda: npm_newest("@anthropic-ai/claude-code"), claude_code),
    "claude-code-in-sdk": ("the Claude Code binary in npm @anthropic-ai/claude-agent-sdk-linux-<arch>",
                           lambda: npm_newest("@anthropic-ai/claude-agent-sdk"), claude_code_in_sdk),
    "claude-agent-sdk-ts": ("npm @anthropic-ai/claude-agent-sdk sdk.d.ts",
                            lambda: npm_newest("@anthropic-ai/claude-agent-sdk"), agent_sdk_ts),
    "claude-agent-sdk-py": ("PyPI claude-agent-sdk types.py", lambda: pypi_newest("claude-agent-sdk"), agent_sdk_py),
    "skills-ref": ("PyPI skills-ref validator.py", lambda: pypi_newest("skills-ref"), skills_ref),
}


# -- comparing ------------------------------------------------------------------------------------------------


def compare(old: Any, new: Any, path: str = "") -> list[str]:
    """The differences between two fact trees, one line each: lists as added/removed items, mappings key by key,
    anything else as old -> new; `_missing` entries of the new tree are reported as facts no longer found."""
    lines: list[str] = []
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            here = f"{path}.{key}" if path else key
            if key == "_missing":
                gone = [item for item in new.get(key, []) if item not in old.get(key, [])]
                lines.extend(f"{path or '(source)'}: can no longer be found: {item}" for item in gone)
                back = [item for item in old.get(key, []) if item not in new.get(key, [])]
                lines.extend(f"{path or '(source)'}: found again: {item}" for item in back)
            elif key not in new:
                if not any(line.startswith(f"{path or '(source)'}: can no longer be found: {key}") for line in lines) \
                        and not any(str(item).startswith(f"{key}:") for item in new.get("_missing", [])):
                    lines.append(f"{here}: no longer extracted")
            elif key not in old:
                shown = f"{len(new[key])} items" if isinstance(new[key], (list, dict)) else json.dumps(new[key])
                lines.append(f"{here}: new fact ({shown})")
            else:
                lines.extend(compare(old[key], new[key], here))
        return lines
    if isinstance(old, list) and isinstance(new, list) and all(isinstance(x, str) for x in old + new):
        added = [x for x in new if x not in old]
        removed = [x for x in old if x not in new]
        if added or removed:
            parts = []
            if added:
                parts.append("added " + ", ".join(added))
            if removed:
                parts.append("removed " + ", ".join(removed))
            lines.append(f"{path}: " + "; ".join(parts))
        elif old != new:
            lines.append(f"{path}: order changed")
        return lines
    if old != new:
        lines.append(f"{path}: {json.dumps(old)} -> {json.dumps(new)}")
    return lines


def report(pinned: dict[str, Any], current: dict[str, Any]) -> tuple[list[str], bool]:
    """Lines to print for each source, and whether anything changed."""
    out: list[str] = []
    changed = False
    for name, entry in current.items():
        before = pinned.get(name, {"version": "(none)", "facts": {}})
        diffs = compare(before.get("facts", {}), entry["facts"])
        header = f"{name}: {before.get('version')} -> {entry['version']}" if before.get("version") != entry["version"] \
            else f"{name}: {entry['version']}"
        if diffs:
            changed = True
            out.append(f"{header}: CHANGED")
            out.extend(f"  {line}" for line in diffs)
        else:
            out.append(f"{header}: no change in the facts")
    return out, changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write the newest releases' facts into drift-facts.json")
    parser.add_argument("--pinned", action="store_true", help="extract from the pinned versions instead of the newest")
    parser.add_argument("--only", help="comma-separated sources: " + ", ".join(SOURCES))
    parser.add_argument("--json", action="store_true", help="print the extracted facts as JSON")
    parser.add_argument("--at", action="append", default=[], metavar="SOURCE=VERSION",
                        help="extract SOURCE at VERSION (to pin a new baseline with --update)")
    args = parser.parse_args(argv)
    stored: dict[str, Any] = json.loads(FACTS_FILE.read_text()) if FACTS_FILE.exists() else {}
    pinned = stored.get("sources", {})
    names = args.only.split(",") if args.only else list(SOURCES)
    chosen = dict(item.split("=", 1) for item in args.at)
    current: dict[str, Any] = {}
    try:
        for name in names:
            description, newest, extract = SOURCES[name]
            if name in chosen:
                version = chosen[name]
            elif args.pinned and name in pinned:
                version = pinned[name]["version"]
            else:
                version = newest()
            print(f"drift: {name} {version} ({description})", file=sys.stderr)
            current[name] = {"version": version, "facts": extract(version)}
    except FetchError as error:
        print(f"drift: {error}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(current, sys.stdout, indent=1)
        print()
    lines, changed = report(pinned, current)
    print("\n".join(lines))
    if args.update:
        stored.setdefault("sources", {}).update(current)
        stored["about"] = ("Facts skill_lsp/runtimes/ relies on, extracted by scripts/drift.py from the versions the "
                           "modules cite; rewrite with `python scripts/drift.py --update` after updating the modules.")
        FACTS_FILE.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        print(f"drift: wrote {FACTS_FILE}", file=sys.stderr)
        return 0
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
