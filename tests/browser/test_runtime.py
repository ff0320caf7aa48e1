"""The tab's Python: lazy, off the main thread, recoverable."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Locator, Page, Request, Route, expect

from lesson_hooks.build.rules import download_figures
from lesson_hooks.support.paths import RUNTIME_MANIFEST
from tests.browser.conftest import PageErrors
from tests.browser.support import BOOT
from tests.conftest import BuiltSite
from tools.static_server import Link, serving

PYODIDE = re.compile(r"/assets/vendor/pyodide/")
LAB = "[data-lab]"


def pyodide_requests(page: Page) -> list[str]:
    seen: list[str] = []

    def record(request: Request) -> None:
        if PYODIDE.search(request.url):
            seen.append(request.url)

    page.on("request", record)
    return seen


def stop_the_clock(page: Page) -> None:
    """Only run_for moves the page's clock from here on. Installed and left running, it
    also moved with the test's own time: a page that took over a second to load on a busy
    machine was past its 5 s of reading after run_for(4_000) (a CI run)."""
    page.clock.install(time=0)
    page.clock.pause_at(1_000)


def run_clock_until_set_up(page: Page, lab: Locator) -> None:
    """Run the stopped clock in 50 ms steps until the lab is set up: its set-up waits on
    the page's modules (real time moves them) and then on the browser's idle time (the
    clock does). The step bounds how long after its set-up the lab is first seen."""
    deadline = time.monotonic() + BOOT / 1000
    while lab.get_attribute("data-lab-state") is None:
        assert time.monotonic() < deadline, "the lab was never set up"
        page.clock.run_for(50)


def test_readers_who_never_reach_a_lab_never_download_python(page: Page) -> None:
    """Pages without a lab, and a lab page only passed through (loaded, not read)."""
    seen = pyodide_requests(page)
    for path in ("./", "summary/", "references/", "lesson/"):
        page.goto(path)
        page.wait_for_load_state("networkidle")
    assert seen == []
    expect(page.locator(LAB).first).to_have_attribute("data-lab-state", "idle")


def test_python_starts_while_the_reader_reads_far_above_the_lab(page: Page) -> None:
    """Reading the lesson's top for a few seconds starts Python, so the Visual Lab,
    minutes of reading further down, is ready when the reader gets there."""
    stop_the_clock(page)
    seen = pyodide_requests(page)
    page.goto("lesson/")
    lab = page.locator(LAB).first
    run_clock_until_set_up(page, lab)
    expect(lab).to_have_attribute("data-lab-state", "idle")
    page.clock.run_for(6_000)  # the page visible, the reader reading
    page.clock.resume()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    assert any(url.endswith("pyodide.asm.wasm") for url in seen)
    box = lab.bounding_box()
    assert box and box["y"] > 3 * page.viewport_size["height"]  # type: ignore[index]


def megabytes(site: BuiltSite, *, saving_data: bool = False) -> float:
    """What the build says starting Python downloads, in MB (from the vendored files)."""
    manifest = json.loads((site.dir / RUNTIME_MANIFEST).read_text(encoding="utf-8"))
    figures = download_figures(manifest)
    name = "PYTHON_DOWNLOAD_BYTES_SAVING_DATA" if saving_data else "PYTHON_DOWNLOAD_BYTES"
    return figures[name] / 1e6


def test_the_status_line_says_when_python_starts_and_what_it_downloads(
    page: Page, site: BuiltSite
) -> None:
    """Issue 39: the line said "Python starts when you reach the lab" while 21 MB
    started downloading 5 s after arrival; it now says that, with the build's figure."""
    stop_the_clock(page)
    seen = pyodide_requests(page)
    page.goto("lesson/")
    lab = page.locator(LAB).first
    status = lab.get_by_role("status")
    run_clock_until_set_up(page, lab)
    expect(status).to_have_text(
        f"Python starts after 5 s on this page, or sooner when you scroll down or reach a "
        f"lab: about {megabytes(site):.1f} MB to download, unless this browser has it already."
    )
    assert megabytes(site) > 15  # the snapshot included: about 21 MB
    page.clock.run_for(3_900)  # 4 s since the lab was set up
    expect(lab).to_have_attribute("data-lab-state", "idle")
    assert seen == []
    page.clock.run_for(2_000)  # as the line said: after 5 s
    page.clock.resume()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    assert any(url.endswith("pyodide.asm.wasm") for url in seen)


