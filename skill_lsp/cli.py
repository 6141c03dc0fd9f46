"""argparse front end: serve | check | disclosure | rules."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__, forks, trace
from .catalogue import RULES, lookup
from .config import Config, walk_exclude
from .discovery import Listing, kept_from_exclusion, walk, within
from .model import Finding, Profile, Severity
from .outcome import Outcome, cache_dir, cached_outcome
from .output import format_github, format_json, format_sarif, format_text, summary
from .server import add_serve_arguments

if TYPE_CHECKING:
    from .index import Model


class UsageError(Exception):
    pass


def _codes(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _validate_codes(codes: tuple[str, ...], flag: str) -> None:
    for code in codes:
        if code.upper() == "ALL":
            continue
        if not any(rule.code.startswith(code.upper()) or rule.name == code.lower() for rule in RULES):
            raise UsageError(f"{flag}: unknown rule '{code}' (see `skill-lsp rules`)")


def _linked_into(project: Path, directory: Path) -> bool:
    """Whether one of the project's conventional skill roots is a symlink into (or onto) directory."""
    real = os.path.realpath(directory)
    for parent in (".claude", ".agents", ".github", ".agentdeck"):
        root = project / parent / "skills"
        if root.is_symlink():
            target = os.path.realpath(root)
            if within(target, real) or within(real, target):
                return True
    return False


def _selected(path: Path, only: set[Path] | None) -> bool:
    """Whether a file is reported: everything, or the files and directories named."""
    return only is None or path in only or any(within(path, named) for named in only)


def _real_in(path: Path, cwd: Path) -> Path:
    """path with its symlinks resolved when that leads to a place under cwd (`.agents/skills` ->
    `skills`): the analysis reports each file on its real path, once; a link out of cwd stays as given."""
    # a directory's links all the way; a file's only above it (the walk lists a symlinked file on its own path)
    real = os.path.realpath(path) if path.is_dir() else os.path.join(os.path.realpath(path.parent), path.name)
    real_cwd = os.path.realpath(cwd)
    if real == os.path.normpath(str(path)) or not (real == real_cwd or real.startswith(real_cwd.rstrip(os.sep) + os.sep)):
        return path
    return Path(os.path.join(cwd, os.path.relpath(real, real_cwd))) if real != real_cwd else cwd


def _project_folder(path: Path, cwd: Path) -> Path:
    """The folder to index for a single file.

    The project holding it (the nearest directory above it with a project
    marker), or the current directory when the file is under it and the
    current directory is not inside a project: run from an agent's own
    directory, `disclosure agent.py` still sees the project's skill roots.
    """
    project = _project_root(path.parent)
    try:
        path.relative_to(cwd)
    except ValueError:
        return project or path.parent
    if project is not None and cwd != project and cwd.is_relative_to(project):
        return project
    return cwd


def _project_root(start: Path) -> Path | None:
    home = Path.home()
    directory = start
    # never the home directory: ~/.claude holds the user's own settings and ~/.git is often a
    # dotfiles repository, neither of which makes the whole home directory a project
    while directory.parent != directory and directory != home:
        if any((directory / marker).exists() for marker in (".git", "pyproject.toml", ".agentdeck", ".claude")):
            return directory
        directory = directory.parent
    return None


