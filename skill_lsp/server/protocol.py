"""pygls' LSP protocol, with the answers the specification asks for that pygls leaves out.

- A request whose params do not fit its type gets an InvalidParams error; pygls only
  logs it, and the client would wait for an answer forever. A response from the client
  that does not fit fails the server's request that waits for it (pygls would leave it
  waiting forever: a `workspace/configuration` answered with null stopped the first index).
- Before `initialize`, a request gets ServerNotInitialized and a notification is
  dropped (except `exit`), as LSP 3.17 says.
- After `shutdown`, a request gets InvalidRequest instead of silence.
- Messages may be sent from any thread (the analysis thread publishes its diagnostics).
- A handler may answer with a `Serialized` result, JSON made once and sent as it is: pygls would
  convert and encode every element of a large answer again at each request, on the loop.
- Each message's handler knows when the message was read from the client (arrived_at): a request
  waits for analyses for a bounded time counted from then, not from when the loop got to it.
- `didChange` edits are applied with LSP's own lines (CR, LF, CRLF; pygls also splits at
  U+2028, U+0085, form feed ... and so put edits on the wrong line) and positions past the
  end of a line or of the document are clamped to it; a change to a document that was never
  opened is dropped (pygls would fail, or read the file from disk).
"""

from __future__ import annotations

import bisect
import json
import logging
import operator
import re
import threading
import time
from collections.abc import Generator
from contextvars import ContextVar
from itertools import accumulate, repeat
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from .convert import WIDE, encoding_name

log = logging.getLogger("skill_lsp.server")


# when the message being handled was read from the client: set before pygls makes its handler's
# task, which takes a copy of the context with it
_ARRIVED: ContextVar[float] = ContextVar("skill_lsp_arrived")


def arrived_at() -> float:
    """When the message this handler answers was read from the client (time.monotonic), on stdio by
    the reader's thread: behind 2,000 file events read first, a request has already waited 0.35 s
    before its handler begins. Now, outside a handler."""
    return _ARRIVED.get(time.monotonic())


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Where each line of text begins (LSP's lines: CR, LF and CRLF end them)."""
    if "\r" not in text:
        # each line's length and its LF, summed in C: half the time of the pattern (a 7 MB buffer's
        # first edit, on the loop: 0.2 -> 0.1 s)
        return list(accumulate(map(operator.add, map(len, text.split("\n")), repeat(1)), initial=0))[:-1]
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]


class LineIndex:
    """A document's text and where its lines begin, kept up to date edit by edit: an edit rescans only
    the lines it touches (a 7 MB buffer edited at its end costs the edit, not a scan of 7 MB)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)

    def line_end(self, line: int) -> int:
        """The offset where line's text ends (before its terminator)."""
        if line + 1 >= len(self.starts):
            return len(self.text)
        after = self.starts[line + 1]
        return after - 2 if self.text.startswith("\r\n", after - 2) else after - 1

    def offset(self, position: types.Position, encoding: str) -> int:
        """A client position as an index into the text: past the end of its line is the line's end,
        past the last line the document's end."""
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[max(position.line, 0)]
        end = self.line_end(max(position.line, 0))
        wanted = max(position.character, 0)
        if encoding == "utf-32":
            return min(start + wanted, end)
        line = self.text[start:end]
        if line.isascii():
            return min(start + wanted, end)
        # the first character with at least wanted units before it, in one pass of C over the line:
        # only its wide characters are looked at in Python
        units = 0
        index = 0
        for match in WIDE[encoding].finditer(line):
            plain = match.start() - index  # characters of one unit each
            if units + plain >= wanted:
                return start + index + (wanted - units)
            units += plain + (2 if encoding == "utf-16" else len(match.group().encode("utf-8")))
            index = match.start() + 1
            if units >= wanted:
                return start + index
        return start + min(index + (wanted - units), len(line))

    def apply(self, change: types.TextDocumentContentChangeEvent, encoding: str) -> None:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            self.__init__(change.text)  # type: ignore[misc]
            return
        first = self.offset(change.range.start, encoding)
        last = self.offset(change.range.end, encoding)
        if last < first:
            first, last = last, first  # a reversed range: the same span
        text = self.text[:first] + change.text + self.text[last:]
        delta = len(change.text) - (last - first)
        starts = self.starts
        # rescan from the line before the first one touched (a CR there may meet an LF inserted)
        # to the start of the line after the last one touched
        a = max(bisect.bisect_right(starts, first) - 2, 0)
        b = bisect.bisect_right(starts, last) - 1
        old_end = starts[b + 1] if b + 1 < len(starts) else len(self.text)
        new_end = old_end + delta
        fresh = starts[: a + 1]
        fresh.extend(match.end() for match in _LINE_BREAK.finditer(text, starts[a], new_end) if match.end() <= new_end)
        fresh.extend(start + delta for start in starts[b + 2 :])
        self.text = text
        self.starts = fresh


class Serialized:
    """A request's result already encoded as JSON, kept and sent as it is. An outline of 5,000
    headings is about 1 MB of JSON: pygls' converter walked and copied every element and encoded it
    again at each request, 0.1 s of the loop's time while a 7 MB buffer was typed into."""

    __slots__ = ("text",)

    def __init__(self, result: Any) -> None:
        self.text = json.dumps(result)

    @classmethod
    def of_json(cls, text: str) -> Serialized:
        """A result whose JSON text was made already (of parts kept from earlier answers)."""
        made = cls.__new__(cls)
        made.text = text
        return made

    def decoded(self) -> Any:
        return json.loads(self.text)


