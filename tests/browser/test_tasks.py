"""Guided tasks: predict, run through the page's lab, read the outcome Python words from it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from lab.guided.tasks import run_task, seeds_text, task_outcome
from lesson_hooks.fences.task import Task, parse_page
from tests.browser.support import (
    BOOT,
    PHONE,
    SIMULATION,
    SMALL_CHART_TEXT,
    axe_violations,
    watch,
)
from tests.conftest import ROOT

RUN = 180_000  # ms: 20 seeds in Pyodide on a busy 2-core machine, after the boot
PAGE = "docs/simulation.md"
TASKS = {t.id: t for t in parse_page((ROOT / PAGE).read_text(encoding="utf-8"), PAGE)}


def plain(text: str) -> str:
    """An option's text as the page shows it (Markdown's backticks and stars rendered away)."""
    return re.sub(r"[`*]", "", text)


PAGES = {"docs/simulation.md": "simulation/", "docs/language-models.md": "language-models/"}
ALL = {source: parse_page((ROOT / source).read_text(encoding="utf-8"), source) for source in PAGES}


@cache
def cpython_result(task_id: str) -> dict:
    task = next(t for tasks in ALL.values() for t in tasks if t.id == task_id)
    return run_task(task.spec)


def cpython_outcome(task_id: str, choice: int) -> str:
    """What CPython's lab.guided.tasks says for the same settings and prediction."""
    task = next(t for tasks in ALL.values() for t in tasks if t.id == task_id)
    return task_outcome(task.spec, choice, cpython_result(task_id))["text"]


def open_task(page: Page, task_id: str) -> Locator:
    """The task, scrolled into view, with its lab ready to run."""
    page.goto("simulation/")
    lab = page.locator(SIMULATION)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    task = page.locator(f'[data-lab-task="{task_id}"]')
    expect(task).to_have_attribute("data-lab-enhanced", "")
    task.scroll_into_view_if_needed()
    return task


def radio(task: Locator, t: Task, index: int) -> Locator:
    return task.get_by_role("radio", name=plain(t.options[index].text), exact=True)


def run_button(task: Locator) -> Locator:
    return task.get_by_role("button", name="Run this experiment", exact=True)


def expect_outcome(task: Locator, task_id: str, choice: int) -> None:
    expect(task).to_have_attribute("data-lab-task-state", "done", timeout=RUN)
    expect(task.locator("[data-lab-task-outcome]")).to_have_text(cpython_outcome(task_id, choice))
    expect(task.locator("details[data-lab-task-explanation]")).to_have_attribute("open", "")


def test_by_mouse_the_outcome_is_cpythons_and_the_lab_holds_the_settings(page: Page) -> None:
    t = TASKS["noisy-partner"]
    task = open_task(page, t.id)
    radio(task, t, t.answer).click()
    run_button(task).click()
    expect_outcome(task, t.id, t.answer)
    assert cpython_outcome(t.id, t.answer).endswith("Your prediction holds.")
    expect(task.locator(f'[data-lab-task-option="{t.answer}"]')).to_have_attribute(
        "data-lab-task-happened", ""
    )
    lab = page.locator(SIMULATION)
    expect(lab).to_have_attribute("data-lab-run", "done")
    # The lab's form holds the experiment's settings, so a rerun is the reader's own.
    expect(lab.locator('[data-lab-field="seeds"]')).to_have_value(str(t.params["seeds"]))
    # The reader's prediction is kept.
    page.reload()
    task = page.locator(f'[data-lab-task="{t.id}"]')
    expect(task).to_have_attribute("data-lab-enhanced", "")
    expect(radio(task, t, t.answer)).to_be_checked()


