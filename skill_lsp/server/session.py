"""The session: the model of the workspace folders and each file's findings, kept equal to a fresh build
through every edit, close, file event and change of folders or settings, and what changed each time.

Everything here is synchronous and protocol-free; the server calls it from one worker thread (the
scheduler's), so analyses never interleave. The files and their analyses are indexing.py's.
"""

from __future__ import annotations

import difflib
import gc
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .. import trace
from ..codecalls import PySource
from ..codefiles import import_statements, is_code_path, parse_code
from ..config import CONFIG_FILES, Config
from ..discovery import Bounded
from ..index import Model
from ..model import Finding
from ..nearest import may_reach
from ..overlap import skill_changed
from ..pathtext import inside_workspace, is_skill_filename, real_path_in, within
from ..rules import DirCache, file_findings, listing_files, run_rules
from ..skillfile import SkillFile, parse_skill
from ..textutil import FileTooLarge, check_size, decoded_problem, read_text, with_problem
from ..workspace import Workspace
from .indexing import ServerLoader, not_superseded, take_head_start

log = logging.getLogger("skill_lsp.server")


# the largest text completion parses for its imports each time (about 50 ms); above it, the last
# parse of the file is asked (Session.imports_of)
IMPORTS_FRESH_CHARS = 256 * 1024
# Seconds a file's timestamp may lag the wall clock: Linux stamps files with a clock that ticks once a
# jiffy (at most 10 ms). A file system with coarser timestamps (FAT's 2 s) may hide a change made in
# the first index's first second from changed_since; the editor's own saves still come as events.
SINCE_MARGIN = 0.05
# Seconds between two full analyses that collect the whole heap, the model unfrozen: what was frozen
# alive and has since become cyclic garbage (a request's task in flight at the freeze, its traceback
# later) is otherwise never collected. A collection of the whole heap holds the interpreter, so every
# request, 0.13 s at 10,000 skills and 0.36 s with 20,000 unknown names open: once in ten minutes.
WHOLE_COLLECTION_EVERY = 600.0


@dataclass
class Settings:
    """Editor-side settings: how and when to validate, and the core's Config."""

    validate: str = "onType"  # onType | onSave
    debounce_ms: int = 300
    config: Config = field(default_factory=Config)


