"""Typed settings: `.skill-lsp.toml`, `skill-lsp.toml` or `[tool.skill-lsp]` in pyproject.toml, and the same keys
from LSP options."""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from .catalogue import BY_CODE, RULES, Rule
from .model import Profile, Severity, Span
from .textutil import FileTooLarge, read_text


@dataclass(frozen=True)
class RootSetting:
    path: Path
    profile: Profile


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, Severity | None], ...] = ()
    roots: tuple[RootSetting, ...] = ()
    exclude: tuple[str, ...] = ()
    user_skills_dir: Path | None = None
    # the user's own subagents (Claude Code's ~/.claude/agents); None: beside user_skills_dir
    user_agents_dir: Path | None = None
    # the files (SKILL.md, .py, pyproject.toml) the server indexes at most per workspace folder,
    # the nearest to the open files first; None: DEFAULT_MAX_FILES. `check` walks everything.
    max_files: int | None = None
    # per-file-ignores: (directory the globs are relative to, glob, codes), in the order written
    per_file_ignores: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # the answers of enabled(), severity_of() and ignored_in(), asked for every finding and most files
    _enabled: dict[str, bool] = field(default_factory=dict, init=False, repr=False, compare=False)
    _severities: dict[tuple[str, Profile | None], Severity | None] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    _file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def ignored_in(self, rule: Rule, path: Path) -> bool:
        """Whether per-file-ignores silences the rule in the file at path."""
        if not self.per_file_ignores:
            return False
        text = str(path)
        codes = self._file_ignores.get(text)
        if codes is None:
            codes = self._file_ignores[text] = tuple(
                code for base, pattern, listed in self.per_file_ignores if glob_matches(path, base, pattern) for code in listed)
        return any(_matches(rule, code) for code in codes)

    def enabled(self, rule: Rule) -> bool:
        known = self._enabled.get(rule.code)
        if known is None:
            known = self._enabled[rule.code] = self._decide(rule)
        return known

    def _decide(self, rule: Rule) -> bool:
        overrides = dict(self.severity)
        if rule.code in overrides and overrides[rule.code] is None:
            return False
        if any(_matches(rule, pattern) for pattern in self.ignore):
            return False
        if any(_matches(rule, pattern) for pattern in self.extend_select):
            return True
        if self.select is None:
            return rule.enabled_by_default or rule.code in overrides
        return any(_matches(rule, pattern) for pattern in self.select)

    def overridden(self) -> frozenset[str]:
        """The codes whose severity the configuration sets."""
        return frozenset(code for code, _ in self.severity)

    def severity_of(self, rule: Rule, profile: Profile | None) -> Severity | None:
        key = (rule.code, profile)
        if key not in self._severities:
            overrides = dict(self.severity)
            self._severities[key] = overrides[rule.code] if rule.code in overrides else rule.severity_for(profile)
        return self._severities[key]


def glob_matches(path: Path, base: str, pattern: str) -> bool:
    """A per-file-ignores glob, as ruff's: matched against the path relative to base (the configuration file's
    directory; `*` also crosses `/`, `**/` any depth), or against the file name alone when it has no `/`."""
    try:
        relative = path.relative_to(base).as_posix()
    except ValueError:
        return False
    pattern = pattern.strip().removeprefix("./")
    return (fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern.replace("**/", ""))
            or ("/" not in pattern and fnmatch.fnmatchcase(path.name, pattern)))


def _matches(rule: Rule, pattern: str) -> bool:
    pattern = pattern.strip()
    return pattern.upper() == "ALL" or rule.code.startswith(pattern.upper()) or rule.name == pattern.lower()


@dataclass
class ConfigProblem:
    message: str
    key: str
    # None: CF001's own (error); a configuration file not read says so as a warning
    severity: Severity | None = None


