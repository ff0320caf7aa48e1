"""The tab's Python: lazy, off the main thread, recoverable."""

from __future__ import annotations

import re

from playwright.sync_api import Page, Request, Route, expect

from tests.browser.conftest import PageErrors

PYODIDE = re.compile(r"/assets/vendor/pyodide/")
LAB = "[data-lab]"


def pyodide_requests(page: Page) -> list[str]:
    seen: list[str] = []

    def record(request: Request) -> None:
        if PYODIDE.search(request.url):
            seen.append(request.url)

    page.on("request", record)
    return seen


def test_readers_who_never_reach_a_lab_never_download_python(page: Page) -> None:
    seen = pyodide_requests(page)
    for path in ("./", "summary/", "references/", "lesson/"):
        page.goto(path)
        page.wait_for_load_state("networkidle")
    assert seen == []
    expect(page.locator(LAB).first).to_have_attribute("data-lab-state", "idle")


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


def test_a_failed_download_leaves_the_lesson_readable_and_retry_recovers(
    page: Page, page_errors: PageErrors
) -> None:
    page_errors.allow(r"Failed to load resource")

    def fail(route: Route) -> None:
        route.abort("internetdisconnected")

    page.route("**/*.wasm", fail)
    page.goto("lesson/")
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "error", timeout=30_000)
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
