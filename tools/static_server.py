"""Serve a built site folder on a free loopback port, as a static host would."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar


class StaticHandler(SimpleHTTPRequestHandler):
    # Pyodide hangs silently unless .wasm and .mjs carry these types.
    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # A browser that closes a page mid-download is not a server error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class StaticServer:
    """A threaded server for ``directory``; ``url`` is known before anything is served."""

    def __init__(self, directory: Path) -> None:
        handler = functools.partial(StaticHandler, directory=str(directory))
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()


@contextmanager
def serving(directory: Path) -> Iterator[StaticServer]:
    server = StaticServer(directory)
    server.start()
    try:
        yield server
    finally:
        server.close()
