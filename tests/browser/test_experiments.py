"""Guided experiments: predict, run through the page's lab, read the outcome Python words."""

from __future__ import annotations

import re
from functools import cache

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from lab.experiment.outcome import counts_table, experiment_outcome
from lesson_hooks.fences.experiment import Experiment, parse_page
from tests.browser.support import (
    BOOT,
    PHONE_390,
    SIMULATION,
    SMALL_CHART_TEXT,
    axe_violations,
    touch_phone,
)
from tests.conftest import ROOT
from tests.support.html import parse_html
from tests.support.runs import run_guided_experiment

RUN = 180_000  # ms: 20 seeds in Pyodide on a busy 2-core machine, after the boot
PAGE = "docs/simulation.md"
EXPERIMENTS = {t.id: t for t in parse_page((ROOT / PAGE).read_text(encoding="utf-8"), PAGE)}


def plain(text: str) -> str:
    """An option's text as the page shows it (Markdown's backticks and stars rendered away)."""
    return re.sub(r"[`*]", "", text)


PAGES = {"docs/simulation.md": "simulation/", "docs/language-models.md": "language-models/"}
ALL = {source: parse_page((ROOT / source).read_text(encoding="utf-8"), source) for source in PAGES}


@cache
def cpython_result(experiment_id: str) -> dict:
    experiment = next(
        t for experiments in ALL.values() for t in experiments if t.id == experiment_id
    )
    return run_guided_experiment(experiment.spec)


def cpython_outcome(experiment_id: str, choice: int) -> str:
    """What CPython's lab.experiment.outcome says for the same settings and prediction."""
    experiment = next(
        t for experiments in ALL.values() for t in experiments if t.id == experiment_id
    )
    return experiment_outcome(experiment.spec, choice, cpython_result(experiment_id))["text"]


def open_experiment(page: Page, experiment_id: str) -> Locator:
    """The experiment, scrolled into view, with its lab ready to run."""
    page.goto("simulation/")
    lab = page.locator(SIMULATION)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    experiment = page.locator(f'[data-lab-experiment="{experiment_id}"]')
    expect(experiment).to_have_attribute("data-lab-enhanced", "")
    experiment.scroll_into_view_if_needed()
    return experiment


def radio(experiment: Locator, t: Experiment, index: int) -> Locator:
    return experiment.get_by_role("radio", name=plain(t.options[index].text), exact=True)


def run_button(experiment: Locator) -> Locator:
    return experiment.get_by_role("button", name="Run this experiment", exact=True)


def expect_outcome(experiment: Locator, experiment_id: str, choice: int) -> None:
    expect(experiment).to_have_attribute("data-lab-experiment-state", "done", timeout=RUN)
    expect(experiment.locator("[data-lab-experiment-outcome]")).to_have_text(
        cpython_outcome(experiment_id, choice)
    )
    expect(experiment.locator("details[data-lab-experiment-explanation]")).to_have_attribute(
        "open", ""
    )


def test_by_mouse_the_outcome_is_cpythons_and_the_lab_holds_the_settings(page: Page) -> None:
    t = EXPERIMENTS["noisy-partner"]
    experiment = open_experiment(page, t.id)
    radio(experiment, t, t.answer).click()
    run_button(experiment).click()
    expect_outcome(experiment, t.id, t.answer)
    assert cpython_outcome(t.id, t.answer).endswith("Your prediction holds.")
    expect(experiment.locator(f'[data-lab-experiment-option="{t.answer}"]')).to_have_attribute(
        "data-lab-experiment-happened", ""
    )
    lab = page.locator(SIMULATION)
    expect(lab).to_have_attribute("data-lab-run", "done")
    # The lab's form holds the experiment's settings, so a rerun is the reader's own.
    expect(lab.locator('[data-lab-field="seeds"]')).to_have_value(str(t.params["seeds"]))
    # The reader's prediction is kept.
    page.reload()
    experiment = page.locator(f'[data-lab-experiment="{t.id}"]')
    expect(experiment).to_have_attribute("data-lab-enhanced", "")
    expect(radio(experiment, t, t.answer)).to_be_checked()


