"""What a document request works on: the file, the model, its lines and the cursor, once the analyses
pending have been waited for (so long), or from the near model while the first index runs."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..index import Model
from ..model import Position
from .convert import Lines
from .protocol import arrived_at
from .scheduler import WAIT_SLICE
from .server import SkillLanguageServer

log = logging.getLogger("skill_lsp.server")


# the wall seconds a request waits for the near model of its document while the first index runs: a
# workspace of / parses a hundred files near the open one, 0.25 s of CPU, 0.94 s on a busy machine
NEAR_WAIT = 0.4


@dataclass
class Request:
    """What a document request works on: the file, the model, its lines and the cursor (code points)."""

    path: Path
    model: Model
    lines: Lines
    position: Position
    text: str
    # answered from the model of the files nearest the open ones, while the first index runs
    near: bool = False


async def request_context(ls: SkillLanguageServer, uri: str, position: types.Position | None = None,
                          wait: bool = True) -> Request | None:
    """Finish pending analyses (for a bounded time; not at all unless wait), then resolve the
    document; None for what the server does not know. While the first index runs, an open document
    is answered from the model of the files nearest the open ones (near_model, below),
    once it is built (NEAR_WAIT at most: until then, as before the index, with nothing)."""
    path = ls.path_of(uri)
    if path is None:
        return None
    if not ls.scheduler.indexed.is_set():
        try:
            # (the build goes on when the wait ends: the next request is answered from it)
            building = asyncio.ensure_future(near_model(ls, path))
            left = NEAR_WAIT - (time.monotonic() - arrived_at())
            near = await asyncio.wait_for(asyncio.shield(building), max(left, WAIT_SLICE))
        except asyncio.TimeoutError:
            log.debug("a request is answered before the near model of %s is built", path)
            building.add_done_callback(logged)
            near = None
        except Exception:  # a bug in the near model must not fail the request: answered as after the index
            log.exception("the near model of %s failed", path)
            near = None
        if near is not None and not ls.scheduler.indexed.is_set():
            near_lines = Lines(near[1])
            at = near_lines.from_client(ls.codec, position) if position is not None else Position(0, 0)
            request = Request(path, near[0], near_lines, at, near[1])
            request.near = True
            return request
    if wait:
        await ls.scheduler.flush()
    model = ls.model()
    session = ls.session
    if model is None or session is None:
        return None
    text = session.text(path)
    if text is None:
        # a document opened while an analysis runs, not yet handed over to one (nor on disk): its
        # text as the editor has it, with the model as it stands
        text = ls.open_texts().get(path)
    lines = ls.lines_for(path, text) if text is not None else None
    if lines is None or text is None:
        return None
    where = lines.from_client(ls.codec, position) if position is not None else Position(0, 0)
    return Request(path, model, lines, where, text)


async def near_model(ls: SkillLanguageServer, path: Path) -> tuple[Model, str] | None:
    """Before the first index ends: a model of the open documents and the files nearest them,
    and path's text in it (None when path is not open). Built once for the same texts."""
    texts = ls.open_texts()
    text = texts.get(path)
    if text is None:
        return None
    known = ls.near
    if known is not None and _same_texts(known[0], texts):
        return known[1], text
    build = ls.near_build
    if build is None or not _same_texts(build[0], texts):
        folders = list(ls.ensure_session(path).folders)
        build = ls.near_build = (texts, asyncio.ensure_future(
            ls.run_aside(ls.near_index.model, folders, ls.settings.config, texts)))
    try:
        model = await asyncio.shield(build[1])
    finally:
        if ls.near_build is build:  # (a build that failed is not awaited again)
            ls.near_build = None
    ls.near = (texts, model)
    return model, text


def logged(future: asyncio.Future[Any]) -> None:
    """A task nobody awaits: its failure goes to the log (never silently lost)."""
    if not future.cancelled() and future.exception() is not None:
        log.error("near model failed", exc_info=future.exception())


def _same_texts(known: dict[Path, str], now: dict[Path, str]) -> bool:
    """The same open documents with the same texts (the very strings: an edit makes a new one)."""
    return known.keys() == now.keys() and all(known[path] is text for path, text in now.items())
