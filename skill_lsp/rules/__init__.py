"""Running the rule catalogue over a workspace model."""

from __future__ import annotations

from pathlib import Path

from ..catalogue import BY_CODE, RULES, Rule, lookup
from ..config import Config
from ..index import Model
from ..model import Finding
from .code import check_agent, check_deck, check_options
from .report import Reporter
from .skills import check_registry, check_skill

__all__ = ["BY_CODE", "RULES", "Rule", "lookup", "run_rules"]


def run_rules(model: Model, settings: Config) -> dict[Path, list[Finding]]:
    """Every finding of the workspace, by file, configuration and suppressions applied."""
    reporters: dict[Path, Reporter] = {}

    def reporter_for(path: Path, ignores: dict[int, set[str]]) -> Reporter:
        if path not in reporters:
            reporters[path] = Reporter(model.config_for(path, settings), ignores)
        return reporters[path]

    dir_cache: dict[Path, set[str] | None] = {}
    for skill in model.skills.values():
        if skill.external:
            continue
        check_skill(model, skill, reporter_for(skill.path, skill.file.ignores), dir_cache)
    check_registry(model, reporters)
    for deck in model.decks:
        check_deck(model, deck, reporter_for(deck.path, model.pythons[deck.path].source.ignores))
    for agent in model.agents:
        check_agent(model, agent, reporter_for(agent.path, model.pythons[agent.path].source.ignores))
    for options in model.options:
        check_options(model, options, reporter_for(options.path, model.pythons[options.path].source.ignores))
    for path, loaded in model.configs.items():
        if not loaded.problems:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        reporter = reporter_for(path, {})
        for problem in loaded.problems:
            reporter.report("CF001", path, loaded.problem_span(problem, text), problem.message)
    result: dict[Path, list[Finding]] = {}
    for path, reporter in reporters.items():
        if reporter.findings:
            result[path] = sorted(reporter.findings, key=Finding.sort_key)
    return result
