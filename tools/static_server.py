"""Serve a built site folder on a free loopback port, as a static host would.

For tests, a server can also drop every connection (the network is down) and,
opted into by the WebKit suite only, put a script first into every HTML page.
The tests' server sends every file as it is on disk; the benchmark's
(``as_host=True``) compresses and sets cache headers as GitHub Pages, Netlify
and Cloudflare do, so Lighthouse measures what a reader's browser gets; a
generic host (``generic=True``) compresses and sends nothing else, so a result
that holds under both does not depend on one server's headers.
"""

from __future__ import annotations

import functools
import gzip
import io
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar


@dataclass(frozen=True)
class Link:
    """A reader's link, emulated by the server: each answer waits ``latency_ms`` (a
    round trip) before its first byte, and every answer shares ``bits_per_s``.

    The benchmark's links are emulated here, not by Chromium's DevTools throttling
    (``Network.emulateNetworkConditions``), which stalled about one fresh first
    visit in twenty under load: the server had sent every byte and closed, while
    the browser left them unread in its sockets (issue 50, tools/repro_first_visit.py).
    """

    bits_per_s: float
    latency_ms: float


#: Bytes written at a time on an emulated link: about 3 ms at 40 Mbit/s.
LINK_CHUNK = 16 * 1024


class Pacer:
    """The link's time: when each chunk may go, first come first served, so that the
    answers in flight together share its bandwidth."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._free_at = 0.0

    def delay(self, link: Link, size: int) -> float:
        """Seconds to wait before ``size`` bytes have crossed ``link`` (reserving them)."""
        with self._lock:
            now = self._clock()
            self._free_at = max(now, self._free_at) + size * 8 / link.bits_per_s
            return self._free_at - now


class Arrivals:
    """Request paths as they arrive, for a test to wait on (served from other threads)."""

    def __init__(self) -> None:
        self._paths: list[str] = []
        self._arrived = threading.Condition()

    def add(self, path: str) -> None:
        with self._arrived:
            self._paths.append(path)
            self._arrived.notify_all()

    def wait_for(self, path: str, timeout: float) -> list[str]:
        """The paths so far, once ``path`` is among them or ``timeout`` seconds have passed."""
        with self._arrived:
            self._arrived.wait_for(lambda: path in self._paths, timeout)
            return list(self._paths)


class StaticHandler(SimpleHTTPRequestHandler):
    # Pyodide hangs silently unless .wasm and .mjs carry these types.
    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
    }

    def handle_one_request(self) -> None:
        # Other servers may use this handler (tests/browser/test_offline.py): both optional.
        off = getattr(self.server, "network_off", None)
        if off is not None and off.is_set():
            self.close_connection = True  # no answer at all: a failed connection
            return
        super().handle_one_request()

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        # A browser's prefetch says so (Sec-Purpose); one a service worker made for it does not.
        prefetched = getattr(self.server, "prefetched", None)  # optional, as network_off
        if parsed and prefetched is not None and "prefetch" in self.headers.get("Sec-Purpose", ""):
            prefetched.add(self.path)
        return parsed

    def send_response(self, code: int, message: str | None = None) -> None:
        link = getattr(self.server, "link", None)
        if link is not None:
            time.sleep(link.latency_ms / 1000)
        super().send_response(code, message)

    def copyfile(self, source, outputfile) -> None:  # type: ignore[no-untyped-def]
        link = getattr(self.server, "link", None)
        if link is None:
            return super().copyfile(source, outputfile)
        while chunk := source.read(LINK_CHUNK):
            time.sleep(self.server.pacer.delay(link, len(chunk)))
            outputfile.write(chunk)
        return None

    def _file(self) -> Path:
        """The file the request names: a folder's index.html for a path ending in /."""
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            return path / "index.html"
        return path

    def send_head(self):  # type: ignore[no-untyped-def]
        script = getattr(self.server, "inject", None)
        if script is None:
            return super().send_head()
        path = self._file()
        if path.suffix != ".html" or not path.is_file():
            return super().send_head()
        page = path.read_bytes()
        tag = f"<script>{script}</script>".encode()
        head = page.find(b"<head>")
        at = head + len(b"<head>") if head >= 0 else 0
        body = page[:at] + tag + page[at:]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


