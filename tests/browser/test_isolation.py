"""Cross-origin isolation from the site's service worker, and Stop by interrupt under it.

The rest of the Playwright suite blocks service workers, so it tests the
fallback (Stop replaces the worker), as on a reader's first visit. Here the
service worker runs: once it controls the tab, every page it serves is
cross-origin isolated, and Stop and the time limit interrupt Python instead.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Request, expect

from lab import original_source
from tests.browser.conftest import PageErrors
from tests.browser.support import (
    BOOT,
    WATCH,
    lab_log,
    open_code,
    site_pages,
    wait_for_editor,
    wait_for_progress,
)
from tests.conftest import BuiltSite
from tools.bench import RUNAWAY_CODE, STOPS_IN_A_ROW, STOPS_IN_A_TEST

RUN = 90_000  # ms: a default run, with the machine busy
SIMULATION = '[data-lab="simulation"]'
ORIGINAL = original_source()
TABLE_REWARD = "def table_reward("
# A loop the reader cannot leave: it catches the interrupt and goes on.
STUBBORN = """\
while True:
    try:
        while True:
            pass
    except KeyboardInterrupt:
        pass
"""
RUNAWAY = "    while True:\n        pass\n"
CONTROLLED = "() => navigator.serviceWorker.controller !== null"


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "service_workers": "allow"}


def visit_once(page: Page) -> None:
    """A reader's first visit: not isolated; the service worker then takes the tab."""
    page.goto("./")
    assert page.evaluate("crossOriginIsolated") is False
    page.wait_for_function(CONTROLLED, timeout=BOOT)


def open_lab(page: Page) -> Locator:
    """The simulation lab on a revisit, isolated, with its editor loaded and Python ready."""
    visit_once(page)
    page.add_init_script(WATCH)
    page.goto("simulation/")
    assert page.evaluate("crossOriginIsolated") is True
    lab = page.locator(SIMULATION)
    lab.scroll_into_view_if_needed()
    open_code(lab)
    wait_for_editor(lab)
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return lab


def button(lab: Locator, name: str) -> Locator:
    return lab.get_by_role("button", name=name, exact=True)


def field(lab: Locator, label: str) -> Locator:
    return lab.get_by_label(label, exact=True)


def summary(lab: Locator) -> Locator:
    return lab.locator("[data-lab-summary]")


def run(lab: Locator, state: str = "done") -> None:
    button(lab, "Run").click()
    expect(lab).to_have_attribute("data-lab-run", state, timeout=RUN)


def write(lab: Locator, source: str) -> None:
    lab.get_by_role("textbox", name=re.compile(r"^Your code")).fill(source)


def stop_in(lab: Locator, loop: str) -> None:
    """Run with ``loop`` at the top level of the reader's code; press Stop once inside it."""
    lab.get_by_label("Time limit for your code").select_option("30")
    at = ORIGINAL.index(TABLE_REWARD)
    body = "".join(f"    {line}\n" for line in loop.splitlines())
    write(lab, ORIGINAL[:at] + f"def loop():\n{body}\n\nloop()\n\n" + ORIGINAL[at:])
    button(lab, "Run").click()
    expect(lab).to_have_attribute("data-lab-in-code", "true", timeout=RUN)
    button(lab, "Stop").click()


def python_was_kept(page: Page) -> None:
    """No worker was replaced, and the status line never left ready since Python first was."""
    log = lab_log(page)
    assert log["terminated"] == 0
    states = [value for name, value, _ in log["states"] if name == "data-lab-state"]
    assert states[states.index("ready") :] == ["ready"], states


