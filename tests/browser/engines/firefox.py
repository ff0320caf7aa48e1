"""Debian's firefox-esr over WebDriver BiDi, from Python.

Playwright cannot drive stock Firefox and Selenium would need geckodriver,
which Debian does not package; Firefox itself speaks WebDriver BiDi on a
websocket. The client must not send an Origin header: Firefox refuses
websocket upgrades that carry one, against cross-site pages reaching it.
"""

from __future__ import annotations

import collections
import json
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import websocket

from tests.browser.engines.base import CENTRE, Engine, EngineError

BINARY = "firefox-esr"
LISTENING = re.compile(r"WebDriver BiDi listening on (ws://\S+)")
START = 90.0  # s: a cold start on a busy 2-core machine
COMMAND = 180.0  # s: the longest single command (a navigation while Python boots)
# Firefox's remote agent already applies its recommended automation prefs;
# these keep it from reaching out to the network this machine refuses.
PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "app.normandy.enabled": False,
    "messaging-system.rsexperimentloader.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.startup.page": 0,
}


def binary() -> str | None:
    return shutil.which(BINARY)


class Bidi:
    """A WebDriver BiDi connection: commands and the events that arrive between them."""

    def __init__(self, url: str) -> None:
        # suppress_origin: websocket-client sends an Origin header by default.
        self._ws = websocket.create_connection(url, suppress_origin=True, timeout=START)
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any], timeout: float = COMMAND) -> Any:
        self._next += 1
        ident = self._next
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            self._ws.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                message = json.loads(self._ws.recv())
            except websocket.WebSocketTimeoutException:
                raise EngineError(f"firefox: no answer to {method} in {timeout:.0f} s") from None
            if message.get("type") == "event":
                self.events.append(message)
            elif message.get("id") == ident:
                if message.get("type") == "error":
                    raise EngineError(
                        f"firefox: {method}: {message['error']}: {message.get('message')}"
                    )
                return message["result"]

    def close(self) -> None:
        self._ws.close()