def test_by_keyboard_a_wrong_prediction_is_told_what_happened(page: Page) -> None:
    t = EXPERIMENTS["penalty-free"]
    experiment = open_experiment(page, t.id)
    wrong = next(i for i in range(len(t.options)) if i != t.answer)
    radio(experiment, t, 0).focus()
    page.keyboard.press("Space")
    for _ in range(wrong):
        page.keyboard.press("ArrowDown")
    expect(radio(experiment, t, wrong)).to_be_checked()
    page.keyboard.press("Tab")
    expect(run_button(experiment)).to_be_focused()
    page.keyboard.press("Enter")
    expect(experiment).to_have_attribute("data-lab-experiment-state", "running")
    expect_outcome(experiment, t.id, wrong)
    assert "What happened is" in cpython_outcome(t.id, wrong)
    # The lab's controls show the experiment's settings, for the reader to vary.
    lab = page.locator(SIMULATION)
    expect(lab.locator('[data-lab-field="table"]')).to_have_value("penalty")
    expect(lab.locator('[data-lab-field="penalty_k"]')).to_be_visible()
    expect(lab.locator('[data-lab-field="penalty_k"]')).to_have_value("0")
    expect(lab.locator('[data-lab-field="seeds"]')).to_have_value("20")
    # The experiments and the lab they ran (the whole page is test_quality's).
    where = "simulation/ after an experiment"
    assert axe_violations(page, where, [".lab-experiment", SIMULATION]) == []


def test_a_experiment_asks_a_busy_lab_to_wait_and_runs_once_it_is_free(page: Page) -> None:
    first, second = EXPERIMENTS["penalty-harsh"], EXPERIMENTS["noisy-partner"]
    one = open_experiment(page, first.id)
    two = page.locator(f'[data-lab-experiment="{second.id}"]')
    radio(one, first, first.answer).click()
    radio(two, second, second.answer).click()
    run_button(one).click()
    expect(one).to_have_attribute("data-lab-experiment-state", "running")
    run_button(two).click()
    expect(two.locator("[data-lab-experiment-status]")).to_contain_text(
        "The lab is busy with another run"
    )
    expect(two).to_have_attribute("data-lab-experiment-state", "idle")
    expect_outcome(one, first.id, first.answer)
    run_button(two).click()
    expect_outcome(two, second.id, second.answer)


# Every text the card's status line shows, in order (a run's progress comes and goes).
RECORD_STATUS = """experiment => {
  const line = experiment.querySelector("[data-lab-experiment-status]");
  const seen = (window.seenStatus = []);
  new MutationObserver(() => seen.push(line.textContent)).observe(line, {
    childList: true, characterData: true, subtree: true,
  });
}"""


def test_the_card_shows_its_runs_progress_then_its_result(page: Page) -> None:
    """A reader who came by a link to the experiment never needs to scroll up to the lab."""
    t = EXPERIMENTS["penalty-harsh"]
    page.goto(f"simulation/#{t.id}")
    experiment = page.locator(f'[data-lab-experiment="{t.id}"]')
    expect(experiment).to_have_attribute("data-lab-enhanced", "")
    expect(page.locator(SIMULATION)).to_have_attribute("data-lab-enhanced", "")
    # Python ready before the run: the card once began "…settings: Python is ready.".
    expect(page.locator(SIMULATION)).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    experiment.evaluate(RECORD_STATUS)
    radio(experiment, t, t.answer).click()
    run_button(experiment).click()
    expect(experiment).to_have_attribute("data-lab-experiment-state", "running")
    expect(experiment.locator("[data-lab-experiment-result]")).to_be_hidden()
    expect_outcome(experiment, t.id, t.answer)
    # Read from the record, not polled: one seed's words may last less than a poll.
    seen = page.evaluate("window.seenStatus")
    mirrored = [
        s for s in seen if s.startswith("Running in the lab with this experiment's settings. ")
    ]
    assert [s for s in mirrored if re.search(r"\. Training seed \d+ of 20\b", s)], seen
    # Each reads as news of the run, never the status line's "Python is ready." (issue 39).
    assert not [s for s in mirrored if s.endswith("Python is ready.")]
    # The card's own compact result: the outcome, the counts over seeds, the way to the charts.
    result = experiment.locator("[data-lab-experiment-result]")
    expect(result).to_be_visible()
    expect_counts(experiment, t.id)
    # The lab's learning curve drawn again on the card, small, with the lab's caption and key.
    expect_card_chart(page, experiment)
    card = result.locator("[data-lab-experiment-chart]")
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


