"""The language server (pygls): `skill-lsp serve` on stdio or TCP."""

from __future__ import annotations

import argparse
import os
import sys


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on a TCP socket instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    parser.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="log level of the messages written to stderr")
    parser.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    import logging  # here: `check` never logs, and the import costs its start-up time

    # stdout carries the protocol: every log line goes to stderr
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, args.log_level),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from .app import server

    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
        # stdin closed: the client is gone. End now rather than wait for an analysis still running
        # on the worker thread; the status is what `exit` would give (0 only after shutdown).
        from ..forks import stop_children

        stop_children()  # the children of an analysis still running end with it
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0 if getattr(server.protocol, "_shutdown", False) else 1)
    return 0
