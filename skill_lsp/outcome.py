"""`skill-lsp check`'s whole outcome, reused when nothing it depended on changed.

Next to the per-file cache (cache.py), in the same directory: the findings, the unreadable
files and the counts of the last run, with the signature (size, mtime, ctime) of every walked
directory, file of interest, skill dependency and path looked up outside the tree. A
directory's mtime moves when an entry is added, removed or renamed in it, so an unchanged
tree is stat-ed, not walked; a file's ctime moves even when its mtime is put back. Nothing
here imports the parsers: a warm run loads this module, stats and prints.

Safe to lose, like the per-file cache: any load error means a full run; written to a
temporary file and renamed; not written when anything changed in the last seconds (a change
within the same timestamp tick would go unseen).
"""

from __future__ import annotations

import os
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .config import USER_AGENTS_ENV, USER_SKILLS_ENV, Config
from .model import Finding
from .trace import phase

CACHE_ENV = "SKILL_LSP_CACHE_DIR"
FORMAT = 8  # 8: facts say whether their spans' lines are ASCII (plain); 7: facts read Claude Code's recovered frontmatter; findings carry per-runtime verdicts; body references have a kind; PySource.notes, Call.agent_name, TypeScript and subagent files
# files modified this recently are analysed but not stored
RACY_SECONDS = 2.0


def cache_dir() -> Path | None:
    """Where the cache lives; None when SKILL_LSP_CACHE_DIR is set empty."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured).expanduser() if configured else None
    import platformdirs  # only when the cache is used: it costs start-up time

    return Path(platformdirs.user_cache_dir("skill-lsp", appauthor=False))


_CODE: str | None = None


def code_identity() -> str:
    """The installed code's identity: each module's name, size and mtime. The version alone does not change
    when the code does (an editable install, a clone between releases), and an analysis the rules of
    another code made must not be read back as this code's."""
    global _CODE
    if _CODE is None:
        import hashlib  # here: --no-cache never needs it, and its import (OpenSSL's) costs start-up 2 ms

        package = os.path.dirname(os.path.abspath(__file__))
        digest = hashlib.blake2b(digest_size=12)
        for directory, _, files in sorted(os.walk(package)):
            for name in sorted(files):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(directory, name))
                    digest.update(f"{directory[len(package):]}/{name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
        _CODE = digest.hexdigest()
    return _CODE


def header() -> tuple[object, ...]:
    # pickles of our classes are only read back by the same code on the same Python
    return ("skill-lsp-cache", FORMAT, __version__, code_identity(), sys.version_info[:2])


class SafeUnpickler(pickle.Unpickler):
    """Only the classes a cache holds: a foreign pickle fails to load instead of running code."""

    ALLOWED = frozenset({
        ("pathlib", "PosixPath"), ("pathlib", "PurePosixPath"), ("pathlib", "WindowsPath"),
        ("pathlib", "PureWindowsPath"), ("builtins", "set"), ("builtins", "frozenset"),
    })

    def find_class(self, module: str, name: str) -> type:
        if (module, name) in self.ALLOWED or module.startswith("skill_lsp."):
            found: type = super().find_class(module, name)
            return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a skill-lsp cache")


def save(path: Path, data: object) -> None:
    """Atomic: a temporary file beside the cache, then a rename over it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only a run that writes the cache pays for the import

        handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump((header(), data), out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # a read-only or full disk: the next run is cold, nothing worse


def is_recent(mtime_ns: int | None, started_ns: int) -> bool:
    """Modified so shortly before started_ns that a later change may keep the same timestamp."""
    return mtime_ns is not None and mtime_ns > started_ns - int(RACY_SECONDS * 1e9)


def folders_key(folders: list[Path]) -> str:
    """The name of a workspace's cache files: its folders, hashed."""
    import hashlib  # not for --no-cache: its import costs start-up time

    digest = hashlib.sha256("\0".join(str(folder) for folder in folders).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:24]


@dataclass
class Outcome:
    """What `check` reports of one workspace: every file's findings (configuration applied), the
    files that could not be read, and the counts of the summary line."""

    results: dict[Path, list[Finding]]
    unreadable: dict[Path, str]
    skills: int
    agents: int


Signature = tuple[int, int, int] | None  # size, mtime_ns, ctime_ns; None: not there


def _signature(path: str) -> Signature:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns


def _key(folders: list[Path], settings: Config) -> tuple[object, ...]:
    # everything outside the files that decides the outcome: the folders, the settings, and where
    # the user's own skills are looked for
    return ([str(folder) for folder in folders], settings, os.environ.get(USER_SKILLS_ENV), os.environ.get(USER_AGENTS_ENV),
            os.path.expanduser("~"))


def _outcome_file(location: Path, folders: list[Path]) -> Path:
    return location / f"{folders_key(folders)}.outcome.pickle"


def cached_outcome(location: Path, folders: list[Path], settings: Config) -> Outcome | None:
    """The last run's outcome when every path it depended on has the signature it had."""
    with phase("load outcome"):
        try:
            with _outcome_file(location, folders).open("rb") as handle:
                stored, data = SafeUnpickler(handle).load()
            key, paths, signatures, outcome = data
        except Exception:  # missing, corrupt, foreign: run in full
            return None
        if stored != header() or key != _key(folders, settings) or not isinstance(outcome, Outcome):
            return None
    with phase("compare outcome"):
        if not isinstance(paths, list) or not isinstance(signatures, list) or len(paths) != len(signatures):
            return None
        for path, signature in zip(paths, signatures, strict=True):
            if _signature(path) != signature:
                return None
    return outcome


def save_outcome(location: Path, folders: list[Path], settings: Config, paths: set[str], outcome: Outcome,
                 started_ns: int) -> None:
    ordered = sorted(paths)
    signatures = [_signature(path) for path in ordered]
    if any(signature is not None and is_recent(signature[1], started_ns) for signature in signatures):
        return
    save(_outcome_file(location, folders), (_key(folders, settings), ordered, signatures, outcome))
