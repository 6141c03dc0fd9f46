"""The server's head start: the first message read before the protocol's modules are imported.

Importing pygls and lsprotocol takes about half a second, and an editor sends `initialize` as soon
as it spawns the server. So on stdio, before that import and before any thread exists, serve()
reads the first frame itself, exactly as pygls would (the same header lines, the same body length),
and when it is an `initialize` naming workspace folders, walks them (walk_folders: with forked
helpers, as `check` walks, while this process imports the analysers) and forks the children of the
first index (indexing.head_start); the first Session takes both if its folders and settings are the
same (else it stops the children). Every byte read is then handed to pygls (Replay), so a first
message that is not `initialize`, is malformed or never ends is handled as any other. Replay also
stands between pygls and stdin when there is no head start: it makes safe what pygls' reader would
choke on (a header in another case, a claimed length of terabytes).
Nothing here imports pygls, or the analysers: modules the server imports only after this has run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote

from .. import forks
from ..config import Config, max_files_of, walk_exclude
from ..discovery import Listing, WalkStopped, walk, walk_nearest
from ..pathtext import within

log = logging.getLogger("skill_lsp.server")

# pygls' own header pattern (pygls.io_.run_async): the frame ends as pygls would end it
_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")
# an initialize is a few kilobytes; a longer first body is left to pygls to read
_MAX_BODY = 1 << 20
# Seconds the head start may walk (the editor waits for initialize's answer meanwhile, and a walk cut
# short is wasted): 10,000 skills take 0.17-0.3 s on a busy 2-core machine; a larger tree (or one over
# the file limit, whose walk must start from the open files) is walked by the first index alone
HEAD_START_WALK = 0.6
# Seconds of the protocol's import, done while the helpers walk, that move that deadline (so that a
# busy machine's slow import does not cost the head start): initialize is answered a second after
# the process starts at the latest
HEAD_START_IMPORT_GRACE = 0.4


# JSON nested deeper than this is no LSP message: its deeper values are read as null (Python's json
# module recurses, and a message nested 100,000 deep could not be decoded at all: an initialize so
# nested went unanswered, and the editor waited for the server for good)
MAX_DEPTH = 100
# a string (escapes included), or a bracket
_JSON_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}]')


def shallow(body: bytes) -> bytes:
    """body with every value nested deeper than MAX_DEPTH replaced by null (body itself when none is:
    a message with no more than MAX_DEPTH brackets is not even scanned). Only for a body json could
    not decode (RecursionError): a scan of megabytes takes tens of milliseconds."""
    if body.count(b"{") + body.count(b"[") <= MAX_DEPTH:
        return body
    tokens = [(match.start(), match.end(), body[match.start()]) for match in _JSON_TOKEN.finditer(body)
              if body[match.start()] != 0x22]
    depth = deepest = 0
    for _, _, char in tokens:
        depth += 1 if char in (0x7B, 0x5B) else -1
        deepest = max(deepest, depth)
    if deepest <= MAX_DEPTH:
        return body
    log.warning("a message nested %d levels deep: what is deeper than %d is read as null", deepest, MAX_DEPTH)
    kept: list[bytes] = []
    depth = last = 0
    cut: int | None = None
    for start, end, char in tokens:
        if char in (0x7B, 0x5B):
            depth += 1
            if depth == MAX_DEPTH + 1:
                cut = start
        else:
            if depth == MAX_DEPTH + 1 and cut is not None:
                kept += (body[last:cut], b"null")
                last, cut = end, None
            depth -= 1
    kept.append(body[last:])
    return b"".join(kept)


class Replay:
    """stdin for pygls (readline and read are all its reader calls, from one thread): the bytes read
    ahead first, then the stream itself, and what pygls' reader would choke on made safe. A
    Content-Length header is matched in any case and spacing (pygls matches `Content-Length: N`
    exactly, and a client writing `content-length:` went unanswered for good); a header line is read
    up to MAX_LINE bytes at a time; a body longer than MAX_MESSAGE is read and dropped in slices (pygls
    would ask for all of it at once: a claimed length of 10^12 bytes ended the process)."""

    def __init__(self, ahead: bytes, stream: BinaryIO) -> None:
        self.ahead = ahead
        self.stream = stream

    def readline(self) -> bytes:
        if self.ahead:
            end = self.ahead.find(b"\n")
            if end >= 0:
                line, self.ahead = self.ahead[: end + 1], self.ahead[end + 1 :]
                return _header(line)
            line, self.ahead = self.ahead, b""
            return _header(line + self.stream.readline(MAX_LINE))
        return _header(self.stream.readline(MAX_LINE))

    def read(self, size: int = -1) -> bytes:
        if size > MAX_MESSAGE:
            return self._drop(size)
        if self.ahead:
            if size < 0:
                data, self.ahead = self.ahead, b""
                return data + self.stream.read()
            data, self.ahead = self.ahead[:size], self.ahead[size:]
            if len(data) < size:
                data += self.stream.read(size - len(data))
            return data
        return self.stream.read(size)

    def _drop(self, size: int) -> bytes:
        """Read size bytes and keep none: an empty JSON body pygls logs and skips, or b"" at the end
        of the stream (pygls then ends, as the client is gone)."""
        log.warning("a message of %d bytes, more than the %d read: dropped", size, MAX_MESSAGE)
        left = size
        if self.ahead:
            taken = min(left, len(self.ahead))
            self.ahead, left = self.ahead[taken:], left - taken
        while left > 0:
            chunk = self.stream.read(min(left, 1 << 20))
            if not chunk:
                return b""
            left -= len(chunk)
        return b"null"

    def __getattr__(self, name: str) -> Any:  # close(), fileno() and the like: the stream's
        return getattr(self.stream, name)


class ReadAhead:
    """pygls' reader of stdin (its readline and readexactly, awaited by its message loop) without a
    thread handoff per call. pygls runs each read on its thread pool: four round trips a message
    between the loop and a worker thread, the loop mostly waiting for them (2,000 file events in one
    write took 1.8 s to read). Here a thread of its own reads the client's frames as pygls would (its
    header lines, up to a blank line after a Content-Length; then that many bytes) from a Replay, and
    queues each piece; the loop takes them as they come, waiting only when none is queued. The thread
    stops reading ahead once QUEUED bytes wait, until the loop takes them. A piece already queued is
    taken without waiting, so the loop hands itself over (a bare yield) once it has read for SLICE
    seconds on end: else 2,000 file events queued at once were read and handled in one step of the
    loop (0.3-0.7 s), and the requests among them waited for it to end before their own timers ran."""

    QUEUED = 16 << 20
    SLICE = 0.02

    def __init__(self, source: Replay) -> None:
        self.source = source
        self.pieces: deque[tuple[bytes, float]] = deque()  # each with when it was read
        self.queued = 0
        self.lock = threading.Condition()
        self.waiting: asyncio.Future[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.last = b""  # the piece the loop took last: the body pygls decodes, when it fails to
        self.reading_since = 0.0  # when the loop last waited or handed itself over
        self.last_read = 0.0  # when the piece the loop took last was read from the client

    def _start(self) -> None:
        if self.thread is None:
            self.loop = asyncio.get_running_loop()
            self.thread = threading.Thread(target=self._read, name="skill-lsp-stdin", daemon=True)
            self.thread.start()

    def _read(self) -> None:
        length = 0
        while True:
            line = self.source.readline()
            self._put(line)
            if not line:
                return
            if not length:
                match = _CONTENT_LENGTH.fullmatch(line)
                if match:
                    length = int(match.group(1))
            if length and not line.strip():
                body = self.source.read(length)
                self._put(body)
                if not body:
                    return
                length = 0

    def _put(self, piece: bytes) -> None:
        with self.lock:
            while self.queued > self.QUEUED:
                self.lock.wait()
            self.pieces.append((piece, time.monotonic()))
            self.queued += len(piece)
            waiting, self.waiting = self.waiting, None
        if waiting is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(_wake, waiting)

    async def _take(self) -> bytes:
        self._start()
        if time.monotonic() - self.reading_since > self.SLICE:
            await asyncio.sleep(0)
            self.reading_since = time.monotonic()
        while True:
            with self.lock:
                if self.pieces:
                    piece, self.last_read = self.pieces.popleft()
                    self.last = piece
                    self.queued -= len(piece)
                    self.lock.notify()
                    return piece
                assert self.loop is not None
                waiting = self.waiting = self.loop.create_future()
            await waiting
            self.reading_since = time.monotonic()

    def readline(self) -> Awaitable[bytes]:
        return self._take()

    def readexactly(self, n: int) -> Awaitable[bytes]:
        return self._take()


def _wake(waiting: asyncio.Future[None]) -> None:
    if not waiting.done():
        waiting.set_result(None)


# the longest header line read at once, and the longest message read (an 8 MiB file, the most the
# server analyses, opened in the editor: a little more, or up to six times that for escapes)
MAX_LINE = 1 << 16
MAX_MESSAGE = 64 << 20
_ANY_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n", re.IGNORECASE)


def _header(line: bytes) -> bytes:
    """A Content-Length header line as pygls matches it, whatever its case and spacing."""
    match = _ANY_CONTENT_LENGTH.fullmatch(line)
    return line if match is None else b"Content-Length: " + match.group(1) + b"\r\n"


def read_first_frame(stream: BinaryIO) -> tuple[bytes, bytes | None]:
    """The bytes of the first message as pygls reads it (header lines up to the blank line after a
    Content-Length, then the body), and its body (None: the stream ended, or the body is too long to
    read ahead, and is left to pygls)."""
    read: list[bytes] = []
    length = 0
    while True:
        header = stream.readline(MAX_LINE)
        if not header:
            return b"".join(read), None
        read.append(header)
        if not length:
            match = _CONTENT_LENGTH.fullmatch(_header(header))
            if match:
                length = int(match.group(1))
        if length and not header.strip():
            break
    if length > _MAX_BODY:
        return b"".join(read), None
    body = stream.read(length)
    read.append(body)
    return b"".join(read), body if len(body) == length else None


def initialize_folders(body: bytes) -> tuple[list[Path], Any] | None:
    """The workspace folders an `initialize` request names (its workspaceFolders, else its rootUri),
    and its initializationOptions; None for any other message, or one naming no local folder."""
    try:
        message = json.loads(body)
    except RecursionError:
        try:
            message = json.loads(shallow(body))
        except (ValueError, RecursionError):
            return None
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize" or "id" not in message:
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    uris: list[object] = []
    folders = params.get("workspaceFolders")
    if isinstance(folders, list) and folders:
        uris = [folder.get("uri") if isinstance(folder, dict) else None for folder in folders]
    elif params.get("rootUri") is not None:
        uris = [params.get("rootUri")]
    paths = [_folder_path(uri) for uri in uris]
    if not paths or any(path is None for path in paths):
        return None  # whatever the protocol makes of it, the first index finds out
    return [path for path in paths if path is not None], params.get("initializationOptions")


def _folder_path(uri: object) -> Path | None:
    """A plain file:/// URI's path (pygls decodes the same way; a URI it would read otherwise only
    means the first Session does not take the head start)."""
    if not isinstance(uri, str) or not uri.startswith("file:///"):
        return None
    path = unquote(uri[len("file://") :])
    if "\x00" in path or not os.path.isdir(path):
        return None
    return Path(os.path.abspath(path))


@dataclass
class Walked:
    """The head start's walk: each folder's whole listing, and when the walk began (time.time_ns():
    a file changed since may have been missed by it, Session.index_since)."""

    at: int
    listings: dict[Path, Listing]


def walk_folders(folders: list[Path], config: Config, meanwhile: Callable[[], object] | None = None) -> Walked | None:
    """Each folder walked whole within HEAD_START_WALK seconds, its files no more than the server's
    limit (config.max_files_of), as ServerWorkspace walks a folder with no file open; None when it would
    not pay: a folder of / or holding a home directory (a walk of seconds, and a bounded one), one over the
    limit (the walk that counts starts from the open files, not known yet) or one cut short by the
    deadline. `meanwhile` is done once: while the first walk's forked helpers walk (discovery.walk's),
    else after the walks."""
    home = Path.home()
    if any(folder == Path(folder.anchor) or within(home, folder) for folder in folders):
        return None
    done: list[float] = []  # how long meanwhile took, once done

    def once() -> None:
        if not done and meanwhile is not None:
            began = time.monotonic()
            meanwhile()
            done.append(time.monotonic() - began)

    at = time.time_ns()
    deadline = time.monotonic() + HEAD_START_WALK
    listings: dict[Path, Listing] = {}
    for folder in folders:
        folder = Path(os.path.abspath(folder))
        # (the deadline bounds the walking: the walk of the folder meanwhile was done in moved its own)
        listing = _walk_whole(folder, walk_exclude(folder, config), max_files_of(folder, config),
                              deadline + min(sum(done), HEAD_START_IMPORT_GRACE), once)
        if listing is None:
            return None
        listings[folder] = listing
    once()
    return Walked(at, listings)


def _walk_whole(folder: Path, exclude: tuple[str, ...], limit: int, deadline: float,
                meanwhile: Callable[[], object]) -> Listing | None:
    """The whole folder's listing, shared with forked helpers as `check`'s walk is, or None (over the
    limit of files, found by one of its processes or by all, or still under way at deadline). The
    listing is the one walk_nearest makes of a whole tree, in the same order; a folder reached through
    a symlink is left to walk_nearest, which keeps the real paths of the links below it."""
    if os.path.realpath(folder) != str(folder):
        listing, bounded = walk_nearest(folder, exclude, limit, [], deadline)
        return listing if bounded is None else None
    try:
        listing = walk(folder, exclude, forks.children_available(), meanwhile=meanwhile, deadline=deadline,
                       limit=limit + 1, meanwhile_grace=HEAD_START_IMPORT_GRACE)
    except WalkStopped:
        return None
    files = len(listing.skill_files) + len(listing.python_files) + len(listing.pyprojects)
    return None if files > limit else listing
