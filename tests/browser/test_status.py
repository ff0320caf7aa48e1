"""The status line every lab shows: once Python is ready, none of its buttons shows.

Material's `.md-typeset .md-button` display rule once outranked the hidden
attribute, so the quiz showed "Start Python" and "Retry" beside "Python is ready.".
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

BOOT = 60_000  # ms: first start of Pyodide on a busy 2-core machine


@pytest.mark.parametrize("kind", ["quiz", "visual-lab"])
def test_no_status_button_shows_once_python_is_ready(page: Page, kind: str) -> None:
    page.goto("lesson/")
    lab = page.locator(f'[data-lab="{kind}"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    expect(lab.locator("[data-lab-status]")).to_have_text("Python is ready.")
    controls = lab.locator(
        ".lab-status__retry, .lab-status__start, .lab-status__choice, .lab-status__download"
    )
    # The controls exist (status.js adds them hidden), and none is visible.
    expect(controls).to_have_count(4)
    for control in controls.all():
        expect(control).to_be_hidden()