def test_a_reader_may_choose_to_start_python_only_when_they_ask(
    page: Page, site: BuiltSite
) -> None:
    """Reaching a lab starts Python; its status line offers to stop that and wait
    for the reader to ask, on every page from then on, until they undo it."""
    page.clock.install()
    seen = pyodide_requests(page)
    page.goto("lesson/")
    labs = page.locator(LAB)
    first, last = labs.first, labs.last
    with page.expect_worker(lambda w: w.url.endswith("/assets/lab/worker.js")) as made:
        first.scroll_into_view_if_needed()  # reaching the lab starts Python
    python = made.value
    choose = first.get_by_role("button", name="Stop, and start only when I ask")
    with python.expect_event("close"):  # the download stops with its worker
        choose.click()
    # Every lab of the page says so at once, with the smaller download (no snapshot).
    saving = round(megabytes(site, saving_data=True))
    for lab in (first, last):
        expect(lab).to_have_attribute("data-lab-state", "idle")
        expect(lab.get_by_role("status")).to_have_text(
            "To save data, Python starts only when you ask."
        )
        expect(lab.get_by_role("button", name=f"Start Python, about {saving} MB")).to_be_visible()
    last.scroll_into_view_if_needed()  # reaching another lab starts nothing
    expect(last).to_have_attribute("data-lab-state", "idle")
    # The choice is kept for the next page (and visit), and can be undone there.
    page.goto("simulation/")
    before = len(seen)
    lab = page.locator('[data-lab="simulation"]')
    expect(lab.get_by_role("status")).to_have_text("To save data, Python starts only when you ask.")
    page.clock.run_for(10_000)  # reading starts nothing
    expect(lab).to_have_attribute("data-lab-state", "idle")
    assert len(seen) == before
    lab.get_by_role("button", name="Start Python by itself").click()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    assert page.evaluate("localStorage.getItem('lab-python-on-request')") is None


def test_an_experiment_card_reached_by_a_link_starts_python(page: Page) -> None:
    """A reader who follows a link to a guided experiment may never pass its lab:
    Python is ready there as well (the card, and the reading, start it)."""
    page.goto("simulation/#temperature")
    expect(page.locator("#temperature")).to_be_in_viewport()
    lab = page.locator('[data-lab="simulation"]')
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)


def test_python_starts_when_the_lab_nears_the_viewport(page: Page) -> None:
    seen = pyodide_requests(page)
    page.goto("lesson/")
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=30_000)
    expect(lab.get_by_role("status")).to_have_text("Python is ready.")
    assert any(url.endswith("pyodide.asm.wasm") for url in seen)
    # Python runs in one worker, not on the page's thread.
    assert [w.url for w in page.workers if w.url.endswith("/assets/lab/worker.js")]


@pytest.mark.parametrize("script", ["on time", "late"])
def test_a_failed_download_leaves_the_lesson_readable_and_retry_recovers(
    page: Page, page_errors: PageErrors, script: str
) -> None:
    """``late``: Pyodide's script arrives only after its .wasm has failed, as on a busy
    machine, so Pyodide has not yet awaited the failed download: its rejection must
    still be the boot's failure, not an uncaught error in the console."""
    page_errors.allow(r"Failed to load resource")
    failed = []
    held: list[Route] = []

    def fail(route: Route) -> None:
        route.abort("internetdisconnected")
        failed.append(route.request.url)

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/*.wasm", fail)
    if script == "late":
        page.route("**/pyodide.asm.mjs", hold)
    page.goto("lesson/")
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "error", timeout=30_000)
    if script == "late":
        assert failed and held, (failed, held)
        page.unroute("**/pyodide.asm.mjs", hold)
        for route in held:
            route.continue_()
    expect(lab.get_by_role("status")).to_contain_text("Python could not start")
    expect(page.get_by_role("heading", name="What Carries Over")).to_be_visible()

    page.unroute("**/*.wasm", fail)
    lab.get_by_role("button", name="Retry").click()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=30_000)
    expect(lab.get_by_role("button", name="Retry")).to_be_hidden()


def test_moving_to_another_lab_page_reuses_the_running_python(page: Page) -> None:
    seen = pyodide_requests(page)
    page.goto("lesson/")
    page.evaluate("document.documentElement.dataset.sameDocument = 'yes'")
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=30_000)

    page.locator('.md-content a[href$="simulation/"]').first.click()
    simulation = page.locator('[data-lab="simulation"]')
    expect(simulation).to_have_attribute("data-lab-state", "ready")
    # Instant navigation kept the document, its one worker and its booted Python.
    assert page.evaluate("document.documentElement.dataset.sameDocument") == "yes"
    assert [w.url for w in page.workers if w.url.endswith("/assets/lab/worker.js")] == [
        f"{page.url.split('/simulation/')[0]}/assets/lab/worker.js"
    ]
    assert sum(url.endswith("pyodide.asm.wasm") for url in seen) == 1


