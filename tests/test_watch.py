"""The server's own file watcher asks the kernel only for the events that can change an analysis."""

from __future__ import annotations

from pathlib import Path

from watchdog.events import FileClosedNoWriteEvent, FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileOpenedEvent

from skill_lsp.server.watch import WorkspaceWatcher, relevant


def test_reads_of_the_workspace_are_not_watched(tmp_path: Path) -> None:
    """Opens and closes after reading would fill the kernel's queue whenever a tool reads the workspace
    (an overflow makes watchdog walk the whole tree again)."""
    watcher = WorkspaceWatcher([tmp_path], lambda paths: None)
    try:
        watches = list(watcher.observer._watches)  # the scheduled watches (not started: no thread, no events)
        assert watches
        for watch in watches:
            assert watch.event_filter is not None
            assert {FileCreatedEvent, FileModifiedEvent, FileDeletedEvent} <= watch.event_filter
            assert not {FileOpenedEvent, FileClosedNoWriteEvent} & watch.event_filter
    finally:
        watcher.stop()


def test_stopping_never_waits_for_the_watches_to_go(tmp_path: Path) -> None:
    """shutdown stops the watcher on the loop: the kernel removing the watches of a tree like /usr
    (about a second) happens on a thread of its own, and nothing is handed over after the stop."""
    import threading

    handed: list[Path] = []
    watcher = WorkspaceWatcher([tmp_path], handed.extend)
    release = threading.Event()
    watcher.observer.stop = lambda: release.wait(60)  # type: ignore[method-assign]
    stopped = threading.Event()
    threading.Thread(target=lambda: (watcher.stop(), stopped.set()), daemon=True).start()
    try:
        assert stopped.wait(30), "stop waited for the watches to go"
    finally:
        release.set()
    watcher.add(tmp_path / "SKILL.md")
    watcher._flush()
    assert handed == []


def test_claude_codes_project_settings_are_watched_and_other_settings_files_are_not(tmp_path: Path) -> None:
    """A project's .claude/settings.json and settings.local.json set its listing's budget and skillOverrides
    (LS101): a change on disk must reach the analysis; a .vscode/settings.json changes nothing."""
    assert relevant(str(tmp_path / ".claude" / "settings.json"))
    assert relevant(str(tmp_path / "sub" / ".claude" / "settings.local.json"))
    assert not relevant(str(tmp_path / ".vscode" / "settings.json"))
    assert not relevant(str(tmp_path / ".claude" / "notes.json"))
