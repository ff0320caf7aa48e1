"""Python starts from the build's memory snapshot, and anything wrong with it falls back.

Every fallback is forced here (the snapshot missing, truncated, corrupted,
made for another lab or another Pyodide build); in each the reader sees the
lab become ready with no error, only a little later.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import PageErrors
from tests.browser.support import BOOT, MAPPING
from tests.conftest import BuiltSite

BOOTED_FROM = """async () => {
  const {getRuntime} = await import(new URL("assets/lab/client.js", __md_scope));
  const runtime = getRuntime();
  const {pong} = await runtime.call("ping", {value: "still works"});
  return [runtime.bootedFrom, pong];
}"""


@dataclass(frozen=True)
class Snapshot:
    path: str  # its URL's path: the Pyodide version is part of it
    content: bytes  # as shipped (gzipped)

    @property
    def url(self) -> str:
        return f"**{self.path}"


def shipped_snapshot(site: BuiltSite) -> Snapshot:
    runtime = json.loads((site.dir / "assets/lab/runtime.json").read_text(encoding="utf-8"))
    version, name = runtime["pyodide"]["version"], runtime["snapshot"]["file"]
    path = f"/assets/vendor/pyodide/{version}/{name}"
    return Snapshot(path=path, content=(site.dir / path.lstrip("/")).read_bytes())


def open_lab(page: Page) -> None:
    page.goto("lesson/")
    lab = page.locator(MAPPING)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    expect(lab.get_by_role("status")).to_have_text("Python is ready.")


def test_python_starts_from_the_snapshot(page: Page, site: BuiltSite) -> None:
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    open_lab(page)
    assert page.evaluate(BOOTED_FROM) == ["snapshot", "still works"]
    assert any(url.endswith(shipped_snapshot(site).path) for url in seen)


def stop_python(page: Page) -> None:
    """Stop, as the simulation lab's button does, and wait for Python to be back."""
    page.evaluate("""async () => {
      const {getRuntime} = await import(new URL("assets/lab/client.js", __md_scope));
      await getRuntime().stop("Stopped.");
    }""")
    expect(page.locator(MAPPING)).to_have_attribute("data-lab-state", "ready", timeout=BOOT)


def test_stop_restarts_python_from_the_snapshot(page: Page) -> None:
    open_lab(page)
    stop_python(page)
    assert page.evaluate(BOOTED_FROM) == ["snapshot", "still works"]


def _missing(route: Route, snapshot: Snapshot) -> None:
    route.fulfill(status=404, body="not found")


def _truncated(route: Route, snapshot: Snapshot) -> None:
    route.fulfill(status=200, body=snapshot.content[: len(snapshot.content) // 2])


def _corrupted(route: Route, snapshot: Snapshot) -> None:
    body = bytearray(snapshot.content)
    middle = len(body) // 2
    body[middle : middle + 64] = bytes(64)  # gzip's CRC-32 (or inflate) catches this
    route.fulfill(status=200, body=bytes(body))


def _other_build(route: Route, snapshot: Snapshot) -> None:
    memory = bytearray(gzip.decompress(snapshot.content))
    memory[16:48] = bytes(32)  # the header's Pyodide build id: Pyodide refuses it
    route.fulfill(status=200, body=gzip.compress(bytes(memory), compresslevel=1))


FALLBACKS: dict[str, Callable[[Route, Snapshot], None]] = {
    "missing": _missing,
    "truncated": _truncated,
    "corrupted": _corrupted,
    "made for another Pyodide build": _other_build,
}


@pytest.mark.parametrize("problem", FALLBACKS)
def test_a_bad_snapshot_falls_back_to_a_normal_boot(
    page: Page, site: BuiltSite, page_errors: PageErrors, problem: str
) -> None:
    page_errors.allow(r"Failed to load resource: the server responded with a status of 404")
    snapshot = shipped_snapshot(site)
    page.route(snapshot.url, lambda route: FALLBACKS[problem](route, snapshot))
    open_lab(page)
    assert page.evaluate(BOOTED_FROM) == ["boot", "still works"]


def test_a_stale_snapshot_is_noticed_after_restoring_it(page: Page) -> None:
    """runtime.json expects another key than the one the snapshot's Python holds."""

    def stale(route: Route) -> None:
        manifest = route.fetch().json()
        manifest["snapshot"]["key"] += " (an older lab)"
        route.fulfill(json=manifest)

    page.route("**/assets/lab/runtime.json", stale)
    open_lab(page)
    assert page.evaluate(BOOTED_FROM) == ["boot", "still works"]


def test_a_tab_left_open_across_an_upgrade_restarts_from_the_new_runtime(
    page: Page, site: BuiltSite
) -> None:
    """Each Pyodide version has its own folder: a deploy never changes a file a tab uses."""
    runtime = json.loads((site.dir / "assets/lab/runtime.json").read_text(encoding="utf-8"))
    old = runtime["pyodide"]["version"]
    open_lab(page)

    # The deploy: runtime.json names the next version's folder; the old one is gone.
    def upgraded(route: Route) -> None:
        manifest = route.fetch().json()
        manifest["pyodide"]["indexURL"] = manifest["pyodide"]["indexURL"].replace(old, "999.0.0")
        route.fulfill(json=manifest)

    def new_folder(route: Route) -> None:
        name = route.request.url.rsplit("/", 1)[-1]
        route.fulfill(path=site.dir / "assets/vendor/pyodide" / old / name)

    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    page.route("**/assets/lab/runtime.json", upgraded)
    page.route("**/assets/vendor/pyodide/999.0.0/*", new_folder)
    page.route(f"**/assets/vendor/pyodide/{old}/*", lambda route: route.fulfill(status=404))

    stop_python(page)
    expect(page.locator(MAPPING).get_by_role("button", name="Retry")).to_be_hidden()
    assert page.evaluate(BOOTED_FROM) == ["snapshot", "still works"]
    assert any("/999.0.0/" in url for url in seen)
    assert not any(f"/pyodide/{old}/" in url for url in seen)