# Reads past the end of Python's memory: the interpreter itself crashes, as it
# does when it runs out of memory; Pyodide then refuses every later call.
CRASH = "import ctypes\nctypes.string_at(2**32 - 16, 1000)\n"
CALL = """async ([name, args]) => {
  const {getRuntime} = await import(new URL("assets/lab/client.js", __md_scope));
  try {
    return {result: await getRuntime().call(name, args)};
  } catch (err) {
    return {kind: err.kind, message: err.message};
  }
}"""


def test_a_crashed_python_is_reported_and_restarted(page: Page, page_errors: PageErrors) -> None:
    # Pyodide reports its crash on the worker's console.
    page_errors.allow(r"fatal error|memory access out of bounds|pyodide\.asm\.mjs")
    page.goto("lesson/")
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)

    crashed = page.evaluate(CALL, ["run_simulation", {"params": {}, "code": CRASH}])
    assert crashed["kind"] == "FatalError"
    assert "memory access out of bounds" in crashed["message"]
    status = lab.get_by_role("status")
    expect(status).to_have_text(
        re.compile(r"^Python crashed \(.*memory access out of bounds.*\)\. It was restarted")
    )
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    assert page.evaluate(CALL, ["ping", {"value": 1}]) == {"result": {"pong": 1}}


RESTART = """async () => {
  const {getRuntime} = await import(new URL("assets/lab/client.js", __md_scope));
  await getRuntime().stop("Stopped.");
}"""


def test_a_restart_whose_worker_dies_starts_python_again_from_nothing(
    page: Page, page_errors: PageErrors
) -> None:
    # A restart hands the new worker the old one's compiled module and snapshot; a
    # worker that dies then (seen in WebKitGTK) is replaced by one that starts afresh.
    page_errors.allow(r"Failed to load resource")
    page.goto("lesson/")
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)

    loads: list[str] = []

    def fail_once(route: Route) -> None:
        loads.append(route.request.url)
        if len(loads) == 1:
            route.abort("failed")
        else:
            route.continue_()

    page.route("**/assets/lab/worker.js", fail_once)
    page.evaluate(RESTART)
    assert page.evaluate(CALL, ["ping", {"value": 2}]) == {"result": {"pong": 2}}
    assert len(loads) == 2, loads
    expect(lab).to_have_attribute("data-lab-state", "ready")
    expect(lab.get_by_role("status")).to_have_text("Python is ready.")


SLOW_CONNECTION = {  # what Chromium reports as effectiveType "2g"
    "offline": False,
    "latency": 1500,
    "downloadThroughput": 4e6 / 8,
    "uploadThroughput": 1e6 / 8,
}
NO_THROTTLING = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}


@pytest.mark.parametrize("reason", ["Save-Data", "a slow connection"])
def test_a_reader_saving_data_starts_python_by_a_button(page: Page, reason: str) -> None:
    cdp = page.context.new_cdp_session(page)
    if reason == "Save-Data":
        cdp.send("Emulation.setDataSaverOverride", {"dataSaverEnabled": True})
    else:
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", SLOW_CONNECTION)
    page.clock.install()
    seen = pyodide_requests(page)
    page.goto("lesson/")
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    start = lab.get_by_role("button", name=re.compile(r"^Start Python, about \d+ MB$"))
    expect(start).to_be_visible(timeout=BOOT)
    expect(lab.get_by_role("status")).to_have_text("To save data, Python starts only when you ask.")
    lab.locator("[data-lab-chip]").first.focus()  # touching the lab starts nothing either
    page.clock.run_for(10_000)  # nor does reading the page for a while
    expect(lab).to_have_attribute("data-lab-state", "idle")
    assert seen == []

    if reason != "Save-Data":
        cdp.send("Network.emulateNetworkConditions", NO_THROTTLING)
    start.click()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    expect(start).to_be_hidden()
    if reason == "Save-Data":  # and the snapshot, an optional 6 MB, is skipped
        assert not [url for url in seen if "/snapshot-" in url]


# Fast enough for a short test, slow enough for a visible download. The server emulates
# the link: Chromium's DevTools throttling stalled first visits under load (issue 50).
BROADBAND = Link(bits_per_s=40e6, latency_ms=20)


def test_a_slow_download_shows_its_progress(page: Page, site: BuiltSite) -> None:
    with serving(site.dir) as server:
        server.link = BROADBAND
        page.goto(server.url + "lesson/")
        lab = page.locator(LAB).first
        lab.scroll_into_view_if_needed()
        bar = lab.get_by_role("progressbar", name="Python download")
        expect(bar).to_be_visible(timeout=BOOT)
        expect(bar).to_have_attribute(
            "aria-valuetext", re.compile(r"^\d+\.\d MB of \d+\.\d MB, about \d+ (s|min) left$")
        )
        assert 0 < float(bar.evaluate("(bar) => bar.value / bar.max")) < 1
        expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
        expect(bar).to_be_hidden()
