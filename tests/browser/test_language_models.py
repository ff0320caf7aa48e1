"""The language-model lab as a reader uses it: Step, Run, Stop, refusals, keyboard, axe.

Every number the page shows must be the one CPython computes for the same settings.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Locator, Page, expect

from lab.lm.model import run_language_models, step_language_models
from tests.browser.support import (
    BOOT,
    CLIPPED,
    PHONE,
    PHONE_390,
    SCHEMES,
    SMALL_CHART_TEXT,
    KeyboardWalk,
    axe_violations,
    duplicate_ids,
    open_all_details,
    use_scheme,
    wait_for_progress,
)

LAB = '[data-lab="language-models"]'
RUN = 120_000  # ms: a run on a busy shared machine
QUICK = {"updates": "30", "compare_alone": False}


def open_lab(page: Page) -> Locator:
    page.goto("language-models/")
    lab = page.locator(LAB)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return lab


def button(lab: Locator, name: str) -> Locator:
    return lab.get_by_role("button", name=name, exact=True)


def summary(lab: Locator) -> Locator:
    return lab.locator("[data-lab-summary]")


def step_note(lab: Locator) -> Locator:
    """What "One update, up close" says of the update it shows."""
    return lab.locator("[data-lab-step-note]")


def press(lab: Locator, name: str, ends: str) -> None:
    """Press Run or Step and wait until the lab's data-lab-run says ``ends``."""
    button(lab, name).click()
    expect(lab).to_have_attribute("data-lab-run", ends, timeout=RUN)


def run_as_cpython(lab: Locator, **fields: str) -> dict[str, Any]:
    """A quick Run with ``fields``: the page says what CPython's run of the same settings says."""
    settings = {**fields, **QUICK}
    settle(lab, **settings)
    press(lab, "Run", "done")
    expected = run_language_models(settings)
    expect(summary(lab)).to_have_text(expected["summary"])
    return expected


def step_and_run(lab: Locator) -> None:
    """A quick Step and Run of two seeds, with every collapsed block open: all the lab shows."""
    settle(lab, seeds="2", **QUICK)
    press(lab, "Step", "stepped")
    press(lab, "Run", "done")
    open_all_details(lab.page)


def settle(lab: Locator, **fields: str | bool) -> None:
    """Fill the form as a reader would: text into fields, ticks into checkboxes."""
    for name, value in fields.items():
        control = lab.locator(f'[data-lab-field="{name}"]')
        if isinstance(value, bool):
            control.set_checked(value)
        else:
            control.fill(value)


def test_step_shows_a_group_with_rewards_and_advantages_as_cpython_computes_them(
    page: Page,
) -> None:
    lab = open_lab(page)
    expect(lab.locator("[data-lab-fallback]")).to_be_hidden()
    settle(lab, seed="3")
    for update in (1, 2):
        press(lab, "Step", "stepped")
        step = step_language_models({"seed": 3}, update)
        expect(lab.get_by_role("heading", name=re.compile(f"^Update {update}:"))).to_be_visible()
        rows = lab.locator(".lm-group tbody tr")
        expect(rows).to_have_count(16)
        shown = step["group"][step["shown"]]
        expect(rows.nth(step["shown"])).to_have_class("is-shown")
        expect(rows.nth(step["shown"]).locator("td").nth(3)).to_have_text(f"{shown['reward']:g}")
        expect(step_note(lab)).to_have_text(
            re.compile(rf"^Update {update}: mean reward {step['mean_reward']:.2f}\. ")
        )
        # One advantage tints every token alike; each shows its own probability.
        tokens = lab.locator(".lm-tokens").first.locator("li")
        expect(tokens).to_have_count(len(step["sample"]["helper"]))
        first = step["sample"]["helper"][0]
        expect(tokens.first).to_contain_text(f"{first['before']:.3f} → {first['after']:.3f}")


def test_the_first_step_moves_on_from_the_update_the_page_was_built_with(page: Page) -> None:
    """The page opens on update 1, labelled as the build's; Step then shows update 2."""
    lab = open_lab(page)
    built = lab.locator("[data-lab-step]")
    expect(built).to_contain_text("Before any Step: update 1")
    expect(lab.get_by_role("heading", name=re.compile("^Update 1:"))).to_be_visible()
    press(lab, "Step", "stepped")
    expect(lab.get_by_role("heading", name=re.compile("^Update 2:"))).to_be_visible()
    expect(built).not_to_contain_text("Before any Step")
    rect = step_language_models({}, 2)["sample"]["helper"][1]
    expect(lab.locator(".lm-tokens").first.locator("li").nth(1)).to_contain_text(
        f"{rect['before']:.3f} → {rect['after']:.3f}alone {rect['alone']:.3f}"
    )


