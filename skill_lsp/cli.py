"""argparse front end: serve | check | disclosure | new | rules | report."""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__, forks, trace
from .catalogue import RULES, Rule, lookup
from .config import Config, user_agents_dir, user_skills_dir, walk_exclude
from .discovery import Listing, walk
from .exclusion import kept_from_exclusion
from .fixrun import Checked, Workspaces, applicability, fix_note, run_passes, show_diff
from .model import Finding, Profile, Severity
from .outcome import Outcome, cache_dir, cached_outcome
from .output import Progress, display_path, format_github, format_json, format_sarif, format_text, shows_progress, summary
from .pathtext import within
from .server import add_serve_arguments
from .targets import CHECKED_FILES, UsageError, not_checked, project_folder, selected, workspaces

if TYPE_CHECKING:
    from .disclosure import Disclosure
    from .index import Model, OptionsEntry


def _codes(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _matching(code: str) -> list[Rule]:
    """The rules a --select entry names: ALL, a code prefix (SK1) or a rule's name."""
    if code.upper() == "ALL":
        return list(RULES)
    return [rule for rule in RULES if rule.code.startswith(code.upper()) or rule.name == code.lower()]


def _validate_codes(codes: tuple[str, ...], flag: str) -> None:
    for code in codes:
        if not _matching(code):
            raise UsageError(f"{flag}: unknown rule '{code}' (see `skill-lsp rules`)")


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
    settings = _with_user_skills(Config(select=select or None, ignore=ignore, extend_select=extend), args)
    if args.profile:
        trace.enable()
    # without a cache location too: the file analyses then go straight into the model,
    # which keeps each file's findings and facts, not its parse
    location = None if args.no_cache else cache_dir()
    paths = args.paths or ["."]
    user_agents, settings = _user_agents(paths, settings, cwd)
    # a file of a kind never read (README.md) is said so, not "All checks passed" over the rest of its folder
    unread = not_checked(paths, user_agents)
    for raw in unread:
        print(f"skill-lsp: warning: {raw} is not a file skill-lsp checks: it checks {CHECKED_FILES}", file=sys.stderr)
    named = [raw for raw in paths if raw not in unread]
    folders = workspaces(named, cwd, user_agents)
    progress = Progress(shows_progress(), "checking " + ", ".join(paths), _progress_delay())

    def rechecking(copies: dict[Path, Path]) -> Callable[[Workspaces], Checked]:
        """The check of the folders, or of --diff's scratch copies of them (original -> copy): the user's
        directories among them are the copies', and a copy's outcome is never cached (it is gone once
        --diff has shown it)."""
        here = _relocated(settings, copies)
        return lambda workspaces: _collect(workspaces, here, None if copies else location, progress)

    recheck = rechecking({})
    try:
        if args.diff:
            return show_diff(folders, args.unsafe_fixes, cwd, rechecking, progress)
        checked = recheck(folders)
        fixed = 0
        if args.fix:
            fixed, checked = run_passes(checked, folders, args.unsafe_fixes, recheck, progress)
    finally:
        progress.stop()
    for unreadable in checked.unreadable:
        print(f"skill-lsp: {unreadable}", file=sys.stderr)
    findings = checked.findings
    nothing = not findings and checked.skills == 0 and checked.agents == 0 and any(os.path.isdir(p) for p in paths)
    if nothing:
        # said instead of "All checks passed": a wrong directory would otherwise pass in silence. Exit 0
        # all the same, as ruff's "No Python files found". Files named one by one (pre-commit passes the
        # changed files) are no wrong path when they define no agent: nothing is said of them
        where = ", ".join(paths) if len(paths) <= 3 else f"the {len(paths)} paths given"
        print(f"skill-lsp: warning: no SKILL.md or agent definition found under {where}", file=sys.stderr)
    with trace.phase("output"):
        _print_findings(args, findings, cwd, checked.skills, checked.agents,
                        summarise=not nothing and bool(named), fixes=applicability(checked) if args.format == "json" else None)
    if args.format == "text" and not args.quiet:
        note = fix_note(checked, fixed, args.fix, args.unsafe_fixes)
        if note:
            print(note)
    trace.report()
    failing = {Severity.ERROR} | ({Severity.WARNING} if args.strict else set())
    return 1 if any(finding.severity in failing for finding in findings) else 0


def _relocated(settings: Config, copies: dict[Path, Path]) -> Config:
    """settings with the user's skills and subagents directories in the copies where they lie in a folder copied."""
    def moved(directory: Path | None) -> Path | None:
        for original, copy in copies.items():
            if directory is not None and within(directory, original):
                return copy / directory.relative_to(original)
        return directory

    return replace(settings, user_skills_dir=moved(settings.user_skills_dir),
                   user_agents_dir=moved(settings.user_agents_dir)) if copies else settings


def _progress_delay() -> float:
    """Seconds before the progress line shows (SKILL_LSP_PROGRESS_DELAY; the tests set 0)."""
    try:
        return max(0.0, float(os.environ.get("SKILL_LSP_PROGRESS_DELAY", "0.8")))
    except ValueError:
        return 0.8


def _with_user_skills(settings: Config, args: argparse.Namespace) -> Config:
    """settings with --user-skills-dir and --user-agents-dir, each a directory that exists."""
    skills = _given_directory("--user-skills-dir", args.user_skills_dir)
    agents = _given_directory("--user-agents-dir", getattr(args, "user_agents_dir", None))
    return replace(settings, user_skills_dir=skills or settings.user_skills_dir,
                   user_agents_dir=agents or settings.user_agents_dir)


def _given_directory(flag: str, given: str | None) -> Path | None:
    if given is None:
        return None
    directory = Path(given).expanduser().absolute()
    if not directory.is_dir():
        # given on purpose, so a typo: checking on without the user's skills would report every one unknown
        raise UsageError(f"{flag} {given}: no such directory")
    return directory


def _user_agents(paths: list[str], settings: Config, cwd: Path) -> tuple[Path | None, Config]:
    """The user's subagents directory when a path given lies in it, and settings that pin it and the user's
    skills as the current directory's configuration decides them (the check of those files runs in that
    directory, where no pyproject.toml says otherwise)."""
    directory = user_agents_dir(settings, [cwd])
    if directory is None or not any(within(os.path.abspath(raw), directory) for raw in paths):
        return None, settings
    return directory, replace(settings, user_agents_dir=directory, user_skills_dir=user_skills_dir(settings, [cwd]))


def _collect(workspaces: list[tuple[Path, set[Path] | None]], settings: Config, location: Path | None,
             progress: Progress) -> Checked:
    checked = Checked([], [], 0, 0)
    cwd = Path(os.getcwd())
    for folder, only in workspaces:
        # a file named in an excluded folder is checked all the same, with its excluded subtree indexed
        # (as ruff checks a file named explicitly); such a run is not cached: it is not the folder's
        keep = kept_from_exclusion(folder, walk_exclude(folder, settings), sorted(only)) if only else ()
        # the user's subagents are read beside the walk (any Markdown file below their directory): their
        # outcome is not stored, whose signatures are the walk's
        users = settings.user_agents_dir is not None and within(folder, settings.user_agents_dir)
        here = location if not keep and not users else None
        progress.phase("reading the last run's results")
        outcome = cached_outcome(here, [folder], settings) if here is not None else None
        if outcome is None:
            outcome = _analyse([folder], settings, here, progress, keep, sorted(only) if (keep or users) and only else [])
        checked.skills += outcome.skills
        checked.agents += outcome.agents
        findings = []
        for path, items in outcome.results.items():
            if selected(path, only):
                findings += [_rebased(finding, cwd) for finding in items]
        checked.by_workspace.append((folder, only, findings))
        for path, reason in outcome.unreadable.items():
            if selected(path, only):
                checked.unreadable.append(f"{display_path(path, cwd)}: {reason}")
    return checked


def _rebased(finding: Finding, cwd: Path) -> Finding:
    """The finding with the paths of its message relative to the current directory, the base of the
    path:line:col in front of it."""
    message = finding.shown_message(cwd)
    return finding if message is finding.message else replace(finding, message=message)


def _analyse(folders: list[Path], settings: Config, location: Path | None, progress: Progress | None = None,
             keep: tuple[str, ...] = (), named: list[Path] | None = None) -> Outcome:
    """A full run over folders. The analysers are imported only now (a run that reuses its outcome
    never needs them), and while the helpers of a shared walk walk the tree."""
    listings: dict[Path, Listing] = {}
    helpers = forks.children_available()
    if progress is not None:
        progress.phase("looking for skills and agents")
    for folder in folders:
        absolute = Path(os.path.abspath(folder))
        with trace.phase("walk"):
            listings[absolute] = walk(absolute, walk_exclude(absolute, settings), helpers, meanwhile=_import_analysers,
                                      keep=keep)
    from .cache import CheckLoader
    from .rules import run_rules
    from .workspace import Workspace

    workspace = Workspace(folders, settings)
    workspace.named = named or []
    loader = CheckLoader(workspace, location)
    for folder, listing in listings.items():
        workspace.adopt_listing(folder, listing, keep)
    if progress is not None:
        progress.phase(f"reading {sum(len(listing.skill_files) + len(listing.python_files) for listing in listings.values()):,} files")
    model = loader.build()
    if progress is not None:
        progress.phase("running the rules")
    with trace.phase("rules"):
        results = run_rules(model, settings)
    outcome = Outcome(results, dict(model.unreadable), sum(1 for skill in model.skills.values() if not skill.external),
                      len(model.agents) + len(model.options) + len(model.definitions))
    loader.save()
    loader.save_outcome(model, outcome)
    return outcome


def _import_analysers() -> None:
    """Load the analysers (tree-sitter, libyaml, the rules): a shared walk's helpers walk meanwhile."""
    from . import cache, rules  # noqa: F401


def _print_findings(args: argparse.Namespace, findings: list[Finding], cwd: Path, skills: int, agents: int,
                    summarise: bool = True, fixes: dict[int, str] | None = None) -> None:
    if args.format == "json":
        print(format_json(findings, cwd, fixes or {}))
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
        if not args.quiet and summarise:
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
        raise UsageError(f"{args.target}: give an agent file (Python, TypeScript, JavaScript or a subagent's .md; "
                         "optionally FILE:AGENT) or a SKILL.md")
    settings = _with_user_skills(Config(), args)
    from .disclosure import available_skills_xml, skill_entry
    from .workspace import Workspace

    workspace = Workspace([project_folder(path, cwd)], settings)
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
    from .disclosure import PRELOAD_NOTE, disclosure_of
    from .index import AgentEntry, DefinitionEntry

    agents = [agent for agent in model.agents if agent.path == path]
    options = [entry for entry in model.options if entry.path == path]
    definitions = model.definitions_in(path)  # subagents: AgentDefinition(...) and .claude/agents/*.md

    def names(owner: AgentEntry | OptionsEntry | DefinitionEntry) -> list[str | None]:
        if isinstance(owner, AgentEntry):
            return [owner.variable, owner.call.string_arg("name")]
        if isinstance(owner, DefinitionEntry):
            return [owner.call.assigned_to, owner.display_name]
        return [owner.call.assigned_to]

    owners: list[AgentEntry | OptionsEntry | DefinitionEntry] = [*agents, *options, *definitions]
    chosen = owners
    if selector is not None:
        chosen = [owner for owner in owners if selector in names(owner) or selector == str(owner.call.span.start.line + 1)]
        if not chosen:
            known = [next((name for name in names(owner) if name), "") for owner in owners]
            raise UsageError(f"no agent '{selector}' in {path.name}; it defines: {', '.join(k for k in known if k) or 'none'}")
    if not chosen:
        raise UsageError(f"{path.name} defines no Agent(...), ClaudeAgentOptions(...), query() options or subagent with skills")
    blocks = []
    for owner in chosen:
        disclosure = disclosure_of(model, owner)
        for name in disclosure.unresolved:
            print(f"skill-lsp: '{name}' {_left_out(owner)}", file=sys.stderr)
        for name, reason in disclosure.unloadable:
            print(f"skill-lsp: '{name}' is left out: AgentDeck cannot load it ({reason}), so build() would fail",
                  file=sys.stderr)
        if not disclosure.instructions_known:
            print(f"skill-lsp: the instructions of {disclosure.title} are not a literal; only the skills block is shown", file=sys.stderr)
        _say_what_is_not_known(disclosure)
        if isinstance(owner, DefinitionEntry) and disclosure.text:
            print(f"skill-lsp: {disclosure.title}: {PRELOAD_NOTE}", file=sys.stderr)
        blocks.append((f"==> {disclosure.title} <==\n" if len(chosen) > 1 else "") + disclosure.text)
    print("\n\n".join(blocks))
    return 0


def _left_out(owner: object) -> str:
    """What becomes of a listed name that resolves to no skill, for the kind of agent that lists it."""
    from .index import AgentEntry, OptionsEntry

    if isinstance(owner, AgentEntry):
        return "resolves to no skill and is left out (build() would fail)"
    if isinstance(owner, OptionsEntry):
        return "is not a discovered skill and is never offered"
    return "is not a discovered skill and is not preloaded"


def _say_what_is_not_known(disclosure: Disclosure) -> None:
    from .disclosure import NOT_KNOWN

    if not disclosure.skills_known:
        print(f"skill-lsp: {disclosure.title}: {NOT_KNOWN}; no skills block is shown", file=sys.stderr)
    elif disclosure.unknown_entries:
        print(f"skill-lsp: {disclosure.title}: {disclosure.unknown_entries} entries of skills= are not string literals "
              "and not known statically; they are left out", file=sys.stderr)


def command_new(args: argparse.Namespace) -> int:
    from .newskill import create

    if args.description is None:  # (not argparse's required=: a misspelt --descripton is said so first)
        raise UsageError("give the skill's --description: what it does and when to use it, the text the model "
                         "decides from whether the skill applies")
    print(create(args.target, args.description, Path(os.getcwd()), Config()))
    return 0


def command_rules(args: argparse.Namespace) -> int:
    rules = list(RULES)
    exact = None
    if args.code:
        exact = lookup(args.code)
        # a code, a rule's name, or a prefix as --select takes it (SK1, AD)
        rules = [exact] if exact is not None else _matching(args.code)
        if not rules:
            raise UsageError(f"unknown rule '{args.code}': give a code (SK101), a prefix (SK1) or a name")
    if args.format == "json":
        import json

        print(json.dumps([
            {"code": r.code, "name": r.name, "severity": r.severity.label, "severity_by_profile":
             {p.value: (s.label if s else None) for p, s in r.by_profile.items()}, "severity_by_runtime": r.per_runtime,
             "enabled_by_default": r.enabled_by_default, "summary": r.summary, "why": r.why, "example": r.example}
            for r in rules
        ], indent=2))
        return 0
    if exact is not None:
        rule = exact
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
    check.add_argument("--user-agents-dir", metavar="DIR",
                       help="the user's Claude Code subagents (default: the agents directory beside the user's skills)")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    check.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    check.add_argument("--no-cache", action="store_true",
                       help="analyse every file again, without reading or writing the cache (see SKILL_LSP_CACHE_DIR)")
    check.add_argument("--profile", action="store_true", help="print where the time went, by phase, to stderr")
    check.add_argument("--fix", action="store_true",
                       help="apply the safe fixes (text edits that guess nothing), check again and report what remains")
    check.add_argument("--diff", action="store_true",
                       help="print the fixes --fix would make as a unified diff, change nothing; exit 1 when there are any")
    check.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix or --diff, also the fixes that create or rename files, put the closest name or "
                            "file in place of an unknown one, or are not the preferred fix")
    check.set_defaults(handler=command_check, usage=check.format_usage, parser=check)

    disclosure = commands.add_parser("disclosure", help="print the text an agent sees")
    disclosure.add_argument("target", metavar="FILE[:AGENT]", help="agent file: Python, TypeScript or JavaScript (and an "
                            "agent's variable, name or line), or a subagent's .md; or a SKILL.md")
    disclosure.add_argument("--user-skills-dir", metavar="DIR")
    disclosure.set_defaults(handler=command_disclosure, usage=disclosure.format_usage, parser=disclosure)

    new = commands.add_parser("new", help="start a skill: a SKILL.md every runtime of its root accepts")
    new.add_argument("target", metavar="PATH|NAME", help="the skill's directory (.claude/skills/pdf-tools), or a name "
                     "for the one skill root of the current directory")
    new.add_argument("-d", "--description", help="what the skill does and when to use it (required)")
    new.set_defaults(handler=command_new, usage=new.format_usage, parser=new)

    rules = commands.add_parser("rules", help="the rule catalogue")
    rules.add_argument("code", nargs="?", metavar="CODE", help="a rule's code or name, or a prefix as --select takes it (SK1)")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=command_rules, usage=rules.format_usage, parser=rules)

    report = commands.add_parser("report", help="each agent, Claude session and subagent: the skills it chooses from")
    report.add_argument("paths", nargs="*", metavar="PATH", help="directories, or files whose agents to report (default: .)")
    report.add_argument("--format", choices=("text", "json"), default="text")
    report.add_argument("--user-skills-dir", metavar="DIR", help="the user's Claude skills (default ~/.claude/skills)")
    report.add_argument("--no-cache", action="store_true", help="read every file again, without check's cache")
    report.set_defaults(handler=lambda args: _report(args, _with_user_skills(Config(), args)),
                        usage=report.format_usage, parser=report)
    _add_serve(commands)
    return parser