def test_by_keyboard_a_wrong_prediction_is_told_what_happened(page: Page) -> None:
    t = TASKS["penalty-free"]
    task = open_task(page, t.id)
    wrong = next(i for i in range(len(t.options)) if i != t.answer)
    radio(task, t, 0).focus()
    page.keyboard.press("Space")
    for _ in range(wrong):
        page.keyboard.press("ArrowDown")
    expect(radio(task, t, wrong)).to_be_checked()
    page.keyboard.press("Tab")
    expect(run_button(task)).to_be_focused()
    page.keyboard.press("Enter")
    expect(task).to_have_attribute("data-lab-task-state", "running")
    expect_outcome(task, t.id, wrong)
    assert "What happened is" in cpython_outcome(t.id, wrong)
    # The lab's controls show the experiment's settings, for the reader to vary.
    lab = page.locator(SIMULATION)
    expect(lab.locator('[data-lab-field="table"]')).to_have_value("penalty")
    expect(lab.locator('[data-lab-field="penalty_k"]')).to_be_visible()
    expect(lab.locator('[data-lab-field="penalty_k"]')).to_have_value("0")
    expect(lab.locator('[data-lab-field="seeds"]')).to_have_value("20")
    # The tasks and the lab they ran (the whole page is test_quality's).
    where = "simulation/ after a task"
    assert axe_violations(page, where, [".lab-task", SIMULATION]) == []


def test_a_task_asks_a_busy_lab_to_wait_and_runs_once_it_is_free(page: Page) -> None:
    first, second = TASKS["penalty-harsh"], TASKS["noisy-partner"]
    one = open_task(page, first.id)
    two = page.locator(f'[data-lab-task="{second.id}"]')
    radio(one, first, first.answer).click()
    radio(two, second, second.answer).click()
    run_button(one).click()
    expect(one).to_have_attribute("data-lab-task-state", "running")
    run_button(two).click()
    expect(two.locator("[data-lab-task-status]")).to_contain_text(
        "The lab is busy with another run"
    )
    expect(two).to_have_attribute("data-lab-task-state", "idle")
    expect_outcome(one, first.id, first.answer)
    run_button(two).click()
    expect_outcome(two, second.id, second.answer)


# Every text the card's status line shows, in order (a run's progress comes and goes).
RECORD_STATUS = """task => {
  const line = task.querySelector("[data-lab-task-status]");
  const seen = (window.seenStatus = []);
  new MutationObserver(() => seen.push(line.textContent)).observe(line, {
    childList: true, characterData: true, subtree: true,
  });
}"""


def test_the_card_shows_its_runs_progress_then_its_result(page: Page) -> None:
    """A reader who came by a link to the experiment never needs to scroll up to the lab."""
    t = TASKS["penalty-harsh"]
    page.goto(f"simulation/#{t.id}")
    task = page.locator(f'[data-lab-task="{t.id}"]')
    expect(task).to_have_attribute("data-lab-enhanced", "")
    expect(page.locator(SIMULATION)).to_have_attribute("data-lab-enhanced", "")
    task.evaluate(RECORD_STATUS)
    radio(task, t, t.answer).click()
    run_button(task).click()
    status = task.locator("[data-lab-task-status]")
    expect(task).to_have_attribute("data-lab-task-state", "running")
    expect(status).to_contain_text(
        re.compile(r"In the lab, with this experiment's settings: Training seed \d+ of 20"),
        timeout=BOOT,
    )
    expect(task.locator("[data-lab-task-result]")).to_be_hidden()
    expect_outcome(task, t.id, t.answer)
    seen = page.evaluate("window.seenStatus")
    assert any(s.startswith("In the lab, with this experiment's settings: ") for s in seen)
    # The card's own compact result: the outcome, the count over seeds, the way to the charts.
    result = task.locator("[data-lab-task-result]")
    expect(result).to_be_visible()
    counted = seeds_text(cpython_result(t.id))
    assert counted and counted.startswith("Over 20 seeds, the optimum was reached by ")
    expect(result.locator("[data-lab-task-seeds]")).to_have_text(counted)
    # The lab's learning curve drawn again on the card, small, with the lab's caption and key.
    expect_card_chart(page, task)
    card = result.locator("[data-lab-task-chart]")
    lines = card.locator("svg.lab-sim__chart path.lab-sim__line")
    expect(lines).to_have_count(len(cpython_result(t.id)["methods"]))
    card_caption = card.locator(".lab-sim__caption").inner_text()
    card_key = card.locator(".lab-sim__legend li:visible").all_inner_texts()
    charts = result.get_by_role("link", name="See the full charts in the lab", exact=True)
    page.evaluate("window.lab = document.querySelector('[data-lab=simulation]')")
    charts.click()
    lab_results = page.locator(f"{SIMULATION} [data-lab-results]")
    expect(lab_results).to_be_visible()
    expect(lab_results).to_be_in_viewport()
    expect(lab_results).to_be_focused()
    # The card's caption and key are the lab's, as the reader finds them there (the
    # browser lays the lab out only once it nears the viewport: lesson.css).
    expect(page.locator(f"{SIMULATION} [data-lab-curve-caption]")).to_have_text(card_caption)
    expect(page.locator(f"{SIMULATION} [data-lab-legend] li:visible")).to_have_text(card_key)
    assert card_key, "the card's key shows no method"
    # The same lab, not one loaded anew: it still holds the run and the experiment's settings.
    assert page.evaluate("window.lab === document.querySelector('[data-lab=simulation]')")
    expect(page.locator(SIMULATION)).to_have_attribute("data-lab-run", "done")


