"""The server's view of the workspace: the core index plus what changed since last time.

Everything here is synchronous and protocol-free; the pygls layer calls it from
one worker thread, so analyses never interleave.
"""

from __future__ import annotations

import difflib
import gc
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..cache import Context, Deps, analyse_skill, analysis_context, deps_hold, file_stamp
from ..codefiles import is_code_path
from ..config import DEFAULT_MAX_FILES, Config, load_pyproject, walk_exclude
from ..discovery import (
    Bounded,
    Listing,
    inside_workspace,
    is_skill_filename,
    keeping,
    kept_from_exclusion,
    walk_nearest,
    within,
)
from ..index import Model, SkillFacts, SkillJob, Workspace
from ..model import Finding
from ..nearest import may_reach
from ..outcome import is_recent
from ..pysource import PySource
from ..rules import DirCache, analysed_files, file_findings
from ..skillfile import SkillFile, parse_skill
from ..textutil import FileTooLarge, decoded_problem, read_text, with_problem
from ..trace import phase

log = logging.getLogger("skill_lsp.server")


# files of the model answering requests while the first index runs (NearIndex)
PRELIMINARY_FILES = 100
# skills analysed between two progress reports of a large index
PROGRESS_EVERY = 500


@dataclass
class Settings:
    """Editor-side settings: how and when to validate, and the core's Config."""

    validate: str = "onType"  # onType | onSave
    debounce_ms: int = 300
    config: Config = field(default_factory=Config)




@dataclass
class _Analysis:
    """A SKILL.md's own analysis, valid while its file (size, mtime), its context and the directories
    its rules looked into are unchanged."""

    stamp: tuple[int, int] | None
    context: Context
    facts: SkillFacts
    findings: list[Finding]
    deps: Deps