def test_every_page_the_service_worker_serves_is_isolated_and_loads_everything(
    page: Page, site: BuiltSite
) -> None:
    """Under COEP require-corp nothing the site loads may be refused: fonts, math, Python."""
    failed: list[str] = []

    def record(request: Request) -> None:
        # ERR_ABORTED: an import the next page's load cancelled; what COEP
        # refuses fails as ERR_BLOCKED_BY_RESPONSE.
        if request.failure != "net::ERR_ABORTED":
            failed.append(f"{request.url}: {request.failure}")

    page.on("requestfailed", record)
    visit_once(page)
    for path in site_pages(site):
        page.goto(path)
        assert page.evaluate("crossOriginIsolated") is True, path
        page.evaluate("document.fonts.ready.then(() => null)")
        assert page.evaluate("[...document.fonts].every((font) => font.status !== 'error')"), path
    page.goto("simulation/")
    lab = page.locator(SIMULATION)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    # Python's worker is isolated too: it shares memory with the page.
    assert page.evaluate(
        """async () => {
          const { getRuntime } = await import(new URL("assets/lab/client.js", __md_scope));
          return getRuntime().interrupts;
        }"""
    )
    assert not failed, failed


def test_stop_and_the_time_limit_interrupt_python_which_stays_warm(page: Page) -> None:
    lab = open_lab(page)
    run(lab)
    fresh = summary(lab).text_content() or ""
    defaults = {name: field(lab, name).input_value() for name in ("Updates", "Group size")}

    # Stop: the run ends with its curve so far, Python is interrupted, not replaced.
    field(lab, "Updates").fill("5000")
    field(lab, "Group size").fill("256")
    button(lab, "Run").click()
    chart = lab.locator("svg.lab-sim__chart")
    # This run's progress (the chart still holds the last run's points until it starts).
    caption = lab.locator("[data-lab-curve-caption]")
    expect(caption).to_have_text(re.compile(r"^Training: [1-9]\d* of 5000 updates\.$"), timeout=RUN)
    button(lab, "Stop").click()
    expect(lab).to_have_attribute("data-lab-run", "stopped")
    points = int(chart.get_attribute("data-lab-points") or 0)
    assert 0 < points < 5000
    expect(summary(lab)).to_have_text(
        f"Stopped after {points} updates of 5000. The curve shows the run so far; run again "
        "for the heatmaps, the partner bars and a new episode."
    )
    expect(lab.get_by_role("status")).to_have_text("Python is ready.")
    python_was_kept(page)

    # Right after: the same numbers as the fresh run (the interrupted one left nothing behind).
    for name, value in defaults.items():
        field(lab, name).fill(value)
    run(lab)
    expect(summary(lab)).to_have_text(fresh)

    # The time limit interrupts the reader's runaway loop the same way.
    lab.get_by_label("Time limit for your code").select_option("2")
    at = ORIGINAL.index("    row = which_response")
    write(lab, ORIGINAL[:at] + RUNAWAY + ORIGINAL[at:])
    run(lab, "stopped")
    expect(summary(lab)).to_have_text("Stopped after 2 s: your code ran too long.")
    python_was_kept(page)
    button(lab, "Reset the code").click()
    run(lab)
    expect(summary(lab)).to_have_text(fresh)
    python_was_kept(page)


def test_code_that_catches_the_interrupt_is_stopped_by_a_restart(page: Page) -> None:
    lab = open_lab(page)
    stop_in(lab, STUBBORN)
    # After the grace period, the worker is replaced, as where nothing can interrupt.
    expect(lab).to_have_attribute("data-lab-run", "stopped", timeout=BOOT)
    expect(summary(lab)).to_have_text(
        re.compile(r"^Stopped after 0 updates of \d+\. Python was restarted\.$")
    )
    assert lab_log(page)["terminated"] == 1
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    button(lab, "Reset the code").click()
    run(lab)


def test_every_stop_of_a_busy_loop_interrupts_python(page: Page) -> None:
    """CPython clears the interrupt buffer in a second step after reading it, which erased
    a Stop landing in between (about 1 in 60 in a busy loop): worker.js's interruptView
    clears only what was read. The bench runs more of these (STOPS_IN_THE_BENCH)."""
    open_lab(page)
    assert page.evaluate(STOPS_IN_A_ROW, [STOPS_IN_A_TEST, RUNAWAY_CODE]) == 0
    python_was_kept(page)


