"""Skill analyses shared with the standard library's process pool (`ProcessPoolExecutor`, fork context): check's and the server's large builds, started early on the skills whose place is known, then the rest.

A batch's jobs are cut into chunks, the pieces of a `pool.Deal`. The pool's workers are forked at its
first submit with that batch's jobs in memory (a fork shares them as they are: a chunk is sent as two
numbers); jobs placed later are sent whole. The workers are given chunks from the front; this
process, once its own work is done (reading the code files), takes from the back every chunk no
worker was given, so neither waits for the other at the end, and a chunk whose worker died (a broken
pool) is analysed here too. Each chunk's analyses reach the caller as soon as they are here (`take`),
while the workers are still at work. `pool.py` says how the workers die with their parent and why
forking the server's analysis thread is safe: every module an analysis uses is imported before the
fork (`ready_for_children`).
"""

from __future__ import annotations

from collections.abc import Callable

from . import forks
from .analysis import Analysis, Job, Packed, analyse_skill, pack, unpack
from .forks import death_signal
from .index import Root, SkillJob
from .pool import Deal, Piece, Pool, running, stop_pools

__all__ = ["PARALLEL_FROM", "Analyser", "ready_for_children", "running", "stop_pools"]

# Below this many files a pool costs more than the second core saves.
PARALLEL_FROM = 1000
# Skills per chunk (about 14 ms of analysis): small enough that no process waits long for the last one,
# large enough that the workers seldom wait for the next. A chunk's result is taken, and the next chunk
# given, by this process's pool threads, which wait for the interpreter lock while this process reads the
# code files: at 64 skills (3 to 4 ms) a worker stood idle 90-210 ms of a 10,000-skill check for them
# (docs/performance.md, "Chunks of 256").
CHUNK = 256
MAX_CHUNKS = 1024

# The jobs the workers of the pool being started inherit (set only while it forks them).
_inherited: list[Job] = []


def _analyse_inherited(start: int, end: int) -> list[Packed]:
    """(In a worker) a chunk of the jobs it was forked with."""
    return [pack(analyse_skill(*job)) for job in _inherited[start:end]]


def _analyse_sent(jobs: list[Job]) -> list[Packed]:
    """(In a worker) a chunk of jobs placed after the fork, sent to it."""
    return [pack(analyse_skill(*job)) for job in jobs]


def ready_for_children() -> None:
    """Import now what a skill's analysis imports on its first use: a worker forked from a threaded
    process (the server) must import nothing, since another thread may hold a module's import lock
    at the fork."""
    from .runtimes import runtime

    runtime("agentdeck")
    death_signal()


class _Chunk:
    """Jobs analysed together: early ones (the pool's workers hold them from the fork on, from
    `start`), or placed later (sent)."""

    __slots__ = ("early", "jobs", "start")

    def __init__(self, jobs: list[Job], early: bool, start: int) -> None:
        self.jobs = jobs
        self.early = early
        self.start = start


def _chunks(jobs: list[Job], early: bool) -> list[_Chunk]:
    size = max(CHUNK, -(-len(jobs) // MAX_CHUNKS))
    return [_Chunk(jobs[start : start + size], early, start) for start in range(0, len(jobs), size)]


class Analyser:
    """The skill analyses of one build, shared with a process pool when there are many (check's and
    the server's): those started early, on the skills whose place is known once the tree is walked
    (start_early), and the final misses (analyse), which take the early analyses that hold for them
    and give the rest to the same pool."""

    def __init__(self, children: int, nice: int | None = None) -> None:
        self.children = children
        self.nice = forks.child_nice if nice is None else nice
        self.pool: Pool | None = None
        self.deal: Deal[_Chunk] | None = None
        self.early: list[Job] | None = None  # the jobs started early
        self.forked = 0  # workers forked so far
        self.lost = 0  # chunks a worker that died left to this process

    def start_early(self, jobs: list[Job], least: int | None = None) -> None:
        """The pool starts on jobs while this process goes on (reading the code files), when there
        are at least `least` of them (PARALLEL_FROM)."""
        least = PARALLEL_FROM if least is None else least
        if len(jobs) >= least and self.children:
            self.early = jobs
            self._submit(_chunks(jobs, True), jobs)

    def _submit(self, chunks: list[_Chunk], jobs: list[Job]) -> None:
        """Each chunk to the pool, started here (its workers forked with jobs in memory) if it is not yet."""
        if self.pool is None:
            global _inherited
            ready_for_children()
            try:
                self.pool = Pool(self.children, self.nice)
            except (OSError, RuntimeError):
                return  # no process to be had: this process does it all
            self.deal = Deal(self.pool, self.children + 1)
            _inherited = jobs
            try:  # the first piece given forks the workers
                self.deal.add(Piece(chunk, _analyse_inherited, chunk.start, chunk.start + len(chunk.jobs)) for chunk in chunks)
            finally:
                _inherited = []
            self.forked += self.children
        elif self.deal is not None:
            self.deal.add(Piece(chunk, _analyse_sent, chunk.jobs) for chunk in chunks)

    def close(self) -> None:
        """Stop the pool (the build ended, or failed): workers still at work are killed."""
        pool, deal, self.pool, self.deal = self.pool, self.deal, None, None
        self.early = None
        if pool is not None:
            pool.close(kill=deal is not None and deal.close())

    def analyse(self, misses: list[Job], take: Callable[[SkillJob, Analysis], None]) -> dict[str, Analysis]:
        """The misses' analyses, by their path's text (a string keeps its hash; a Path computes it on
        first use): those started early for the same job, the rest now. take(job, analysis) is
        called with the final job for each as soon as it is here."""
        held, rest = _EarlyJobs(self.early or []).split(misses)
        chunks = _chunks(rest, False)
        if rest and (self.deal is not None or (len(rest) >= PARALLEL_FROM and self.children)):
            self._submit(chunks, rest)
        deal = self.deal
        if deal is None:  # no pool: this process does them all
            deal = Deal(None, 0)
            deal.add(Piece(chunk, _analyse_sent, chunk.jobs) for chunk in chunks)
        analysed: dict[str, Analysis] = {}

        def finish(chunk: _Chunk, results: list[Analysis]) -> None:
            for item, result in zip(chunk.jobs, results, strict=True):
                job = item[0]
                text = str(job.path)
                if chunk.early:
                    final = held.get(text)
                    if final is None:
                        continue  # it does not hold for the final job
                    job = final
                analysed[text] = result
                take(job, result)

        deal.run(lambda piece: finish(piece.work, [analyse_skill(*job) for job in piece.work.jobs]),
                 lambda piece, packed: finish(piece.work, [unpack(item) for item in packed]))
        self.lost += deal.lost
        deal.lost = 0
        return analysed


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