class Firefox:
    """One headless firefox-esr with a throw-away profile, for a test session."""

    def __init__(self, profile: Path) -> None:
        executable = binary()
        assert executable
        profile.mkdir(parents=True, exist_ok=True)
        (profile / "user.js").write_text(
            "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in PREFS.items())
        )
        self._process = subprocess.Popen(
            [executable, "--headless", "--remote-debugging-port", "0", "--profile",
             str(profile), "--no-remote", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.log: collections.deque[str] = collections.deque(maxlen=200)
        found = threading.Event()
        address: list[str] = []

        def drain() -> None:  # an unread pipe would block Firefox
            assert self._process.stderr
            for line in self._process.stderr:
                self.log.append(line.rstrip())
                if not found.is_set() and (match := LISTENING.search(line)):
                    address.append(match[1])
                    found.set()
            found.set()

        threading.Thread(target=drain, daemon=True).start()
        if not found.wait(START) or not address:
            self.quit()
            raise EngineError("firefox-esr did not start:\n" + "\n".join(self.log))
        self.bidi = Bidi(address[0] + "/session")
        self.bidi.send("session.new", {"capabilities": {}})
        self.bidi.send(
            "session.subscribe", {"events": ["log.entryAdded", "network.beforeRequestSent"]}
        )

    def tab(self) -> FirefoxTab:
        return FirefoxTab(self.bidi)

    def quit(self) -> None:
        try:
            if hasattr(self, "bidi"):
                self.bidi.send("session.end", {}, timeout=10)
                self.bidi.close()
        except (EngineError, OSError, websocket.WebSocketException):
            pass
        finally:
            self._process.terminate()
            try:
                self._process.wait(20)
            except subprocess.TimeoutExpired:
                self._process.kill()


class FirefoxTab(Engine):
    name = "firefox"

    def __init__(self, bidi: Bidi) -> None:
        self._bidi = bidi
        self._context = bidi.send("browsingContext.create", {"type": "tab"})["context"]
        self._seen_from = len(bidi.events)
        # Documents this tab navigated away from: realm -> the event count then.
        self._left: dict[str, int] = {}

    def _mine(self) -> list[tuple[int, dict[str, Any]]]:
        """Events of this tab (and of realms with no tab: its workers), with their order."""
        return [
            (i, e["params"])
            for i, e in enumerate(self._bidi.events)
            if i >= self._seen_from
            and e["params"].get("context", e["params"].get("source", {}).get("context"))
            in (self._context, None)
        ]

    def _leaving(self) -> None:
        realms = self._bidi.send("script.getRealms", {"context": self._context, "type": "window"})
        self._left.update((realm["realm"], len(self._bidi.events)) for realm in realms["realms"])

    def _navigate(self, url: str) -> None:
        self._leaving()
        try:
            self._bidi.send(
                "browsingContext.navigate",
                {"context": self._context, "url": url, "wait": "complete"},
            )
        except EngineError as err:
            # The page went on to another before its load event (the SCORM launch page
            # replaces itself outside an LMS; on a busy machine that came first): Firefox
            # answers that its navigation was aborted. goto() still waits for the
            # document that came instead to load.
            if "NS_BINDING_ABORTED" not in str(err):
                raise

    def _reload(self) -> None:
        self._leaving()
        self._bidi.send("browsingContext.reload", {"context": self._context, "wait": "complete"})

    def _call(self, function: str, args_json: str) -> str:
        result = self._bidi.send(
            "script.callFunction",
            {
                "functionDeclaration": function,
                "arguments": [{"type": "string", "value": args_json}],
                "target": {"context": self._context},
                "awaitPromise": True,
                "resultOwnership": "none",
            },
        )
        if result["type"] == "exception":
            details = result["exceptionDetails"]
            raise EngineError(f"firefox: the page threw: {details.get('text')}")
        return result["result"]["value"]

    def _click_at(self, selector: str, name: str | None) -> None:
        centre = self.call(CENTRE, selector, name)
        assert centre, f"no visible {selector} named {name!r}"
        x, y = centre
        self._bidi.send(
            "input.performActions",
            {
                "context": self._context,
                "actions": [
                    {
                        "type": "pointer",
                        "id": "mouse",
                        "parameters": {"pointerType": "mouse"},
                        "actions": [
                            {"type": "pointerMove", "x": x, "y": y, "origin": "viewport"},
                            {"type": "pointerDown", "button": 0},
                            {"type": "pointerUp", "button": 0},
                        ],
                    }
                ],
            },
        )

    def _keys(self, downs_and_ups: list[tuple[str, str]]) -> None:
        kinds = {"down": "keyDown", "up": "keyUp"}
        self._bidi.send(
            "input.performActions",
            {
                "context": self._context,
                "actions": [
                    {
                        "type": "key",
                        "id": "keyboard",
                        "actions": [{"type": kinds[k], "value": v} for k, v in downs_and_ups],
                    }
                ],
            },
        )

    def errors(self) -> list[str]:
        self._call("async () => 'null'", "[]")  # collect events sent up to now
        found = []
        for i, event in self._mine():
            if event.get("level") != "error":
                continue
            # Firefox reports the loads that leaving a page cancels (a module import
            # in flight) as that page's errors; the tests leave pages as soon as checked.
            left = self._left.get(event.get("source", {}).get("realm", ""))
            if left is None or i < left:
                where = event.get("source", {}).get("context") or "a worker"
                found.append(f"{event.get('type')} error in {where}: {event.get('text')}")
        return found

    def requests(self) -> list[str]:
        self._call("async () => 'null'", "[]")
        return [event["request"]["url"] for _, event in self._mine() if "request" in event]

    def close(self) -> None:
        self._bidi.send("browsingContext.close", {"context": self._context})