def table_rows(html: str) -> list[str]:
    """Each row of Python's table as the page reads it: its cells' text, tab-separated."""
    return [
        "\t".join(cell.text() for cell in row.children if not isinstance(cell, str))
        for row in parse_html(html).find_all("tr")
    ]


def expect_counts(experiment: Locator, experiment_id: str) -> None:
    """Issue 37: the counts over seeds are a compact table, each with its interval once,
    an exact method with none; the words are CPython's, cell for cell."""
    table = experiment.locator("[data-lab-experiment-counts] table")
    expected = counts_table(cpython_result(experiment_id))
    assert expected is not None
    rows = table.locator("tr")
    expect(rows).to_have_count(len(table_rows(expected)))
    seen = rows.evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent).join('\\t'))"
    )
    assert seen == table_rows(expected)
    assert (
        "somewhere between" not in experiment.locator("[data-lab-experiment-outcome]").inner_text()
    )


def expect_card_chart(page: Page, experiment: Locator) -> None:
    """The card holds the lab's main chart, at most CARD_MAX_HEIGHT (220 px) tall, its
    text at least 12 px, and no id or lab mark copied from the lab."""
    chart = experiment.locator("[data-lab-experiment-chart] svg[role=img]")
    expect(chart).to_be_visible()
    # In one call: a redraw between finding the chart and reading its box left no box.
    height = chart.evaluate("(svg) => svg.getBoundingClientRect().height")
    assert height <= 220.5, height
    assert chart.evaluate(SMALL_CHART_TEXT) == []
    copied = experiment.locator("[data-lab-experiment-chart]")
    assert copied.locator("[id], [data-lab], [data-lab-html]").count() == 0
    assert page.locator("[data-lab-experiment-chart] [data-lab]").count() == 0


def test_without_a_prediction_nothing_runs(page: Page) -> None:
    t = EXPERIMENTS["climbing-defaults"]
    experiment = open_experiment(page, t.id)
    run_button(experiment).click()
    expect(experiment.locator("[data-lab-experiment-status]")).to_have_text(
        "Make your prediction first: choose one of the answers above."
    )
    expect(radio(experiment, t, 0)).to_be_focused()
    expect(experiment).to_have_attribute("data-lab-experiment-state", "idle")
    expect(page.locator(SIMULATION)).not_to_have_attribute("data-lab-run", "running")
    # Issue 39: the answer could be opened before predicting; it shows only once predicted.
    explanation = experiment.locator("details[data-lab-experiment-explanation]")
    expect(explanation).to_be_hidden()
    radio(experiment, t, 1).check()
    expect(explanation).to_be_visible()
    expect(explanation).not_to_have_attribute("open", "")
    page.reload()  # the saved prediction brings it back at once
    experiment = page.locator(f'[data-lab-experiment="{t.id}"]')
    expect(experiment).to_have_attribute("data-lab-enhanced", "")
    expect(radio(experiment, t, 1)).to_be_checked()
    expect(experiment.locator("details[data-lab-experiment-explanation]")).to_be_visible()


