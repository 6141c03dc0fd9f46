"""`skill-lsp check`'s persistent cache: what each file's own analysis found, reused while the file is unchanged.

One file per workspace folder in the user cache directory (`SKILL_LSP_CACHE_DIR`
relocates it; set it empty to turn the cache off). An entry is reused only when
the file's path, size and mtime_ns, the tool version and everything the file's
own rules depend on (its profile, root, configuration, and the directories its
links were resolved against) are unchanged; the cross-file rules always run.

Safe to lose: any load error (a corrupt, truncated, foreign or older file)
means an empty cache; writes go to a temporary file then `os.replace`, so a
concurrent reader sees the old file or the new one, never half of one. Files
changed in the last seconds are not stored (their mtime may not move on the
next edit), the way git treats "racily clean" entries.
"""

from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import forks, parallel
from .analysis import Analysis, Context, Deps, Job, Stamp, analysis_context, deps_hold, file_stamp, parse_python_file
from .codecalls import PySource
from .discovery import Listing
from .index import Model, PythonEntry, RawSpan, SkillEntry, SkillFacts, SkillJob
from .model import Finding
from .outcome import Outcome, SafeUnpickler, folders_key, header, is_recent, save, save_outcome
from .parallel import Analyser
from .roots import speculative_jobs
from .trace import phase
from .workspace import Workspace

# Plain tuples of ints and strings load at C speed; objects (spans, findings) would cost a
# Python call each, and there is one record per skill.
# size, mtime_ns, context index, name, name span, first line span, ignores, findings, deps
SkillRecord = tuple[int, int, int, "str | None", "RawSpan | None", RawSpan, dict[int, set[str]], list[Finding], Deps,
                    "str | None", bool, "str | None", bool]


@dataclass
class Store:
    contexts: list[Context] = field(default_factory=list)
    skills: dict[str, SkillRecord] = field(default_factory=dict)
    pythons: dict[str, tuple[Stamp, PySource]] = field(default_factory=dict)

    def context_index(self, context: Context) -> int:
        try:
            return self.contexts.index(context)
        except ValueError:
            self.contexts.append(context)
            return len(self.contexts) - 1


def _facts(record: SkillRecord) -> SkillFacts:
    return SkillFacts(record[3], record[4], record[5], record[6], record[9], record[10], record[11], record[12])


def load(path: Path) -> Store:
    try:
        with path.open("rb") as handle:
            data = handle.read()
        stored, store = SafeUnpickler(io.BytesIO(data)).load()
        if stored != header() or not isinstance(store, Store):
            return Store()
        return store
    except Exception:  # whatever is wrong with the file, the answer is "no cache"
        return Store()