def _workspaces(paths: list[str], cwd: Path) -> list[tuple[Path, set[Path] | None]]:
    """One workspace folder per folder given; files (and directories inside a project) restrict the report to themselves."""
    folders: dict[Path, set[Path] | None] = {}
    for raw in paths:
        path = Path(os.path.abspath(raw))
        if not path.exists():
            raise UsageError(f"{raw}: no such file or directory")
        path = _real_in(path, cwd)
        if path.is_dir():
            # a directory that a conventional root of its project links to (`check skills` where
            # .agents/skills -> ../skills) is checked as part of that project, whose links decide
            # which runtimes see its skills; the report is restricted to it. Otherwise a directory is
            # a workspace of its own.
            project = _project_root(path)
            if project is None or project == path or not project.is_relative_to(cwd) or not _linked_into(project, path):
                folders[path] = None
                continue
            path_folder = project
        else:
            path_folder = _project_folder(path, cwd)
        folder = path_folder
        if folder in folders and folders[folder] is None:
            continue
        folders.setdefault(folder, set())
        only = folders[folder]
        assert only is not None
        only.add(path)
    # a folder inside another folder given on the command line is covered by it
    result = []
    for folder, only in folders.items():
        if only is not None and any(f != folder and folder.is_relative_to(f) and o is None for f, o in folders.items()):
            continue
        if only is None and any(f != folder and folder.is_relative_to(f) and o is None for f, o in folders.items()):
            continue
        result.append((folder, only))
    return result


def command_check(args: argparse.Namespace) -> int:
    # a short-lived process that allocates a few objects per file and frees little:
    # the cycle collector would only rescan them
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _check(args)
    finally:
        if collecting and not _ENDING:
            gc.enable()
        trace.reset()


def _check(args: argparse.Namespace) -> int:
    cwd = Path(os.getcwd())
    select = _codes(args.select)
    ignore = _codes(args.ignore)
    extend = _codes(args.extend_select)
    for codes, flag in ((select, "--select"), (ignore, "--ignore"), (extend, "--extend-select")):
        _validate_codes(codes, flag)
    settings = Config(select=select or None, ignore=ignore, extend_select=extend)
    if args.user_skills_dir is not None:
        settings = replace(settings, user_skills_dir=Path(args.user_skills_dir).expanduser().absolute())
    if args.profile:
        trace.enable()
    # without a cache location too: the file analyses then go straight into the model,
    # which keeps each file's findings and facts, not its parse
    location = None if args.no_cache else cache_dir()
    findings: list[Finding] = []
    skills = agents = 0
    for folder, only in _workspaces(args.paths or ["."], cwd):
        # a file named in an excluded folder is checked all the same, with its excluded subtree indexed
        # (as ruff checks a file named explicitly); such a run is not cached: it is not the folder's
        keep = kept_from_exclusion(folder, walk_exclude(folder, settings), sorted(only)) if only else ()
        here = location if not keep else None
        outcome = cached_outcome(here, [folder], settings) if here is not None else None
        if outcome is None:
            outcome = _analyse([folder], settings, here, keep, sorted(only) if keep and only else [])
        skills += outcome.skills
        agents += outcome.agents
        for path, items in outcome.results.items():
            if _selected(path, only):
                findings += items
        for path, reason in outcome.unreadable.items():
            if _selected(path, only):
                print(f"skill-lsp: {path}: {reason}", file=sys.stderr)
    findings.sort(key=Finding.sort_key)
    with trace.phase("output"):
        _print_findings(args, findings, cwd, skills, agents)
    trace.report()
    failing = {Severity.ERROR} | ({Severity.WARNING} if args.strict else set())
    return 1 if any(finding.severity in failing for finding in findings) else 0


def _analyse(folders: list[Path], settings: Config, location: Path | None, keep: tuple[str, ...] = (),
             named: list[Path] | None = None) -> Outcome:
    """A full run over folders. The analysers are imported only now (a run that reuses its outcome
    never needs them), and while the helpers of a shared walk walk the tree."""
    listings: dict[Path, Listing] = {}
    helpers = forks.children_available()
    for folder in folders:
        absolute = Path(os.path.abspath(folder))
        with trace.phase("walk"):
            listings[absolute] = walk(absolute, walk_exclude(absolute, settings), helpers, meanwhile=_import_analysers,
                                      keep=keep)
    from .cache import CachedWorkspace
    from .rules import run_rules

    workspace = CachedWorkspace(folders, settings, location)
    workspace.named = named or []
    for folder, listing in listings.items():
        workspace.adopt_listing(folder, listing, keep)
    model = workspace.build()
    with trace.phase("rules"):
        results = run_rules(model, settings)
    outcome = Outcome(results, dict(model.unreadable), sum(1 for skill in model.skills.values() if not skill.external),
                      len(model.agents) + len(model.options))
    workspace.save()
    workspace.save_outcome(model, outcome)
    return outcome