def _end_on_interrupt(signum: int, frame: object) -> None:
    os._exit(130)


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def _add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    add_serve_arguments(serve)
    serve.set_defaults(parser=serve)


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


# What a person who runs `skill-lsp` in a terminal sees: the server would otherwise wait on stdin in silence.
TERMINAL_NOTE = """\
skill-lsp is a language server: it talks LSP on stdin/stdout with an editor, and is waiting for one now.
  check a project:  skill-lsp check .
  every command:    skill-lsp --help
Press Ctrl-C to stop."""


def _option_meant(parser: argparse.ArgumentParser, unknown: list[str]) -> str:
    """"; did you mean --format?" for the first unknown option close to one of the command's own."""
    import difflib

    known = [option for action in parser._actions for option in action.option_strings if option.startswith("--")]
    for token in unknown:
        if token.startswith("--"):
            near = difflib.get_close_matches(token.partition("=")[0], known, n=1, cutoff=0.6)
            if near:
                return f"; did you mean {near[0]}?"
    return ""


def _report(args: argparse.Namespace, settings: Config) -> int:
    # imported when asked: the model, listings and overlaps cost a warm check 80 ms to import up front
    from .report import command_report

    return command_report(args, settings)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # a subcommand's own options are the likely intent (`check --frmat json`): its usage and
        # error, as argparse gives them for its invalid choices, not the top level's (exit 2)
        chosen = getattr(args, "parser", parser)
        chosen.error(f"unrecognized arguments: {' '.join(unknown)}{_option_meant(chosen, unknown)}")
    if args.command is None:
        if _stdin_is_terminal():
            # no client is there to shut the server down: the first Ctrl-C ends it, quietly (pygls
            # would catch the KeyboardInterrupt and then wait on its stdin reader thread); set before
            # the note that says so
            signal.signal(signal.SIGINT, _end_on_interrupt)
            print(TERMINAL_NOTE, file=sys.stderr, flush=True)
        args = parser.parse_args(["serve"])
    try:
        return int(args.handler(args))
    except UsageError as error:
        # as argparse reports its own usage errors: the subcommand's usage, then the error
        usage = getattr(args, "usage", parser.format_usage)
        print(usage(), end="", file=sys.stderr)
        print(f"skill-lsp {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


