"""Chromium through Playwright, behind the same driver, so the engine tests run in all three.

The Playwright suite beside this package goes deeper in Chromium; this keeps
the three engines' tests the same tests.
"""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Error

from tests.browser.engines.base import CENTRE, Engine, EngineError

# WebDriver key codes (base.KEYS) to Playwright's key names.
NAMES = {
    "\ue003": "Backspace",
    "\ue004": "Tab",
    "\ue007": "Enter",
    "\ue008": "Shift",
    "\ue009": "Control",
    "\ue00c": "Escape",
    "\ue010": "End",
    "\ue011": "Home",
    "\ue017": "Delete",
    " ": "Space",
}


class Chromium:
    """The session's Playwright Chromium (tests/browser/conftest.py launches it)."""

    def __init__(self, browser: Browser) -> None:
        self._browser = browser

    def tab(self) -> ChromiumTab:
        return ChromiumTab(self._browser.new_context(service_workers="allow"))


class ChromiumTab(Engine):
    name = "chromium"

    def __init__(self, context: BrowserContext) -> None:
        self._context = context
        self._page = context.new_page()
        self._errors: list[str] = []
        self._requests: list[str] = []
        context.on("request", lambda request: self._requests.append(request.url))
        self._page.on("console", self._on_console)
        self._page.on("pageerror", lambda e: self._errors.append(f"uncaught: {e.name}: {e}"))

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self._errors.append(f"console.error: {message.text} ({message.location})")

    def _navigate(self, url: str) -> None:
        self._page.goto(url)

    def _reload(self) -> None:
        self._page.reload()

    def _call(self, function: str, args_json: str) -> str:
        try:
            return self._page.evaluate(f"({function})", args_json)
        except Error as err:
            raise EngineError(f"chromium: the page threw: {err.message}") from None

    def _click_at(self, selector: str, name: str | None) -> None:
        centre = self.call(CENTRE, selector, name)
        assert centre, f"no visible {selector} named {name!r}"
        self._page.mouse.click(*centre)

    def _keys(self, downs_and_ups: list[tuple[str, str]]) -> None:
        for kind, code in downs_and_ups:
            key = NAMES.get(code, code)
            (self._page.keyboard.down if kind == "down" else self._page.keyboard.up)(key)

    def errors(self) -> list[str]:
        return list(self._errors)

    def requests(self) -> list[str]:
        return list(self._requests)

    def close(self) -> None:
        self._context.close()