@contextmanager
def collected_after() -> Iterator[None]:
    """The cycle collector off while an analysis runs, then the young objects collected at once on
    this thread. Left on, a job that makes hundreds of thousands of objects set off collections of
    the whole heap again and again: a keystroke in a list of 20,000 unknown names took 2–3 times as
    long (1.4–1.9 s against 0.6–0.8 s, collection included)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.collect(1)
            gc.enable()


class Changes(Protocol):
    """What one analysis applies (the scheduler's Job): open documents' texts and versions, closes, file
    events, and a full walk, new folders or new settings."""

    texts: dict[Path, tuple[str, int | None]]
    closed: set[Path]
    events: set[Path]
    full: bool
    folders: list[Path] | None
    settings: Settings | None
    # set (on the loop) when a later change of folders or settings makes this analysis obsolete
    superseded: bool


@dataclass(frozen=True)
class Publication:
    """What the session says of a file for its diagnostics: its findings (the session's own list, the
    same object while they are unchanged), the text their positions are in and that text's version, the
    texts of the other files they point into, and whether the file is open in the editor."""

    findings: list[Finding]
    text: str | None
    version: int | None
    related: dict[Path, str | None]
    open: bool


class Session:
    """The model of the workspace folders and every file's findings, updated by apply() on the worker
    thread; what a publication or a request needs, read through the methods below (the files and their
    parses stay the workspace's)."""

    def __init__(self, folders: list[Path], settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.dir_cache: DirCache = {}
        # how this session's builds read the workspace's files (its analyses kept between models)
        self.loader = self._wired(take_head_start(folders, self.settings.config)
                                  or ServerLoader(Workspace(folders, self.settings.config)))
        self.model: Model | None = None
        self.findings: dict[Path, list[Finding]] = {}
        # the files with an unknown-name finding (a renamed skill may change its "did you mean")
        self.suggesting: set[Path] = set()
        self.generation = 0
        self.collected_whole = time.monotonic()  # when a full analysis last collected the whole heap
        self.full_analyses = 0  # (a job of several edits stops at the first that needed one)
        # open documents' versions, as of the text in the overlays
        self.versions: dict[Path, int | None] = {}
        self.skipped: dict[Path, str] = {}
        # the bounded walks told so far
        self.bounds_told: dict[Path, Bounded] = {}
        # set by the server: what the editor is told at once, from the analysis thread (a bounded
        # walk; it is logged either way), and the progress of a large index (message, percentage)
        self.tell: Callable[[str], None] | None = None
        self.report: Callable[[str, int | None], None] | None = None
        # during apply(): whether a later change (of folders, of settings) makes the analysis under way
        # obsolete; a full analysis then stops with Superseded, the model unchanged
        self.superseded: Callable[[], bool] = not_superseded
        # open files: the encoding problem of their bytes on disk, as of their (mtime, size)
        self._encodings: dict[Path, tuple[tuple[int, int], tuple[int, str] | None]] = {}
        # a large open file's import statements: of the text of its last parse, and their own parse
        self._statements: dict[Path, tuple[str, str]] = {}
        self._statements_parse: dict[Path, tuple[str, PySource]] = {}

    @property
    def workspace(self) -> Workspace:
        """The files: disk under the open buffers, and their parses."""
        return self.loader.workspace

    @property
    def folders(self) -> list[Path]:
        return self.workspace.folders

    def _wired(self, loader: ServerLoader) -> ServerLoader:
        """loader, telling this session when its walks end and how far its analyses are, and
        asking it whether its build is still wanted."""
        loader.walked = self._tell_bounds
        loader.report = self._report
        loader.superseded = self._superseded
        return loader

    def _superseded(self) -> bool:
        return self.superseded()

    def _report(self, message: str, percentage: int | None) -> None:
        if self.report is not None:
            self.report(message, percentage)

    def _tell_bounds(self) -> None:
        """Each folder whose walk stopped at the limit of files, told once (when the walk ends, not
        when the analysis of what it found does: / takes minutes)."""
        bounded = dict(self.loader.bounded)
        for folder, bound in bounded.items():
            if self.bounds_told.get(folder) != bound:
                notice = (f"{folder} holds more than {bound.limit:,} skill, Python and pyproject.toml files: indexing the "
                          f"{bound.files:,} nearest the open files and leaving {bound.directories_left:,} directories "
                          f"unread; set skillLsp.maxFiles (or max-files in [tool.skill-lsp]) to index more")
                log.warning("%s", notice)
                if self.tell is not None:
                    self.tell(notice)
        self.bounds_told = bounded

    # -- whole-workspace analysis ------------------------------------------------

    def full_analysis(self, rescan: bool = True) -> set[Path]:
        """Re-walk (when asked), rebuild the model and run every rule; the files whose findings changed."""
        started = time.perf_counter()
        if self.model is not None:
            # The garbage made since the last analysis (the model, frozen below, is not scanned: a
            # few milliseconds). The model itself holds no reference cycle, nor does what a build
            # leaves behind (test_a_full_analysis_leaves_no_cyclic_garbage): dropped, it is freed at
            # once without the cycle collector, frozen or not. The whole heap only now and then
            # (WHOLE_COLLECTION_EVERY).
            if time.monotonic() - self.collected_whole >= WHOLE_COLLECTION_EVERY:
                gc.unfreeze()
                self.collected_whole = time.monotonic()
            gc.collect()
        # what a build allocates lives on as the model: a collection meanwhile would only scan it
        collecting = gc.isenabled()
        gc.disable()
        try:
            if rescan:
                self.loader.rescan()
                self.dir_cache.clear()
            model = self.loader.build()
            # every file's findings as `check` finds them (the registry's quiet skills skipped at once)
            fresh = run_rules(model, self.settings.config, self.dir_cache)
        finally:
            if collecting:
                gc.enable()
        changed = _diff(self.findings, fresh)
        self.model = model
        self.findings = fresh
        self.full_analyses += 1
        self.suggesting = {path for path, findings in fresh.items() if _suggests(findings)}
        self.generation += 1
        # skipped files (unreadable, too large) are named once in the log (the editor's output panel)
        for path, reason in model.unreadable.items():
            if self.skipped.get(path) != reason:
                log.warning("skipped %s: %s", path, reason)
        self.skipped = dict(model.unreadable)
        self._tell_bounds()  # and forget the bounds that went
        # The model lives until the next full analysis: frozen, its million objects are no longer
        # scanned by every collection of the cycle collector, which would otherwise pause edits,
        # hovers and completions for tens of milliseconds now and then in a large workspace.
        gc.freeze()
        if trace.TRACE.enabled:  # SKILL_LSP_TRACE=1: where this analysis's time went, on stderr
            trace.report()
            trace.reset()
        log.debug(
            "analysed %d skills, %d agent definitions in %.0f ms (%d child processes)",
            len(model.skills), len(model.agents) + len(model.options) + len(model.definitions),
            (time.perf_counter() - started) * 1000, self.loader.forked,
        )
        return changed

    # -- edits ------------------------------------------------------------------------

    def set_text(self, path: Path, text: str, version: int | None = None) -> None:
        self.workspace.overlays[path] = self._disk_encoding(path, text)
        self.versions[path] = version

    def _disk_encoding(self, path: Path, text: str) -> str:
        """text, carrying the encoding problem of the file on disk (SK116) where it still shows in
        the buffer: the editor decoded the bytes the runtime will read, and its buffer cannot say
        whether they were UTF-8. The file is read again only when it changed on disk."""
        try:
            status = path.stat()
            stamp = (status.st_mtime_ns, status.st_size)
        except OSError:
            return text
        known = self._encodings.get(path)
        if known is None or known[0] != stamp:
            try:
                problem = decoded_problem(read_text(path))
            except (OSError, FileTooLarge):
                problem = None
            known = (stamp, problem)
            self._encodings[path] = known
        problem = known[1]
        if problem is None:
            return text
        index, reason = problem
        # the same place in the buffer: the start of a UTF-16 file, or a replacement character
        if (reason.startswith("the file is UTF-16") and index == 0) or text[index : index + 1] == "\ufffd":
            return with_problem(text, index, reason)
        return text

    def reanalyse_versioned(self, path: Path) -> tuple[set[Path], dict[Path, int | None], dict[Path, list[Finding]]]:
        """reanalyse, with the findings it produced and the document versions they were computed from,
        taken together before a later edit can move either."""
        changed = self.reanalyse(path)
        return changed, dict(self.versions), {target: self.findings.get(target, []) for target in changed | {path}}

    def drop_text(self, path: Path) -> None:
        self.workspace.overlays.pop(path, None)
        self.versions.pop(path, None)
        self.workspace.forget(path)
        self.loader.forget(path)
        self._statements.pop(path, None)
        self._statements_parse.pop(path, None)

    def reanalyse(self, path: Path) -> set[Path]:
        """After path's text changed: the cheapest analysis that is still exact."""
        model = self.model
        if model is None:
            return self.full_analysis()
        if self.loader.unwalked(path):  # opened where the bounded walk did not reach: walk again, from it
            return self.full_analysis(rescan=True)
        skill = model.skills.get(path)
        if skill is not None and not skill.external:
            return self._reanalyse_skill(model, path)
        if path in model.documents:  # a skill's document: its text is no skill's, its place unchanged
            return set()
        code = is_code_path(path) or self.workspace.is_user_agent(path)
        if code and path.name != "__init__.py":
            return self._reanalyse_python(model, path)
        if code or is_skill_filename(path.name) or path.name in CONFIG_FILES:
            return self.full_analysis(rescan=path.name in CONFIG_FILES)
        return set()

    def _reanalyse_python(self, model: Model, path: Path) -> set[Path]:
        """An agent file's text changed: its agents are replaced in place, unless the edit reaches a Deck
        or a root (then the model is built again)."""
        builder = self.workspace.builder
        try:
            text = self.workspace.text_of(path)
        except OSError:
            return self.full_analysis()
        except Exception:  # too large to analyse: what the full analysis reports
            return self.full_analysis()
        folder = model.folder_of(path)
        if builder is None or not within(path, folder):
            return self.full_analysis()
        source = self.workspace.parse(path, text, python=True)
        assert isinstance(source, PySource)
        affected = builder.update_python(path, source, folder)
        if affected is None:
            return self.full_analysis(rescan=False)
        return self._refresh(model, affected)

    def _refresh(self, model: Model, affected: set[Path]) -> set[Path]:
        """Run the rules of the affected files again; the ones whose findings changed."""
        changed: set[Path] = set()
        for target in affected:
            fresh = file_findings(model, target, self.settings.config, self.dir_cache)
            if fresh != self.findings.get(target, []):
                changed.add(target)
                if fresh:
                    self.findings[target] = fresh
                else:
                    self.findings.pop(target, None)
                if _suggests(fresh):
                    self.suggesting.add(target)
                else:
                    self.suggesting.discard(target)
        self.generation += 1
        return changed

    def _reanalyse_skill(self, model: Model, path: Path) -> set[Path]:
        """A SKILL.md's text changed: roots and registries stay, so only it and its listers change."""
        try:
            text = self.workspace.text_of(path)
        except (OSError, FileTooLarge):  # gone, or now too large: the full analysis reports it
            return self.full_analysis()
        parsed = self.workspace.parse(path, text, python=False)
        assert isinstance(parsed, SkillFile)
        skill = model.skills[path]
        old_name, old_key, old_description = skill.name, skill.key, skill.description
        skill.file = parsed
        affected = {path}
        if skill.key != old_key:
            # registries are keyed by the name that changed: move the skill in each of them
            builder = self.workspace.builder
            if builder is None:
                return self.full_analysis(rescan=False)
            affected |= builder.rekey(skill, old_key)
            affected |= self._suggesting(old_key, skill.key)
        # listers of its key, and of its frontmatter name before and after (AD101 defers to SK108 there)
        for name in {skill.key, old_key, old_name, skill.name, skill.dir_name}:
            for listing_path, _, _ in model.listings.get(name or "", []):
                affected.add(listing_path)
        affected |= skill_changed(model, skill, old_description, old_key, old_name)  # SK310's pairs
        affected |= listing_files(model, skill)  # LS101: the listings it is an entry of
        # SK301 lands on the other copies of a duplicated name too
        for deck in model.decks:
            if deck.registry is not None:
                for other in deck.registry.skills.get(skill.key, []):
                    affected.add(other.path)
        return self._refresh(model, affected)

    def _suggesting(self, old_key: str, new_key: str) -> set[Path]:
        """Files whose unknown-name findings suggest the old name, or may now suggest the new one."""
        found: set[Path] = set()
        new = new_key.lower()
        for target in self.suggesting:
            for finding in self.findings.get(target, []):
                name = finding.data.get("name")
                near = finding.data.get("closest")
                if finding.code in _UNKNOWN_NAME and isinstance(name, str) and isinstance(near, list) and (
                        old_key in near or _may_suggest(name.lower(), new, near)):
                    found.add(target)
        return found

    def files_changed(self, paths: list[Path]) -> set[Path]:
        """Created, changed or deleted on disk (files or whole directories)."""
        for path in paths:
            self.workspace.forget(path)
            self.loader.forget(path)
            changed, parent = str(path), str(path.parent)
            for cached in list(self.dir_cache):
                if cached == parent or within(cached, changed):
                    self.dir_cache.pop(cached, None)
        return self.full_analysis()

    def index_since(self, now_ns: int) -> int:
        """When the disk was first read for the first index: now, or the head start's walk."""
        walked = self.loader.walked_at
        return min(now_ns, walked) if walked is not None else now_ns

    def changed_since(self, since_ns: int) -> list[Path]:
        """The files and directories the model was built from (the walked directories, the files listed
        and the paths the build looked up) whose mtime or ctime is at or after since_ns (the wall clock,
        less SINCE_MARGIN): changed since then, say while the first index ran before anything watched
        the disk. A file created or removed moves its directory's mtime; a file rewritten with an old
        mtime (touch -d, cp -p) still moves its ctime."""
        model = self.model
        if model is None:
            return []
        paths: set[str] = set()
        for listing in self.workspace.listings.values():
            paths.update(listing.directories)
            paths.update(str(path) for path in listing.skill_files + listing.python_files + listing.pyprojects)
        builder = self.workspace.builder
        if builder is not None:
            paths.update(builder.consulted)
        paths.update(str(path) for path in model.skills)
        threshold = since_ns - int(SINCE_MARGIN * 1e9)
        changed: list[Path] = []
        for text in sorted(paths):
            try:
                status = os.stat(text)
            except OSError:
                continue  # gone: its directory's mtime moved, or it was never there
            if max(status.st_mtime_ns, status.st_ctime_ns) >= threshold:
                changed.append(Path(text))
        return changed

    def set_folders(self, folders: list[Path]) -> set[Path]:
        overlays = self.workspace.overlays
        self.loader.discard_early()  # a head start no build took: its workers go
        self.loader = self._wired(ServerLoader(Workspace(folders, self.settings.config)))
        self.workspace.overlays.update(overlays)
        return self.full_analysis()

    def set_settings(self, settings: Settings) -> set[Path]:
        self.settings = settings
        overlays = self.workspace.overlays
        self.loader.discard_early()
        self.loader = self._wired(ServerLoader(Workspace(self.workspace.folders, settings.config)))
        self.workspace.overlays.update(overlays)
        return self.full_analysis()

    def apply(self, changes: Changes) -> set[Path]:
        """changes (texts, closes, events, folders, settings) applied and analysed: the files whose
        findings changed. A build stops with Superseded, the model unchanged, once changes.superseded is set."""
        self.superseded = lambda: changes.superseded
        try:
            return self._apply(changes)
        finally:  # (no later build asks a finished job, which a change may have superseded since)
            self.superseded = not_superseded

    def _apply(self, changes: Changes) -> set[Path]:
        for path in changes.closed:
            self.drop_text(path)
        for path, (text, version) in changes.texts.items():
            self.set_text(path, text, version)
        changed: set[Path] = set()
        if changes.folders is not None:
            if changes.settings is not None:
                self.settings = changes.settings
            changed = self.set_folders(changes.folders)
        elif changes.settings is not None:
            changed = self.set_settings(changes.settings)
        elif changes.full or self.model is None:
            changed = self.full_analysis(rescan=True)
        elif changes.events or changes.closed:
            # the events' paths as the analysis knows them (see the server's path_of), resolved here:
            # 2,000 events in one notification cost 16,000 lstat calls, each handing the interpreter over
            events = {real_path_in(path, self.folders) for path in changes.events}
            changed = self.files_changed(sorted(events | changes.closed))
        else:
            for path in changes.texts:
                before = self.full_analyses
                changed |= self.reanalyse(path) | {path}
                if self.full_analyses != before:
                    # the whole model was built again, from every text of the job (each set above):
                    # 300 files with a Deck each, opened at once, cost one build, not 300
                    changed |= set(changes.texts)
                    break
        return changed

    # -- reading ----------------------------------------------------------------------

    def publication(self, path: Path) -> Publication:
        """path's findings with the texts their positions are in, for its diagnostics."""
        findings = self.findings.get(path, [])
        related = {other.path for finding in findings for other in finding.related}
        return Publication(findings, self.text(path) if findings else None, self.versions.get(path),
                           {other: self.text(other) for other in sorted(related)}, self.is_open(path))

    def is_open(self, path: Path) -> bool:
        """Whether path is a document open in the editor (its text is the editor's)."""
        return path in self.workspace.overlays

    def is_user_agent(self, path: Path) -> bool:
        """Whether path is one of the user's own subagents (~/.claude/agents, or the configured directory)."""
        return self.workspace.is_user_agent(path)

    def skill_lines(self, path: Path, text: str) -> list[str] | None:
        """The lines of the session's parse of text when path is a SKILL.md (positions are converted
        with them), else None."""
        parsed = self.workspace.parsed(path, text)
        return parsed.lines if isinstance(parsed, SkillFile) else None

    def text(self, path: Path) -> str | None:
        """An open buffer, or a file of the workspace (or one the model read); never another file a
        request names, such as file:///etc/passwd."""
        model = self.model
        known = path in self.workspace.overlays or (model is not None and (path in model.skills or path in model.pythons))
        if not known and not inside_workspace(path, self.folders):
            return None
        try:
            return self.workspace.text_of(path)
        except OSError:
            return None
        except Exception:  # FileTooLarge and friends: no text to offer
            return None

    def python_source(self, path: Path, text: str) -> PySource:
        """text's parse, the one the analysis made when it is the text analysed."""
        source = self.workspace.parse(path, text, python=True)
        assert isinstance(source, PySource)
        return source

    def imports_of(self, path: Path, text: str) -> PySource:
        """A parse of path that says what its imports are (which framework a callee is, completion's
        question): text's own when text is small, else the last parse of path made, whatever it was
        made from, or, before there is one, the parse of its import statements alone. A 7 MB file
        takes a second to parse, on every completion while its end is typed into; its imports do not
        move meanwhile."""
        if len(text) > IMPORTS_FRESH_CHARS and path.suffix != ".md":
            statements = import_statements(text)  # (milliseconds for megabytes)
            known = self.workspace.last_parse(path)
            if known is not None and isinstance(known[1], PySource):
                # the last parse, when its text imports the same (it may be of the file on disk, or
                # of a text before an import was typed: an alias it lacks hides the call completed)
                memo = self._statements.get(path)
                if memo is None or memo[0] is not known[0]:
                    memo = self._statements[path] = (known[0], import_statements(known[0]))
                if memo[1] == statements:
                    return known[1]
            alone = self._statements_parse.get(path)
            if alone is None or alone[0] != statements:
                alone = self._statements_parse[path] = (statements, parse_code(statements, path))
            return alone[1]
        return self.python_source(path, text)

    def skill_parse(self, path: Path, text: str) -> SkillFile:
        """text's parse as a SKILL.md, the one the analysis made (or will take) when it is the text
        analysed. From any thread: the cache keeps one parse a path, whoever made it. Raises
        FileTooLarge for a buffer over the bound of any file analysed (the analysis skips it)."""
        parsed = self.workspace.parse(path, check_size(text, path.name), python=False)
        assert isinstance(parsed, SkillFile)
        return parsed

    def skill_file(self, path: Path) -> SkillFile | None:
        model = self.model
        if model is not None and path in model.skills:
            return model.skills[path].file
        text = self.text(path)
        return parse_skill(text) if text is not None else None


_UNKNOWN_NAME = ("AD101", "CL103")


def _suggests(findings: list[Finding]) -> bool:
    return any(finding.code in _UNKNOWN_NAME for finding in findings)


def _may_suggest(word: str, new: str, near: list[object]) -> bool:
    """Whether a name lowered to new can enter the "did you mean" list near of word (lowered): it is
    difflib's best three at a ratio of at least 0.6, ties going to the greater name."""
    if not may_reach(new, word):
        return False  # most names: decided in C, without a SequenceMatcher
    matcher = difflib.SequenceMatcher(None, new, word)
    if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
        return False
    score = matcher.ratio()
    if score < 0.6:
        return False
    if len(near) < _SUGGESTED or not isinstance(near[-1], str):
        return True
    last = near[-1].lower()
    # as good as the last one offered (>=: a name that differs from it only in case may replace it)
    return (score, new) >= (difflib.SequenceMatcher(None, last, word).ratio(), last)


_SUGGESTED = 3  # names offered by AD101 / CL103


def _diff(old: dict[Path, list[Finding]], new: dict[Path, list[Finding]]) -> set[Path]:
    changed = {path for path in old if path not in new}
    changed |= {path for path, findings in new.items() if old.get(path) != findings}
    return changed


def normalise(path: str) -> Path:
    return Path(os.path.abspath(path))