@pytest.mark.parametrize("source", PAGES)
def test_every_experiment_on_the_page_runs_to_cpythons_outcome(page: Page, source: str) -> None:
    """Each experiment in turn, predictions rotating through right and wrong ones."""
    page.goto(PAGES[source])
    kind = ALL[source][0].lab
    lab = page.locator(f'[data-lab="{kind}"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    for n, t in enumerate(ALL[source]):
        experiment = page.locator(f'[data-lab-experiment="{t.id}"]')
        experiment.scroll_into_view_if_needed()
        choice = n % len(t.options)
        radio(experiment, t, choice).click()
        run_button(experiment).click()
        expect_outcome(experiment, t.id, choice)
        expect(lab).to_have_attribute("data-lab-run", "done")
        expect_card_chart(page, experiment)


def test_by_touch_on_a_phone(phone: Page) -> None:
    t = EXPERIMENTS["noisy-partner"]
    experiment = open_experiment(phone, t.id)
    radio(experiment, t, 0).tap()
    run_button(experiment).tap()
    expect_outcome(experiment, t.id, 0)
    expect_card_chart(phone, experiment)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375


def test_without_javascript_question_options_and_explanation_read(no_script_page: Page) -> None:
    no_script_page.goto("simulation/")
    for t in EXPERIMENTS.values():
        experiment = no_script_page.locator(f'[data-lab-experiment="{t.id}"]')
        expect(experiment).to_have_attribute("id", t.id)
        expect(experiment.get_by_role("group", name=plain(t.question), exact=True)).to_be_visible()
        for i in range(len(t.options)):
            expect(radio(experiment, t, i)).to_be_visible()
        details = experiment.locator("details[data-lab-experiment-explanation]")
        expect(details).to_be_visible()  # readable before predicting, without JavaScript
        expect(details).not_to_have_attribute("open", "")
        expect(details.locator("summary")).to_have_text("Answer and explanation")
        expect(run_button(experiment)).to_be_hidden()


# The browser keeps no reader's place: as in Safari and every WebKit browser (issue 39).
NO_ANCHORING = "* { overflow-anchor: none !important; }"


@pytest.mark.parametrize(
    ("source", "experiment_id", "training"),
    [
        ("docs/simulation.md", "climbing-defaults", "Training seed"),
        ("docs/language-models.md", "lm-safe-reward", "Seed "),
    ],
)
def test_without_scroll_anchoring_the_outcome_is_in_view_and_fits_two_phone_screens(
    browser: Browser, browser_context_args: dict, source: str, experiment_id: str, training: str
) -> None:
    """Issue 39: the lab's results (thousands of pixels) appear above a running card; the
    card keeps its place and its outcome is in view when the run ends, with no help from
    the browser. Issue 37: on a 390 px phone the result (sentence, counts, chart) fits in
    about two screens."""
    with touch_phone(browser, browser_context_args, {"viewport": PHONE_390}) as page:
        t = next(e for e in ALL[source] if e.id == experiment_id)
        page.goto(PAGES[source])
        lab = page.locator(f'[data-lab="{t.lab}"]')
        lab.scroll_into_view_if_needed()
        expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
        experiment = page.locator(f'[data-lab-experiment="{t.id}"]')
        expect(experiment).to_have_attribute("data-lab-enhanced", "")
        experiment.scroll_into_view_if_needed()
        page.add_style_tag(content=NO_ANCHORING)
        assert page.evaluate("getComputedStyle(document.body).overflowAnchor") == "none"
        # Labs are set up when near or idle; with no anchoring, one set up above the card
        # moves it, so the tap waits until every lab and editor of the page has its height.
        expect(page.locator("[data-lab]:not([data-lab-enhanced])")).to_have_count(0, timeout=BOOT)
        editors = page.locator("[data-lab-editor]:not([data-lab-editor='ready'])")
        expect(editors).to_have_count(0, timeout=BOOT)
        experiment.scroll_into_view_if_needed()
        radio(experiment, t, 0).tap()
        status = experiment.locator("[data-lab-experiment-status]")
        run_button(experiment).tap()
        expect(experiment).to_have_attribute("data-lab-experiment-state", "running")
        # Training, so the lab above the card has started to show its results.
        expect(status).to_contain_text(training, timeout=BOOT)
        expect(status).to_be_in_viewport()
        expect_outcome(experiment, t.id, 0)
        outcome = experiment.locator("[data-lab-experiment-outcome]")
        expect(outcome).to_be_in_viewport(ratio=1)
        expect_counts(experiment, t.id)
        result = experiment.locator("[data-lab-experiment-result]")
        top = outcome.evaluate("(e) => e.getBoundingClientRect().top")
        bottom = result.evaluate("(e) => e.getBoundingClientRect().bottom")
        screens = (bottom - top) / PHONE_390["height"]
        assert screens <= 2, f"the result takes {screens:.2f} screens of a 390 px phone"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_390["width"]
