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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, NoReturn

from . import forks
from .codefiles import parse_code
from .config import Config
from .discovery import path_of
from .index import Model, PythonEntry, RawSpan, Root, SkillEntry, SkillFacts, SkillJob, Workspace
from .model import Finding
from .outcome import Outcome, SafeUnpickler, folders_key, header, is_recent, save, save_outcome
from .pysource import PySource
from .rules.report import Reporter
from .rules.skills import check_skill
from .skillfile import parse_skill
from .textutil import FileTooLarge, read_text, unreadable_reason
from .trace import phase

Stamp = tuple[int, int]  # size, mtime_ns
# directory -> its mtime_ns when the entry was made (None: it did not exist)
Deps = tuple[tuple[str, "int | None"], ...]


# Plain tuples of ints and strings load at C speed; objects (spans, findings) would cost a
# Python call each, and there is one record per skill.
# size, mtime_ns, context index, name, name span, first line span, ignores, findings, deps
SkillRecord = tuple[int, int, int, "str | None", "RawSpan | None", RawSpan, dict[int, set[str]], list[Finding], Deps,
                    "str | None", bool]


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
    return SkillFacts(record[3], record[4], record[5], record[6], record[9], record[10])


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
    skill = SkillEntry(job.path, parsed, job.root, job.profile, misnamed=job.misnamed, external=job.external)
    reporter = Reporter(config, parsed.ignores)
    listed: dict[str, set[str] | None] = {}
    check_skill(None, skill, reporter, listed)
    if not with_deps:
        return skill.facts, reporter.findings, ()
    directories = set(listed)
    if reporter.findings:
        # quick fixes look at the skill's siblings, SK202's suggestions at its whole tree
        directories.add(str(skill.directory.parent))
        if any(finding.code == "SK202" for finding in reporter.findings):
            for base, _, _ in os.walk(skill.directory):
                directories.add(base)
    deps = tuple((directory, _dir_mtime(directory)) for directory in sorted(directories))
    return skill.facts, reporter.findings, deps


Analysis = tuple[SkillFacts, list[Finding], Deps] | str
# An analysis as a child process sends it: plain tuples, which pickle at C speed (name, name span,
# first line span, ignores, findings, deps, description), or why the file could not be read.
Packed = tuple[str | None, RawSpan | None, RawSpan, dict[int, set[str]], list[Finding], Deps, str | None, bool] | str
Job = tuple[SkillJob, Config, bool]  # the skill, its configuration, whether its deps are wanted
# Below this many files a fork costs more than the second core saves.
PARALLEL_FROM = 1000
# Skills per chunk: small enough that no process waits long for the last one, large enough that
# taking a chunk (one read of a pipe) costs nothing next to analysing it.
CHUNK = 64
# A chunk number is four bytes in a pipe, all written before the fork: a pipe holds at least a page
# (4 KiB; 64 KiB unless the user's pipes have used up their share), so the write never waits.
MAX_CHUNKS = 1024


def _pack(result: Analysis) -> Packed:
    if isinstance(result, str):
        return result
    facts, findings, deps = result
    return facts.name, facts.name_span_raw, facts.first_line_raw, facts.ignores, findings, deps, facts.description, facts.plain


def _unpack(packed: Packed) -> Analysis:
    if isinstance(packed, str):
        return packed
    name, name_span, first_line, ignores, findings, deps, description, plain = packed
    facts = SkillFacts(name, name_span, first_line, ignores, description, plain)
    return facts, findings, deps


def parse_python_file(path: Path) -> PySource | str:
    """A code file's parse (Python, TypeScript/JavaScript, a subagent file), or why it could not be read."""
    try:
        text = read_text(path)
    except (OSError, FileTooLarge) as error:
        return unreadable_reason(error)
    return parse_code(text, PurePath(path))


# What a child streams at a time: enough chunks that a message's overhead is nothing, few enough
# that the parent takes the analyses in while the child is still at work.
CHUNKS_PER_MESSAGE = 4


