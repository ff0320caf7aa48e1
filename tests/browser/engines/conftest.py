"""Chromium, Firefox and WebKit: one browser per engine per session, a fresh origin per test.

Each test gets its own server on the session's one built site, so its
storage, service worker and caches start empty without a new browser. After
the test, any console or uncaught error, or a request to another origin, fails it.
A missing engine skips its tests here, and fails them under CI (CI=true).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.browser.engines import chromium, firefox, webkit
from tests.browser.engines.base import Engine, EngineError
from tests.browser.support import build_site
from tests.conftest import BuiltSite
from tools.static_server import StaticServer

ENGINES = [
    pytest.param("chromium", marks=pytest.mark.chromium),
    pytest.param("firefox", marks=pytest.mark.firefox),
    pytest.param("webkit", marks=pytest.mark.webkit),
]
LAB_READY: dict[str, list[float]] = {}  # engine -> seconds, shown after the run


def unavailable(engine: str, reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{engine}: {reason}. CI runs every engine: .ci/run installs them.")
    pytest.skip(f"{engine}: {reason}; `./dev test` installs it")


@pytest.fixture(scope="session")
def chromium_browser(browser: Browser) -> chromium.Chromium:
    return chromium.Chromium(browser)  # Playwright's, launched by tests/browser/conftest.py


# Module scope: Firefox quits as soon as its tests are done (its tabs close with their
# workers; WebKit's browser is one per test, below).
@pytest.fixture(scope="module")
def firefox_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[firefox.Firefox]:
    if firefox.binary() is None:
        unavailable("firefox", "firefox-esr is not installed")
    browser = firefox.Firefox(tmp_path_factory.mktemp("firefox") / "profile")
    yield browser
    browser.quit()


@pytest.fixture(scope="module")
def webkit_display() -> Iterator[webkit.Display]:
    if lacking := webkit.missing():
        unavailable("webkit", f"{', '.join(lacking)} not installed (webkit2gtk-driver, xvfb)")
    display = webkit.Display()
    yield display
    display.close()


# A MiniBrowser per test (it starts in under half a second): WebKitGTK's Worker.terminate()
# does not stop a worker busy in Python's WebAssembly, so each runaway loop the lab stopped by
# restarting Python left a thread using a core, after its tab and window had gone, until the
# browser quit (three of them slowed the rest of the suite, both workers, by half).
@pytest.fixture
def webkit_browser(webkit_display: webkit.Display) -> Iterator[webkit.WebKit]:
    browser = webkit.WebKit(webkit_display)
    yield browser
    browser.quit()


@pytest.fixture(params=ENGINES)
def engine_name(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def origin(engine_name: str, site: BuiltSite) -> Iterator[StaticServer]:
    """The built site on a port of its own: a new origin, so nothing is left from other tests."""
    inject = webkit.CAPTURE if engine_name == "webkit" else None
    server = StaticServer(site.dir, inject=inject)
    server.start()
    yield server
    server.close()


@pytest.fixture
def engine(
    request: pytest.FixtureRequest, engine_name: str, origin: StaticServer
) -> Iterator[Engine]:
    browser = request.getfixturevalue(f"{engine_name}_browser")
    tab = browser.tab()
    yield tab
    try:
        errors = tab.errors()
        requested = tab.requests()
    finally:
        tab.close()
    allowed = getattr(request.node, "allowed_errors", [])
    unexpected = [e for e in errors if not any(re.search(p, e) for p in allowed)]
    assert not unexpected, f"{engine_name}: the page logged errors:\n" + "\n".join(unexpected)
    foreign = [url for url in requested if not own(url, origin.url, request.node)]
    assert not foreign, f"{engine_name}: requests to another origin: {foreign}"


def own(url: str, home: str, node: pytest.Item) -> bool:
    """The site's own address, or one that never leaves the browser."""
    homes = [home, *getattr(node, "other_homes", [])]
    return url.startswith(("data:", "blob:", "about:")) or url.startswith(tuple(homes))


def allow_errors(request: pytest.FixtureRequest, *patterns: str) -> None:
    """Expect errors matching ``patterns`` in this test (e.g. a connection the test drops)."""
    request.node.allowed_errors = [*getattr(request.node, "allowed_errors", []), *patterns]


def also_home(request: pytest.FixtureRequest, home: str) -> None:
    """Requests under ``home`` (e.g. a file:// folder) are the site's own too."""
    request.node.other_homes = [*getattr(request.node, "other_homes", []), home]


SHOWN = "() => [location.href, document.readyState, document.title]"


def lab_ready(engine: Engine, lab: str, *, timeout: float) -> float:
    """Scroll ``lab`` into view and wait until its Python is ready; the seconds it took."""
    # The lab is waited for, not assumed: a CI run once found no lab on a page that
    # had loaded, and the message then says which document the engine was showing.
    engine.wait_for(
        "(s) => { const lab = document.querySelector(s); lab?.scrollIntoView(); return !!lab; }",
        lab,
        timeout=timeout,
        what=lambda: f"{lab} on the page shown: {engine.call(SHOWN)!r}",
    )
    start = time.monotonic()
    try:
        # A lab whose Python failed says so at once: no use waiting out the timeout.
        state = engine.wait_for(
            "(s) => ['ready', 'error'].find((v) => v === document.querySelector(s)"
            "?.getAttribute('data-lab-state'))",
            lab,
            timeout=timeout,
            what=f"{lab} to be ready",
        )
        if state != "ready":
            raise EngineError(f"{engine.name}: {lab} has data-lab-state={state!r}")
    except EngineError as err:
        raise EngineError(
            f"{err}; the lab says {engine.text(lab + ' [data-lab-status]')!r}"
        ) from None
    took = time.monotonic() - start
    LAB_READY.setdefault(engine.name, []).append(took)
    return took


@pytest.fixture(scope="session")
def offline_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The downloadable copy, built as `./dev zip` builds it, once for both engines."""
    folder = tmp_path_factory.mktemp("copy") / "llms-as-cooperative-agents-offline"
    build_site(folder, OFFLINE="true")
    return folder


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for name, times in sorted(LAB_READY.items()):
        shown = ", ".join(f"{t:.1f}" for t in times)
        terminalreporter.write_line(f"{name}: lab ready after {shown} s")