@dataclass
class LoadedConfig:
    config: Config
    path: Path | None = None
    problems: list[ConfigProblem] = field(default_factory=list)
    # set when a file of higher precedence in the same directory is read instead (CONFIG_FILES)
    shadowed: bool = False

    def problem_span(self, problem: ConfigProblem, text: str) -> Span:
        """Where in the configuration file the offending key is written."""
        lines = text.splitlines()
        if not problem.key:  # the file as a whole
            return Span.of(0, 0, 0, len(lines[0]) if lines else 0)
        own = self.path is not None and self.path.name != "pyproject.toml"  # skill-lsp.toml: the keys at the top
        in_table = own
        # "severity.SK999": the entry SK999 of the severity table
        leaf, _, entry = problem.key.partition(".")
        for number, line in enumerate(lines):
            stripped = line.strip()
            if stripped.startswith("["):
                # the table's name below the settings: "" for [tool.skill-lsp] itself, "severity" for its
                # [tool.skill-lsp.severity] (and a skill-lsp.toml's [severity])
                name = stripped.split("#", 1)[0].strip().strip("[]").strip().replace('"', "")
                if not own and not name.startswith("tool.skill-lsp"):
                    in_table = False
                    continue
                name = name if own else name.removeprefix("tool.skill-lsp").lstrip(".")
                in_table = name == ""
                if name == leaf:
                    if entry:
                        found = _entry_line(lines, number + 1, entry)
                        if found is not None:
                            return found
                    return Span.of(number, 0, number, len(line))
                continue
            if in_table and re.match(rf"^\s*\"?{re.escape(leaf)}\"?\s*=", line):
                if entry and entry in line:
                    # an inline table: point at the entry itself
                    start = line.index(entry, line.index("="))
                    return Span.of(number, start, number, len(line.rstrip().rstrip(",}").rstrip()))
                return Span.of(number, len(line) - len(line.lstrip()), number, len(line.rstrip()))
        for number, line in enumerate(lines):
            if "skill-lsp" in line and not own:
                return Span.of(number, 0, number, len(line))
        return Span.of(0, 0, 0, 0)


def _entry_line(lines: list[str], start: int, entry: str) -> Span | None:
    """The `entry = ...` line of the table whose body starts at line start."""
    for number in range(start, len(lines)):
        line = lines[number]
        if line.strip().startswith("["):
            return None
        if re.match(rf"^\s*[\"']?{re.escape(entry)}[\"']?\s*=", line):
            return Span.of(number, len(line) - len(line.lstrip()), number, len(line.rstrip()))
    return None


_KNOWN_KEYS = {
    "select", "extend-select", "ignore", "severity", "roots", "exclude", "user-skills-dir", "user-agents-dir",
    "max-files", "per-file-ignores",
}

# The configuration files of a directory, the first found applying (as ruff's .ruff.toml, ruff.toml, then
# pyproject.toml; config_in): a pyproject.toml counts when it has a [tool.skill-lsp] table.
CONFIG_FILES = (".skill-lsp.toml", "skill-lsp.toml", "pyproject.toml")

USER_SKILLS_ENV = "SKILL_LSP_USER_SKILLS_DIR"
USER_AGENTS_ENV = "SKILL_LSP_USER_AGENTS_DIR"

# A folder of `/` or a home directory holds hundreds of thousands of such files: the server indexes
# this many (20,000 skills index in about ten seconds) and says what it left out.
DEFAULT_MAX_FILES = 20_000


def _codes(value: Any, key: str, problems: list[ConfigProblem]) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(ConfigProblem(f"'{key}' must be a list of rule codes such as [\"SK1\", \"AD101\"]; got {value!r}", key))
        return None
    unknown = [
        item for item in value
        if item.upper() != "ALL" and not any(r.code.startswith(item.upper()) or r.name == item.lower() for r in RULES)
    ]
    if unknown:
        problems.append(ConfigProblem(f"'{key}' names no known rule: {', '.join(unknown)} (see `skill-lsp rules`)", key))
    return tuple(item for item in value if item not in unknown)


