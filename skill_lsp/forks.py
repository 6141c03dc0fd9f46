"""The shared walk's forked helpers (Linux): each walks on from the fork and streams what it finds back through a pipe of its own.

discovery.walk forks its helpers in the middle of a walk: a fork shares the walk's state as it is
(its stack, the directories seen), which no pool's task could be handed at that point. A helper runs
only skill-lsp's code, writes nothing but its pipe (messages through a Sender, then the end mark with
finish), and ends with os._exit: never the parent's exit handlers, buffers or cleanup. What it sends
is read back (Stream) with the cache's class-restricted Unpickler; whatever a helper that dies did
not send whole, the parent walks again itself. The skills' analyses go to the standard process pool
instead (parallel.py over pool.py), which takes its death signal and its count of workers from here.

Children never outlive the process that forked them: each asks the kernel for SIGKILL when its
parent ends (PR_SET_PDEATHSIG, set in the child before it does anything else), and stop_children
kills those still running, and the pools' workers, when the process ends on purpose (the server's exit).

Forking a threaded process (the server): the child holds only the forking thread, and any lock
another thread held at the fork stays held in it forever. So a helper touches none that another
thread may hold: it never writes stdout or stderr (fork() flushes both before forking, and os._exit
leaves the child's copies of the buffers unwritten), never logs and imports nothing.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from .outcome import SafeUnpickler

Child = tuple[int, int]  # pid, the read end of its results pipe

# Limits the children of a batch or a walk (a number; 0: none, every analysis in this process).
CHILDREN_ENV = "SKILL_LSP_CHILDREN"

# pids forked and not yet reaped (stop_children kills them); a pid leaves the set before it is reaped,
# so a pid here is never one the system has given to another process since
_live: set[int] = set()
# prctl(PR_SET_PDEATHSIG, SIGKILL), looked up before the first fork (ctypes is imported only then)
_PR_SET_PDEATHSIG = 1
_prctl: Any = None
# The niceness children add to their parent's (the server's: on a busy machine its analysis thread,
# which answers the editor's requests, comes before the children helping it)
child_nice = 0


def children_available() -> int:
    """How many child processes a batch may fork: one per core but one (this process is the last
    worker). On Linux a fork shares the loaded modules and the jobs, so a child starts in a
    millisecond; a spawned interpreter would not pay. Elsewhere, or on one core, none."""
    if sys.platform != "linux":
        return 0
    cores = len(os.sched_getaffinity(0))
    available = max(0, min(cores - 1, 3))
    limit = os.environ.get(CHILDREN_ENV, "").strip()
    if limit.isdigit():
        available = min(available, int(limit))
    return available


def stop_children() -> None:
    """Kill every child still running (the process is about to end): from any thread, at any time."""
    for pid in list(_live):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for stop in stoppers:
        stop()


def _death_signal() -> Any:
    """libc's prctl, found once in the parent (a child must not import: see the module docstring)."""
    global _prctl
    if _prctl is None:
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (ImportError, OSError, AttributeError):
            _prctl = False
    return _prctl


def fork() -> tuple[int, int] | None:
    """Fork here: in the parent (the child's pid, the read end of its pipe), in the child (0, the
    write end); None when no process (or pipe) can be had."""
    sys.stdout.flush()
    sys.stderr.flush()
    death_signal()  # looked up now: the child must not import
    parent = os.getpid()
    try:
        results, sink = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(results)
        os.close(sink)
        return None
    if pid == 0:
        _live.clear()  # the parent's other children are not this one's to stop
        # the forking thread is the child's main thread (CPython makes it so), where signal() works
        start_child(parent, child_nice, signal.SIG_DFL)  # an interrupt ends a helper quietly
        os.close(results)
        return 0, sink
    _live.add(pid)
    os.close(sink)
    return pid, results


def death_signal() -> Any:
    """libc's prctl for PR_SET_PDEATHSIG, looked up once in the parent (a child must not import); False
    where there is none."""
    return _death_signal() if sys.platform == "linux" else False


def start_child(parent: int, nice: int, interrupt: Any) -> None:
    """A new child's first steps (a walk's helper, a pool's worker): killed when its parent ends,
    however it ends (the kernel sends the signal when the thread that forked ends: the server forks
    from its analysis thread, which lives as long as the process), at `nice` more than its parent,
    SIGINT handled as `interrupt` says."""
    prctl = death_signal()
    if prctl:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)
    if nice:
        try:
            os.nice(nice)
        except OSError:
            pass
    signal.signal(signal.SIGINT, interrupt)


def live_pids() -> set[int]:
    """The helpers forked and not yet reaped."""
    return set(_live)


# What else stop_children stops (parallel.py adds its pools' workers)
stoppers: list[Callable[[], None]] = []


def fail() -> NoReturn:
    """A child's end when its work failed: nothing more sent (the parent does the rest itself)."""
    os._exit(1)


