"""The language server (pygls): `skill-lsp serve` on stdio or TCP."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, BinaryIO, cast

if TYPE_CHECKING:
    import logging


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on a TCP socket instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    parser.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="log level of the messages written to stderr")
    parser.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    import gc
    import logging  # here: `check` never logs, and the import costs its start-up time

    # stdout carries the protocol: every log line goes to stderr
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, args.log_level),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.log_level != "DEBUG":
        for handler in logging.getLogger().handlers:
            handler.addFilter(_client_garbage_in_one_line)
    from .. import forks

    forks.child_nice = CHILD_NICE
    # Until the protocol's modules are in, what is allocated lives as long as the process (modules,
    # classes, the head start's listing): the cycle collector would only scan it, again and again (a
    # tenth of lsprotocol's import time). It is off meanwhile, as in `check` and its children, and
    # what was allocated is frozen before it is on again: a first collection of all of it held the
    # loop 0.1 s before initialize was answered.
    gc.disable()
    # The loop answers requests while the analysis thread runs Python for seconds. Each time the loop
    # waits on a system call (a read, a write, a stat) it hands the interpreter over, and taking it back
    # waits for the switch interval: 5 ms by default, some ten times a request, and more when the
    # machine is busy (requests during the first index of 20,000 files took up to 1.7 s). At 1 ms
    # they are answered in tens of milliseconds, for a few hundred more switches a second.
    sys.setswitchinterval(SWITCH_INTERVAL)
    stdin = None if args.tcp else _head_start()
    from .app import server
    from .lifecycle import finish_sending

    gc.freeze()  # (the first index freezes its model with it)
    gc.enable()

    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io(stdin)
        # stdin closed: the client is gone. End now rather than wait for an analysis still running
        # on the worker thread; the status is what `exit` would give (0 only after shutdown).
        forks.stop_children()  # the children of an analysis still running end with it
        finish_sending(server)  # (a client that closed its end may still read what is being written)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0 if getattr(server.protocol, "_shutdown", False) else 1)
    return 0


def _client_garbage_in_one_line(record: logging.LogRecord) -> bool:
    """pygls logs a message it cannot decode (invalid JSON, nesting too deep) with its traceback;
    editors show the server's stderr to the user: one line says it, as for any bad input."""
    if record.exc_info and record.name.startswith("pygls") and record.msg == "Unable to handle message":
        error = record.exc_info[1]
        record.msg, record.args = "a message from the client could not be read: %s: %s", (type(error).__name__, error)
        record.exc_info = record.exc_text = None
    return True


# what the server's children add to its niceness (forks.child_nice)
CHILD_NICE = 5
# seconds a thread runs Python before another waiting for the interpreter takes it (see serve)
SWITCH_INTERVAL = 0.001


def _head_start() -> BinaryIO:
    """On stdio, where children can be forked: read the first message before pygls is imported and,
    when it is initialize, start the first index's children on its folders (server/early.py). The
    stdin pygls then reads (every byte read here first; early.Replay, where there are no children too)."""
    from .. import forks
    from . import early

    stream = sys.stdin.buffer
    if not forks.children_available():
        return cast(BinaryIO, early.Replay(b"", stream))
    ahead, body = early.read_first_frame(stream)
    found = early.initialize_folders(body) if body is not None else None
    if found is not None:
        folders, options = found
        try:
            from ..config import Config, editor_config

            # the settings on_initialize derives from the same options (options.parse_options)
            config = editor_config(options, folders[0])[0] if isinstance(options, dict) else Config()
            walked = early.walk_folders(folders, config, _import_analysers)
            if walked is not None:
                from .indexing import head_start

                head_start(folders, config, walked)
        except Exception:  # the first index does it all, as without a head start
            forks.stop_children()
    return cast(BinaryIO, early.Replay(ahead, stream))  # pygls calls its readline and read only


def _import_analysers() -> None:
    """Load the analysers (tree-sitter, libyaml, the rules: what the head start's children run) while
    the head start's helpers walk, as `check` loads its analysers (cli._import_analysers). The server
    itself (pygls and lsprotocol, a third of a second) is loaded after the head start has forked its
    children, so that they analyse skills on the other core meanwhile instead of waiting for it."""
    from . import indexing  # noqa: F401