def expect_card_chart(page: Page, task: Locator) -> None:
    """The card holds the lab's main chart, at most CARD_MAX_HEIGHT (220 px) tall, its
    text at least 12 px, and no id or lab mark copied from the lab."""
    chart = task.locator("[data-lab-task-chart] svg[role=img]")
    expect(chart).to_be_visible()
    # In one call: a redraw between finding the chart and reading its box left no box.
    height = chart.evaluate("(svg) => svg.getBoundingClientRect().height")
    assert height <= 220.5, height
    assert chart.evaluate(SMALL_CHART_TEXT) == []
    copied = task.locator("[data-lab-task-chart]")
    assert copied.locator("[id], [data-lab], [data-lab-html]").count() == 0
    assert page.locator("[data-lab-task-chart] [data-lab]").count() == 0


def test_without_a_prediction_nothing_runs(page: Page) -> None:
    t = TASKS["climbing-defaults"]
    task = open_task(page, t.id)
    run_button(task).click()
    expect(task.locator("[data-lab-task-status]")).to_have_text(
        "Make your prediction first: choose one of the answers above."
    )
    expect(radio(task, t, 0)).to_be_focused()
    expect(task).to_have_attribute("data-lab-task-state", "idle")
    expect(page.locator(SIMULATION)).not_to_have_attribute("data-lab-run", "running")


@pytest.mark.parametrize("source", PAGES)
def test_every_task_on_the_page_runs_to_cpythons_outcome(page: Page, source: str) -> None:
    """Each task in turn, predictions rotating through right and wrong ones."""
    page.goto(PAGES[source])
    kind = ALL[source][0].lab
    lab = page.locator(f'[data-lab="{kind}"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    for n, t in enumerate(ALL[source]):
        task = page.locator(f'[data-lab-task="{t.id}"]')
        task.scroll_into_view_if_needed()
        choice = n % len(t.options)
        radio(task, t, choice).click()
        run_button(task).click()
        expect_outcome(task, t.id, choice)
        expect(lab).to_have_attribute("data-lab-run", "done")
        expect_card_chart(page, task)


@pytest.fixture
def phone(browser: Browser, browser_context_args: dict) -> Iterator[Page]:
    context = browser.new_context(
        **browser_context_args, viewport=PHONE, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    errors = watch(page)
    yield page
    context.close()
    assert not errors.unexpected(), "\n".join(errors.unexpected())


def test_by_touch_on_a_phone(phone: Page) -> None:
    t = TASKS["noisy-partner"]
    task = open_task(phone, t.id)
    radio(task, t, 0).tap()
    run_button(task).tap()
    expect_outcome(task, t.id, 0)
    expect_card_chart(phone, task)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375


def test_without_javascript_question_options_and_explanation_read(no_script_page: Page) -> None:
    no_script_page.goto("simulation/")
    for t in TASKS.values():
        task = no_script_page.locator(f'[data-lab-task="{t.id}"]')
        expect(task).to_have_attribute("id", t.id)
        expect(task.get_by_role("group", name=plain(t.question), exact=True)).to_be_visible()
        for i in range(len(t.options)):
            expect(radio(task, t, i)).to_be_visible()
        details = task.locator("details[data-lab-task-explanation]")
        expect(details).not_to_have_attribute("open", "")
        expect(details.locator("summary")).to_have_text("Answer and explanation")
        expect(run_button(task)).to_be_hidden()
