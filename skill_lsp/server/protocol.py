"""pygls' LSP protocol, with the answers the specification asks for that pygls leaves out.

- A request whose params do not fit its type gets an InvalidParams error; pygls only
  logs it, and the client would wait for an answer forever.
- Before `initialize`, a request gets ServerNotInitialized and a notification is
  dropped (except `exit`), as LSP 3.17 says.
- After `shutdown`, a request gets InvalidRequest instead of silence.
- Messages may be sent from any thread (the analysis thread publishes its diagnostics).
- `didChange` edits are applied with LSP's own lines (CR, LF, CRLF; pygls also splits at
  U+2028, U+0085, form feed ... and so put edits on the wrong line) and positions past the
  end of a line or of the document are clamped to it; a change to a document that was never
  opened is dropped (pygls would fail, or read the file from disk).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Generator
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.workspace.position_codec import PositionCodec

log = logging.getLogger("skill_lsp.server")


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _offset(text: str, starts: list[int], ends: list[int], position: types.Position, codec: PositionCodec) -> int:
    """A client position as an index into text: past the end of its line is the line's end, past the
    last line the document's end."""
    if position.line >= len(starts):
        return len(text)
    start, end = starts[position.line], ends[position.line]
    units = 0
    index = start
    while index < end and units < position.character:
        units += codec.client_num_units(text[index])
        index += 1
    return index


def apply_change(text: str, change: types.TextDocumentContentChangeEvent, codec: PositionCodec) -> str:
    if not isinstance(change, types.TextDocumentContentChangePartial):
        return change.text
    starts = [0]
    ends = []
    for match in _LINE_BREAK.finditer(text):
        ends.append(match.start())
        starts.append(match.end())
    ends.append(len(text))
    first = _offset(text, starts, ends, change.range.start, codec)
    last = _offset(text, starts, ends, change.range.end, codec)
    if last < first:
        first, last = last, first  # a reversed range: the same span
    return text[:first] + change.text + text[last:]


class _Answered:
    """A message already answered while it was being decoded: nothing more to do."""


class SkillProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_received = False
        self.send_lock = threading.Lock()

    def _send_data(self, data: Any) -> None:
        # The worker thread publishes diagnostics itself (serialising thousands of them on the
        # loop would hold up every answer): one message at a time on the wire, from any thread.
        with self.send_lock:
            super()._send_data(data)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException:
            if not (isinstance(data, dict) and "method" in data and "id" in data):
                raise  # a notification or a response: logged, nobody waits for an answer
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
        super().handle_message(message)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        document = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if document is None:
            log.warning("didChange for %s, which was never opened: ignored", params.text_document.uri)
            return
        text = document.source
        for change in params.content_changes:
            text = apply_change(text, change, self.workspace.position_codec)
        document.apply_change(types.TextDocumentContentChangeWholeDocument(text=text))
        document.version = params.text_document.version
        if (user_handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield user_handler, (params,), None
