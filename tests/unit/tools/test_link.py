"""The bench's reader links are emulated by its server, not by DevTools throttling (issue 50:
Chromium's throttling stalled about one fresh first visit in twenty under load)."""

from __future__ import annotations

import gzip
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tools import bench, static_server
from tools.static_server import LINK_CHUNK, Link, Pacer, serving


def test_answers_in_flight_share_the_links_bandwidth() -> None:
    now = [10.0]
    pacer = Pacer(clock=lambda: now[0])
    link = Link(bits_per_s=8e6, latency_ms=40)  # a megabyte a second
    assert pacer.delay(link, 500_000) == pytest.approx(0.5)
    # A second answer's chunk waits behind the first one's, as on one link.
    assert pacer.delay(link, 250_000) == pytest.approx(0.75)
    now[0] = 20.0  # the link idle since: no debt carried over
    assert pacer.delay(link, 100_000) == pytest.approx(0.1)


def test_a_served_link_delays_the_first_byte_and_paces_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "big.bin").write_bytes(bytes(5 * LINK_CHUNK))
    slept: list[float] = []
    monkeypatch.setattr(static_server.time, "sleep", slept.append)
    with serving(tmp_path) as server:
        server.link = Link(bits_per_s=8e6, latency_ms=40)
        with urllib.request.urlopen(server.url + "big.bin") as response:
            assert len(response.read()) == 5 * LINK_CHUNK
        server.link = None
        with urllib.request.urlopen(server.url + "big.bin") as response:
            response.read()
    # A round trip before the answer, then the five chunks at a megabyte a second.
    assert slept[0] == 0.04 and len(slept) == 6
    assert slept[-1] == pytest.approx(5 * LINK_CHUNK / 1e6, rel=0.2)


def test_the_generic_host_compresses_and_sends_no_cache_headers(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>x</title>" + " " * 500)
    with serving(tmp_path, generic=True) as host:
        request = urllib.request.Request(host.url, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            assert response.headers["Content-Encoding"] == "gzip"
            assert response.headers["Cache-Control"] is None
            assert gzip.decompress(response.read()).startswith(b"<!doctype html>")


class FakeSession:
    def __init__(self, sent: list[str]) -> None:
        self.sent = sent

    def send(self, method: str, params: Any = None) -> None:
        self.sent.append(method)


class FakePage:
    def __init__(self, context: FakeContext) -> None:
        self.context = context

    def goto(self, url: str, **kwargs: Any) -> None:
        self.context.links.append(self.context.server.link)

    def evaluate(self, script: str, *args: Any) -> float:
        return 1.0

    def close(self) -> None:
        pass


class FakeContext:
    def __init__(self, server: Any) -> None:
        self.server = server
        self.links: list[Link | None] = []
        self.sent: list[str] = []

    def set_default_timeout(self, ms: float) -> None:
        pass

    set_default_navigation_timeout = set_default_timeout

    def new_page(self) -> FakePage:
        return FakePage(self)

    def new_cdp_session(self, page: FakePage) -> FakeSession:
        return FakeSession(self.sent)

    def close(self) -> None:
        pass


def test_a_revisit_on_a_link_crosses_the_servers_link_and_throttles_nothing_in_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench.chromium, "launch_args", lambda playwright: {})
    with serving(tmp_path) as server:
        context = FakeContext(server)

        class Chromium:
            def launch_persistent_context(self, *args: Any, **kwargs: Any) -> FakeContext:
                return context

        playwright = type("Playwright", (), {"chromium": Chromium()})()
        b = bench.Bench(None, playwright, server.url, server.url, 1, tmp_path, print, server=server)  # type: ignore[arg-type]
        assert bench.revisit(b, tmp_path / "profile", bench.BROADBAND) == (1.0, 1.0)
        assert context.links == [bench.BROADBAND, bench.BROADBAND]  # first visit, revisit
        assert "Network.emulateNetworkConditions" not in context.sent
        assert server.link is None  # loopback again for the next measure
