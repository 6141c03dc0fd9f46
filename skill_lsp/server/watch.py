"""Watching the workspace from the server, for clients that cannot send didChangeWatchedFiles.

Editors that register our file watchers report creations, changes and deletions
themselves; for the others (Neovim before 0.10, simple clients) watchdog's
native watcher (inotify, FSEvents, ReadDirectoryChangesW) reports them instead,
so a skill directory deleted on disk still turns its agents red.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from ..config import CONFIG_FILES
from ..discovery import SKIP_DIRS
from ..pathtext import is_skill_filename
from ..runtimes.claude_code import SETTINGS_FILES
from ..tssource import is_script_name

log = logging.getLogger("skill_lsp.server")

# The events that can change an analysis. Asking only for these keeps opens and closes out of the
# kernel's queue: reading a workspace of 10,000 skills (a `check`, a `grep`, an indexer) otherwise
# overflows it, and watchdog answers an overflow by walking the whole tree again, in Python, under
# the GIL the analysis needs.
EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent, DirCreatedEvent, FileModifiedEvent, DirModifiedEvent, FileDeletedEvent, DirDeletedEvent,
    FileMovedEvent, DirMovedEvent,
]

# Quiet period before a batch of events is handed over: a `git checkout` or an
# `rm -r` becomes one re-analysis instead of hundreds.
SETTLE_SECONDS = 0.2


def relevant(path: str) -> bool:
    name = os.path.basename(path)
    if any(part in SKIP_DIRS for part in Path(path).parts):
        return False
    folder = os.path.basename(os.path.dirname(path))
    return (is_skill_filename(name) or name.endswith(".py") or name in (*CONFIG_FILES, "plugin.json", "marketplace.json") or "." not in name
            or is_script_name(name) or (name.endswith(".md") and folder == "agents")
            or (name in SETTINGS_FILES and folder == ".claude"))  # Claude Code's listing settings (LS101)


def _ignored(paths: list[Path]) -> None:
    """What a stopped watcher hands its last events to."""


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: WorkspaceWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed", "closed_no_write"):
            return
        paths = [event.src_path, getattr(event, "dest_path", "")]
        for raw in paths:
            path = os.fsdecode(raw) if raw else ""
            if path and (event.is_directory or relevant(path)):
                self.watcher.add(Path(os.path.abspath(path)))


class WorkspaceWatcher:
    """Batches file system events under folders and hands them to on_change (from a watcher thread)."""

    def __init__(self, folders: list[Path], on_change: Callable[[list[Path]], None]) -> None:
        self.on_change = on_change
        self.pending: set[Path] = set()
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        self.observer = Observer()
        self.observer.daemon = True
        handler = _Handler(self)
        for folder in folders:
            try:
                self.observer.schedule(handler, str(folder), recursive=True, event_filter=EVENTS)
            except OSError as error:  # e.g. out of inotify watches: the editor's saves still work
                log.warning("cannot watch %s: %s", folder, error)

    def start(self) -> None:
        try:
            self.observer.start()
        except OSError as error:
            log.warning("cannot watch the workspace: %s", error)

    def stop(self) -> None:
        """Stop handing events over, at once; the watches are removed on a thread of their own
        (closing the watches of a tree like /usr takes the kernel about a second: the loop that
        answers shutdown must not wait for it)."""
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
            self.on_change = _ignored

        def stop_observer() -> None:
            try:
                self.observer.stop()
            except Exception:  # stopping a watcher that never started
                pass

        threading.Thread(target=stop_observer, name="skill-lsp-unwatch", daemon=True).start()

    def add(self, path: Path) -> None:
        with self.lock:
            self.pending.add(path)
            if self.timer is not None:
                self.timer.cancel()
            self.timer = threading.Timer(SETTLE_SECONDS, self._flush)
            self.timer.daemon = True
            self.timer.start()

    def _flush(self) -> None:
        with self.lock:
            paths = sorted(self.pending)
            self.pending.clear()
            self.timer = None
            on_change = self.on_change
        if paths:
            on_change(paths)