# A streamed message: its length in four bytes, then its pickle; a length of 0 ends the stream.
_LENGTH = struct.Struct("<I")
# Work shared out through a pipe: each number four bytes, taken with one read (a pipe read holds the
# pipe's lock, so no two processes take the same one).
_NUMBER = struct.Struct("<I")
NUMBER_SIZE = _NUMBER.size


def numbers(first: int, end: int) -> bytes:
    """The numbers first to end (excluded) as a pipe of work holds them."""
    return struct.pack(f"<{end - first}I", *range(first, end))


def take_number(pipe: int) -> int | None:
    """The next number from a pipe of work; None once it is empty (and its write ends closed)."""
    try:
        data = os.read(pipe, _NUMBER.size)
    except OSError:
        return None
    return int(_NUMBER.unpack(data)[0]) if len(data) == _NUMBER.size else None


# A child may stream this much ahead of a parent busy with other work before a write waits (the
# pipe's default 64 KiB would make it wait while the parent parses the Python files).
PIPE_SIZE = 1 << 20
_READ = 1 << 16  # bytes a read asks for (os.read allocates what it asks for)


def framed(data: object) -> bytes:
    """One message as a stream carries it: its pickle's length, then the pickle."""
    payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(payload)) + payload


class Sender:
    """A child's stream to its parent that never keeps it from working: what the pipe cannot take now
    (the parent is busy elsewhere: the server imports its protocol while the children of its head
    start work) waits in memory, and goes at the next send or at the end (finish, which waits)."""

    def __init__(self, sink: int) -> None:
        self.sink = sink
        self.backlog: list[bytes] = []
        self.sent = 0  # of the backlog's first message
        os.set_blocking(sink, False)

    def send(self, data: object) -> None:
        self.backlog.append(framed(data))
        self.flush()

    def flush(self) -> None:
        """Write what the pipe takes without waiting."""
        while self.backlog:
            first = self.backlog[0]
            try:
                self.sent += os.write(self.sink, memoryview(first)[self.sent :])
            except BlockingIOError:
                return
            if self.sent >= len(first):
                self.backlog.pop(0)
                self.sent = 0

    def finish(self) -> NoReturn:
        """Everything left, waiting for the parent to read it, then the end mark and exit."""
        status = 1
        try:
            os.set_blocking(self.sink, True)
            if self.backlog:
                write_all(self.sink, memoryview(self.backlog[0])[self.sent :])
                for message in self.backlog[1:]:
                    write_all(self.sink, message)
            status = 0
        finally:
            if status:
                os._exit(status)
        finish(self.sink)


def _widen(pipe: int) -> None:
    import fcntl

    try:
        fcntl.fcntl(pipe, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    except OSError:
        pass  # over the user's pipe allowance: the writer waits for reads instead


def finish(sink: int) -> NoReturn:
    """A streaming child's end: the end mark, then exit."""
    status = 1
    try:
        write_all(sink, _LENGTH.pack(0))
        os.close(sink)
        status = 0
    finally:
        os._exit(status)


def write_all(sink: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(sink, view) :]


class Stream:
    """A streaming child's messages, read as they come without waiting (poll), or to its end (drain)."""

    def __init__(self, child: Child) -> None:
        self.pid, self.pipe = child
        self.buffer = bytearray()
        self.closed = False
        self.ended = False  # the end mark came: the child finished, everything it sent is here
        _widen(self.pipe)  # else the child waits for reads while the parent is busy
        os.set_blocking(self.pipe, False)

    def poll(self) -> list[object]:
        """The messages complete so far."""
        while not self.closed:
            try:
                data = os.read(self.pipe, _READ)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            if not data:
                self._close()
                break
            self.buffer += data
        return self._messages()

    def drain(self) -> list[object]:
        """Every message left, once the child has exited (it is reaped here)."""
        if not self.closed:
            os.set_blocking(self.pipe, True)
            chunks = [bytes(self.buffer)]
            while True:
                try:
                    data = os.read(self.pipe, _READ)
                except OSError:
                    data = b""
                if not data:
                    break
                chunks.append(data)
            self.buffer = bytearray(b"".join(chunks))
            self._close()
        return self._messages()

    def _close(self) -> None:
        self.closed = True
        os.close(self.pipe)
        _live.discard(self.pid)
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass

    def _messages(self) -> list[object]:
        messages: list[object] = []
        buffer = self.buffer
        start = 0
        while len(buffer) - start >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(buffer, start)
            if length == 0:  # the end mark: nothing follows
                self.ended = True
                start = len(buffer)
                break
            if len(buffer) - start - _LENGTH.size < length:
                break  # the rest of it is still on its way
            payload = bytes(buffer[start + _LENGTH.size : start + _LENGTH.size + length])
            start += _LENGTH.size + length
            try:
                messages.append(SafeUnpickler(io.BytesIO(payload)).load())
            except Exception:  # not what a child of ours sends: ignored, and its part done here
                continue
        del buffer[:start]
        return messages

    def stop(self) -> None:
        """Kill and reap the child (its results are no longer wanted)."""
        if not self.closed:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            self._close()