def _import_analysers() -> None:
    """Load the analysers (tree-sitter, libyaml, the rules): a shared walk's helpers walk meanwhile."""
    from . import cache, rules  # noqa: F401


def _print_findings(args: argparse.Namespace, findings: list[Finding], cwd: Path, skills: int, agents: int) -> None:
    if args.format == "json":
        print(format_json(findings, cwd))
    elif args.format == "github":
        text = format_github(findings, cwd)
        if text:
            print(text)
    elif args.format == "sarif":
        print(format_sarif(findings, cwd))
    else:
        text = format_text(findings, cwd, color=_use_color(args))
        if text:
            print(text)
        if not args.quiet:
            print(summary(findings, skills, agents))


def _use_color(args: argparse.Namespace) -> bool:
    if args.color == "always":
        return True
    if args.color == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def _split_target(target: str) -> tuple[Path, str | None]:
    if os.path.exists(target):
        return Path(target), None
    head, sep, tail = target.rpartition(":")
    if sep and head and os.path.exists(head):
        return Path(head), tail
    raise UsageError(f"{target}: no such file")


def command_disclosure(args: argparse.Namespace) -> int:
    cwd = Path(os.getcwd())
    path, selector = _split_target(args.target)
    path = Path(os.path.abspath(path))
    if path.is_dir():
        raise UsageError(f"{args.target}: give a Python file (optionally FILE:AGENT) or a SKILL.md")
    settings = Config()
    if args.user_skills_dir is not None:
        settings = replace(settings, user_skills_dir=Path(args.user_skills_dir).expanduser().absolute())
    from .disclosure import available_skills_xml, skill_entry
    from .index import Workspace

    workspace = Workspace([_project_folder(path, cwd)], settings)
    workspace.overlays.setdefault(path, workspace.text_of(path))
    model = workspace.build()
    if path.name.lower() == "skill.md":
        skill = model.skills.get(path)
        if skill is None:
            raise UsageError(f"{args.target}: not a skill file")
        if skill.profile == Profile.CLAUDE:
            print(available_skills_xml([skill]))
        else:
            print(skill_entry(skill))
        return 0
    return _print_disclosures(model, path, selector)


def _print_disclosures(model: Model, path: Path, selector: str | None) -> int:
    from .disclosure import agent_disclosure, options_disclosure

    agents = [agent for agent in model.agents if agent.path == path]
    options = [entry for entry in model.options if entry.path == path]
    chosen_agents = agents
    chosen_options = options
    if selector is not None:
        def matches(names: list[str | None], line: int) -> bool:
            return selector in names or selector == str(line)
        chosen_agents = [a for a in agents if matches([a.variable, a.call.string_arg("name")], a.call.span.start.line + 1)]
        chosen_options = [o for o in options if matches([o.call.assigned_to], o.call.span.start.line + 1)]
        if not chosen_agents and not chosen_options:
            known = [a.variable or a.display_name for a in agents] + [o.call.assigned_to or "" for o in options]
            raise UsageError(f"no agent '{selector}' in {path.name}; it defines: {', '.join(k for k in known if k) or 'none'}")
    if not chosen_agents and not chosen_options:
        raise UsageError(f"{path.name} defines no Agent(...) or ClaudeAgentOptions(...) with skills")
    blocks = []
    many = len(chosen_agents) + len(chosen_options) > 1
    for agent in chosen_agents:
        disclosure = agent_disclosure(model, agent)
        for name in disclosure.unresolved:
            print(f"skill-lsp: '{name}' resolves to no skill and is left out (build() would fail)", file=sys.stderr)
        if not disclosure.instructions_known:
            print(f"skill-lsp: the instructions of {disclosure.title} are not a literal; only the skills block is shown", file=sys.stderr)
        blocks.append((f"==> {disclosure.title} <==\n" if many else "") + disclosure.text)
    for entry in chosen_options:
        disclosure = options_disclosure(entry)
        for name in disclosure.unresolved:
            print(f"skill-lsp: '{name}' is not a discovered skill and is never offered", file=sys.stderr)
        blocks.append((f"==> {disclosure.title} <==\n" if many else "") + disclosure.text)
    print("\n\n".join(blocks))
    return 0


