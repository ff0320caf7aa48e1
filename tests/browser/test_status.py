"""The status line every lab shows: once Python is ready, none of its buttons shows;
a bug in the lab's Python shows on it, with the traceback under "Details".

Material's `.md-typeset .md-button` display rule once outranked the hidden
attribute, so the quiz showed "Start Python" and "Retry" beside "Python is ready.".
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import PageErrors
from tests.browser.support import BOOT, lab_page, open_lab
from tests.browser.test_quiz import SPEC


@pytest.mark.parametrize("kind", ["quiz", "visual-lab"])
def test_no_status_button_shows_once_python_is_ready(page: Page, kind: str) -> None:
    page.goto("lesson/")
    lab = page.locator(f'[data-lab="{kind}"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    expect(lab.locator("[data-lab-status]")).to_have_text("Python is ready.")
    controls = lab.locator(
        ".lab-status__retry, .lab-status__start, .lab-status__choice, .lab-status__download,"
        " .lab-status__details"
    )
    # The controls exist (status.js adds them hidden), and none is visible.
    expect(controls).to_have_count(5)
    for control in controls.all():
        expect(control).to_be_hidden()


def test_an_unexpected_python_error_is_shown_logged_and_not_ready(
    page: Page, page_errors: PageErrors
) -> None:
    """A spec without its questions makes the grader fail with a KeyError: a bug, not a
    refusal. The quiz says so in short, the status line stops saying ready and offers
    Retry, "Details" holds Python's traceback, and console.error carries it."""
    broken = {key: value for key, value in SPEC.items() if key != "questions"}

    def serve_broken(route: Route) -> None:
        route.fulfill(content_type="application/json", body=json.dumps(broken))

    page.route(f"**/assets/lab/quizzes/{SPEC['id']}.json", serve_broken)
    page_errors.allow(r"console\.error: Python failed in check_quiz: KeyError: 'questions'")
    quiz = open_lab(page, "quiz", SPEC["id"])
    quiz.locator("input").first.check()
    quiz.get_by_role("button", name="Check", exact=True).click()
    expect(quiz.locator("[data-lab-summary]")).to_contain_text(
        "Python failed unexpectedly (KeyError: 'questions'). This is a bug in the lab"
    )
    expect(quiz).to_have_attribute("data-lab-state", "error")
    expect(quiz.locator("[data-lab-status]")).to_have_text(
        "Python failed in this lab. Retry restarts Python."
    )
    details = quiz.locator("details[data-lab-failure]")
    details.get_by_text("Details", exact=True).click()
    expect(details.locator("pre")).to_contain_text("Traceback (most recent call last):")
    expect(details.locator("pre")).to_contain_text("KeyError: 'questions'")
    assert any("Traceback" in error for error in page_errors.errors)
    # Retry restarts Python: the line says ready again and the details go.
    quiz.get_by_role("button", name="Retry").click()
    expect(quiz).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    expect(details).to_be_hidden()
    assert lab_page("quiz", SPEC["id"]) == "lesson/"
