"""WebKitGTK's MiniBrowser through WebKitWebDriver (Debian's webkit2gtk-driver), under Xvfb.

WebKitGTK has no BiDi and WebDriver classic shows neither console errors nor
network requests, so the test server injects ``capture.js`` first into every
HTML page it serves to this engine: it records console errors, uncaught errors
and the page's resource requests, and the driver reads them before each
navigation. Its limits: a worker's own requests and console are not seen, and
pages opened from disk (``file://``) are not served, so carry no capture.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

import urllib3
from selenium import webdriver
from selenium.common.exceptions import JavascriptException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.remote.client_config import ClientConfig
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.webkitgtk.options import Options
from selenium.webdriver.webkitgtk.service import Service

from tests.browser.engines.base import FIND, Engine, EngineError

DRIVER = "WebKitWebDriver"
MINIBROWSERS = [
    Path(f"/usr/lib/{arch}/webkit2gtk-4.1/MiniBrowser")
    for arch in ("x86_64-linux-gnu", "aarch64-linux-gnu")
]
XVFB = "Xvfb"
CAPTURE = (Path(__file__).parent / "capture.js").read_text(encoding="utf-8")
SCRIPT_TIMEOUT = 180  # s: the longest single script (a run while Python boots)
# s: how long any one command may go unanswered. Selenium's default is forever, and
# in CI a command once never returned, so the suite ran out its 90 minutes unreported.
COMMAND_TIMEOUT = SCRIPT_TIMEOUT + 60
# Reads, and empties, what capture.js recorded on the page now showing.
HARVEST = """() => {
  const log = window.__engineLog;
  if (!log) return null;
  const taken = { errors: log.errors.splice(0), requests: log.requests.splice(0) };
  return taken;
}"""


def minibrowser() -> Path | None:
    return next((path for path in MINIBROWSERS if path.exists()), None)


def missing() -> list[str]:
    """What this machine lacks to run WebKit tests."""
    lacking = [name for name in (DRIVER, XVFB) if not shutil.which(name)]
    if minibrowser() is None:
        lacking.append("MiniBrowser (libwebkit2gtk-4.1-0)")
    return lacking


class Display:
    """A private X server for the session (MiniBrowser needs one, even for automation)."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self._process = subprocess.Popen(
            [XVFB, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.close()
            raise EngineError("Xvfb did not start")
        self.name = f":{number}"

    def close(self) -> None:
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()


class _Driver(webdriver.Remote):
    """WebDriver classic whose every command has a deadline, failing as an :class:`EngineError`."""

    def execute(self, driver_command: str, params: dict | None = None) -> dict:
        try:
            return super().execute(driver_command, params)
        except urllib3.exceptions.HTTPError as err:  # the deadline passed (no retries)
            raise EngineError(
                f"webkit: WebKitWebDriver did not answer {driver_command} in {COMMAND_TIMEOUT} s"
                f" ({type(err).__name__})"
            ) from None


class WebKit:
    """One MiniBrowser automation session, for a test session."""

    def __init__(self, display: Display) -> None:
        options = Options()
        options.binary_location = str(minibrowser())
        options.add_argument("--automation")
        env = {**os.environ, "DISPLAY": display.name}
        self._service = Service(executable_path=shutil.which(DRIVER), env=env)
        self._service.start()
        config = ClientConfig(
            remote_server_addr=self._service.service_url,
            timeout=COMMAND_TIMEOUT,
            init_args_for_pool_manager={"init_args_for_pool_manager": {"retries": False}},
        )
        try:
            self.driver = _Driver(self._service.service_url, options=options, client_config=config)
        except BaseException:
            self._service.stop()
            raise
        self.driver.set_script_timeout(SCRIPT_TIMEOUT)
        self.driver.set_page_load_timeout(SCRIPT_TIMEOUT)
        self.driver.set_window_size(1280, 900)

    def tab(self) -> WebKitTab:
        return WebKitTab(self.driver)

    def quit(self) -> None:
        with contextlib.suppress(WebDriverException, EngineError):
            self.driver.quit()
        self._service.stop()


class WebKitTab(Engine):
    """The session's one window; each test starts it on a fresh origin (see conftest)."""

    name = "webkit"

    def __init__(self, driver: webdriver.Remote) -> None:
        self._driver = driver
        self._errors: list[str] = []
        self._requests: list[str] = []

    def _harvest(self) -> None:
        try:
            taken = self._driver.execute_script(f"return ({HARVEST})();")
        except WebDriverException:
            return  # no page yet (about:blank)
        if taken:
            self._errors += taken["errors"]
            self._requests += taken["requests"]

    def _navigate(self, url: str) -> None:
        self._harvest()
        self._driver.get(url)

    def _reload(self) -> None:
        self._harvest()
        self._driver.refresh()

    def _call(self, function: str, args_json: str) -> str:
        script = (
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => ({function})(arguments[0]))"
            ".then((value) => done({ value }), (e) => done({ error: String(e?.stack ?? e) }));"
        )
        try:
            result = self._driver.execute_async_script(script, args_json)
        except JavascriptException as err:
            raise EngineError(f"webkit: the page threw: {err.msg}") from None
        if "error" in result:
            raise EngineError(f"webkit: the page threw: {result['error']}")
        return result["value"]

    def _click_at(self, selector: str, name: str | None) -> None:
        found = self._driver.execute_script(
            f"return ({FIND})(arguments[0], arguments[1])[0] ?? null;", selector, name
        )
        assert isinstance(found, WebElement), f"no visible {selector} named {name!r}"
        self._driver.execute_script(
            "arguments[0].scrollIntoView({block: 'center', inline: 'center'});", found
        )
        found.click()

    def _keys(self, downs_and_ups: list[tuple[str, str]]) -> None:
        chain = ActionChains(self._driver)
        for kind, code in downs_and_ups:
            (chain.key_down if kind == "down" else chain.key_up)(code)
        chain.perform()

    def errors(self) -> list[str]:
        self._harvest()
        return list(self._errors)

    def requests(self) -> list[str]:
        self._harvest()
        return list(self._requests)

    def close(self) -> None:
        self._harvest()
        with contextlib.suppress(WebDriverException):
            self._driver.get("about:blank")