class ServerWorkspace(Workspace):
    """The server's files. A SKILL.md that is not open keeps only its facts and the findings of its own
    rules, as `check`'s cache does (the same analysis, cache.analyse_skill): its parse is dropped once
    analysed and read again when a feature needs it, so 10,000 skills do not hold 10,000 parses. The
    analyses serve the next models while still valid."""

    def __init__(self, folders: list[Path], settings: Config) -> None:
        super().__init__(folders, settings)
        self._analyses: dict[Path, _Analysis] = {}
        # folders whose walk stopped at the limit of files (config max_files), and where
        self.bounded: dict[Path, Bounded] = {}
        self._anchors: dict[Path, set[Path]] = {}  # the open files a folder's walk started from
        # told, from the analysis thread, when a folder's walk ended and how far the analysis is
        # (message, percentage): a large index reports progress; see Session.report
        self.walked: Callable[[], None] | None = None
        # whether analyses record the directories they looked into: to tell, in a later model,
        # whether they still hold (the near model's are never reused past a change)
        self.with_deps = True
        self.report: Callable[[str, int | None], None] | None = None

    def _listing(self, folder: Path) -> Listing:
        """The walk of folder, bounded by max_files: a workspace folder of / or of a home directory
        holds far more files than an editor session should take on. The open files' directories
        come first."""
        exclude = walk_exclude(folder, self.settings)
        # an open file in an excluded folder is checked with the roots and agents around it: its
        # excluded subtree is walked too (and walked again when that changes)
        keep = kept_from_exclusion(folder, exclude, sorted(self.overlays)) if exclude and self.overlays else ()
        if folder not in self._listings or self._kept.get(folder, ()) != keep:
            project = load_pyproject(folder / "pyproject.toml")  # [tool.skill-lsp] max-files, under the editor's
            limit = self.settings.max_files or (project.config.max_files if project else None) or DEFAULT_MAX_FILES
            with phase("walk"):
                near = sorted(self.overlays)
                listing, bounded = walk_nearest(folder, keeping(exclude, keep), limit, near)
            self._anchors[folder] = set(near)
            self._kept[folder] = keep
            self._listings[folder] = listing
            if bounded is None:
                self.bounded.pop(folder, None)
            else:
                self.bounded[folder] = bounded
            if self.walked is not None:
                self.walked()
        return self._listings[folder]

    def unwalked(self, path: Path) -> bool:
        """Whether path (an open file) lies in a bounded folder whose walk did not start from it: the
        walk may have stopped before its neighbours (its skills root) were reached."""
        return any(within(path, folder) and path not in self._anchors.get(folder, ()) for folder in self.bounded)

    def load_skills(self, model: Model, jobs: list[SkillJob]) -> None:
        kept: dict[Path, _Analysis] = {}  # those of this model's skills: a removed skill's analysis goes
        with phase("parse skills"):
            for number, job in enumerate(jobs):
                if self.report is not None and number % PROGRESS_EVERY == 0 and len(jobs) > PROGRESS_EVERY:
                    self.report(f"analysing skills: {number:,} of {len(jobs):,}", number * 100 // len(jobs))
                if job.path in self.overlays:  # open: its parse serves hovers, completions and edits
                    self._load_skills(model, [job])
                    continue
                config = model.config_for(job.path, self.settings)
                context = analysis_context(job, config)
                stamp = file_stamp(job.path)
                known = self._analyses.get(job.path)
                if known is None or known.stamp != stamp or known.context != context or not deps_hold(known.deps):
                    result = analyse_skill(job, config, self.with_deps)
                    if isinstance(result, str):
                        model.unreadable[job.path] = result
                        continue
                    known = _Analysis(stamp, context, *result)
                # not kept when changed within the clock's granularity: a later change may not move its mtime
                if _settled(known):
                    kept[job.path] = known
                model.skills[job.path] = self.analysed_entry(job, known.facts, known.findings)
        self._analyses = kept

    def forget(self, path: Path) -> None:
        super().forget(path)
        self._analyses.pop(path, None)


def _settled(analysis: _Analysis) -> bool:
    """Kept only when nothing it depends on changed within the clock's granularity, as in check's cache."""
    now = time.time_ns()
    mtimes = [mtime for _, mtime in analysis.deps]
    if analysis.stamp is not None:
        mtimes.append(analysis.stamp[1])
    return not any(is_recent(mtime, now) for mtime in mtimes)


# Bytes of a file the near model reads, unless it is open: a workspace of / or of a home directory
# has large generated or test files near anything, and the near model is wanted within a request's
# time (one 290 KB Python file in /tmp took it from 0.1 to 0.43 s, measured).
NEAR_FILE_BYTES = 64 * 1024


class _NearWorkspace(ServerWorkspace):
    """The near model's files: the nearest, without the large ones nobody has open."""

    def __init__(self, folders: list[Path], settings: Config) -> None:
        super().__init__(folders, settings)
        self.with_deps = False

    def _listing(self, folder: Path) -> Listing:
        listing = super()._listing(folder)
        return replace(listing, skill_files=[path for path in listing.skill_files if self._small(path)],
                       python_files=[path for path in listing.python_files if self._small(path)])

    def _small(self, path: Path) -> bool:
        if path in self.overlays:
            return True
        try:
            return path.stat().st_size <= NEAR_FILE_BYTES
        except OSError:
            return False


class NearIndex:
    """While the first index runs: models of the open documents and the few files nearest them, so
    that requests about open files are answered before the whole workspace is indexed. Their
    findings are never published (an unknown name may be known to the full index). It shares
    nothing with the session: it is used on a thread of its own while the worker indexes. While
    the same documents are open, the next model walks nothing again and parses only what changed."""

    def __init__(self, limit: int = PRELIMINARY_FILES) -> None:
        self.limit = limit
        self.workspace: _NearWorkspace | None = None
        self.made_for: tuple[tuple[Path, ...], Config, tuple[Path, ...]] | None = None

    def model(self, folders: list[Path], config: Config, texts: dict[Path, str]) -> Model:
        key = (tuple(folders), config, tuple(sorted(texts)))
        if self.workspace is None or self.made_for != key:
            self.workspace = _NearWorkspace(folders, replace(config, max_files=self.limit))
            self.made_for = key
        self.workspace.overlays.clear()
        self.workspace.overlays.update(texts)
        return self.workspace.build()


class Session:
    def __init__(self, folders: list[Path], settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.dir_cache: DirCache = {}
        self.workspace = self._workspace(folders, self.settings.config)
        self.model: Model | None = None
        self.findings: dict[Path, list[Finding]] = {}
        # the files with an unknown-name finding (a renamed skill may change its "did you mean")
        self.suggesting: set[Path] = set()
        self.generation = 0
        # open documents' versions, as of the text in the overlays
        self.versions: dict[Path, int | None] = {}
        self.skipped: dict[Path, str] = {}
        # what the editor should be told (a bounded walk), taken by the server; the bounds told so far
        self.notices: list[str] = []
        self.bounds_told: dict[Path, Bounded] = {}
        # set by the server: a notice told at once (from the analysis thread), and the progress of a
        # large index (message, percentage)
        self.tell: Callable[[str], None] | None = None
        self.report: Callable[[str, int | None], None] | None = None
        # open files: the encoding problem of their bytes on disk, as of their (mtime, size)
        self._encodings: dict[Path, tuple[tuple[int, int], tuple[int, str] | None]] = {}

    @property
    def folders(self) -> list[Path]:
        return self.workspace.folders

    def _workspace(self, folders: list[Path], config: Config) -> ServerWorkspace:
        workspace = ServerWorkspace(folders, config)
        workspace.walked = self._tell_bounds
        workspace.report = self._report
        return workspace

    def _report(self, message: str, percentage: int | None) -> None:
        if self.report is not None:
            self.report(message, percentage)

    def _tell_bounds(self) -> None:
        """Each folder whose walk stopped at the limit of files, told once (when the walk ends, not
        when the analysis of what it found does: / takes minutes)."""
        bounded = dict(self.workspace.bounded)
        for folder, bound in bounded.items():
            if self.bounds_told.get(folder) != bound:
                notice = (f"{folder} holds more than {bound.limit:,} skill, Python and pyproject.toml files: indexing the "
                          f"{bound.files:,} nearest the open files and leaving {bound.directories_left:,} directories "
                          f"unread; set skillLsp.maxFiles (or max-files in [tool.skill-lsp]) to index more")
                log.warning("%s", notice)
                if self.tell is not None:
                    self.tell(notice)
                else:
                    self.notices.append(notice)
        self.bounds_told = bounded

    # -- whole-workspace analysis ------------------------------------------------

    def full_analysis(self, rescan: bool = True) -> set[Path]:
        """Re-walk (when asked), rebuild the model and run every rule; the files whose findings changed."""
        started = time.perf_counter()
        # the previous model was frozen (below): make it collectable again once it is dropped
        gc.unfreeze()
        if rescan:
            self.workspace.rescan()
            self.dir_cache.clear()
        model = self.workspace.build()
        fresh: dict[Path, list[Finding]] = {}
        for path in analysed_files(model):
            findings = file_findings(model, path, self.settings.config, self.dir_cache)
            if findings:
                fresh[path] = findings
        changed = _diff(self.findings, fresh)
        self.model = model
        self.findings = fresh
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
        gc.collect()
        gc.freeze()
        log.debug(
            "analysed %d skills, %d agent definitions in %.0f ms",
            len(model.skills), len(model.agents) + len(model.options) + len(model.definitions), (time.perf_counter() - started) * 1000,
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

    def reanalyse(self, path: Path) -> set[Path]:
        """After path's text changed: the cheapest analysis that is still exact."""
        model = self.model
        if model is None:
            return self.full_analysis()
        if self.workspace.unwalked(path):  # opened where the bounded walk did not reach: walk again, from it
            return self.full_analysis(rescan=True)
        skill = model.skills.get(path)
        if skill is not None and not skill.external:
            return self._reanalyse_skill(model, path)
        code = is_code_path(path) or self.workspace.is_user_agent(path)
        if code and path.name != "__init__.py":
            return self._reanalyse_python(model, path)
        if code or is_skill_filename(path.name) or path.name == "pyproject.toml":
            return self.full_analysis(rescan=path.name == "pyproject.toml")
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
        source = self.workspace._parse(path, text, python=True)
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
        parsed = self.workspace._parse(path, text, python=False)
        assert isinstance(parsed, SkillFile)
        skill = model.skills[path]
        old_name, old_key = skill.name, skill.key
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
            changed, parent = str(path), str(path.parent)
            for cached in list(self.dir_cache):
                if cached == parent or within(cached, changed):
                    self.dir_cache.pop(cached, None)
        return self.full_analysis()

    def set_folders(self, folders: list[Path]) -> set[Path]:
        overlays = self.workspace.overlays
        self.workspace = self._workspace(folders, self.settings.config)
        self.workspace.overlays.update(overlays)
        return self.full_analysis()

    def set_settings(self, settings: Settings) -> set[Path]:
        self.settings = settings
        overlays = self.workspace.overlays
        self.workspace = self._workspace(self.workspace.folders, settings.config)
        self.workspace.overlays.update(overlays)
        return self.full_analysis()

    # -- reading ----------------------------------------------------------------------

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
        source = self.workspace._parse(path, text, python=True)
        assert isinstance(source, PySource)
        return source

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
