"""Repeat the bench's warm-revisit sequence with fresh profiles until one hangs (issue 50).

Not a test: run it by hand, for example::

    .venv/bin/python -m tools.repro_first_visit --runs 100 --link both --hogs

Each run is ``tools.bench.revisit``: a fresh persistent Chromium profile opens the
lesson (first visit, lab ready), waits for the service worker, then opens the
lesson again (revisit, lab ready). A step that outlasts ``--timeout`` is a hang;
for it the script writes what was pending into ``--out`` (JSON) and stops:

- the page's requests not finished (CDP ``Network`` events), and every request of
  the browser context, the service worker's included (``request.service_worker``);
- the service worker's registrations and versions as CDP ``ServiceWorker`` reported
  them last (installing, activated, running…);
- the server's requests in flight (path, thread, how far each got) and its threads,
  and the server port's TCP sockets from ``/proc/net/tcp`` (state, queues);
- the page's console and errors.

``--hogs`` starts two busy processes (one per core of the team's machine) for the
whole run: the machine under load. The link is the server's (tools/static_server.py
``Link``, as the bench emulates it); ``--devtools-link`` emulates it as the bench
did before issue 50, with Chromium's DevTools throttling, to compare.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from lesson_hooks.support.paths import ROOT
from tools import bench
from tools.static_server import Link, StaticHandler, serving

LINKS = {"loopback": None, "broadband": bench.BROADBAND}
#: Chromium's names for TCP states in /proc/net/tcp (hex): the ones worth telling apart.
TCP_STATES = {
    "01": "ESTABLISHED",
    "02": "SYN_SENT",
    "03": "SYN_RECV",
    "04": "FIN_WAIT1",
    "05": "FIN_WAIT2",
    "06": "TIME_WAIT",
    "07": "CLOSE",
    "08": "CLOSE_WAIT",
    "09": "LAST_ACK",
    "0A": "LISTEN",
    "0B": "CLOSING",
}


class InFlight:
    """The server's requests in flight: what each handler thread is doing, and since when."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now: dict[int, dict[str, Any]] = {}
        self.served = 0

    def set(self, **what: Any) -> None:
        with self.lock:
            entry = self.now.setdefault(threading.get_ident(), {"since": time.monotonic()})
            entry.update(what, thread=threading.current_thread().name)

    def done(self) -> None:
        with self.lock:
            self.now.pop(threading.get_ident(), None)
            self.served += 1

    def snapshot(self) -> list[dict[str, Any]]:
        with self.lock:
            now = time.monotonic()
            return [
                {
                    **{k: v for k, v in e.items() if k != "since"},
                    "for_s": round(now - e["since"], 1),
                }
                for e in self.now.values()
            ]


IN_FLIGHT = InFlight()


def instrument() -> None:
    """Record every connection the tests' server handles (StaticHandler, as the bench uses)."""
    original_handle = StaticHandler.handle
    original_send_head = StaticHandler.send_head

    def handle(self: StaticHandler) -> None:
        IN_FLIGHT.set(client=self.client_address[1], phase="waiting for the request line")
        try:
            original_handle(self)
        finally:
            IN_FLIGHT.done()

    def send_head(self: StaticHandler):  # type: ignore[no-untyped-def]
        IN_FLIGHT.set(phase="answering", path=self.path)
        return original_send_head(self)

    StaticHandler.handle = handle  # type: ignore[method-assign]
    StaticHandler.send_head = send_head  # type: ignore[method-assign]