def test_stop_interrupts_the_language_model_lab_too(page: Page) -> None:
    visit_once(page)
    page.add_init_script(WATCH)
    page.goto("language-models/")
    lab = page.locator('[data-lab="language-models"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    for name, value in {"updates": "1000", "seeds": "50"}.items():
        lab.locator(f'[data-lab-field="{name}"]').fill(value)
    button(lab, "Run").click()
    wait_for_progress(lab, RUN)
    button(lab, "Stop").click()
    expect(lab).to_have_attribute("data-lab-run", "stopped")
    expect(summary(lab)).to_have_text("Stopped; run again when you like.")
    expect(lab.get_by_role("status")).to_have_text("Python is ready.")
    assert lab_log(page)["terminated"] == 0
    for name, value in {"updates": "5", "seeds": "1"}.items():
        lab.locator(f'[data-lab-field="{name}"]').fill(value)
    button(lab, "Step").click()
    expect(lab).to_have_attribute("data-lab-run", "stepped", timeout=RUN)


def lab_workers(browser: Browser) -> int:
    """The Python workers alive in the browser: each tab has its own."""
    cdp = browser.new_browser_cdp_session()
    try:
        targets = cdp.send("Target.getTargets")["targetInfos"]
    finally:
        cdp.detach()
    return sum(t["type"] == "worker" and "/assets/lab/worker.js" in t["url"] for t in targets)


def training(lab: Locator) -> Locator:
    """The caption of a long run's curve once it is under way."""
    caption = lab.locator("[data-lab-curve-caption]")
    expect(caption).to_have_text(re.compile(r"^Training: [1-9]\d* of 5000 updates\.$"), timeout=RUN)
    return caption


def test_three_tabs_each_run_their_own_python_and_stop_and_close_alone(
    browser: Browser, context: BrowserContext, page: Page, page_errors: PageErrors
) -> None:
    visit_once(page)
    tabs = [page, context.new_page(), context.new_page()]
    labs = []
    for tab in tabs:
        if tab is not page:
            tab.on("console", page_errors.on_console)
            tab.on("pageerror", page_errors.on_page_error)
        tab.add_init_script(WATCH)
        tab.goto("simulation/")
        assert tab.evaluate("crossOriginIsolated") is True
        lab = tab.locator(SIMULATION)
        lab.scroll_into_view_if_needed()
        labs.append(lab)
    for lab in labs:
        expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    assert lab_workers(browser) == 3

    # A long run in every tab; Stop in the first ends its run alone.
    for lab in labs:
        field(lab, "Updates").fill("5000")
        field(lab, "Group size").fill("256")
        button(lab, "Run").click()
    for lab in labs:
        training(lab)
    button(labs[0], "Stop").click()
    expect(labs[0]).to_have_attribute("data-lab-run", "stopped")
    for lab in labs[1:]:
        # Still running, and still training: the curve grows past what it had.
        text = training(lab).text_content()
        expect(lab).to_have_attribute("data-lab-run", "running")
        expect(lab.locator("[data-lab-curve-caption]")).not_to_have_text(text or "", timeout=RUN)
    button(labs[1], "Stop").click()
    expect(labs[1]).to_have_attribute("data-lab-run", "stopped")
    expect(labs[2]).to_have_attribute("data-lab-run", "running")
    for tab in tabs[:2]:
        python_was_kept(tab)

    # Closing a tab mid-run ends its Python, and only its Python.
    tabs[2].close()
    deadline = time.monotonic() + BOOT / 1000
    # Each count is a round trip to the browser; the worker ends within a few.
    while lab_workers(browser) != 2 and time.monotonic() < deadline:
        continue
    assert lab_workers(browser) == 2
    for lab in labs[:2]:
        field(lab, "Updates").fill("20")
        run(lab)