class CheckLoader:
    """How one `check` run reads its files (a workspace.Loader): each file's analysis from the cache
    while it holds, the rest analysed with the process pool (parallel.Analyser), started early on the
    skills whose place is known while this process reads the code files."""

    def __init__(self, workspace: Workspace, location: Path | None = None) -> None:
        self.workspace = workspace
        self.location = location
        self.cache_file = location / f"{folders_key(workspace.folders)}.pickle" if location is not None else None
        self.started = time.time_ns()
        self.children = forks.children_available()
        self.analyser = Analyser(self.children)
        self.old = Store()
        self.new = Store()
        # something was analysed again, so the cache on disk is out of date
        self.dirty = False

    def build(self) -> Model:
        """The workspace's model, built with this loader (the per-file cache is read only now: a run
        that reuses its whole outcome never needs it)."""
        if self.cache_file is not None:
            with phase("load cache"):
                self.old = load(self.cache_file)
        try:
            return self.workspace.build(self)
        finally:
            self.analyser.close()
            self.analyser = Analyser(self.children)

    def listing(self, workspace: Workspace, folder: Path) -> Listing:
        return workspace.walked(folder, self.children)

    def prepare(self, workspace: Workspace, model: Model, skill_paths: list[tuple[Path, Path]], directories: set[str]) -> None:
        """A cold run of a large workspace: the pool starts on the skills whose place is already known
        while this process reads the code files (load_skills checks each against its final job)."""
        if len(skill_paths) < parallel.PARALLEL_FROM or self.old.skills or not self.children:
            return
        with phase("start workers"):
            jobs = [(job, model.config_for(job.path, workspace.settings), self.cache_file is not None)
                    for job in speculative_jobs(workspace, model, skill_paths, directories)]
            self.analyser.start_early(jobs)

    def _recent(self, mtime_ns: int | None) -> bool:
        return is_recent(mtime_ns, self.started)

    def load_pythons(self, workspace: Workspace, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
        with phase("parse python"):
            placed: list[tuple[Path, Path, Stamp | None, PySource | None]] = []
            for path, folder in python_paths:
                if self.cache_file is None:  # --no-cache: nothing to compare with or to store
                    placed.append((path, folder, None, None))
                    continue
                stamp = file_stamp(path)
                if stamp is None:
                    continue
                known = self.old.pythons.get(str(path))
                placed.append((path, folder, stamp, known[1] if known is not None and known[0] == stamp else None))
            misses = [path for path, _, _, source in placed if source is None]
            if misses:
                self.dirty = True
            # here, not in the workers: a parse costs about what pickling it back would
            parsed: dict[Path, PySource | str] = {}
            for path in misses:
                parsed[path] = parse_python_file(path)
            for path, folder, stamp, known_source in placed:
                result = known_source if known_source is not None else parsed[path]
                if isinstance(result, str):  # skipped, and the CLI says why
                    model.unreadable[path] = result
                    continue
                if stamp is not None and not self._recent(stamp[1]):
                    self.new.pythons[str(path)] = (stamp, result)
                if result.calls or result.notes:
                    model.pythons[path] = PythonEntry(path, result, folder)

    def load_skills(self, workspace: Workspace, model: Model, jobs: list[SkillJob]) -> None:
        with phase("parse skills"):
            old_contexts = {context: index for index, context in enumerate(self.old.contexts)}
            # (old index, new index) of a context, by the identity of its parts: hashing a Config
            # and a Path for every skill would cost more than the lookup saves
            known: dict[tuple[object, ...], tuple[int | None, int]] = {}
            placed: list[tuple[SkillJob, Stamp | None, int, SkillRecord | None]] = []
            misses: list[Job] = []
            caching = self.cache_file is not None
            for job in jobs:
                config = model.config_for(job.path, workspace.settings)
                if not caching:  # --no-cache: nothing to compare with or to store
                    misses.append((job, config, False))
                    placed.append((job, None, 0, None))
                    continue
                key = str(job.path)
                stamp = file_stamp(key)
                identity = (id(job.root), id(config), job.profile, job.misnamed, job.external)
                indexes = known.get(identity)
                if indexes is None:
                    context = analysis_context(job, config)
                    indexes = known[identity] = (old_contexts.get(context), self.new.context_index(context))
                record = self.old.skills.get(key)
                if not (record is not None and stamp is not None and record[0] == stamp[0] and record[1] == stamp[1]
                        and indexes[0] == record[2] and deps_hold(record[8])):
                    record = None
                    misses.append((job, config, True))
                placed.append((job, stamp, indexes[1], record))
            if misses:
                self.dirty = True
            # each new analysis made an entry as soon as it is here (while children still work);
            # the model takes them in the jobs' order below
            made: dict[str, SkillEntry] = {}

            def take(job: SkillJob, result: Analysis) -> None:
                if not isinstance(result, str):
                    hash(job.path)  # a Path keeps its hash: the model's dict below then only looks it up
                    made[str(job.path)] = workspace.analysed_entry(job, result[0], result[1])

            analysed = self.analyser.analyse(misses, take)
            for job, stamp, context_index, record in placed:  # the model takes the entries in the jobs' order
                text = str(job.path)
                facts: SkillFacts
                if record is not None:
                    facts, findings, deps = _facts(record), record[7], record[8]
                    entry = workspace.analysed_entry(job, facts, findings)
                else:
                    result = analysed[text]
                    if isinstance(result, str):  # skipped, and the CLI says why
                        model.unreadable[job.path] = result
                        continue
                    facts, findings, deps = result
                    entry = made[text]
                model.skills[job.path] = entry
                if stamp is not None:  # not --no-cache
                    self._store(text, stamp, context_index, facts, findings, deps)

    def _store(self, key: str, stamp: Stamp, context_index: int, facts: SkillFacts, findings: list[Finding],
               deps: Deps) -> None:
        """A skill's analysis into the cache written at the end, unless it or a directory it looked into
        changed too recently to trust its mtime."""
        if not self._recent(stamp[1]) and not any(self._recent(mtime) for _, mtime in deps):
            self.new.skills[key] = (stamp[0], stamp[1], context_index, facts.name, facts.name_span_raw,
                                    facts.first_line_raw, facts.ignores, findings, deps, facts.description, facts.plain,
                                    facts.when_to_use, facts.unlisted)

    # -- the whole outcome ------------------------------------------------------------

    def save_outcome(self, model: Model, outcome: Outcome) -> None:
        """Store the outcome with the signature of everything it was built from (see outcome.py)."""
        builder = self.workspace.builder
        if self.location is None or builder is None:
            return
        if len(self.new.skills) != len(model.skills):
            return  # some skill was too recent to store: so is the outcome
        with phase("save outcome"):
            paths: set[str] = set(builder.consulted)
            for listing in self.workspace.listings.values():
                paths.update(listing.directories)
                paths.update(str(path) for path in listing.skill_files + listing.python_files + listing.pyprojects)
                paths.update(str(path) for path in listing.unreadable)
            for path in model.skills:
                paths.add(str(path))
                paths.add(os.path.dirname(str(path)))
            paths.update(str(folder) for folder in self.workspace.folders)
            for record in self.new.skills.values():
                paths.update(directory for directory, _ in record[8])
            save_outcome(self.location, self.workspace.folders, self.workspace.settings, paths, outcome, self.started)


    def save(self) -> None:
        unchanged = not self.dirty and self.new.skills.keys() == self.old.skills.keys() and (
            self.new.pythons.keys() == self.old.pythons.keys())
        if self.cache_file is not None and not unchanged:
            with phase("save cache"):
                save(self.cache_file, self.new)
