"""A reader's walk through the site as Zensical builds it (``./dev build --zensical``).

The build layer compares its pages with MkDocs' (tests/build/test_zensical.py);
this reads them in a browser: a page loads, the Visual Lab grades, the
simulation runs, and the site reads on offline once visited. The zero-foreign-
requests walk runs on it too (tests/browser/test_quality.py).
"""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.browser.support import (
    BOOT,
    MAPPING,
    NOTE_TEXTS,
    OFFLINE_NOTE,
    SIMULATION,
    note_texts,
    own_page,
)
from tests.conftest import BuiltSite

RUN = 90_000  # ms: a default simulation run, Python's start included, on a busy machine


def test_a_reader_walks_the_zensical_build(
    browser: Browser, browser_context_args: dict, zensical_site: BuiltSite
) -> None:
    site = zensical_site
    assert site.network_off is not None
    with own_page(
        browser, browser_context_args, base_url=site.url, service_workers="allow"
    ) as page:
        page.add_init_script(NOTE_TEXTS)
        try:
            page.goto("lesson/")
            expect(page.get_by_role("heading", level=1)).to_be_visible()

            # The Visual Lab grades: a reader checks it unanswered and is told what is right.
            lab = page.locator(MAPPING)
            lab.scroll_into_view_if_needed()
            expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
            lab.locator('[data-lab-action="check"]').click()
            expect(lab.locator("[data-lab-summary]")).to_contain_text("correct", timeout=BOOT)
            # Python ran, so the service worker now keeps it too.
            expect(page.locator(OFFLINE_NOTE)).to_have_text("Available offline", timeout=BOOT)
            assert note_texts(page) == ["Pages available offline", "Available offline"]

            page.goto("simulation/")
            sim = page.locator(SIMULATION)
            sim.scroll_into_view_if_needed()
            sim.get_by_role("button", name="Run", exact=True).click()
            expect(sim).to_have_attribute("data-lab-run", "done", timeout=RUN)
            expect(sim.locator("[data-lab-summary]")).not_to_be_empty()

            # Offline: the pages and the lab come from the service worker's cache.
            site.network_off.set()
            page.context.set_offline(True)
            for path in ("summary/", "teachers/", "lesson/"):
                page.goto(path)
                expect(page.get_by_role("heading", level=1)).to_be_visible()
            lab = page.locator(MAPPING)
            lab.scroll_into_view_if_needed()
            expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
        finally:
            site.network_off.clear()