def command_rules(args: argparse.Namespace) -> int:
    if args.code:
        rule = lookup(args.code)
        if rule is None:
            raise UsageError(f"unknown rule '{args.code}'")
        rules = [rule]
    else:
        rules = list(RULES)
    if args.format == "json":
        print(json.dumps([
            {"code": r.code, "name": r.name, "severity": r.severity.label, "severity_by_profile":
             {p.value: (s.label if s else None) for p, s in r.by_profile.items()},
             "enabled_by_default": r.enabled_by_default, "summary": r.summary, "why": r.why, "example": r.example}
            for r in rules
        ], indent=2))
        return 0
    if args.code:
        rule = rules[0]
        print(f"{rule.code} {rule.name} [{rule.severity_label()}]{'' if rule.enabled_by_default else ' (off by default)'}")
        print()
        print(rule.summary)
        print()
        print(rule.why)
        print()
        print("Example:")
        for line in rule.example.splitlines():
            print(f"    {line}")
        return 0
    width = max(len(rule.name) for rule in rules)
    for rule in rules:
        off = "" if rule.enabled_by_default else " (off by default)"
        print(f"{rule.code}  {rule.name:<{width}}  {rule.severity_label():<24} {rule.summary}{off}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skill-lsp",
        description="Language server and checker for agent skills (SKILL.md) and the agents that use them.",
    )
    parser.add_argument("--version", action="version", version=f"skill-lsp {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="check skills and agent definitions; exit 1 on errors")
    check.add_argument("paths", nargs="*", metavar="PATH", help="directories or files (default: .)")
    check.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text")
    check.add_argument("--select", metavar="CODES", help="only these rules (comma-separated codes or prefixes)")
    check.add_argument("--extend-select", metavar="CODES", help="also these rules (e.g. rules off by default)")
    check.add_argument("--ignore", metavar="CODES", help="not these rules")
    check.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    check.add_argument("--user-skills-dir", metavar="DIR", help="the user's Claude skills (default ~/.claude/skills)")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    check.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    check.add_argument("--no-cache", action="store_true",
                       help="analyse every file again, without reading or writing the cache (see SKILL_LSP_CACHE_DIR)")
    check.add_argument("--profile", action="store_true", help="print where the time went, by phase, to stderr")
    check.set_defaults(handler=command_check)

    disclosure = commands.add_parser("disclosure", help="print the text an agent sees")
    disclosure.add_argument("target", metavar="FILE[:AGENT]", help="agent file (and agent variable or name), or a SKILL.md")
    disclosure.add_argument("--user-skills-dir", metavar="DIR")
    disclosure.set_defaults(handler=command_disclosure)

    rules = commands.add_parser("rules", help="the rule catalogue")
    rules.add_argument("code", nargs="?", metavar="CODE")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=command_rules)
    _add_serve(commands)
    return parser


def _add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    add_serve_arguments(serve)


# Set by run(): the process ends as soon as main() returns.
_ENDING = False


def run() -> None:
    """The console script (and `python -m skill_lsp`): main(), then the process ends at once. A
    finished check still holds its whole model, millions of objects at 10,000 skills: handing
    them back one by one, and the cycle collector's pass over them, would cost a tenth of the run
    for memory that the exit frees anyway."""
    global _ENDING
    _ENDING = True
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said on it
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["serve"])
    try:
        return int(args.handler(args))
    except UsageError as error:
        print(f"skill-lsp: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