def editor_config(data: dict[str, object], base: Path) -> tuple[Config, list[str]]:
    """The core's Config from the editor's skillLsp settings (initializationOptions or
    workspace/configuration), and what was wrong with them."""
    core = {key: value for key, value in data.items() if key not in ("validate", "debounce", "server", "trace")}
    config, problems = parse_settings(core, base, camel=True)
    if isinstance(core.get("userSkillsDir"), str) and not core["userSkillsDir"]:
        config = replace(config, user_skills_dir=None)
    return config, [problem.message for problem in problems]


def max_files_of(folder: Path, settings: Config) -> int:
    """How many files the server indexes of a workspace folder: the editor's maxFiles, else the
    folder's own configuration's `max-files`, else DEFAULT_MAX_FILES."""
    project = config_in(folder)
    return settings.max_files or (project.config.max_files if project else None) or DEFAULT_MAX_FILES


def parse_settings(data: dict[str, Any], base: Path, *, camel: bool = False) -> tuple[Config, list[ConfigProblem]]:
    """Build a Config from a `[tool.skill-lsp]` table (or the LSP `skillLsp` object)."""
    problems: list[ConfigProblem] = []
    config = Config()

    def key(name: str) -> str:
        if not camel:
            return name
        head, *rest = name.split("-")
        return head + "".join(part.capitalize() for part in rest)

    known = {key(k) for k in _KNOWN_KEYS}
    for name in data:
        if name not in known and not (camel and name in ("validate", "debounce", "server", "trace")):
            problems.append(ConfigProblem(f"unknown setting '{name}'; known: {', '.join(sorted(known))}", name))

    if key("select") in data:
        select = _codes(data[key("select")], key("select"), problems)
        if select is not None:
            config = replace(config, select=select)
    if key("extend-select") in data:
        extend = _codes(data[key("extend-select")], key("extend-select"), problems)
        if extend is not None:
            config = replace(config, extend_select=extend)
    if key("ignore") in data:
        ignore = _codes(data[key("ignore")], key("ignore"), problems)
        if ignore is not None:
            config = replace(config, ignore=ignore)
    if key("severity") in data:
        value = data[key("severity")]
        if not isinstance(value, dict):
            problems.append(ConfigProblem(f"'{key('severity')}' must be a table of CODE = \"error|warning|information|hint|off\"; got {value!r}", key("severity")))
        else:
            levels: list[tuple[str, Severity | None]] = []
            for code, level in value.items():
                if str(code).upper() not in BY_CODE:
                    problems.append(ConfigProblem(f"'{key('severity')}' names unknown rule '{code}'", f"{key('severity')}.{code}"))
                    continue
                if isinstance(level, str) and level.strip().lower() in ("off", "none", "ignore"):
                    levels.append((str(code).upper(), None))
                    continue
                try:
                    levels.append((str(code).upper(), Severity.parse(str(level))))
                except KeyError:
                    problems.append(ConfigProblem(
                        f"severity of {code} must be error, warning, information, hint or off; got {level!r}", f"{key('severity')}.{code}"))
            config = replace(config, severity=tuple(levels))
    if key("roots") in data:
        value = data[key("roots")]
        roots: list[RootSetting] = []
        if not isinstance(value, list):
            problems.append(ConfigProblem(f"'{key('roots')}' must be a list of {{path = \"...\", profile = \"agentdeck|claude|spec\"}}; got {value!r}", key("roots")))
        else:
            for entry in value:
                if isinstance(entry, str):
                    entry = {"path": entry}
                if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry.get("path"):
                    problems.append(ConfigProblem(f"each root must be a table with a 'path' string; got {entry!r}", key("roots")))
                    continue
                profile_name = entry.get("profile", "spec")
                try:
                    profile = Profile(str(profile_name).lower())
                except ValueError:
                    problems.append(ConfigProblem(f"root profile must be agentdeck, claude or spec; got {profile_name!r}", key("roots")))
                    continue
                path = Path(entry["path"]).expanduser()
                roots.append(RootSetting(path if path.is_absolute() else base / path, profile))
        config = replace(config, roots=tuple(roots))
    if key("exclude") in data:
        value = data[key("exclude")]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            problems.append(ConfigProblem(f"'{key('exclude')}' must be a list of glob patterns; got {value!r}", key("exclude")))
        else:
            config = replace(config, exclude=tuple(value))
    for setting, attribute in (("user-skills-dir", "user_skills_dir"), ("user-agents-dir", "user_agents_dir")):
        if key(setting) in data:
            value = data[key(setting)]
            if value in ("", None):
                pass
            elif not isinstance(value, str):
                problems.append(ConfigProblem(f"'{key(setting)}' must be a path string; got {value!r}", key(setting)))
            else:
                path = Path(value).expanduser()
                path = path if path.is_absolute() else base / path
                config = replace(config, user_skills_dir=path) if attribute == "user_skills_dir" else replace(
                    config, user_agents_dir=path)
    if key("per-file-ignores") in data:
        value = data[key("per-file-ignores")]
        if not isinstance(value, dict):
            problems.append(ConfigProblem(f"'{key('per-file-ignores')}' must be a table of \"glob\" = [\"CODE\", ...]; "
                                          f"got {value!r}", key("per-file-ignores")))
        else:
            entries: list[tuple[str, str, tuple[str, ...]]] = []
            for pattern, listed in value.items():
                codes = _codes(listed, f"{key('per-file-ignores')}.{pattern}", problems)
                if codes:
                    entries.append((str(base), str(pattern), codes))
            config = replace(config, per_file_ignores=tuple(entries))
    if key("max-files") in data:
        value = data[key("max-files")]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(ConfigProblem(f"'{key('max-files')}' must be a whole number of files, at least 1; got {value!r}",
                                          key("max-files")))
        else:
            config = replace(config, max_files=value)
    return config, problems


