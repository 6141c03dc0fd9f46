"""How the server's builds read their files (ServerLoader): each skill's analysis kept while it holds, the builds that
share their analyses with the process pool, the bounded walks, the near model, and the head start.

Everything here is synchronous and protocol-free; the session (session.py) calls it from the worker thread.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .. import forks, parallel
from ..analysis import Analysis, Context, Deps, Job, analysis_context, deps_hold, file_stamp
from ..config import Config, max_files_of, walk_exclude
from ..discovery import Bounded, Listing, walk_nearest
from ..exclusion import keeping, kept_from_exclusion
from ..index import Model, SkillEntry, SkillFacts, SkillJob
from ..model import Finding
from ..outcome import is_recent
from ..parallel import Analyser
from ..pathtext import within
from ..roots import speculative_jobs
from ..trace import phase
from ..workspace import Workspace
from .early import Walked

log = logging.getLogger("skill_lsp.server")


# files of the model answering requests while the first index runs (NearIndex)
PRELIMINARY_FILES = 100
# skills analysed between two progress reports of a large index
PROGRESS_EVERY = 500
# The head start forks its child from this many skills, fewer than a build does (parallel.PARALLEL_FROM):
# this process then imports the protocol for a third of a second, time in which the child analyses
# some 3,000 skills, and a fork costs a few milliseconds (200 skills: 20 ms of analysis). At 1,000
# skills the server's start went from 0.77 to 0.68 s, and from 0.83 to 0.79 s, in two runs of ten
# alternating starts (medians).
HEAD_START_FROM = 200


@dataclass
class _Analysis:
    """A SKILL.md's own analysis, valid while its file (size, mtime), its context and the directories
    its rules looked into are unchanged."""

    stamp: tuple[int, int] | None
    context: Context
    facts: SkillFacts
    findings: list[Finding]
    deps: Deps


class Superseded(Exception):
    """Raised in a build whose result a later change of folders or settings makes obsolete (see
    ServerLoader.superseded): the build stops, and the session keeps the model it had."""


class ServerLoader:
    """How the server's builds read its workspace's files (a workspace.Loader). A SKILL.md that is not open keeps only its facts and the findings of its own
    rules, as `check`'s cache does (the same analysis, cache.analyse_skill): its parse is dropped once
    analysed and read again when a feature needs it, so 10,000 skills do not hold 10,000 parses. The
    analyses serve the next models while still valid.

    A build that analyses many skills (the first index, a new folder or new settings) shares them
    with the process pool as `check` does (parallel.Analyser): on Linux, from parallel.PARALLEL_FROM
    skills on, one worker per core but one (SKILL_LSP_CHILDREN lowers that), started on the skills whose
    place is known while this process parses the Python files. parallel.py says why forking the
    server's analysis thread is safe; the workers end with the server (forks.stop_children, and the
    kernel's death signal).

    The near model's loader (near=True) walks for NEAR_WALK_SECONDS at most, reads only small files
    nobody has open, and keeps no directories its analyses looked into."""

    def __init__(self, workspace: Workspace, near: bool = False) -> None:
        self.workspace = workspace
        # (the near model's walk is bounded in time, and takes small files only)
        self.near = near
        self.walk_seconds: float | None = NEAR_WALK_SECONDS if near else None
        self._analyses: dict[Path, _Analysis] = {}
        self.analyser = Analyser(0)  # a build's (see build)
        self.forked = 0  # the child processes the last build forked
        # the head start (start_early): its analyser, for the first build, and when its walk began
        self.early: Analyser | None = None
        self.walked_at: int | None = None
        # folders whose walk stopped at the limit of files (config max_files), and where
        self.bounded: dict[Path, Bounded] = {}
        self._anchors: dict[Path, set[Path]] = {}  # the open files a folder's walk started from
        # told, from the analysis thread, when a folder's walk ended and how far the analysis is
        # (message, percentage): a large index reports progress; see Session.report
        self.walked: Callable[[], None] | None = None
        # whether analyses record the directories they looked into: to tell, in a later model,
        # whether they still hold (the near model's are never reused past a change)
        self.with_deps = not near
        self.report: Callable[[str, int | None], None] | None = None
        # whether the build under way is obsolete (Session.superseded): looked at in its walk, as the
        # analyses arrive and between slices of Python files, where it stops with Superseded
        self.superseded: Callable[[], bool] = not_superseded

    def _go_on(self) -> None:
        if self.superseded():
            raise Superseded()

    def listing(self, workspace: Workspace, folder: Path) -> Listing:
        """The walk of folder, bounded by max_files: a workspace folder of / or of a home directory
        holds far more files than an editor session should take on. The open files' directories
        come first."""
        overlays = workspace.overlays
        exclude = walk_exclude(folder, workspace.settings)
        # an open file in an excluded folder is checked with the roots and agents around it: its
        # excluded subtree is walked too (and walked again when that changes)
        keep = kept_from_exclusion(folder, exclude, sorted(overlays)) if exclude and overlays else ()
        if folder not in workspace.listings or workspace.kept.get(folder, ()) != keep:
            with phase("walk"):
                near = sorted(overlays)
                deadline = time.monotonic() + self.walk_seconds if self.walk_seconds is not None else None
                # (a walk of 40,000 directories out of the page cache took 14-34 s: a change of folders
                # meanwhile stops it, and it is not kept)
                listing, bounded = walk_nearest(folder, keeping(exclude, keep), max_files_of(folder, workspace.settings),
                                                near, deadline, roots_first=self.walk_seconds is not None,
                                                abandoned=self.superseded)
            self._go_on()
            self._anchors[folder] = set(near)
            workspace.kept[folder] = keep
            workspace.listings[folder] = listing
            if bounded is None:
                self.bounded.pop(folder, None)
            else:
                self.bounded[folder] = bounded
            if self.walked is not None:
                self.walked()
        listing = workspace.listings[folder]
        if self.near:
            listing = replace(listing, skill_files=[path for path in listing.skill_files if self._small(path)],
                              python_files=[path for path in listing.python_files if self._small(path)])
        return listing

    def _small(self, path: Path) -> bool:
        if path in self.workspace.overlays:
            return True
        try:
            return path.stat().st_size <= NEAR_FILE_BYTES
        except OSError:
            return False

    def unwalked(self, path: Path) -> bool:
        """Whether path (an open file) lies in a bounded folder whose walk did not start from it: the
        walk may have stopped before its neighbours (its skills root) were reached."""
        return any(within(path, folder) and path not in self._anchors.get(folder, ()) for folder in self.bounded)

    def start_early(self, walked: Walked) -> bool:
        """The head start (see head_start): take the walk of the folders serve() made (early.walk_folders)
        and start the pool on the skills whose place is known; the first build takes both. False (and
        nothing kept) when it would not pay."""
        workspace = self.workspace
        if sorted(walked.listings) != sorted(workspace.folders):
            return False
        self.walked_at = walked.at
        for folder, listing in walked.listings.items():  # as listing() keeps a walk from no open file
            workspace.listings[folder] = listing
            workspace.kept[folder] = ()
            self._anchors[folder] = set()
        self.analyser = Analyser(forks.children_available())
        model, skill_paths, _, directories = workspace.gather(self)
        workspace.built()
        self._start_children(workspace, model, skill_paths, directories, HEAD_START_FROM)
        if self.analyser.early is None:
            return False
        self.early, self.analyser = self.analyser, Analyser(0)
        return True

    def rescan(self) -> None:
        """The folders are walked again at the next build (not the head start's walk: it serves the first)."""
        if self.early is None:
            self.workspace.rescan()

    def discard_early(self) -> None:
        if self.early is not None:
            self.early.close()
            self.early = None

    def build(self) -> Model:
        """A new model of the workspace, built with this loader (the head start's pool taken, if any)."""
        early, self.early = self.early, None
        self.analyser = early if early is not None else Analyser(forks.children_available() if not self.near else 0)
        try:
            return self.workspace.build(self)
        finally:
            self.forked = self.analyser.forked
            self.analyser.close()  # no worker outlives the build, whatever ended it
            self.analyser = Analyser(0)

    def prepare(self, workspace: Workspace, model: Model, skill_paths: list[tuple[Path, Path]], directories: set[str]) -> None:
        """A build with no analysis to reuse (the first index): the pool starts on the skills whose place
        is known already while this process parses the Python files (load_skills takes the early
        analyses that hold for the final jobs)."""
        self._start_children(workspace, model, skill_paths, directories, parallel.PARALLEL_FROM)

    def _start_children(self, workspace: Workspace, model: Model, skill_paths: list[tuple[Path, Path]],
                        directories: set[str], least: int) -> None:
        """prepare's, from `least` skills on."""
        if (len(skill_paths) < least or self._analyses or not self.analyser.children
                or self.analyser.early is not None):  # (started by the head start already)
            return
        with phase("start workers"):
            jobs: list[Job] = [(job, model.config_for(job.path, workspace.settings), True)
                               for job in speculative_jobs(workspace, model, skill_paths, directories)
                               if job.path not in workspace.overlays]
            self.analyser.start_early(jobs, least)

    def load_pythons(self, workspace: Workspace, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
        with phase("parse python"):
            for start in range(0, len(python_paths), _POLL_EVERY):
                self._go_on()
                workspace.read_pythons(model, python_paths[start : start + _POLL_EVERY])

    def load_skills(self, workspace: Workspace, model: Model, jobs: list[SkillJob]) -> None:
        kept: dict[Path, _Analysis] = {}  # those of this model's skills: a removed skill's analysis goes
        with phase("parse skills"):
            # each job, with its analysis when the one known still holds
            placed: list[tuple[SkillJob, _Analysis | None]] = []
            misses: list[Job] = []
            wanted: dict[Path, tuple[tuple[int, int] | None, Context]] = {}  # a miss's stamp and context
            # a context by the identity of its parts: there are a handful, and making one per skill
            # cost more than the lookup
            contexts: dict[tuple[object, ...], Context] = {}
            for job in jobs:
                if job.path in workspace.overlays:  # open: its parse serves hovers, completions and edits
                    placed.append((job, None))
                    continue
                config = model.config_for(job.path, workspace.settings)
                identity = (id(job.root), id(config), job.profile, job.misnamed, job.external)
                context = contexts.get(identity)
                if context is None:
                    context = contexts[identity] = analysis_context(job, config)
                stamp = file_stamp(job.path)  # before the file is read: a later change then shows
                known = self._analyses.get(job.path)
                if known is None or known.stamp != stamp or known.context != context or not deps_hold(known.deps):
                    misses.append((job, config, self.with_deps))
                    wanted[job.path] = stamp, context
                    known = None
                placed.append((job, known))
            # each new analysis makes its entry as soon as it is here (while children still work, as
            # check's do); the model takes them in the jobs' order below
            made: dict[Path, tuple[_Analysis, SkillEntry]] = {}
            progress = self._progress(len(misses))

            def take(job: SkillJob, result: Analysis) -> None:
                progress()
                if not isinstance(result, str):
                    stamp, context = wanted[job.path]
                    analysis = _Analysis(stamp, context, *result)
                    made[job.path] = analysis, workspace.analysed_entry(job, analysis.facts, analysis.findings)

            analysed = self.analyser.analyse(misses, take) if misses else {}
            now = time.time_ns()
            for job, known in placed:  # the model takes the entries in the jobs' order
                if job.path in workspace.overlays:
                    workspace.read_skills(model, [job])
                    continue
                if known is None:
                    result = analysed[str(job.path)]
                    if isinstance(result, str):
                        model.unreadable[job.path] = result
                        continue
                    known, entry = made[job.path]
                else:
                    entry = workspace.analysed_entry(job, known.facts, known.findings)
                # not kept when changed within the clock's granularity: a later change may not move its mtime
                if _settled(known, now):
                    kept[job.path] = known
                model.skills[job.path] = entry
        self._analyses = kept

    def _progress(self, total: int) -> Callable[[], None]:
        """What is called as each analysis arrives: every PROGRESS_EVERY of a large index, it says how
        far it is."""
        done = 0

        def arrived() -> None:
            nonlocal done
            done += 1
            if done % _POLL_EVERY == 0:
                self._go_on()
            if self.report is not None and total > PROGRESS_EVERY and done % PROGRESS_EVERY == 0:
                self.report(f"analysing skills: {done:,} of {total:,}", done * 100 // total)

        return arrived

    def forget(self, path: Path) -> None:
        """path's analysis, not kept (the workspace forgets its text and parse: Workspace.forget)."""
        self._analyses.pop(path, None)


# Python files parsed between two looks at what the children sent
_POLL_EVERY = 32


def not_superseded() -> bool:
    """Session.superseded outside a job of the server: no build is obsolete."""
    return False


def _settled(analysis: _Analysis, now: int) -> bool:
    """Kept only when nothing it depends on changed within the clock's granularity (as of now), as in
    check's cache."""
    mtimes = [mtime for _, mtime in analysis.deps]
    if analysis.stamp is not None:
        mtimes.append(analysis.stamp[1])
    return not any(is_recent(mtime, now) for mtime in mtimes)


# Bytes of a file the near model reads, unless it is open: a workspace of / or of a home directory
# has large generated or test files near anything, and the near model is wanted within a request's
# time (one 290 KB Python file in /tmp took it from 0.1 to 0.43 s, measured).
NEAR_FILE_BYTES = 64 * 1024
# Seconds the near model's walk may take: a directory of 20,000 empty directories beside the open
# file took it 0.6 s (measured), and the first request about an open file waits for that model
NEAR_WALK_SECONDS = 0.2


class NearIndex:
    """While the first index runs: models of the open documents and the few files nearest them, so
    that requests about open files are answered before the whole workspace is indexed. Their
    findings are never published (an unknown name may be known to the full index). It shares
    nothing with the session: it is used on a thread of its own while the worker indexes. While
    the same documents are open, the next model walks nothing again and parses only what changed."""

    def __init__(self, limit: int = PRELIMINARY_FILES) -> None:
        self.limit = limit
        self.loader: ServerLoader | None = None
        self.made_for: tuple[tuple[Path, ...], Config, tuple[Path, ...]] | None = None

    def model(self, folders: list[Path], config: Config, texts: dict[Path, str]) -> Model:
        key = (tuple(folders), config, tuple(sorted(texts)))
        if self.loader is None or self.made_for != key:
            self.loader = ServerLoader(Workspace(folders, replace(config, max_files=self.limit)), near=True)
            self.made_for = key
        overlays = self.loader.workspace.overlays
        overlays.clear()
        overlays.update(texts)
        return self.loader.build()


# the head start serve() took (head_start), for the first Session on the same folders and settings
_head: ServerLoader | None = None


def head_start(folders: list[Path], config: Config, walked: Walked) -> bool:
    """serve()'s head start, before the protocol's modules are imported (half a second) and before any
    thread exists: given the walk of the folders initialize named (early.walk_folders), fork children
    on the skills whose place is known, for the first index to take (Session). Whether it started."""
    global _head
    started = time.perf_counter()
    workspace = ServerLoader(Workspace(folders, config))
    if not workspace.start_early(walked):
        log.debug("no head start (%.0f ms)", (time.perf_counter() - started) * 1000)
        return False
    _head = workspace
    early = workspace.early.early if workspace.early is not None else None  # (its jobs)
    log.debug("head start: %d skills given to %d child processes in %.0f ms", len(early) if early else 0,
              workspace.early.forked if workspace.early is not None else 0, (time.perf_counter() - started) * 1000)
    return True


def take_head_start(folders: list[Path], config: Config) -> ServerLoader | None:
    """The head start, when it was taken for these folders and settings (else its children are stopped)."""
    global _head
    head, _head = _head, None
    if head is None:
        return None
    if head.workspace.folders == [Path(os.path.abspath(folder)) for folder in folders] and head.workspace.settings == config:
        return head
    head.discard_early()
    return None
