"""Running the rule catalogue over a workspace model, one file at a time."""

from __future__ import annotations

from pathlib import Path

from ..catalogue import BY_CODE, RULES, Rule, lookup
from ..config import Config
from ..index import Model, SkillEntry
from ..model import Finding
from ..overlap import overlapping_skills
from ..pathtext import is_skill_filename, within
from ..textutil import FileTooLarge, is_too_large, read_text
from .body import check_oversized_skill
from .code import check_agent, check_deck, check_definition, check_options, report_notes
from .encoding import check_encoding
from .listing import check_listings, listing_files, settings_files, settings_findings
from .overlap import check_list_overlaps, check_skill_overlaps, overlap_quiet
from .registry import check_skill_registry, registry_quiet, sharing_a_key
from .report import Reporter
from .skills import check_skill

__all__ = ["BY_CODE", "RULES", "DirCache", "Rule", "file_findings", "listing_files", "lookup", "run_rules"]

# directory (its text) -> its entries (None: unreadable); shared between runs by the server,
# which drops entries when the file system changes
DirCache = dict[str, "set[str] | None"]


def file_findings(model: Model, path: Path, settings: Config, dir_cache: DirCache | None = None) -> list[Finding]:
    """The findings of one file: its own rules and the cross-file rules that land on it."""
    cache: DirCache = {} if dir_cache is None else dir_cache
    config = model.config_for(path, settings)
    skill = model.skills.get(path)
    if skill is not None:
        return [] if skill.external else _skill_findings(model, skill, config, cache)
    python = model.pythons.get(path)
    if python is not None:
        reporter = Reporter(config, python.source.ignores)
        check_encoding(reporter, path, python.source.encoding_problem, python=True)
        decks, agents, options_calls = model.entries_in(path)
        for deck in decks:
            check_deck(model, deck, reporter)
        for agent in agents:
            check_agent(model, agent, reporter)
            check_list_overlaps(model, agent, reporter)
        for options in options_calls:
            check_options(model, options, reporter)
            check_list_overlaps(model, options, reporter)
        definitions = model.definitions_in(path)
        for definition in definitions:
            check_definition(model, definition, reporter)
            check_list_overlaps(model, definition, reporter)
        if options_calls or definitions:  # the listings of a code file (never a project's settings file)
            check_listings(model, path, reporter)
        report_notes(path, python.source, reporter)
        findings = reporter.findings
        return sorted(findings, key=Finding.sort_key) if len(findings) > 1 else findings
    if path in _oversized_skills(model):
        reporter = Reporter(config, {})
        check_oversized_skill(model, path, reporter)
        return reporter.findings
    loaded = model.configs.get(path)
    if loaded is not None and loaded.problems:
        try:
            text = read_text(path)
        except (OSError, FileTooLarge):
            text = ""
        reporter = Reporter(config, {})
        for problem in loaded.problems:
            reporter.report("CF001", path, loaded.problem_span(problem, text), problem.message, severity=problem.severity)
        return reporter.findings
    if path.name.startswith("settings") and path.suffix == ".json":
        reporter = Reporter(config, {})
        settings_findings(model, path, reporter)
        return reporter.findings
    return []


def _skill_findings(model: Model, skill: SkillEntry, config: Config, cache: DirCache) -> list[Finding]:
    reporter = Reporter(config, skill.facts.ignores)
    if skill.local_findings is not None:
        reporter.findings += skill.local_findings
    else:
        check_skill(model, skill, reporter, cache)
    check_skill_registry(model, skill, reporter)
    check_skill_overlaps(model, skill, reporter)
    findings = reporter.findings
    return sorted(findings, key=Finding.sort_key) if len(findings) > 1 else findings


def analysed_files(model: Model) -> list[Path]:
    """Every file that can carry findings."""
    return [path for path, skill in model.skills.items() if not skill.external] + _other_files(model)


def _other_files(model: Model) -> list[Path]:
    """The files besides skills that can carry findings."""
    files = list(model.pythons)
    files += [path for path, loaded in model.configs.items() if loaded.problems]
    files += _oversized_skills(model)
    files += settings_files(model)
    return files


def _oversized_skills(model: Model) -> list[Path]:
    """Workspace SKILL.md files skipped for their size: they get a finding saying so."""
    return [path for path, reason in model.unreadable.items()
            if is_too_large(reason) and is_skill_filename(path.name) and any(within(path, f) for f in model.folders)]


def run_rules(model: Model, settings: Config, dir_cache: DirCache | None = None) -> dict[Path, list[Finding]]:
    """Every finding of the workspace, by file, configuration and suppressions applied."""
    cache: DirCache = {} if dir_cache is None else dir_cache
    result: dict[Path, list[Finding]] = {}
    # the code files first: each agent's list makes its SK310 choice (check_list_overlaps) while the list and
    # its skills are at hand, which overlapping_skills then finds made
    others = [(path, file_findings(model, path, settings, cache)) for path in _other_files(model)]
    shared = sharing_a_key(model)
    involved = overlapping_skills(model) if settings.enabled(BY_CODE["SK310"]) or model.configs else set()
    enabled: dict[int, tuple[bool, bool]] = {}  # a configuration (by identity) -> whether SK303, SK310 are on
    configs = model.configs  # (none: every file's configuration is the settings, config_for's first answer)
    for path, skill in model.skills.items():  # as file_findings does, without looking each one up
        if skill.external:
            continue
        config = model.config_for(path, settings) if configs else settings
        codes = enabled.get(id(config))
        if codes is None:
            codes = enabled[id(config)] = (config.enabled(BY_CODE["SK303"]), config.enabled(BY_CODE["SK310"]))
        local = skill.local_findings
        if local is not None and not local and registry_quiet(model, skill, codes[0], shared) and overlap_quiet(
                skill, codes[1], involved):
            continue  # nothing of its own and nothing of its registry's: most skills
        findings = _skill_findings(model, skill, config, cache)
        if findings:
            result[path] = findings
    result.update((path, findings) for path, findings in others if findings)
    return result