def test_a_step_after_a_run_leaves_the_runs_summary_beside_its_curve(page: Page) -> None:
    """Issue 39: a Step after a Run replaced the Run's summary while its curve stayed."""
    lab = open_lab(page)
    expected = run_as_cpython(lab, seed="1")
    chart = lab.locator("svg.lm-chart")
    curve = chart.get_attribute("aria-label")
    press(lab, "Step", "stepped")
    expect(summary(lab)).to_have_text(expected["summary"])
    expect(chart).to_have_attribute("aria-label", curve or "")
    # The step speaks in its own block, and says it belongs to the run drawn.
    expect(step_note(lab)).to_have_text(
        re.compile(r"^Update 1: .* This is update 1 of the run the reward curve shows\.$")
    )
    press(lab, "Step", "stepped")
    expect(step_note(lab)).to_contain_text("This is update 2 of the run the reward curve shows.")
    expect(summary(lab)).to_have_text(expected["summary"])


def test_after_a_run_the_up_close_view_says_which_update_of_which_run_it_shows(
    page: Page,
) -> None:
    """Issue 39: after a Run, "One update, up close" still showed an earlier Step."""
    lab = open_lab(page)
    settle(lab, seed="3", **QUICK)
    press(lab, "Step", "stepped")
    press(lab, "Step", "stepped")
    expect(lab.get_by_role("heading", name=re.compile("^Update 2:"))).to_be_visible()
    # A run of other settings: the view keeps seed 3's update 2, and says it is not this run's.
    run_as_cpython(lab, seed="4")
    expect(step_note(lab)).to_contain_text(
        "Update 2 here is of a run with other settings than the reward curve's."
    )
    # A run of the stepped settings: the same update is now the curve's own.
    run_as_cpython(lab, seed="3")
    expect(step_note(lab)).to_contain_text("This is update 2 of the run the reward curve shows.")


def test_the_page_built_update_is_said_to_be_the_default_runs(page: Page) -> None:
    """Before any Step the view shows update 1 of the defaults, which a default Run draws."""
    lab = open_lab(page)
    expect(step_note(lab)).to_be_hidden()
    settle(lab, updates="30")
    press(lab, "Run", "done")
    expect(step_note(lab)).to_have_text(
        "Update 1 here is of a run with other settings than the reward curve's."
    )


def test_run_draws_the_curve_and_the_models_and_says_what_cpython_says(page: Page) -> None:
    lab = open_lab(page)
    expected = run_as_cpython(lab, seed="1")
    chart = lab.locator("svg.lm-chart")
    expect(chart).to_have_attribute("aria-label", re.compile(r"after 30 of 30 updates"))
    expect(lab.get_by_role("heading", name="After MAGRPO")).to_be_visible()
    best = expected["after"]["helper"][0]["code"]
    expect(lab.locator("[data-lab-models]")).to_contain_text(best)


def test_the_defaults_give_the_same_numbers_as_cpython(page: Page) -> None:
    lab = open_lab(page)
    press(lab, "Run", "done")
    expect(summary(lab)).to_have_text(run_language_models()["summary"])


def test_temperature_and_token_weighting_give_cpythons_numbers(page: Page) -> None:
    """The science controls (issue 19): set on the form, the run is CPython's, seed counts too."""
    lab = open_lab(page)
    lab.locator('[data-lab-field="token_weighting"]').select_option("mean")
    settings = {**QUICK, "temperature": "0.6", "seeds": "3"}
    settle(lab, **settings)
    press(lab, "Run", "done")
    expected = run_language_models({**settings, "token_weighting": "mean"})
    expect(summary(lab)).to_have_text(expected["summary"])
    assert expected["seeds"]["learned"]["interval"]


def test_many_seeds_show_their_distribution(page: Page) -> None:
    lab = open_lab(page)
    expected = run_as_cpython(lab, seeds="3")
    seeds = lab.locator("[data-lab-seeds]")
    expect(seeds.get_by_role("heading", name="Seeds 0 to 2")).to_be_visible()
    tally = expected["seeds"]["learned"]
    expect(seeds.locator("tbody tr").first).to_contain_text(
        f"{tally['optimal']} of {tally['seeds']}"
    )
    # The reward chart: the band across the 3 seeds under seed 0's lines, and its key.
    chart = lab.locator("[data-lab-plot] svg")
    expect(chart.locator('[data-lab-band="learned"]')).to_have_count(1)
    expect(chart.locator('[data-lab-median="learned"]')).to_have_count(1)
    key = lab.locator("[data-lab-band-key]")
    expect(key).to_be_visible()
    expect(key).to_contain_text("middle half of 3 seeds")
    expect(key).to_contain_text("seed 0's")
    # Its table alternative, with CPython's numbers.
    band = expected["curve_band"]
    seeds.get_by_text("The reward curve across seeds as a table").click()
    last = seeds.locator("[data-lab-curve-band] tbody tr").last
    expect(last).to_contain_text(f"{band['median'][-1]:.2f}")

    # One seed: no band, and the key says nothing of one.
    run_as_cpython(lab, seeds="1")
    expect(chart.locator("[data-lab-band]")).to_have_count(0)
    expect(key).to_be_hidden()


