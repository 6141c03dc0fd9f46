"""SK201-SK205: a SKILL.md's body, what it references and what Claude Code substitutes in it (and SK203 for a file too large to read)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

from ..bodyscan import SKILL_FOLDERS, TEMPLATE_LINE, Placeholder, is_home_path
from ..index import Model, SkillEntry
from ..model import Fix, Profile, Severity, Span, TextEdit
from ..pathtext import split_text, within
from ..runtimes.spec import BODY_LINE_LIMIT
from ..skillfile import SkillFile
from ..textutil import MAX_FILE_BYTES
from .readers import readers_of
from .report import Reporter, closest, did_you_mean


class Listings(dict[str, "set[str] | None"]):
    """The directories one analysis looked into, with their entries (None: not a readable directory), and each
    one's mtime_ns as it was before it was listed (None: not there): the analysis's dependencies, without
    a second stat of each (and never a listing newer than its recorded mtime)."""

    __slots__ = ("mtimes",)

    def __init__(self) -> None:
        super().__init__()
        self.mtimes: dict[str, int | None] = {}


_UNLISTED: set[str] = set()  # list_dir's "not in the cache" (None is an answer: not listable)


def list_dir(directory: str, cache: dict[str, set[str] | None]) -> set[str] | None:
    """The entries of a directory (None: it cannot be listed), listed once per cache."""
    # (a lookup, not a KeyError caught: an analysis's cache is new, and most lookups miss)
    names = cache.get(directory, _UNLISTED)
    if names is not _UNLISTED:
        return names
    if type(cache) is Listings:
        return _stated(directory, cache, shared=False)
    try:
        names = set(os.listdir(directory))
    except OSError:
        names = None
    cache[directory] = names
    return names


def list_shared(directory: str, cache: dict[str, set[str] | None]) -> set[str] | None:
    """list_dir of a directory that many skills look into (a project's .claude, for its settings files; a root,
    its skills' folders and the directories above it, for a path in the text that is not the skill's): its
    listing is kept between analyses for as long as the directory is unchanged, so that each skill costs a
    stat instead of a listing (a third of the system time: 3,500 listings of .claude in the
    10,000-skill corpus, 6.7 µs each against 2.5 for a stat)."""
    names = cache.get(directory, _UNLISTED)
    if names is not _UNLISTED:
        return names
    return _stated(directory, cache, shared=True)


# directory -> (its identity and times when listed, its entries): list_shared's listings
_LISTINGS: dict[str, tuple[tuple[int, int, int, int], set[str] | None]] = {}
_LISTINGS_KEPT = 1024
# A listing is kept only when the directory's last change (mtime, and ctime, which a chmod changes too) is
# older than this: a change in the same tick of a coarse file system clock (FAT's two seconds at worst)
# would leave both times as they were ("racily clean", as git calls it).
_SETTLED_NS = 3_000_000_000


def _stated(directory: str, cache: dict[str, set[str] | None], shared: bool) -> set[str] | None:
    """The directory's entries, stat'ed first: its mtime recorded for a Listings, its listing kept for a
    shared one. A directory stat cannot see cannot be listed either (open resolves the same path)."""
    try:
        status = os.stat(directory)
    except OSError:
        if type(cache) is Listings:
            cache.mtimes[directory] = None
        cache[directory] = None
        return None
    if type(cache) is Listings:
        cache.mtimes[directory] = status.st_mtime_ns
    identity = (status.st_ino, status.st_dev, status.st_mtime_ns, status.st_ctime_ns)
    kept = _LISTINGS.get(directory) if shared else None
    names: set[str] | None
    if kept is not None and kept[0] == identity:
        names = kept[1]  # (never changed by a caller)
    else:
        try:
            names = set(os.listdir(directory))
        except OSError:
            names = None
        if shared and max(status.st_mtime_ns, status.st_ctime_ns) < time.time_ns() - _SETTLED_NS:
            if len(_LISTINGS) >= _LISTINGS_KEPT:
                _LISTINGS.clear()
            _LISTINGS[directory] = identity, names
    cache[directory] = names
    return names


def joined(directory: str, target: str) -> str:
    """os.path.normpath(os.path.join(directory, target)) for a normalised directory's text; a plain
    relative target (no '.', '..' or empty part: most references) is appended as it is."""
    if (os.sep == "/" and target and not target.startswith(("/", ".")) and "/." not in target and "//" not in target
            and not target.endswith("/")):
        return directory + "/" + target if directory != "/" else "/" + target
    return os.path.normpath(os.path.join(directory, target))


def _exists(target: str, cache: dict[str, set[str] | None],
            listing: Callable[[str, dict[str, set[str] | None]], set[str] | None] = list_dir) -> bool:
    """Whether the normalised path target exists, by a listing of its directory (cached)."""
    directory, name = split_text(target)
    names = listing(directory, cache)
    return names is not None and name in names


# How far above the skill directory a bare path may be meant from: its root, the plugin or the
# project holding that root, and one more for a plugin inside a marketplace's plugins/ folder.
_ANCESTOR_LEVELS = 4


def _found_elsewhere(directory: str, target: str, cache: dict[str, set[str] | None]) -> bool:
    """Whether a path written in the text (not a link) that is not in the skill directory names a
    file of another skill beside it ("`lora-recipes`'s `references/mapping.md`") or one meant from
    the plugin or project root (`uv run scripts/validate.py`, run where the agent works)."""
    if target.startswith(("../", "./..")):
        return False
    root = split_text(directory)[0]
    siblings = list_shared(root, cache) or set()
    if len(siblings) <= 50:  # a large root is not searched for every missing path (each sibling costs a listing)
        for sibling in siblings:
            other = os.path.join(root, sibling)
            if other != directory and _exists(joined(other, target), cache, list_shared):
                return True
    above = root
    for _ in range(_ANCESTOR_LEVELS - 1):
        parent = split_text(above)[0]
        if parent == above:
            break
        above = parent
        if _exists(joined(above, target), cache, list_shared) or _exists(joined(above, target.rstrip("/")), cache, list_shared):
            return True
    return _exists(joined(root, target), cache, list_shared)


def _uncertain(kind: str, directory: str, target: str, cache: dict[str, set[str] | None]) -> bool:
    """Whether a missing path may well not be meant as a file of the skill: in prose, one without an extension
    (a folder to make: `references/archive`) or one in a folder the skill does not have and a project has too
    (`python scripts/deploy.py`); a link into a folder that is neither the skill's nor one of the folders
    the specification names for a skill (`[template](.github/pull_request_template.md)`)."""
    if kind == "base-dir":
        # `{baseDir}` is substituted by no runtime, and authors mean the skill's directory by it as often as the
        # project's (`{baseDir}/config`, `{baseDir}/test-reports/`): what it names cannot be told
        return True
    relative = target[2:] if target.startswith("./") else target
    if kind not in ("bare", "link") or relative.startswith("..") or "/" not in relative.rstrip("/"):
        return False
    folder = relative.split("/", 1)[0]
    if kind == "bare":
        if "." not in relative.rstrip("/").rsplit("/", 1)[-1]:
            return True
        return folder in ("scripts", "templates", "assets") and not _own_folder(directory, target, cache)
    return folder not in SKILL_FOLDERS and not _own_folder(directory, target, cache)


def _own_folder(directory: str, target: str, cache: dict[str, set[str] | None]) -> bool:
    """Whether the first folder of a relative path (`scripts` of `scripts/run.py`) is one the skill has."""
    first = target[2:] if target.startswith("./") else target
    folder = first.split("/", 1)[0]
    return "/" in first and folder not in ("", ".", "..") and list_dir(joined(directory, folder), cache) is not None


def _drawn_elsewhere(file: SkillFile, own: str) -> set[str]:
    """The paths the body's trees draw below another directory than the skill's (`index.md` of an `onboarding/`
    folder the skill generates, `reference/finance.md` of a lesson's `bigquery-skill/`), relative to it."""
    drawn: set[str] = set()
    for tree in file.drawn:
        if tree.root and tree.root not in (own, "."):
            drawn |= tree.files
    return drawn


# the heading of a section that records the skill's history rather than instructs ("## Changelog", "## Version History")
_CHANGELOG = re.compile(r"(?i)^(?:change ?log|changes|history|version history|release notes|revision history)\b")


def _in_a_changelog(file: SkillFile, line: int) -> bool:
    """Whether the line is in a section whose heading is a changelog's (its nearest heading above, or one of its
    parents: "## Changelog" > "### 2.0.0")."""
    level = 7
    for heading in reversed(file.headings):
        if heading.span.start.line > line or heading.level >= level:
            continue
        if _CHANGELOG.match(heading.text.strip("*_` ")):
            return True
        level = heading.level
        if level == 1:
            break
    return False


def _a_template(file: SkillFile) -> bool:
    """Whether the body writes out a document to fill in: two headings or more that are placeholders
    ("### [Persona Name]", "## [Feature Name]")."""
    return sum(1 for heading in file.headings if TEMPLATE_LINE.search(heading.text)) >= 2


def _all_files(directory: Path, limit: int = 500) -> list[str]:
    """The skill's files (up to limit), relative to its directory with '/': Path(base, name).relative_to(directory)
    .as_posix() as text (os.walk joins each base onto the directory's text), without a Path for each file (a third
    of a millisecond for a skill with a missing reference in the ecosystem)."""
    found: list[str] = []
    top = os.fspath(directory)
    prefix = top if top.endswith(os.sep) else top + os.sep
    for base, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        folder = "" if base == top else base[len(prefix):].replace(os.sep, "/") + "/"
        for name in files:
            found.append(folder + name)
            if len(found) >= limit:
                return found
    return found


def check_body(model: Model | None, skill: SkillEntry, reporter: Reporter, dir_cache: dict[str, set[str] | None]) -> None:
    file = skill.file
    path = skill.path
    profile = skill.profile
    count = file.body_line_count()  # 0: nothing but whitespace after the frontmatter
    if count == 0 and file.has_frontmatter and file.closed:
        span = file.line_span(file.close_line or 0)
        reporter.report(
            "SK201", path, span,
            "the skill has no instructions after the frontmatter; the body is what the agent reads when it loads the skill",
            profile=profile,
        )
    if count > BODY_LINE_LIMIT:
        reporter.report(
            "SK203", path, file.line_span(file.body_start),
            f"the body is {count} lines long; keep it under {BODY_LINE_LIMIT} and move detail into referenced files",
            profile=profile,
        )
    if file.references:
        _check_references(skill, file, reporter, dir_cache)
    if file.placeholders and claude_code_loads(skill):
        takes = takes_arguments(skill)  # once: it looks through the whole text
        for placeholder in file.placeholders:
            _report_placeholder(skill, placeholder, reporter, takes)
    for reference in file.machine_paths:  # (most bodies have none)
        # a person's home directory is the author's machine; another absolute path (/opt/app/rules.md) may
        # be one the machine the agent runs on has: that cannot be told from the text
        home = is_home_path(reference.target)
        # certain where the agent follows it: a link, or a shell block it runs; in prose it may be an example
        # (a sample request, a worked example's output), which the text alone cannot tell
        certain = home and (reference.is_link or reference.kind == "shell")
        reporter.report(
            "SK204", path, reference.span,
            f"'{reference.target}' is " + ("a path in a person's home directory; other machines do not have it — "
                                           "reference files relative to the skill directory" if home else
                                           "an absolute path; only a machine that has it can follow the link — "
                                           "reference the skill's own files relative to its directory"),
            profile=profile, severity=None if certain else Severity.INFORMATION,
        )


_FOUND: tuple[Path | None, list[str]] = (None, [])  # a reference that exists (its list never read)


def _check_references(skill: SkillEntry, file: SkillFile, reporter: Reporter, dir_cache: dict[str, set[str] | None]) -> None:
    """SK202: the body's references to files that do not exist."""
    path = skill.path
    profile = skill.profile
    candidates: list[str] | None = None
    seen: set[tuple[int, int]] = set()
    # (kind, target) -> (its path when it is missing, the closest existing files): a body may repeat a target
    missing: dict[tuple[str, str], tuple[Path | None, list[str]]] = {}
    directory = skill.directory_text  # strings: most references exist, and a Path costs more than the test
    # what the text says is not the skill's, found at the first missing path (most bodies have none)
    elsewhere: set[str] | None = None
    for reference in file.references:
        kind = reference.kind
        if kind == "loose":
            continue
        key = reference.span.start  # (line, column)
        if key in seen:
            continue
        seen.add(key)
        target = reference.target
        if "#" in target or "?" in target or "%" in target:  # most targets are a plain path, as unquote leaves it
            target = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not target or target in (".", "./") or target in file.made:
            continue
        known = missing.get((kind, target))
        if known is None:
            resolved_text = joined(directory, target)
            parent, name = split_text(resolved_text)  # (_exists, written out: most references exist)
            names = list_dir(parent, dir_cache)
            if ((names is not None and name in names)
                    or (target.endswith("/") and list_dir(resolved_text, dir_cache) is not None)
                    or (kind in ("bare", "base-dir") and _found_elsewhere(directory, target, dir_cache))):
                known = missing[(kind, target)] = _FOUND
            else:
                if candidates is None:
                    candidates = _all_files(skill.directory)
                known = missing[(kind, target)] = Path(resolved_text), closest(target.lstrip("./"), candidates, 1)
        resolved_or_none, near = known
        if resolved_or_none is None:
            continue
        relative = target.removeprefix("./")
        if elsewhere is None:
            # a file of a directory the text draws (an output, an example skill), and a path the text gives as an
            # example somewhere, which is one wherever it repeats ("✓ Good: `reference/guide.md`")
            elsewhere = _drawn_elsewhere(file, skill.dir_name) | {
                r.target.removeprefix("./") for r in file.references if r.kind == "loose"}
        if relative in elsewhere:
            continue
        resolved = resolved_or_none
        fixes = [Fix(f"Change to '{near[0]}'", edits=(TextEdit(path, reference.span, near[0]),), preferred=True)] if near else []
        inside = resolved != skill.directory and within(resolved, skill.directory)
        if inside:
            # (no fix creates the file: an empty one would only silence the finding). The skill directory is the
            # one of the file the finding is on: its path in front of the message names it
            message = f"'{target}' does not exist in the skill directory{did_you_mean(near)}"
        else:
            fixes = []  # the skill's own files are no suggestion for a path out of it
            # absolute here: the shells show it relative to their base (Finding.shown_message)
            message = f"'{target}' is not found: from the skill directory it leads to {resolved}, which does not exist"
        severity = None
        if _uncertain(reference.kind, directory, target, dir_cache):
            # a path whose folder the skill does not have (`python scripts/deploy.py`,
            # `[template](.github/pull_request_template.md)`): as likely one of the project the agent works in,
            # or a folder to make, as a file of the skill
            severity = Severity.INFORMATION
            message += " (if it names a file of the project the agent works in, ignore this)"
        elif _in_a_changelog(file, reference.span.start.line):
            # "| 2.0.0 | Rename `references/spotql-rules.md` → `references/agentql-rules.md` |": a record of the past
            severity = Severity.INFORMATION
            message += " (it is under a changelog: if it records a file of the past, ignore this)"
        elif kind == "link" and "/" not in relative and _a_template(file):
            # c4-context's "### [Persona Name]" … "- [Container Documentation](./c4-container.md)": the links of a
            # document the skill has the agent fill in, written out in its own text
            severity = Severity.INFORMATION
            message += " (the text is a document to fill in, with headings such as '[Name]': if the link is the document's, ignore this)"
        reporter.report("SK202", path, reference.span, message, profile=profile, fixes=fixes,
                        data={"closest": near} if inside else {"closest": near, "paths": [str(resolved)]}, severity=severity)


def claude_code_loads(skill: SkillEntry) -> bool:
    """Whether Claude Code (or the Agent SDK) discovers the skill (runtimes.discovering): a .claude/skills
    root, a plugin's or the user's skills directory."""
    return readers_of(skill.runtimes).claude


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


# a line that substitutes a regular expression's groups (`rg --replace '$1'`, `sed 's/(a)/$1/'`, `re.sub`)
_REPLACING = re.compile(r"--replace\b|\bsed\b|\bre\.sub\b|\.replace\(|\bperl\b")


def _report_placeholder(skill: SkillEntry, placeholder: Placeholder, reporter: Reporter, takes: bool) -> None:
    number = int(placeholder.text[1:])
    nth = _ORDINALS[number] if number < len(_ORDINALS) else f"{number + 1}th"
    line = skill.file.lines[placeholder.span.start.line]
    fixes: list[Fix] = []
    if placeholder.why == "currency":
        meant = "an amount"
        advice = "write the amount without a '$' followed by digits (for example '2.5M USD')"
    else:
        meant = ("awk's field" if "awk" in line else "a regular expression's group" if _REPLACING.search(line)
                 else "the shell's own positional parameter")
        replacement = f"$({number})" if "awk" in line else f"${{{number}}}"
        advice = f"write '{replacement}', which Claude Code leaves alone"
        fixes.append(Fix(f"Change to '{replacement}'", edits=(TextEdit(skill.path, placeholder.span, replacement),),
                         preferred=True))
    # Claude Code 2.1.332 replaces `$N` only when the invocation has that many arguments (unmatched ones stay
    # as written): sure to matter for a skill that takes arguments, uncertain for one that does not say so
    reporter.report(
        "SK205", skill.path, placeholder.span,
        f"'{placeholder.text}' reads as {meant}, but Claude Code replaces it with the skill's {nth} argument when the "
        f"skill is invoked with {number + 1} or more arguments{'' if takes else ' (this skill declares none)'}; {advice}",
        profile=skill.profile, fixes=fixes, severity=None if takes else Severity.INFORMATION,
    )


def takes_arguments(skill: SkillEntry) -> bool:
    """Whether a skill says it is invoked with arguments: an `argument-hint` or `arguments` field, or
    `$ARGUMENTS` in its body."""
    fields = skill.file.lenient_fields
    return "argument-hint" in fields or "arguments" in fields or "$ARGUMENTS" in skill.file.text


def check_oversized_skill(model: Model, path: Path, reporter: Reporter) -> None:
    """A SKILL.md over the read limit is not analysed; say so where the user looks (line 1)."""
    root = model.roots.get(path.parent.parent)
    reporter.report(
        "SK203", path, Span.point(0, 0),
        f"this SKILL.md is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB, the most skill-lsp reads, so it was "
        "not analysed; a body this long would not fit a model's context when the skill is loaded either",
        profile=root.profile if root is not None else Profile.SPEC,
    )