class _Answered:
    """A message already answered while it was being decoded: nothing more to do."""


class SkillProtocol(LanguageServerProtocol):
    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.converter = converter  # the messages' (cattrs): what a cached answer is converted with
        self.initialize_received = False
        self.send_lock = threading.Lock()
        # open documents' line starts, kept edit by edit (dropped when the document closes)
        self.line_indexes: dict[str, LineIndex] = {}

    def _send_data(self, data: Any) -> None:
        # The worker thread publishes diagnostics itself (serialising thousands of them on the
        # loop would hold up every answer): one message at a time on the wire, from any thread.
        with self.send_lock:
            super()._send_data(data)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """A request's answer. An error a handler raises on purpose (RequestFailed while indexing,
        ServerCancelled for a pull to ask again) is the answer, sent without pygls' traceback on
        stderr, which editors show in their log; an unexpected failure is logged here with its
        traceback, and the client gets InternalError without it."""
        if future.cancelled():
            super()._send_handler_result(future, msg_id=msg_id)
            return
        error = future.exception()
        if error is None:
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            log.debug("request %r answered with %s: %s", msg_id, type(error).__name__, error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        log.error("request %r failed", msg_id, exc_info=error)
        self._send_response(msg_id, error=JsonRpcInternalError(
            f"skill-lsp could not answer: {type(error).__name__}").to_response_error())

    def _send_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        if msg_id is None and error is not None:
            # an answer to a message whose id cannot be known carries "id": null (JSON-RPC), which
            # pygls' converter leaves out with every other null
            self._write_body(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": error.code, "message": error.message}}))
            return
        if error is not None or not isinstance(result, Serialized):
            super()._send_response(msg_id, result, error)
            return
        self._result_types.pop(msg_id, None)
        self._write_body(f'{{"jsonrpc": "2.0", "id": {json.dumps(msg_id)}, "result": {result.text}}}')

    def _write_body(self, text: str) -> None:
        """A message made here as JSON text, framed and written as pygls writes its own."""
        body = text.encode()
        header = f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        if self.writer is None:
            return
        with self.send_lock:
            self.writer.write(header.encode() + body)  # (stdio's and TCP's writers are synchronous)

    def structure_message(self, data: dict[str, Any]) -> Any:
        if isinstance(data, dict) and "jsonrpc" in data and "method" in data and "id" in data:
            ident = data["id"]
            if isinstance(ident, bool) or not isinstance(ident, (int, float, str)):
                # JSON-RPC: a request's id is a number or a string; pygls echoed an object or a list
                # back as the answer's id. An invalid request is answered with a null id.
                log.warning("a request whose id is neither a number nor a string: %r", data.get("method"))
                self._send_response(None, error=JsonRpcInvalidRequest(
                    "a request's id must be a number or a string").to_response_error())
                return _Answered()
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" not in data:
                # a response of the wrong shape (workspace/configuration answered with null): the
                # request that waits for it fails, instead of waiting forever
                future = self._request_futures.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_exception(error)
                log.warning("the client's response to request %r does not match the LSP specification", data["id"])
                return _Answered()
            if not (isinstance(data, dict) and "method" in data and "id" in data):
                raise  # a notification: logged, nobody waits for an answer
            method = data.get("method")
            log.warning("invalid params for %r (request %r)", method, data.get("id"))
            self._send_response(data["id"], error=JsonRpcInvalidParams(
                f"the params of {method!r} do not match the LSP specification").to_response_error())
            return _Answered()

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Answered):
            return
        method = getattr(message, "method", None)
        is_request = method is not None and hasattr(message, "id")
        if not self.initialize_received and method is not None:
            if method == types.INITIALIZE:
                self.initialize_received = True
            elif method != types.EXIT:
                if is_request:
                    self._send_response(message.id, error=JsonRpcServerNotInitialized(
                        f"{method!r} before 'initialize'").to_response_error())
                return  # a notification before initialize is dropped
        if self._shutdown and is_request:
            self._send_response(message.id, error=JsonRpcInvalidRequest(
                f"{method!r} after 'shutdown'").to_response_error())
            return
        reader = getattr(self._server, "reader", None)
        read = getattr(reader, "last_read", 0.0)
        _ARRIVED.set(read if read else time.monotonic())
        super().handle_message(message)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """A request cancelled before its handler ran would never hand the edits waiting over to
        the analysis (with a long debounce, an edit a completion asked about would wait for it: the
        editor keeps diagnostics of a text it no longer has). The cancelled request still does that
        much; its answer is cancelled."""
        future = self._request_futures.get(msg_id)
        if future is not None and not future.done():
            pending = getattr(self._server, "request_cancelled", None)
            if pending is not None:
                pending()
        super()._handle_cancel_notification(msg_id)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        document = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if document is None:
            log.warning("didChange for %s, which was never opened: ignored", params.text_document.uri)
            return
        key = unquote(params.text_document.uri)
        index = self.line_indexes.get(key)
        if index is None or index.text is not document.source:
            index = LineIndex(document.source)
        encoding = encoding_name(self.workspace.position_codec)
        for change in params.content_changes:
            index.apply(change, encoding)
        document.apply_change(types.TextDocumentContentChangeWholeDocument(text=index.text))
        document.version = params.text_document.version
        self.line_indexes[key] = index
        if (user_handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield user_handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Generator[Any, Any, None]:
        self.line_indexes.pop(unquote(params.text_document.uri), None)
        yield from super().lsp_text_document__did_close(params)
