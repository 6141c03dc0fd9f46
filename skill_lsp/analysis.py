"""One SKILL.md's own analysis (its facts, the findings of its own rules and the directories they looked into), and what it is valid for: shared by check's cache, its process pool and the server.

An analysis is made from the file alone (analyse_skill), never from the model: the cross-file rules
run on the model afterwards. It holds while the file's stamp (size, mtime), its context (profile,
root, configuration: analysis_context) and the directories it looked into (deps_hold) are unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

from .codecalls import PySource
from .codefiles import parse_code
from .config import Config
from .index import RawSpan, SkillEntry, SkillFacts, SkillJob
from .model import Finding
from .rules.body import Listings
from .rules.report import Reporter
from .rules.skills import check_skill
from .skillfile import parse_skill
from .textutil import FileTooLarge, read_text, unreadable_reason

Stamp = tuple[int, int]  # size, mtime_ns
# directory -> its mtime_ns when the entry was made (None: it did not exist)
Deps = tuple[tuple[str, "int | None"], ...]


def file_stamp(path: str | Path) -> Stamp | None:
    """A file's size and mtime_ns (None: not there), what an analysis of it is kept by."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


def deps_hold(deps: Deps) -> bool:
    """Whether every directory an analysis looked into is as it was (or still missing)."""
    return all(_dir_mtime(directory) == mtime for directory, mtime in deps)


def _dir_mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


Context = tuple[object, ...]


def analysis_context(job: SkillJob, config: Config) -> Context:
    """What a SKILL.md's own analysis depends on besides its file and the directories its links were
    resolved against: its profile, its root's place and prefix, its file name, whether it lies outside
    the workspace, and its configuration. check's cache, its early analyses and the server compare it."""
    root = job.root
    return (job.profile, root.path if root else None, root.prefix if root else "", root.also if root else (),
            job.misnamed, job.external, config)


def analyse_skill(job: SkillJob, config: Config, with_deps: bool = True) -> tuple[SkillFacts, list[Finding], Deps] | str:
    """One SKILL.md's own analysis, for the cache: its facts, the findings of its own rules and the
    directories they looked into (when with_deps: only a cache needs them); or why it could not be read."""
    try:
        text = read_text(job.path)
    except (OSError, FileTooLarge) as error:
        return unreadable_reason(error)
    parsed = parse_skill(text)
    skill = SkillEntry.of_job(job, parsed)
    reporter = Reporter(config, parsed.ignores)
    if not with_deps:
        check_skill(None, skill, reporter, {})
        return skill.facts, reporter.findings, ()
    listed = Listings()  # with the mtimes of what it lists: no second stat of each for the deps
    check_skill(None, skill, reporter, listed)
    findings = reporter.findings
    if not findings and not listed:
        return skill.facts, findings, ()
    directories = set(listed)
    if findings:
        # quick fixes look at the skill's siblings, SK202's suggestions at its whole tree
        directories.add(str(skill.directory.parent))
        if any(finding.code == "SK202" for finding in findings):
            for base, _, _ in os.walk(skill.directory):
                directories.add(base)
    mtimes = listed.mtimes
    deps = tuple((directory, mtimes[directory] if directory in mtimes else _dir_mtime(directory))
                 for directory in sorted(directories))
    return skill.facts, findings, deps


Analysis = tuple[SkillFacts, list[Finding], Deps] | str
# An analysis as a child process sends it: plain tuples, which pickle at C speed (name, name span,
# first line span, ignores, findings, deps, description), or why the file could not be read.
Packed = tuple[str | None, RawSpan | None, RawSpan, dict[int, set[str]], list[Finding], Deps, str | None, bool,
               str | None, bool] | str
Job = tuple[SkillJob, Config, bool]  # the skill, its configuration, whether its deps are wanted
def pack(result: Analysis) -> Packed:
    if isinstance(result, str):
        return result
    facts, findings, deps = result
    return (facts.name, facts.name_span_raw, facts.first_line_raw, facts.ignores, findings, deps, facts.description,
            facts.plain, facts.when_to_use, facts.unlisted)


def unpack(packed: Packed) -> Analysis:
    if isinstance(packed, str):
        return packed
    name, name_span, first_line, ignores, findings, deps, description, plain, when_to_use, unlisted = packed
    facts = SkillFacts(name, name_span, first_line, ignores, description, plain, when_to_use, unlisted)
    return facts, findings, deps


def parse_python_file(path: Path) -> PySource | str:
    """A code file's parse (Python, TypeScript/JavaScript, a subagent file), or why it could not be read."""
    try:
        text = read_text(path)
    except (OSError, FileTooLarge) as error:
        return unreadable_reason(error)
    # (the readers make the path pure where a value reads it, `__file__` or `__dirname`: 3 µs a file less)
    return parse_code(text, path)


