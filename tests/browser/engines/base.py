"""One small driver that Firefox (WebDriver BiDi) and WebKit (WebKitWebDriver) both implement.

The engine-parametrised tests are written once against :class:`Engine`: go to a
page, run a JavaScript function there, click an element found by CSS and its
accessible name, press keys, wait for a condition, and afterwards read what the
page logged as an error and which addresses it requested.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any
from urllib.parse import urldefrag

#: How long one call lets the page wait for a state before handing back (ms).
WAIT_SLICE_MS = 500
#: How long a navigation may take to bring its new document to its load event (s).
LOAD_TIMEOUT = 120

# WebDriver's key codes (the same in classic WebDriver and in BiDi input actions).
KEYS = {
    "Backspace": "\ue003",
    "Tab": "\ue004",
    "Enter": "\ue007",
    "Shift": "\ue008",
    "Control": "\ue009",
    "Escape": "\ue00c",
    "Space": " ",
    "End": "\ue010",
    "Home": "\ue011",
    "Delete": "\ue017",
}

# Finds the visible elements matching a CSS selector, optionally only those whose
# accessible name (aria-label, a <label>, else the text) is ``name``.
FIND = """(selector, name) => {
  const text = (el) => (el?.textContent ?? "").trim().replace(/\\s+/g, " ");
  const named = (el) => {
    if (el.hasAttribute("aria-label")) return el.getAttribute("aria-label").trim();
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\\s+/).map((id) => text(document.getElementById(id))).join(" ");
    if (el.labels?.length) return text(el.labels[0]);
    return text(el);
  };
  return [...document.querySelectorAll(selector)].filter(
    (el) => el.getClientRects().length > 0 && (name === null || named(el) === name),
  );
}"""

# The element's centre in viewport pixels, once scrolled to the middle of the screen.
CENTRE = f"""(selector, name) => {{
  const [el] = ({FIND})(selector, name);
  if (!el) return null;
  el.scrollIntoView({{ block: "center", inline: "center" }});
  const box = el.getBoundingClientRect();
  return [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)];
}}"""


# The first match's text, its white space collapsed; and one of its attributes.
TEXT = '(s) => (document.querySelector(s)?.textContent ?? "").trim().replace(/\\s+/g, " ")'
ATTRIBUTE = "(s, a) => document.querySelector(s)?.getAttribute(a) ?? null"
# A mark on the document being left, so the next one is known by its absence.
LEAVING = "() => { window.__engineLeaving = true; return location.href; }"
ARRIVED = '() => !window.__engineLeaving && document.readyState === "complete"'


class EngineError(AssertionError):
    pass


class Engine(ABC):
    """One browser tab, driven by one engine."""

    name: str

    @abstractmethod
    def _navigate(self, url: str) -> None:
        """Ask the tab to load ``url``."""

    @abstractmethod
    def _reload(self) -> None: ...

    @abstractmethod
    def _call(self, function: str, args_json: str) -> str:
        """Run ``async (...args) => JSON.stringify(result)`` in the page; return its string."""

    @abstractmethod
    def _click_at(self, selector: str, name: str | None) -> None:
        """A real (trusted) click on the first visible element matching."""

    @abstractmethod
    def _keys(self, downs_and_ups: list[tuple[str, str]]) -> None:
        """Perform ("down" | "up", key code) actions in order."""

    @abstractmethod
    def errors(self) -> list[str]:
        """Console errors and uncaught errors seen so far in this tab."""

    @abstractmethod
    def requests(self) -> list[str]:
        """Addresses this tab has requested so far (as far as the engine can tell)."""

    @abstractmethod
    def close(self) -> None: ...

    # ---------------------------------------------------------- written once

    def goto(self, url: str) -> None:
        """Load ``url`` and wait until its document has had its load event."""
        left = urldefrag(self.call(LEAVING))
        self._navigate(url)
        # A link to a fragment of the page shown keeps its document (HTML's rule).
        target = urldefrag(url)
        if not (target.fragment and target.url == left.url):
            self._arrived()

    def reload(self) -> None:
        self.call(LEAVING)
        self._reload()
        self._arrived()

    def _arrived(self) -> None:
        # Firefox's navigate answers at "interactive" (measured: every page), and
        # under load in CI a test's next call was once still answered by the old document.
        deadline = time.monotonic() + LOAD_TIMEOUT
        while True:
            try:
                self.wait_for(ARRIVED, timeout=0, what="the new document")
                return
            except EngineError as err:  # not yet, or the old document left mid-call
                if time.monotonic() > deadline:
                    raise EngineError(
                        f"{self.name}: no new document loaded in {LOAD_TIMEOUT} s ({err})"
                    ) from None

    def call(self, function: str, *args: Any) -> Any:
        """Call the JavaScript ``function`` (source text) with JSON ``args``; await its result."""
        wrapped = (
            "async (json) => { const value = await (" + function + ")(...JSON.parse(json));"
            ' return value === undefined ? "null" : JSON.stringify(value); }'
        )
        return json.loads(self._call(wrapped, json.dumps(list(args))))

    def count(self, selector: str, name: str | None = None) -> int:
        return self.call(f"(s, n) => ({FIND})(s, n).length", selector, name)

    def click(self, selector: str, name: str | None = None, *, timeout: float = 30) -> None:
        """Click the visible element matching ``selector`` (and named ``name``), once it exists."""
        self.wait_for(
            f"(s, n) => ({FIND})(s, n).length > 0",
            selector,
            name,
            timeout=timeout,
            what=f"a visible {selector} named {name!r}",
        )
        self._click_at(selector, name)

    def focus(self, selector: str, name: str | None = None) -> None:
        assert self.call(
            f"(s, n) => {{ const [el] = ({FIND})(s, n); el?.focus(); return !!el; }}",
            selector,
            name,
        ), f"no {selector} named {name!r} to focus"

    def press(self, chord: str) -> None:
        """Press a key or a chord such as ``Shift+Tab`` or ``Control+End``."""
        codes = [KEYS.get(part, part) for part in chord.split("+")]
        self._keys([("down", c) for c in codes] + [("up", c) for c in reversed(codes)])

    def type(self, text: str) -> None:
        """Type ``text`` into the focused element, a key at a time ("\\n" is Enter)."""
        actions: list[tuple[str, str]] = []
        for char in text:
            code = KEYS["Enter"] if char == "\n" else char
            actions += [("down", code), ("up", code)]
        self._keys(actions)

    def wait_for(
        self, function: str, *args: Any, timeout: float, what: str | Callable[[], str]
    ) -> Any:
        """Poll ``function(...args)`` until it returns something truthy; return that.

        ``what`` names the awaited state in the failure message (a callable is
        asked only then, so it can say what the page shows instead).
        """
        # The page itself waits for its state, a short slice per call, so that a
        # navigation or a reload between slices is survived; Python never idles on a timer.
        # A slice also ends as its document is left: a left page's timers stop (WebKit
        # keeps it suspended in its back-forward cache), and WebKitWebDriver then never
        # answered the script (CI hung in a navigation's wait for its new document).
        in_page = (
            "async (...args) => { const check = (" + function + ");"
            f" const end = performance.now() + {WAIT_SLICE_MS};"
            " const slice = new AbortController();"
            " const left = new Promise((resolve) => addEventListener("
            '"pagehide", () => resolve(true), { once: true, signal: slice.signal }));'
            " try { for (;;) { const value = await check(...args);"
            " if (value || performance.now() >= end) return value;"
            " const tick = new Promise((resolve) => setTimeout(resolve, 25, false));"
            " if (await Promise.race([left, tick])) return value; } }"
            " finally { slice.abort(); } }"
        )
        deadline = time.monotonic() + timeout
        while True:
            value = self.call(in_page, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                said = what() if callable(what) else what
                raise EngineError(f"{self.name}: waited {timeout:.0f} s for {said}")

    def attribute(self, selector: str, attribute: str) -> str | None:
        return self.call(ATTRIBUTE, selector, attribute)

    def attribute_is(self, selector: str, attribute: str, value: str, *, timeout: float) -> None:
        """Wait until the first ``selector`` has ``attribute`` == ``value``."""
        self.wait_for(
            f"(s, a, v) => ({ATTRIBUTE})(s, a) === v",
            selector,
            attribute,
            value,
            timeout=timeout,
            what=lambda: (
                f"{selector} to have {attribute}={value!r} "
                f"(it has {self.attribute(selector, attribute)!r})"
            ),
        )

    def text(self, selector: str) -> str:
        return self.call(TEXT, selector)

    def text_is(self, selector: str, expected: str, *, timeout: float = 30) -> None:
        self._wait_for_text(selector, expected, "=== t", "to read", timeout)

    def text_contains(self, selector: str, expected: str, *, timeout: float = 30) -> None:
        self._wait_for_text(selector, expected, ".includes(t)", "to contain", timeout)

    def _wait_for_text(
        self, selector: str, expected: str, test: str, verb: str, timeout: float
    ) -> None:
        """Wait until the text at ``selector`` passes ``test``: JS after the text, against ``t``."""
        self.wait_for(
            f"(s, t) => ({TEXT})(s){test}",
            selector,
            expected,
            timeout=timeout,
            what=lambda: f"{selector} {verb} {expected!r} (it reads {self.text(selector)!r})",
        )