#: Text a static host compresses (wasm too: hosts compress it, and Pyodide's is large).
COMPRESSED_TYPES = (
    "text/",
    "application/javascript",
    "application/json",
    "application/wasm",
    "image/svg+xml",
)
#: A file whose name changes with its content (Material's ``main.57a0d79d.min.css``,
#: the lab's ``lab-26e0819f21fc.zip``) or that lies in a versioned folder
#: (``vendor/pyodide/314.0.7/``): a host may let browsers keep it for a year.
HASHED = re.compile(r"[.-][0-9a-f]{8,}\.|/\d+\.\d+\.\d+/")
YEAR = "public, max-age=31536000, immutable"
REVALIDATE = "public, max-age=600"  # GitHub Pages' ten minutes for everything else


class GenericHandler(StaticHandler):
    """Files as any host serves them: gzip where the browser accepts it, no other header."""

    _gzipped: ClassVar[dict[tuple[str, float], bytes]] = {}

    def send_head(self):  # type: ignore[no-untyped-def]
        path = self._file()
        kind = self.guess_type(str(path))
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (path.is_file() and accepts and kind.startswith(COMPRESSED_TYPES)):
            return super().send_head()
        key = (str(path), path.stat().st_mtime)
        if key not in self._gzipped:
            self._gzipped[key] = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        body = self._gzipped[key]
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


class HostHandler(GenericHandler):
    """Files as a static host serves them: gzip where the browser accepts it, and
    cache headers (a year for hashed names, ten minutes for the rest)."""

    def end_headers(self) -> None:
        path = self.path.split("?")[0]
        self.send_header("Cache-Control", YEAR if HASHED.search(path) else REVALIDATE)
        super().end_headers()


class _QuietServer(ThreadingHTTPServer):
    inject: str | None = None
    network_off: threading.Event
    link: Link | None = None
    pacer: Pacer
    prefetched: Arrivals

    def handle_error(self, request: object, client_address: object) -> None:
        # A browser that closes a page mid-download is not a server error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class StaticServer:
    """A threaded server for ``directory``; ``url`` is known before anything is served.

    ``inject``: a script put first into every HTML page's ``<head>`` (test
    instrumentation where a browser offers no other way). ``network_off``: set
    it, and every connection is dropped unanswered, as when the network is down.
    ``as_host``: compressed, with a static host's cache headers (:class:`HostHandler`);
    ``generic``: compressed, nothing more (:class:`GenericHandler`). ``link``: set
    it to a :class:`Link` and every answer crosses that link. ``prefetched``: the
    paths a browser itself prefetched (its request says ``Sec-Purpose: prefetch``).
    """

    def __init__(
        self,
        directory: Path,
        *,
        inject: str | None = None,
        as_host: bool = False,
        generic: bool = False,
    ) -> None:
        if (as_host or generic) and inject is not None:
            raise ValueError("the host-like server injects no script")
        kind = HostHandler if as_host else GenericHandler if generic else StaticHandler
        handler = functools.partial(kind, directory=str(directory))
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        if inject is not None and "</script" in inject.lower():
            raise ValueError("an injected script cannot contain </script")
        self._server.inject = inject
        self._server.network_off = self.network_off = threading.Event()
        self._server.pacer = Pacer()
        #: The paths the browser itself prefetched (``Sec-Purpose: prefetch``).
        self._server.prefetched = self.prefetched = Arrivals()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def link(self) -> Link | None:
        """The reader's link every answer crosses (None: loopback, as fast as it goes)."""
        return self._server.link

    @link.setter
    def link(self, link: Link | None) -> None:
        self._server.link = link

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()


@contextmanager
def serving(
    directory: Path, *, inject: str | None = None, as_host: bool = False, generic: bool = False
) -> Iterator[StaticServer]:
    server = StaticServer(directory, inject=inject, as_host=as_host, generic=generic)
    server.start()
    try:
        yield server
    finally:
        server.close()