def test_bad_settings_are_refused_by_python_next_to_their_fields(page: Page) -> None:
    lab = open_lab(page)
    settle(lab, safe_reward="2", group_size="one")
    press(lab, "Run", "invalid")
    expect(summary(lab)).to_have_text("Nothing ran: 2 settings need fixing.")
    safe = lab.get_by_label("Safe reward", exact=True)
    expect(safe).to_be_focused()
    expect(safe).to_have_attribute("aria-invalid", "true")
    expect(lab.locator('[data-lab-error="safe_reward"]')).to_have_text(
        'Safe reward must be a number from 0 to 1; got "2".'
    )
    expect(lab.locator('[data-lab-error="group_size"]')).to_have_text(
        'Group size must be a whole number from 2 to 64; got "one".'
    )
    settle(lab, safe_reward="0.3", group_size="4", updates="5", compare_alone=False)
    press(lab, "Run", "done")
    expect(lab.locator('[data-lab-error="safe_reward"]')).to_be_empty()
    expect(safe).not_to_have_attribute("aria-invalid", "true")


def test_stop_ends_a_long_run_and_python_comes_back(page: Page) -> None:
    lab = open_lab(page)
    settle(lab, updates="1000", seeds="50", compare_communication=True)
    button(lab, "Run").click()
    wait_for_progress(lab, RUN)
    stop = button(lab, "Stop")
    expect(stop).to_be_enabled()
    stop.click()
    expect(lab).to_have_attribute("data-lab-run", "stopped")
    expect(summary(lab)).to_have_text("Stopped. Python was restarted; run again when you like.")
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    settle(lab, updates="5", seeds="1", compare_communication=False, compare_alone=False)
    press(lab, "Step", "stepped")


def test_keyboard_alone_steps_and_runs(page: Page) -> None:
    lab = open_lab(page)
    settle(lab, **QUICK)
    lab.get_by_label("Seed", exact=True).focus()
    walk = KeyboardWalk(page)
    walk.to(f'{LAB} [data-lab-action="step"]', limit=20)
    walk.press("Enter")
    expect(lab).to_have_attribute("data-lab-run", "stepped", timeout=RUN)
    expect(button(lab, "Step")).to_be_focused()
    walk.press("Shift+Tab")
    walk.press("Enter")  # Run
    expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)
    expect(button(lab, "Run")).to_be_focused()


def test_the_lab_after_step_and_run_has_no_accessibility_violations(page: Page) -> None:
    lab = open_lab(page)
    step_and_run(lab)
    problems: list[str] = []
    for scheme in SCHEMES:
        use_scheme(page, scheme)
        problems += axe_violations(page, f"language-models/ after Step and Run ({scheme})")
    problems += [f"id {i} is not unique" for i in duplicate_ids(page)]
    assert not problems, "\n".join(problems)


def test_on_a_phone_the_reward_chart_has_readable_labelled_axes_and_its_key(page: Page) -> None:
    page.set_viewport_size(PHONE_390)
    lab = open_lab(page)
    settle(lab, **QUICK)
    press(lab, "Run", "done")
    chart = lab.locator("svg.lm-chart")
    expect(chart).to_be_visible()
    assert lab.evaluate(SMALL_CHART_TEXT) == []
    for title in ("Update", "Group's mean reward"):
        expect(chart.locator("text", has_text=title)).to_have_count(1)
    expect(chart.locator("text", has_text=re.compile(r"^0\.5$"))).to_have_count(1)  # a y tick
    key = lab.locator(".lm-key")
    expect(key).to_be_visible()
    expect(key.locator("li:visible")).to_have_text(
        [re.compile("^Thin line: "), re.compile("^Thick line: "), re.compile("^Dashed line: ")]
    )
    box, plot = chart.bounding_box(), lab.locator("[data-lab-plot]").bounding_box()
    assert box and plot and box["width"] <= plot["width"] + 1


def test_on_a_phone_nothing_is_clipped_after_step_and_run(page: Page) -> None:
    page.set_viewport_size(PHONE)
    lab = open_lab(page)
    step_and_run(lab)
    assert lab.evaluate(CLIPPED) == []