def walk_exclude(folder: Path, settings: Config) -> tuple[str, ...]:
    """The patterns a walk of folder skips: the settings' and its own configuration file's."""
    loaded = config_in(folder)
    return settings.exclude + (loaded.config.exclude if loaded else ())


def config_in(directory: Path) -> LoadedConfig | None:
    """The configuration file of a directory that applies: the first of CONFIG_FILES there."""
    for name in CONFIG_FILES:
        loaded = load_config(directory / name)
        if loaded is not None:
            return loaded
    return None


def load_config(path: Path) -> LoadedConfig | None:
    """A configuration file by its name: a pyproject.toml's [tool.skill-lsp] table, or a skill-lsp.toml's keys;
    None when there is none."""
    if path.name == "pyproject.toml":
        return load_pyproject(path)
    try:
        text = read_text(path)
    except (OSError, FileTooLarge):
        return None
    tomllib = _toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return LoadedConfig(Config(), path, [ConfigProblem(f"{path.name} is not valid TOML: {error}", "")])
    if isinstance(data.get("tool"), dict) and "skill-lsp" in data["tool"]:
        # the pyproject.toml form pasted as it is: its keys would all be unknown
        return LoadedConfig(Config(), path, [ConfigProblem(
            f"{path.name} holds the settings at its top level, without the [tool.skill-lsp] header of pyproject.toml",
            "tool")])
    config, problems = parse_settings(data, path.parent)
    return LoadedConfig(config, path, problems)


def shadow(configs: dict[Path, LoadedConfig]) -> None:
    """Mark the configuration files that another of higher precedence in their directory replaces, and say so
    on each (a warning: its settings are not read, nor are their problems told)."""
    for path, loaded in configs.items():
        rank = CONFIG_FILES.index(path.name)
        before = next((path.with_name(name) for name in CONFIG_FILES[:rank] if path.with_name(name) in configs), None)
        if before is not None and not loaded.shadowed:
            loaded.shadowed = True
            loaded.problems[:] = [ConfigProblem(
                f"not read: {before.name} in the same directory applies instead (the first of "
                f"{', '.join(CONFIG_FILES)} applies)", "", Severity.WARNING)]