class Batch:
    """Skill analyses shared by this process and children forked with the jobs in memory.

    The chunks' numbers wait in a pipe, four bytes each, written before the fork: every process
    reads four bytes to take the next chunk (a pipe read holds the pipe's lock, so two processes
    never take the same one), and an empty pipe ends the work. The processes so share the chunks
    out as they go, this one joining in once it is done with its own work (results()). A child
    streams what it analysed, pickled, through a pipe of its own every few chunks, and this
    process takes it in between its own chunks (poll): the analyses reach the caller while the
    child is still at work, not all at its end. Whatever a child took and never sent (it was
    killed) is analysed here."""

    def __init__(self, jobs: list[Job], children: int, growing: bool = False) -> None:
        self.jobs = jobs
        self.size = max(CHUNK, -(-len(jobs) // MAX_CHUNKS))
        self.ranges = _ranges(0, len(jobs), self.size)  # each chunk's jobs: (start, end)
        self.streams: list[forks.Stream] = []
        self.parts: dict[int, list[Analysis]] = {}
        self.fresh: list[int] = []  # chunks taken in and not yet handed to the caller
        self.done: list[Analysis] | None = None
        self.queue = -1
        # while the batch may grow (see grow()): the queue's write end, and the write end of each
        # child's pipe for the jobs a growth adds; a child holds the read end of its own (more)
        self.feed = -1
        self.growth: list[int] = []
        self.more = -1
        if children <= 0:
            return
        queue, feed = os.pipe()
        try:
            os.write(feed, forks.numbers(0, self.count))
        except BaseException:
            os.close(feed)
            os.close(queue)
            raise
        self.queue = queue
        self.feed = feed
        for _ in range(children):
            more = forks.wide_pipe() if growing else None
            if growing and more is None:
                break
            forked = forks.fork()
            if forked is None:
                if more is not None:
                    os.close(more[0])
                    os.close(more[1])
                break  # no more processes to be had: fewer hands, same work
            pid, pipe = forked
            if pid == 0:
                # only the parent adds to the queue and sends jobs: the queue's end then reads as such
                for end in [self.feed, *self.growth, *([more[1]] if more is not None else [])]:
                    os.close(end)
                self.feed, self.growth = -1, []
                self.more = more[0] if more is not None else -1
                self._child(pipe)
            if more is not None:
                os.close(more[0])
                self.growth.append(more[1])
            self.streams.append(forks.Stream(forked))
        if not (growing and self.streams):
            self.seal()  # an empty queue then reads as the end, not as a wait

    @property
    def count(self) -> int:
        return len(self.ranges)

    def grow(self, jobs: list[Job]) -> bool:
        """Add jobs to a batch made `growing`, for its children and this process to share out as they
        share the first ones (check's jobs known only once the Python files are read): no second fork
        of a grown process, whose every page it then writes would be copied. The jobs go to each child
        through a pipe of its own before their chunks' numbers join the queue; False (and nothing
        added) when the batch has no child left to grow or the jobs would not fit a pipe at once."""
        message = _framed_jobs(jobs)
        if self.feed < 0 or not self.growth or any(len(message) > forks.capacity(end) for end in self.growth):
            return False
        for end in self.growth:
            try:
                forks.write_all(end, message)
            except OSError:
                pass  # the child is gone: the parent does what it took
        first = self.count
        self.ranges += _ranges(len(self.jobs), len(self.jobs) + len(jobs), self.size)
        self.jobs = self.jobs + jobs
        forks.write_all(self.feed, forks.numbers(first, self.count))
        self.seal()
        return True

    def seal(self) -> None:
        """No more jobs: the queue's end reads as the end once its numbers are taken."""
        for end in [self.feed, *self.growth]:
            if end >= 0:
                os.close(end)
        self.feed, self.growth = -1, []

    def _chunk(self, index: int) -> list[Job]:
        start, end = self.ranges[index]
        return self.jobs[start:end]

    def _receive(self) -> bool:
        """(In a child) the jobs grow() sent, added as the parent added them; False if none came whole."""
        jobs = _read_jobs(self.more)
        if jobs is None:
            return False
        self.ranges += _ranges(len(self.jobs), len(self.jobs) + len(jobs), self.size)
        self.jobs = self.jobs + jobs
        return True

    def _child(self, sink: int) -> NoReturn:
        try:
            sender = forks.Sender(sink)
            done: dict[int, list[Packed]] = {}
            while (index := forks.take_number(self.queue)) is not None:
                if index >= self.count and not (self._receive() and index < self.count):
                    break  # what it took is then done by the parent
                done[index] = [_pack(analyse_skill(*job)) for job in self._chunk(index)]
                if len(done) >= CHUNKS_PER_MESSAGE:
                    sender.send(done)
                    done = {}
                else:
                    sender.flush()
            if done:
                sender.send(done)
        except BaseException:
            forks.fail()
        sender.finish()

    def poll(self) -> None:
        """Take in what the children have streamed so far, without waiting."""
        for stream in self.streams:
            for message in stream.poll():
                self._take_in(message)

    def _take_in(self, message: object) -> None:
        """A child's message: {chunk number: its packed analyses}; anything else in it is left for
        this process to analyse."""
        if not isinstance(message, dict):
            return
        for index, chunk in message.items():
            if (not isinstance(index, int) or not 0 <= index < self.count or index in self.parts
                    or not isinstance(chunk, list) or len(chunk) != self.ranges[index][1] - self.ranges[index][0]):
                continue
            try:
                self.parts[index] = [_unpack(item) for item in chunk]
            except (TypeError, ValueError):
                continue
            self.fresh.append(index)

    def _analysed(self, index: int) -> None:
        self.parts[index] = [analyse_skill(*job) for job in self._chunk(index)]
        self.fresh.append(index)

    def results(self, on_chunk: Callable[[list[Job], list[Analysis]], None] | None = None,
                between: Callable[[], None] | None = None) -> list[Analysis]:
        """Every job's analysis, in the jobs' order. on_chunk(jobs, analyses) is called once for each
        chunk as soon as its analyses are here (this process's own, or a child's), in no set order;
        between() after each chunk this process analyses (to take in other batches' results)."""
        if self.done is not None:
            return self.done
        self.seal()  # nothing more can come once this process joins in

        def hand_over() -> None:
            fresh, self.fresh = self.fresh, []
            if on_chunk is not None:
                for index in fresh:
                    on_chunk(self._chunk(index), self.parts[index])

        if self.queue >= 0:
            while (index := forks.take_number(self.queue)) is not None:
                self._analysed(index)
                self.poll()
                if between is not None:
                    between()
                hand_over()
            os.close(self.queue)
            self.queue = -1
            streams, self.streams = self.streams, []
            for stream in streams:
                for message in stream.drain():
                    self._take_in(message)
            hand_over()
        for index in range(self.count):
            if index not in self.parts:  # no child (or it died with it)
                self._analysed(index)
        hand_over()
        self.done = [analysis for index in range(self.count) for analysis in self.parts[index]]
        return self.done

    def close(self) -> None:
        """Stop and reap the children (an error or an interrupt before results())."""
        self.seal()
        for stream in self.streams:
            stream.stop()
        self.streams = []
        if self.queue >= 0:
            os.close(self.queue)
            self.queue = -1


def _ranges(start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Jobs start to end in chunks of size: (start, end) of each."""
    return [(first, min(first + size, end)) for first in range(start, end, size)]


def _framed_jobs(jobs: list[Job]) -> bytes:
    """Jobs as grow() sends them to a child: the roots and configurations once each, a path by its
    text (a pickled Path is parsed again when loaded), framed as forks.framed frames a message."""
    roots: dict[int, int] = {}
    configs: dict[int, int] = {}
    root_list: list[Root | None] = []
    config_list: list[Config] = []
    items = []
    for job, config, deps in jobs:
        root = roots.get(id(job.root))
        if root is None:
            root = roots[id(job.root)] = len(root_list)
            root_list.append(job.root)
        number = configs.get(id(config))
        if number is None:
            number = configs[id(config)] = len(config_list)
            config_list.append(config)
        items.append((str(job.path), root, job.profile, job.misnamed, job.external, number, deps))
    return forks.framed((root_list, config_list, items))


def _read_jobs(pipe: int) -> list[Job] | None:
    """(In a child) the jobs _framed_jobs framed, from the parent; None if they did not come whole."""
    try:
        message: Any = forks.read_framed(pipe)
        if message is None:
            return None
        roots: list[Root | None] = message[0]
        configs: list[Config] = message[1]
        return [(SkillJob(path_of(text), roots[root], profile, misnamed, external), configs[config], deps)
                for text, root, profile, misnamed, external, config, deps in message[2]]
    except Exception:  # a child without its jobs leaves them to the parent
        return None


class _EarlyJobs:
    """The jobs analysed early, looked up by a final job: an early analysis holds for it when the
    file, its context and the wish for deps are the same. Roots and configurations are compared
    once per pair of objects (there are a handful; comparing Paths per skill cost 4 µs each)."""

    def __init__(self, jobs: list[Job]) -> None:
        self.jobs = {str(job[0].path): job for job in jobs}
        self.pairs: dict[tuple[int, int], bool] = {}
        # (early root, final root, early configuration, final configuration) -> all the same
        self.contexts: dict[tuple[int, int, int, int], bool] = {}

    def split(self, finals: list[Job]) -> tuple[dict[str, SkillJob], list[Job]]:
        """The final jobs whose early analysis holds (by their path's text), and the rest."""
        held: dict[str, SkillJob] = {}
        rest: list[Job] = []
        jobs = self.jobs
        for final in finals:
            job = final[0]
            text = str(job.path)
            early = jobs.get(text)
            if early is not None and self._holds(early, final):
                held[text] = job
            else:
                rest.append(final)
        return held, rest

    def _holds(self, early: Job, final: Job) -> bool:
        job, old = final[0], early[0]
        if (job.profile, job.misnamed, job.external, final[2]) != (old.profile, old.misnamed, old.external, early[2]):
            return False
        key = (id(old.root), id(job.root), id(early[1]), id(final[1]))
        same = self.contexts.get(key)
        if same is None:
            same = self.contexts[key] = self._same(old.root, job.root) and self._same(early[1], final[1])
        return same

    def _same(self, early: object, final: object) -> bool:
        if early is final:
            return True
        key = (id(early), id(final))
        same = self.pairs.get(key)
        if same is None:
            if isinstance(early, Root) and isinstance(final, Root):
                same = (early.path, early.prefix) == (final.path, final.prefix)
            else:
                same = early == final
            self.pairs[key] = same
        return same


def ready_for_children() -> None:
    """Import now what a skill's analysis imports on its first use: a child forked from a threaded
    process (the server) must import nothing, since another thread may hold a module's import lock
    at the fork (forks.py says which locks a child leaves alone)."""
    from .runtimes import runtime

    runtime("agentdeck")


class Analyser:
    """The skill analyses of one workspace build, shared with forked children when there are many
    (check's and the server's): those started early, on the skills whose place is known once the
    tree is walked (start_early), and the final misses (analyse), which take the early analyses
    that hold for them and add the rest to the same children's work where they can."""

    def __init__(self, children: int) -> None:
        self.children = children
        # analyses started before the final jobs were known
        self.early: Batch | None = None
        self.batches: list[Batch] = []  # to stop, should the build end early
        self.forked = 0  # children forked so far

    def start_early(self, jobs: list[Job], least: int | None = None) -> None:
        """Children start on jobs while this process goes on (reading the Python files), when there
        are at least `least` of them (PARALLEL_FROM)."""
        least = PARALLEL_FROM if least is None else least
        if len(jobs) >= least and self.children:
            self.early = self._batch(jobs, growing=True, least=least)

    def poll(self) -> None:
        """Take in what the early children have streamed so far (between this process's own files)."""
        if self.early is not None:
            self.early.poll()

    def close(self) -> None:
        """Stop and reap every child left (the build ended, or failed)."""
        for batch in self.batches:
            batch.close()
        self.batches = []
        self.early = None

    def _batch(self, jobs: list[Job], growing: bool = False, least: int | None = None) -> Batch:
        least = PARALLEL_FROM if least is None else least  # (read now: tests set PARALLEL_FROM)
        children = self.children if len(jobs) >= least else 0
        if children:
            ready_for_children()
        batch = Batch(jobs, children, growing)
        self.forked += len(batch.streams)
        self.batches.append(batch)
        return batch

    def analyse(self, misses: list[Job], take: Callable[[SkillJob, Analysis], None]) -> dict[str, Analysis]:
        """The misses' analyses, by their path's text (a string keeps its hash; a Path computes it on
        first use): those started early for the same job, the rest now. take(job, analysis) is
        called with the final job for each as soon as it is here."""
        held, rest = _EarlyJobs(self.early.jobs if self.early is not None else []).split(misses)
        # the rest start now, beside what is left of the early ones: added to the early batch where
        # it can grow, else in a batch of their own
        grown: set[int] = set()
        if rest and self.early is not None and self.early.grow(rest):
            grown = {id(job) for job in rest}
            rest = []
        if self.early is not None:
            # before any other fork: a child holding the early queue's write end would keep it from
            # ever reading as ended
            self.early.seal()
        batch = self._batch(rest) if rest else None
        analysed: dict[str, Analysis] = {}

        def early_chunk(jobs: list[Job], results: list[Analysis]) -> None:
            for item, result in zip(jobs, results, strict=True):
                job = item[0]
                text = str(job.path)
                if id(item) in grown:  # a final job itself
                    analysed[text] = result
                    take(job, result)
                    continue
                final = held.get(text)
                if final is not None:  # it holds for the final job
                    analysed[text] = result
                    take(final, result)

        def rest_chunk(jobs: list[Job], results: list[Analysis]) -> None:
            for (job, _, _), result in zip(jobs, results, strict=True):
                analysed[str(job.path)] = result
                take(job, result)

        if self.early is not None:
            # between its own chunks this process also takes in what the rest's children streamed
            self.early.results(early_chunk, batch.poll if batch is not None else None)
        if batch is not None:
            batch.results(rest_chunk)
        return analysed


class CachedWorkspace(Workspace):
    """A workspace for one `check` run: file analyses come from the cache when still valid."""

    def __init__(self, folders: list[Path], settings: Config | None = None, location: Path | None = None) -> None:
        super().__init__(folders, settings)
        self.location = location
        self.cache_file = location / f"{folders_key(self.folders)}.pickle" if location is not None else None
        self.started = time.time_ns()
        self.children = self.walk_helpers = forks.children_available()
        self.analyser = Analyser(self.children)
        self.old = Store()
        self.new = Store()
        # something was analysed again, so the cache on disk is out of date
        self.dirty = False

    def build(self) -> Model:
        # the per-file cache is read only now: a run that reuses its whole outcome never needs it
        if self.cache_file is not None:
            with phase("load cache"):
                self.old = load(self.cache_file)
        try:
            return super().build()
        finally:
            self.analyser.close()
            self.analyser = Analyser(self.children)

    def prepare(self, model: Model, skill_paths: list[tuple[Path, Path]], directories: set[str]) -> None:
        """A cold run of a large workspace: child processes start on the skills whose place is already
        known while this process reads the Python files (load_skills checks each against its final job)."""
        if len(skill_paths) < PARALLEL_FROM or self.old.skills or not self.children:
            return
        with phase("start workers"):
            jobs = [(job, model.config_for(job.path, self.settings), self.cache_file is not None)
                    for job in self.speculative_jobs(model, skill_paths, directories)]
            self.analyser.start_early(jobs)

    def _recent(self, mtime_ns: int | None) -> bool:
        return is_recent(mtime_ns, self.started)

    def load_pythons(self, model: Model, python_paths: list[tuple[Path, Path]]) -> None:
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
            for number, path in enumerate(misses, 1):
                parsed[path] = parse_python_file(path)
                if number % 32 == 0:
                    self.analyser.poll()  # take in what the child has analysed so far
            for path, folder, stamp, known_source in placed:
                result = known_source if known_source is not None else parsed[path]
                if isinstance(result, str):  # skipped, and the CLI says why
                    model.unreadable[path] = result
                    continue
                if stamp is not None and not self._recent(stamp[1]):
                    self.new.pythons[str(path)] = (stamp, result)
                if result.calls or result.notes:
                    model.pythons[path] = PythonEntry(path, result, folder)

    def load_skills(self, model: Model, jobs: list[SkillJob]) -> None:
        with phase("parse skills"):
            old_contexts = {context: index for index, context in enumerate(self.old.contexts)}
            # (old index, new index) of a context, by the identity of its parts: hashing a Config
            # and a Path for every skill would cost more than the lookup saves
            known: dict[tuple[object, ...], tuple[int | None, int]] = {}
            placed: list[tuple[SkillJob, Stamp | None, int, SkillRecord | None]] = []
            misses: list[tuple[SkillJob, Config, bool]] = []
            caching = self.cache_file is not None
            for job in jobs:
                config = model.config_for(job.path, self.settings)
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
                    made[str(job.path)] = self.analysed_entry(job, result[0], result[1])

            analysed = self.analyser.analyse(misses, take)
            for job, stamp, context_index, record in placed:  # the model takes the entries in the jobs' order
                text = str(job.path)
                facts: SkillFacts
                if record is not None:
                    facts, findings, deps = _facts(record), record[7], record[8]
                    entry = self.analysed_entry(job, facts, findings)
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
                                    facts.first_line_raw, facts.ignores, findings, deps, facts.description, facts.plain)

    # -- the whole outcome ------------------------------------------------------------

    def save_outcome(self, model: Model, outcome: Outcome) -> None:
        """Store the outcome with the signature of everything it was built from (see outcome.py)."""
        if self.location is None or self.builder is None:
            return
        if len(self.new.skills) != len(model.skills):
            return  # some skill was too recent to store: so is the outcome
        with phase("save outcome"):
            paths: set[str] = set(self.builder.consulted)
            for listing in self._listings.values():
                paths.update(listing.directories)
                paths.update(str(path) for path in listing.skill_files + listing.python_files + listing.pyprojects)
                paths.update(str(path) for path in listing.unreadable)
            for path in model.skills:
                paths.add(str(path))
                paths.add(os.path.dirname(str(path)))
            paths.update(str(folder) for folder in self.folders)
            for record in self.new.skills.values():
                paths.update(directory for directory, _ in record[8])
            save_outcome(self.location, self.folders, self.settings, paths, outcome, self.started)


    def save(self) -> None:
        unchanged = not self.dirty and self.new.skills.keys() == self.old.skills.keys() and (
            self.new.pythons.keys() == self.old.pythons.keys())
        if self.cache_file is not None and not unchanged:
            with phase("save cache"):
                save(self.cache_file, self.new)