def sockets(port: int) -> list[dict[str, Any]]:
    """The TCP sockets on ``port`` (either end), from /proc/net/tcp."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, state, queues = fields[1], fields[2], fields[3], fields[4]
            ports = (int(local.split(":")[1], 16), int(remote.split(":")[1], 16))
            if port in ports:
                tx, rx = (int(q, 16) for q in queues.split(":"))
                found.append(
                    {
                        "local_port": ports[0],
                        "remote_port": ports[1],
                        "state": TCP_STATES.get(state, state),
                        "send_queue": tx,
                        "receive_queue": rx,
                    }
                )
    return found


def server_state(port: int) -> dict[str, Any]:
    return {
        "requests_in_flight": IN_FLIGHT.snapshot(),
        "requests_served": IN_FLIGHT.served,
        "threads": [t.name for t in threading.enumerate()],
        "sockets": sockets(port),
        "load_average": os.getloadavg(),
    }


class Recorder:
    """What one run's pages and context saw: network, service worker, console."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.step = ""
        self.pending: dict[str, dict[str, Any]] = {}
        self.finished = 0
        self.failed: list[dict[str, Any]] = []
        self.workers: dict[str, dict[str, Any]] = {}
        self.registrations: dict[str, dict[str, Any]] = {}
        self.console: list[str] = []
        self.context_requests: dict[int, dict[str, Any]] = {}
        self.server: dict[str, Any] | None = None
        self.pages = 0

    def t(self) -> float:
        return round(time.monotonic() - self.started, 2)

    def watch(self, page: Page, devtools_link: Link | None = None) -> None:
        """Record ``page``'s network, its service workers and its console (bench.revisit's
        hook); ``devtools_link``: throttle the page to it by DevTools, as the bench did."""
        session = page.context.new_cdp_session(page)
        self.pages += 1
        label = f"page {self.pages}"

        def sent(event: dict) -> None:
            self.pending[event["requestId"]] = {
                "url": event["request"]["url"],
                "type": event.get("type"),
                "sent_at": self.t(),
                "step": self.step,
                "page": label,
            }

        def response(event: dict) -> None:
            if entry := self.pending.get(event["requestId"]):
                r = event["response"]
                entry.update(
                    status=r.get("status"),
                    from_service_worker=r.get("fromServiceWorker"),
                    from_cache=r.get("fromDiskCache"),
                    response_at=self.t(),
                )

        def finished(event: dict) -> None:
            if self.pending.pop(event["requestId"], None) is not None:
                self.finished += 1

        def failed(event: dict) -> None:
            if entry := self.pending.pop(event["requestId"], None):
                self.failed.append({**entry, "error": event.get("errorText")})

        def worker(event: dict) -> None:
            for version in event["versions"]:
                self.workers[version["versionId"]] = {
                    "script": version["scriptURL"],
                    "running": version["runningStatus"],
                    "status": version["status"],
                    "controlled_clients": len(version.get("controlledClients", [])),
                    "at": self.t(),
                }

        def registration(event: dict) -> None:
            for reg in event["registrations"]:
                self.registrations[reg["registrationId"]] = {
                    "scope": reg["scopeURL"],
                    "deleted": reg["isDeleted"],
                }

        session.on("Network.requestWillBeSent", sent)
        session.on("Network.responseReceived", response)
        session.on("Network.loadingFinished", finished)
        session.on("Network.loadingFailed", failed)
        session.on("ServiceWorker.workerVersionUpdated", worker)
        session.on("ServiceWorker.workerRegistrationUpdated", registration)
        session.send("Network.enable")
        session.send("ServiceWorker.enable")
        if devtools_link is not None:
            conditions = {
                "offline": False,
                "latency": devtools_link.latency_ms,
                "downloadThroughput": devtools_link.bits_per_s / 8,
                "uploadThroughput": devtools_link.bits_per_s / 8 / 4,
            }
            session.send("Network.emulateNetworkConditions", conditions)
        page.on("console", lambda m: self.console.append(f"{self.t()} {m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"{self.t()} pageerror: {e}"))

    def watch_context(self, context: Any) -> None:
        """Every request of the context: the page's and the service worker's own fetches."""

        def begun(request: Any) -> None:
            self.context_requests[id(request)] = {
                "url": request.url,
                "by": "service worker" if request.service_worker else "page",
                "at": self.t(),
                "step": self.step,
            }

        def ended(request: Any) -> None:
            self.context_requests.pop(id(request), None)

        context.on("request", begun)
        context.on("requestfinished", ended)
        context.on("requestfailed", ended)

    def report(self, error: str) -> dict[str, Any]:
        return {
            "error": error,
            "step": self.step,
            "at_s": self.t(),
            "page_requests_pending": list(self.pending.values()),
            "page_requests_finished": self.finished,
            "page_requests_failed": self.failed,
            "context_requests_pending": list(self.context_requests.values()),
            "service_worker_versions": self.workers,
            "service_worker_registrations": self.registrations,
            "console": self.console,
            "server_at_the_timeout": self.server,
        }


def hog(parent: int) -> None:
    """Busy until the script ends, however it ends (its browser ends with it too)."""
    while os.getppid() == parent:
        for _ in range(1_000_000):
            pass


@contextlib.contextmanager
def hogs(count: int) -> Iterator[None]:
    """``count`` busy processes for the duration (ended by their own handles)."""
    started = [
        multiprocessing.Process(target=hog, args=(os.getpid(),), daemon=True) for _ in range(count)
    ]
    for process in started:
        process.start()
    try:
        yield
    finally:
        for process in started:
            process.terminate()
            process.join()


def one_run(
    b: bench.Bench, profile: Path, link: Link | None, port: int, devtools: bool
) -> dict | None:
    """One fresh profile's first visit and revisit: None if it passed, else the record.
    ``devtools``: the link is Chromium's DevTools throttling, not the server's."""
    recorder = Recorder(time.monotonic())
    timer: list[threading.Timer] = []

    def on_step(name: str) -> None:
        recorder.step = name
        for t in timer:
            t.cancel()
        timer.clear()

        # The server's side, read just before the step times out (its own thread:
        # the page's side is recorded by events as they come).
        def take() -> None:
            recorder.server = server_state(port)

        timer.append(threading.Timer(max(b.timeout_ms / 1000 - 2, 1), take))
        timer[0].daemon = True
        timer[0].start()

    real_launch = b.playwright.chromium.launch_persistent_context

    def launch(*args: Any, **kwargs: Any) -> Any:
        context = real_launch(*args, **kwargs)
        recorder.watch_context(context)
        return context

    b.playwright.chromium.launch_persistent_context = launch
    try:
        if devtools:
            bench.revisit(
                b, profile, None, watch=lambda page: recorder.watch(page, link), on_step=on_step
            )
        else:
            bench.revisit(b, profile, link, watch=recorder.watch, on_step=on_step)
    except RuntimeError as err:
        return recorder.report(str(err).splitlines()[0])
    finally:
        b.playwright.chromium.launch_persistent_context = real_launch
        for t in timer:
            t.cancel()
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="fresh profiles per link")
    parser.add_argument("--link", choices=[*LINKS, "both"], default="both")
    parser.add_argument("--hogs", action="store_true", help="two busy processes meanwhile")
    parser.add_argument("--timeout", type=float, default=90, help="seconds a step may take")
    parser.add_argument("--site", type=Path, help="a built site to serve (default: build one)")
    parser.add_argument("--out", type=Path, default=ROOT / "repro-first-visit.json")
    parser.add_argument("--keep-going", action="store_true", help="do not stop at a hang")
    parser.add_argument(
        "--devtools-link", action="store_true", help="throttle by DevTools, as before issue 50"
    )
    args = parser.parse_args()
    os.environ.setdefault("PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS", "1")
    instrument()
    links = list(LINKS) if args.link == "both" else [args.link]
    hangs: list[dict] = []
    counts: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        tmp_path = Path(tmp)
        site = args.site or tmp_path / "site"
        site.mkdir(exist_ok=True)
        server = stack.enter_context(serving(site))
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        if args.site is None:
            print("building the site…", file=sys.stderr, flush=True)
            bench.build(ROOT / "mkdocs.yml", site, server.url)
        if args.hogs:
            stack.enter_context(hogs(2))
        p = stack.enter_context(sync_playwright())
        b = bench.Bench(None, p, server.url, server.url, 1, tmp_path, print, server=server)  # type: ignore[arg-type]
        b.timeout_ms = args.timeout * 1000
        for link in links:
            passed = failed = 0
            for i in range(args.runs):
                profile = tmp_path / f"{link}-{i}"
                record = one_run(b, profile, LINKS[link], port, args.devtools_link)
                if record is None:
                    passed += 1
                else:
                    failed += 1
                    how = {"link": link, "devtools": args.devtools_link, "hogs": args.hogs}
                    hangs.append({**how, "run": i + 1, **record})
                    args.out.write_text(json.dumps(hangs, indent=1), encoding="utf-8")
                    print(f"{link} run {i + 1}: HUNG at {record['step']}: {record['error']}")
                print(
                    f"{link}: {passed} passed, {failed} hung of {i + 1} "
                    f"(load {os.getloadavg()[0]:.1f})",
                    file=sys.stderr,
                    flush=True,
                )
                if failed and not args.keep_going:
                    break
            counts[link] = [passed, failed]
            if failed and not args.keep_going:
                break
    for link, (passed, failed) in counts.items():
        how = (" by DevTools" if args.devtools_link else "") + (
            " under two hogs" if args.hogs else ""
        )
        print(f"{link}{how}: {passed} passed, {failed} hung")
    if hangs:
        print(f"what was pending: {args.out}")
    return 1 if hangs else 0


if __name__ == "__main__":
    sys.exit(main())