def _toml() -> ModuleType:
    """The TOML reader, imported when a file is read: most projects have no settings to read (a
    pyproject.toml without [tool.skill-lsp] is never parsed), and its import costs every run 3 ms.
    Never in a pool's worker (they are given their configurations)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return cast(ModuleType, tomllib)


def load_pyproject(path: Path) -> LoadedConfig | None:
    """The `[tool.skill-lsp]` table of one pyproject.toml; None when it has none."""
    try:
        text = read_text(path)
    except (OSError, FileTooLarge):
        return None
    if "skill-lsp" not in text:
        return None
    tomllib = _toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return LoadedConfig(Config(), path, [ConfigProblem(f"pyproject.toml is not valid TOML: {error}", "tool.skill-lsp")])
    table = data.get("tool", {}).get("skill-lsp") if isinstance(data.get("tool"), dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        return LoadedConfig(Config(), path, [ConfigProblem("[tool.skill-lsp] must be a table", "tool.skill-lsp")])
    config, problems = parse_settings(table, path.parent)
    return LoadedConfig(config, path, problems)


def merge(base: Config, override: Config) -> Config:
    """Settings given later (CLI flags, editor settings) over a project's file."""
    return Config(
        select=override.select if override.select is not None else base.select,
        extend_select=base.extend_select + override.extend_select,
        per_file_ignores=base.per_file_ignores + override.per_file_ignores,
        ignore=base.ignore + override.ignore,
        severity=base.severity + override.severity,
        roots=base.roots + override.roots,
        exclude=base.exclude + override.exclude,
        user_skills_dir=override.user_skills_dir or base.user_skills_dir,
        user_agents_dir=override.user_agents_dir or base.user_agents_dir,
        max_files=override.max_files if override.max_files is not None else base.max_files,
    )


def user_skills_dir(settings: Config, folders: list[Path]) -> Path | None:
    """The user's Claude skills: the editor/CLI setting, then `user-skills-dir` of a folder's
    configuration file, then SKILL_LSP_USER_SKILLS_DIR (empty: none), then ~/.claude/skills."""
    return _user_dir(settings, folders, "user_skills_dir", USER_SKILLS_ENV, lambda: Path.home() / ".claude" / "skills")


def user_agents_dir(settings: Config, folders: list[Path]) -> Path | None:
    """The user's Claude Code subagents (`~/.claude/agents`, read by every session: code.claude.com/docs/en/
    sub-agents): the setting, then `user-agents-dir` of a folder's pyproject.toml, then
    SKILL_LSP_USER_AGENTS_DIR (empty: none), then the `agents` directory beside the user's skills."""
    def beside() -> Path | None:
        skills = user_skills_dir(settings, folders)
        return skills.parent / "agents" if skills is not None else None

    found = _user_dir(settings, folders, "user_agents_dir", USER_AGENTS_ENV, beside)
    # never the home directory or above it: every Markdown file of every project would be a subagent
    return None if found is not None and (found == Path(os.path.abspath(Path.home())) or found in Path.home().parents) else found


def _user_dir(settings: Config, folders: list[Path], attribute: str, env_name: str,
              default: Callable[[], Path | None]) -> Path | None:
    configured: Path | None = getattr(settings, attribute)
    if configured is None:
        for folder in folders:
            loaded = config_in(folder)
            if loaded is not None and getattr(loaded.config, attribute) is not None:
                configured = getattr(loaded.config, attribute)
                break
    if configured is None:
        env = os.environ.get(env_name)
        if env is None:
            configured = default()
        elif env:
            configured = Path(env).expanduser()
    return Path(os.path.abspath(configured)) if configured is not None else None
