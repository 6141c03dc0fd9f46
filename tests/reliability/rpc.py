"""A raw JSON-RPC client over the server's stdio, for traffic pytest-lsp cannot express.

It speaks bytes: it can send malformed frames, requests before `initialize`, and
cancellations at chosen moments. A reader thread parses every byte the server
writes to stdout as an LSP frame (`Content-Length` header, optional
`Content-Type`, a blank line, a JSON body of exactly that length); anything
else is recorded in `violations`, which every test checks is empty.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

Message = dict[str, Any]
SERVER = [sys.executable, "-m", "skill_lsp", "serve"]

# JSON-RPC / LSP error codes
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800
SERVER_CANCELLED = -32802


class RawClient:
    def __init__(self, log_dir: Path, command: list[str] | None = None, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        environment = dict(os.environ)
        environment.update(env or {})
        self.stderr_path = log_dir / f"server-stderr-{id(self)}.log"
        self._stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen(
            command or SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            cwd=cwd, env=environment,
        )
        self.messages: queue.Queue[Message] = queue.Queue()
        self.received: list[Message] = []
        self.violations: list[str] = []
        self.stdout_bytes = 0
        # a client that stops reading in the middle of a long message: the body of the first frame
        # longer than hold_over bytes is read only once release is set (holding says it came)
        self.hold_over: int | None = None
        self.holding = threading.Event()
        self.release = threading.Event()
        self._ids = itertools.count(1)
        self._corked: bytearray | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- the wire --------------------------------------------------------------------

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            headers: dict[str, str] = {}
            while True:
                line = stream.readline()
                self.stdout_bytes += len(line)
                if not line:
                    if headers:
                        self.violations.append(f"stdout ended inside a header block: {headers}")
                    return
                if line == b"\r\n":
                    break
                if not line.endswith(b"\r\n") or b":" not in line:
                    self.violations.append(f"not an LSP header line: {line[:200]!r}")
                    continue
                name, _, value = line[:-2].decode("ascii", errors="replace").partition(":")
                headers[name.strip().lower()] = value.strip()
            unknown = set(headers) - {"content-length", "content-type"}
            if unknown or "content-length" not in headers or not headers["content-length"].isdigit():
                self.violations.append(f"bad header block: {headers}")
                return
            length = int(headers["content-length"])
            if self.hold_over is not None and length > self.hold_over and not self.release.is_set():
                self.holding.set()
                self.release.wait()
            body = stream.read(length)
            self.stdout_bytes += len(body)
            if len(body) != length:
                self.violations.append(f"body shorter than its Content-Length ({len(body)} < {length})")
                return
            try:
                message = json.loads(body.decode("utf-8"))
            except ValueError as error:
                self.violations.append(f"body is not JSON: {error}: {body[:200]!r}")
                continue
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                self.violations.append(f"not a JSON-RPC 2.0 message: {body[:200]!r}")
            self.received.append(message)
            self.messages.put(message)

    @contextmanager
    def one_write(self) -> Iterator[None]:
        """The messages sent inside are written to the server at once, as one write (the server
        reads them together: their handlers are scheduled before any of them runs)."""
        self._corked = bytearray()
        try:
            yield
        finally:
            data, self._corked = bytes(self._corked), None
            self.send_bytes(data)

    def send_bytes(self, data: bytes) -> None:
        if self._corked is not None:
            self._corked += data
            return
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()

    def send(self, message: Message) -> None:
        body = json.dumps(message).encode("utf-8")
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any = None) -> int:
        msg_id = next(self._ids)
        message: Message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        message: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    # -- waiting -----------------------------------------------------------------------

    def _pump(self, timeout: float) -> Message | None:
        """The next message from the server (None after timeout); requests from the server are answered."""
        try:
            message = self.messages.get(timeout=max(timeout, 0.001))
        except queue.Empty:
            return None
        if "method" in message and "id" in message:
            # workspace/configuration, client/registerCapability, ...: a bare client answers null
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        return message

    def wait_for(self, predicate: Callable[[Message], bool], timeout: float = 30.0, after: int = 0) -> Message:
        """The first message (seen before or arriving) for which predicate holds; after: the number of
        messages received first that do not count."""
        earlier = {id(message) for message in self.received[:after]}
        for message in self.received[after:]:
            if predicate(message):
                return message
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            message = self._pump(remaining)
            if message is not None and id(message) not in earlier and predicate(message):
                return message
        raise AssertionError(f"no matching message in {timeout} s; stderr:\n{self.stderr()[-3000:]}")

    def response(self, msg_id: int, timeout: float = 30.0) -> Message:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def call(self, method: str, params: Any = None, timeout: float = 30.0) -> Message:
        return self.response(self.request(method, params), timeout)

    def notifications(self, method: str) -> list[Message]:
        return [m for m in self.received if m.get("method") == method and "id" not in m]

    # -- the session -------------------------------------------------------------------

    def initialize(self, folder: Path, options: dict[str, Any] | None = None,
                   capabilities: dict[str, Any] | None = None) -> Message:
        result = self.call("initialize", {
            "processId": os.getpid(), "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}],
            "capabilities": capabilities or {},
            "initializationOptions": {"debounce": 0, **(options or {})},
        }, timeout=60)
        assert "result" in result, result
        self.notify("initialized", {})
        return result

    def wait_for_index(self, timeout: float = 120.0) -> None:
        # (": indexed N": a folder's path may hold the word, as pytest names a test's folder after it)
        self.wait_for(lambda m: m.get("method") == "window/logMessage" and ": indexed " in m["params"]["message"], timeout)

    def open(self, path: Path, text: str | None = None, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python" if path.suffix == ".py" else "markdown",
            "version": version, "text": path.read_text(encoding="utf-8") if text is None else text,
        }})

    def diagnostics(self, path: Path, predicate: Callable[[list[Message]], bool] = lambda items: True,
                    timeout: float = 60.0) -> list[Message]:
        """The latest published diagnostics of path, once predicate holds for them."""
        uri = path.as_uri()
        deadline = time.monotonic() + timeout
        while True:
            published = [m["params"]["diagnostics"] for m in self.notifications("textDocument/publishDiagnostics")
                         if m["params"]["uri"] == uri]
            if published and predicate(published[-1]):
                return list(published[-1])
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no matching diagnostics for {path.name}: {published[-1:] or 'none'}")
            self._pump(min(remaining, 1.0))

    def shutdown_and_exit(self, timeout: float = 20.0) -> int:
        response = self.call("shutdown", None)
        assert "error" not in response, response
        self.notify("exit")
        return self.process.wait(timeout)

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        """End the process if it still runs; check everything it wrote to stdout was protocol."""
        if self.process.poll() is None:
            try:
                if self.process.stdin is not None:
                    self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._reader.join(10)
        self._stderr.close()


@contextmanager
def checked(client: RawClient) -> Iterator[RawClient]:
    """client, closed at the end, and every byte it read from the server checked to be LSP frames."""
    try:
        yield client
    finally:
        client.close()
        assert client.violations == [], client.violations
