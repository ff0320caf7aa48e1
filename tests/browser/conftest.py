"""Playwright fixtures: Chromium against the built site, failing on any page error."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, Playwright, expect

from tools import chromium

# How long an expectation waits for the page to reach its state. Playwright's 5 s
# is too short on a busy machine (./dev test runs a browser per core): loading the
# code editor's module took longer there. A wait only ends sooner when the state is
# reached, so a longer one slows nothing but a failure; what must be quick is
# measured in ./dev bench.
expect.set_options(timeout=20_000)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, playwright: Playwright) -> dict:
    try:
        return chromium.launch_args(playwright, browser_type_launch_args)
    except chromium.NoChromium as err:
        pytest.fail(str(err))


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict, site) -> dict:
    # The site's service worker would answer requests that page.route() never
    # sees and precache in every test; tests/browser/test_offline.py allows it.
    return {**browser_context_args, "base_url": site.url, "service_workers": "block"}


@pytest.fixture
def no_script_page(browser: Browser, browser_context_args: dict) -> Iterator[Page]:
    """A page of the site as a reader with JavaScript turned off sees it."""
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def phone(browser: Browser, browser_context_args: dict) -> Iterator[Page]:
    """A touch phone, 375 px wide, with the same site and service-worker settings as
    `page`; the test fails on any page error it logs."""
    # Imported here: support.py imports this module (PageErrors).
    from tests.browser.support import touch_phone

    with touch_phone(browser, browser_context_args) as page:
        yield page


class PageErrors:
    """Console errors and uncaught exceptions seen by a page during one test."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self._allowed: list[re.Pattern[str]] = []

    def allow(self, pattern: str) -> None:
        """Expect console errors matching ``pattern`` (e.g. a request the test blocks)."""
        self._allowed.append(re.compile(pattern))

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console.error: {message.text} ({message.location})")

    def on_page_error(self, error: Error) -> None:
        self.errors.append(f"uncaught: {error.name}: {error.message}\n{error.stack}")

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(p.search(e) for p in self._allowed)]


@pytest.fixture
def page_errors(page: Page) -> Iterator[PageErrors]:
    errors = PageErrors()
    page.on("console", errors.on_console)
    page.on("pageerror", errors.on_page_error)
    yield errors


@pytest.fixture(autouse=True)
def _fail_on_page_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    if "page" not in request.fixturenames:
        yield
        return
    errors: PageErrors = request.getfixturevalue("page_errors")
    yield
    unexpected = errors.unexpected()
    assert not unexpected, "The page logged errors:\n" + "\n".join(unexpected)
