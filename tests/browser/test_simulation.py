"""The simulation lab as a reader uses it: run, read, refuse, stop, on any screen."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from lab import ParamError, param_spec, run_experiment, validate_params
from lab.core.params import field_hint, field_used
from lab.sim.render import describe_params, format_number, format_percent, format_reward
from tests.browser.support import (
    BOOT,
    CLIPPED,
    PHONE,
    PHONE_390,
    SMALL_CHART_TEXT,
    axe_violations,
    every_block_laid_out,
    report,
    summary_sentences,
)
from tests.conftest import BuiltSite

RUN = 90_000  # ms: a default run, with the machine busy
POINTS = re.compile(r"^[1-9]\d*$")

# Test-only instrumentation: which lab calls reach the worker, and which workers end.
WATCH_WORKERS = """
(() => {
  const post = Worker.prototype.postMessage;
  const terminate = Worker.prototype.terminate;
  window.__labCalls = [];
  window.__labTerminated = 0;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === "call") window.__labCalls.push(message.name);
    return post.call(this, message, ...rest);
  };
  Worker.prototype.terminate = function () {
    window.__labTerminated += 1;
    return terminate.call(this);
  };
})();
"""

CALL = """async ([clientURL, name, args]) => {
  const { getRuntime } = await import(clientURL);
  return getRuntime().call(name, args);
}"""


# ---------------------------------------------------------------- helpers


def open_lab(page: Page) -> Locator:
    """The simulation lab, scrolled into view, with Python ready."""
    page.add_init_script(WATCH_WORKERS)
    page.goto("simulation/")
    lab = page.locator('[data-lab="simulation"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return lab


def run_button(lab: Locator) -> Locator:
    return lab.get_by_role("button", name="Run", exact=True)


def stop_button(lab: Locator) -> Locator:
    return lab.get_by_role("button", name="Stop", exact=True)


def field(lab: Locator, label: str) -> Locator:
    return lab.get_by_label(label, exact=True)


def error(lab: Locator, name: str) -> Locator:
    return lab.locator(f'[data-lab-error="{name}"]')


def summary(lab: Locator) -> Locator:
    return lab.locator("[data-lab-summary]")


def chart(lab: Locator) -> Locator:
    return lab.locator("svg.lab-sim__chart")


def run(lab: Locator) -> None:
    run_button(lab).click()
    expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)


def curve_cell(lab: Locator, update: int, method: int) -> Locator:
    """One number of the curve's data table (method: 1 prompted, 2 learned, 3 centralized)."""
    row = lab.locator("[data-lab-curve-table] tbody tr").filter(
        has=lab.page.get_by_role("rowheader", name=str(update), exact=True)
    )
    return row.locator("td").nth(method - 1)


def open_all_details(page: Page) -> None:
    page.locator("details").evaluate_all("(all) => all.forEach((d) => { d.open = true; })")


def lab_calls(page: Page) -> list[str]:
    return page.evaluate("window.__labCalls")


# ------------------------------------------------------------------ a run


def test_run_with_defaults_draws_the_curve_heatmaps_bars_and_transcript(page: Page) -> None:
    expected = run_experiment()
    lab = open_lab(page)
    prerendered = lab.locator("[data-lab-episode]").inner_text()
    expect(lab.locator("[data-lab-results]")).to_be_hidden()

    run(lab)

    # The summary is the model's own sentences about this run, as written in Python.
    for sentence in summary_sentences(expected):
        expect(summary(lab)).to_contain_text(sentence)
    partners = expected["partners"]

    # The curve has every update, a line per method, labelled axes and a legend.
    methods = [m["label"] for m in expected["methods"]]
    expect(chart(lab)).to_have_attribute("data-lab-points", "200")
    expect(chart(lab).locator("path.lab-sim__line")).to_have_count(len(methods))
    expect(chart(lab)).to_contain_text("Mean shared reward")
    expect(chart(lab)).to_contain_text("Update")
    expect(lab.locator("[data-lab-legend] li[data-lab-series]")).to_have_text(methods)
    # One seed: no band, so the legend does not show the band's entry.
    expect(lab.locator("[data-lab-band-key]")).to_be_hidden()
    lab.get_by_text("The learning curve as a table").click()
    last = expected["mean_reward"]
    for method, name in enumerate(("prompted", "learned", "centralized"), start=1):
        expect(curve_cell(lab, 200, method)).to_have_text(format_reward(last[name][199]))

    # Heatmaps: one table per method, each cell its reward and probability.
    heatmaps = lab.locator("[data-lab-heatmap]")
    expect(heatmaps).to_have_count(len(methods))
    learned_map = lab.locator('[data-lab-heatmap="learned"]')
    i, j = expected["settled_on"]["learned"]["cell"]
    cell = learned_map.locator("tbody tr").nth(i).locator("td").nth(j)
    expect(cell).to_have_text(
        f"{format_number(expected['rewards'][i][j])}"
        f"{format_percent(expected['joint_distribution']['learned'][i][j])}"
    )
    best = lab.locator('[data-lab-heatmap="centralized"] td.is-best')
    expect(best).to_contain_text("11")
    expect(best).to_contain_text("best joint response")

    # Partner bars: training partners and held-out partners, each with its number.
    bars = lab.locator('[data-lab-chart="partners"]')
    # A heading row, then one row per partner.
    expect(bars.locator('[data-lab-group="training"] tr')).to_have_count(
        1 + len(partners["training"])
    )
    expect(bars.locator('[data-lab-group="held-out"] tr')).to_have_count(
        1 + len(partners["held_out"])
    )
    expect(bars.locator('[data-lab-group="training"] th[scope="rowgroup"]')).to_contain_text(
        "Training partners"
    )
    expect(bars.locator('[data-lab-group="held-out"] th[scope="rowgroup"]')).to_contain_text(
        "Held-out partners"
    )
    # Its key names every encoding: the hatching, the before-training and best marks.
    key = bars.locator("caption")
    expect(key).to_be_visible()
    for word in ("held-out partner (hatched)", "before training", "best possible"):
        expect(key).to_contain_text(word)
    expect(bars.locator(".lab-sim__bar-mark--before")).to_have_count(
        len(partners["training"]) + len(partners["held_out"])
    )
    for partner in partners["held_out"]:
        row = bars.get_by_role("row").filter(has_text=partner["name"])
        expect(row).to_contain_text(format_reward(partner["score"]))
        expect(row).to_contain_text(f"best possible: {format_reward(partner['best_response'])}")

    # Across seeds: one seed by default, counted in the table.
    seeds = lab.locator('[data-lab-chart="seeds"]')
    expect(seeds.get_by_role("img")).to_be_visible()
    row = seeds.get_by_role("row").filter(has_text="Centralized control")
    expect(row).to_contain_text("1 of 1")

    # The transcript: each step under the Visual Lab's label, the same
    # episode the build recorded with these settings.
    episode = lab.locator("[data-lab-episode]")
    for label in ("Observation", "Policy", "Action", "Reward", "Environment transition"):
        expect(episode.get_by_text(label, exact=True).first).to_be_visible()
    expect(episode).to_contain_text("Both agents receive this one number.")
    assert episode.inner_text() == prerendered


def test_changing_the_seed_changes_the_run(page: Page) -> None:
    lab = open_lab(page)
    run(lab)
    lab.get_by_text("The learning curve as a table").click()
    first = lab.locator("[data-lab-curve-table]").inner_text()

    field(lab, "Seed").fill("1")
    run(lab)

    second = lab.locator("[data-lab-curve-table]").inner_text()
    assert second != first
    seed_1 = run_experiment({"seed": 1})["mean_reward"]
    expect(curve_cell(lab, 200, 2)).to_have_text(format_reward(seed_1["learned"][199]))
    expect(lab.locator("[data-lab-episode-caption]")).to_contain_text("seed: 1;")


def test_a_run_over_seeds_draws_each_methods_band_and_the_key_names_it(page: Page) -> None:
    lab = open_lab(page)
    field(lab, "Seeds").fill("3")
    field(lab, "Updates").fill("40")
    run(lab)

    band = run_experiment({"seeds": 3, "updates": 40})["curve_band"]
    svg = chart(lab)
    expect(svg).to_have_attribute("data-lab-band-seeds", "3")
    for method in band["methods"]:
        # A shaded area with its median, beside the first seed's own line.
        expect(svg.locator(f'[data-lab-band="{method}"]')).to_have_count(1)
        expect(svg.locator(f'[data-lab-median="{method}"]')).to_have_count(1)
        expect(svg.locator(f".lab-sim__line--{method}")).to_have_count(1)
    key = lab.locator("[data-lab-band-key]")
    expect(key).to_be_visible()
    expect(key).to_contain_text("middle half of 3 seeds")
    expect(key).to_contain_text("median")
    expect(key).to_contain_text("seed 0")
    expect(lab.locator("[data-lab-curve-caption]")).to_contain_text("band across all 3 seeds")

    # One seed: no band, and the key says nothing of one.
    field(lab, "Seeds").fill("1")
    run(lab)
    expect(svg.locator("[data-lab-band]")).to_have_count(0)
    expect(key).to_be_hidden()


# ------------------------------------------------------------- refusing


def python_reason(data: dict[str, Any], name: str) -> str:
    with pytest.raises(ParamError) as refused:
        validate_params(data)
    return refused.value.fields[name]


def test_an_invalid_value_shows_its_reason_next_to_the_field_and_runs_nothing(
    page: Page,
) -> None:
    lab = open_lab(page)
    field(lab, "Reward table").select_option("custom")
    cell = field(lab, "Reward for helper core with main combine")
    cell.fill("abc")
    updates = field(lab, "Updates")
    updates.fill("0")

    run_button(lab).click()

    expect(lab).to_have_attribute("data-lab-run", "invalid")
    expect(summary(lab)).to_have_text("Nothing ran: 2 settings need fixing.")
    expect(error(lab, "updates")).to_have_text(python_reason({"updates": "0"}, "updates"))
    table = [[11, "abc", 0], [-30, 7, 6], [0, 0, 5]]
    expect(error(lab, "custom_table")).to_have_text(
        python_reason({"table": "custom", "custom_table": table}, "custom_table")
    )
    # Each reason is announced with its field; the first refused field has focus.
    expect(updates).to_have_attribute("aria-invalid", "true")
    expect(updates).to_have_accessible_description(re.compile('got "0"'))
    expect(cell).to_have_attribute("aria-invalid", "true")
    expect(field(lab, "Reward for helper core with main delegate")).not_to_have_attribute(
        "aria-invalid", "true"
    )
    expect(cell).to_be_focused()
    # The run call itself refused the settings, once, and nothing was drawn.
    assert lab_calls(page) == ["run_simulation"]
    expect(lab.locator("[data-lab-results]")).to_be_hidden()
    expect(chart(lab)).to_have_count(0)

    # Fixing a field clears its reason as soon as it is right.
    updates.fill("20")
    expect(error(lab, "updates")).to_have_text("")
    expect(updates).not_to_have_attribute("aria-invalid", "true")
    cell.fill("-30")
    expect(error(lab, "custom_table")).to_have_text("")
    expect(cell).not_to_have_attribute("aria-invalid", "true")
    # (Those reasons cleared by check_params: the verdict without a run.)
    before = len(lab_calls(page))
    run(lab)
    # Run is one call: the settings are validated once, by the run.
    assert lab_calls(page)[before:] == ["run_simulation"]
    expect(chart(lab)).to_have_attribute("data-lab-points", "20")


def test_a_group_too_large_for_two_turns_is_refused_in_pythons_words(page: Page) -> None:
    """Two turns with a turn-2 group per sampled joint response sample G + G x G episodes an
    update: the form says the lower limit, and Python refuses past it, as under CPython."""
    lab = open_lab(page)
    hint = lab.locator('[data-lab-field-box="group_size"] .lab-sim__hint')
    expect(hint).to_have_text(field_hint(param_spec()["group_size"]))
    field(lab, "Turns").select_option("2")
    size = field(lab, "Group size")
    size.fill("65")
    run_button(lab).click()
    expect(lab).to_have_attribute("data-lab-run", "invalid")
    reason = python_reason({"turns": 2, "group_size": "65"}, "group_size")
    assert reason.startswith("Group size must be a whole number from 2 to 64 with two turns")
    expect(error(lab, "group_size")).to_have_text(reason)
    expect(size).to_have_attribute("aria-invalid", "true")
    assert lab_calls(page) == ["run_simulation"]


def test_the_page_applies_no_rule_of_its_own_python_reads_the_values(page: Page) -> None:
    """What Python accepts runs, as Python reads it: the browser has no copy of the rules."""
    lab = open_lab(page)
    field(lab, "Learning rate").fill(" .5e0 ")
    field(lab, "Updates").fill(" 20")
    run(lab)
    params = validate_params({"learning_rate": " .5e0 ", "updates": " 20"}).to_json()
    expect(lab.locator("[data-lab-episode-caption]")).to_contain_text(describe_params(params))
    expect(chart(lab)).to_have_attribute("data-lab-points", "20")


def test_every_field_of_the_spec_is_on_the_form_with_its_choice_texts(page: Page) -> None:
    lab = open_lab(page)
    field(lab, "Reward table").select_option("penalty")
    for name, spec in param_spec().items():
        box = lab.locator(f'[data-lab-field-box="{name}"]')
        shown = field_used(spec, validate_params().to_json() | {"table": "penalty"})
        if shown:
            expect(box).to_be_visible()
        else:
            expect(box).to_be_hidden()
        if spec["kind"] == "choice":
            names = spec.get("choice_labels", {})
            expect(field(lab, spec["label"]).locator("option")).to_have_text(
                [str(names.get(c, c)) for c in spec["choices"]]
            )


def test_comlrls_switches_show_when_they_apply_and_a_run_reads_them(page: Page) -> None:
    """Issue 46: termination, the groups' losses and AdamW, and the centralized learner's
    group in cross mode, each shown when the settings use it; a run uses what the form says."""
    lab = open_lab(page)
    box = {name: lab.locator(f'[data-lab-field-box="{name}"]') for name in param_spec()}
    expect(box["optimizer"]).to_be_visible()
    for hidden in ("termination", "termination_threshold", "node_loss", "central_group"):
        expect(box[hidden]).to_be_hidden()
    field(lab, "Joint mode").select_option("cross")
    expect(box["central_group"]).to_be_visible()
    field(lab, "Turns").select_option("2")
    expect(box["central_group"]).to_be_hidden()
    expect(box["termination"]).to_be_visible()
    expect(box["node_loss"]).to_be_visible()
    expect(box["termination_threshold"]).to_be_hidden()
    field(lab, "Early termination").select_option("group_mean")
    expect(field(lab, "Termination threshold")).to_have_value("-0.2")
    field(lab, "Termination threshold").fill("3")
    field(lab, "Groups' losses").select_option("mean")
    field(lab, "Optimizer").select_option("adamw")
    field(lab, "Group size").fill("4")
    field(lab, "Updates").fill("10")
    run(lab)
    given = {
        "turns": 2,
        "joint_mode": "cross",
        "termination": "group_mean",
        "termination_threshold": "3",
        "node_loss": "mean",
        "optimizer": "adamw",
        "group_size": "4",
        "updates": "10",
    }
    expect(lab.locator("[data-lab-episode-caption]")).to_contain_text(
        describe_params(validate_params(given).to_json())
    )


# ------------------------------------------------------------------ Stop


def start_long_run(lab: Locator) -> None:
    # Tens of seconds in a browser, reporting its progress every 50 updates.
    field(lab, "Updates").fill("5000")
    field(lab, "Group size").fill("256")


def test_stop_ends_a_long_run_keeps_its_curve_and_the_lab_stays_usable(page: Page) -> None:
    lab = open_lab(page)
    start_long_run(lab)
    run_button(lab).click()
    expect(lab).to_have_attribute("data-lab-run", "running")
    expect(run_button(lab)).to_be_disabled()
    expect(stop_button(lab)).to_be_enabled()
    expect(chart(lab)).to_have_attribute("data-lab-points", POINTS, timeout=RUN)

    stop_button(lab).click()

    expect(lab).to_have_attribute("data-lab-run", "stopped")
    points = int(chart(lab).get_attribute("data-lab-points") or 0)
    assert 0 < points < 5000
    expect(summary(lab)).to_contain_text(f"Stopped after {points} updates of 5000.")
    expect(stop_button(lab)).to_be_disabled()
    assert page.evaluate("window.__labTerminated") == 1
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    expect(lab.get_by_role("status")).to_have_text("Python is ready.")

    field(lab, "Updates").fill("200")
    field(lab, "Group size").fill("32")
    field(lab, "Turns").select_option("1")
    run(lab)
    expect(chart(lab)).to_have_attribute("data-lab-points", "200")
    for sentence in summary_sentences(run_experiment()):
        expect(summary(lab)).to_contain_text(sentence)


def test_run_and_stop_from_the_keyboard(page: Page) -> None:
    lab = open_lab(page)
    start_long_run(lab)
    run_button(lab).focus()
    page.keyboard.press("Enter")
    expect(lab).to_have_attribute("data-lab-run", "running")
    # Run is disabled while running; focus moves to Stop, the next thing to press.
    expect(stop_button(lab)).to_be_focused()
    expect(chart(lab)).to_have_attribute("data-lab-points", POINTS, timeout=RUN)
    page.keyboard.press("Enter")
    expect(lab).to_have_attribute("data-lab-run", "stopped")
    expect(run_button(lab)).to_be_focused()

    # Enter in any field runs too.
    field(lab, "Updates").fill("30")
    field(lab, "Group size").fill("8")
    field(lab, "Seed").press("Enter")
    expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)
    expect(chart(lab)).to_have_attribute("data-lab-points", "30")


def test_leaving_the_page_mid_run_frees_python_for_the_next_lab(page: Page) -> None:
    lab = open_lab(page)
    start_long_run(lab)
    run_button(lab).click()
    expect(chart(lab)).to_have_attribute("data-lab-points", POINTS, timeout=RUN)

    page.evaluate("document.documentElement.dataset.sameDocument = 'yes'")
    back = page.get_by_role("link", name="Back to the lesson")
    expect(back).to_be_visible()
    back.dispatch_event("click")  # instant navigation: the same document, a new page

    expect(page).to_have_url(re.compile(r"/lesson/$"))
    assert page.evaluate("document.documentElement.dataset.sameDocument") == "yes"
    page.wait_for_function("window.__labTerminated === 1")
    visual_lab = page.locator('[data-lab="visual-lab"]')
    expect(visual_lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)


# ---------------------------------------------------- the same Python twice


def assert_close(browser: Any, cpython: Any, where: str = "result") -> None:
    if isinstance(cpython, dict):
        assert isinstance(browser, dict) and browser.keys() == cpython.keys(), where
        for key in cpython:
            assert_close(browser[key], cpython[key], f"{where}.{key}")
    elif isinstance(cpython, list | tuple):
        assert isinstance(browser, list) and len(browser) == len(cpython), where
        for k, (b, c) in enumerate(zip(browser, cpython, strict=True)):
            assert_close(b, c, f"{where}[{k}]")
    elif isinstance(cpython, float) or isinstance(browser, float):
        assert math.isclose(browser, cpython, rel_tol=1e-9, abs_tol=1e-9), (where, browser, cpython)
    else:
        assert browser == cpython, where


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_browsers_python_gives_cpythons_numbers(page: Page, site: BuiltSite, seed: int) -> None:
    open_lab(page)
    params = {"seed": seed, "turns": 2, "updates": 60, "seeds": 2, "advantage": "leave_one_out"}
    browser = page.evaluate(
        CALL, [f"{site.url}assets/lab/client.js", "run_simulation", {"params": params}]
    )
    assert_close(browser, run_experiment(params))


#: The science controls (issue 19), each with seeds > 1 so the intervals and the band come too.
NEW_CONTROLS = {
    "temperature": {"temperature": 0.6, "seeds": 2, "updates": 40},
    "on-policy gradient": {"temperature": 3, "gradient": "tempered", "seeds": 2, "updates": 40},
    "cross": {"joint_mode": "cross", "group_size": 8, "seeds": 2, "updates": 40},
    "raw": {"advantage": "raw", "seeds": 2, "updates": 40},
    "lenient": {"learner": "lenient", "table": "penalty", "penalty_k": -100, "updates": 40},
    "merge": {"turns": 2, "branching": "merge", "group_size": 8, "updates": 30},
    "sample": {"turns": 2, "branching": "sample", "group_size": 4, "updates": 20},
    # CoMLRL's remaining behaviours (issue 46).
    "termination, averaged losses, AdamW": {
        "turns": 2,
        "group_size": 4,
        "updates": 20,
        "termination": "group_mean",
        "termination_threshold": 3,
        "node_loss": "mean",
        "optimizer": "adamw",
    },
    "centralized learner at the team's calls": {
        "joint_mode": "cross",
        "group_size": 4,
        "central_group": "calls",
        "seeds": 2,
        "updates": 20,
    },
}


@pytest.mark.parametrize("control", NEW_CONTROLS)
def test_the_science_controls_give_cpythons_numbers_in_the_browser(
    page: Page, site: BuiltSite, control: str
) -> None:
    open_lab(page)
    params = NEW_CONTROLS[control]
    browser = page.evaluate(
        CALL, [f"{site.url}assets/lab/client.js", "run_simulation", {"params": params}]
    )
    cpython = run_experiment(params)
    assert_close(browser, cpython)
    if params.get("seeds", 1) > 1:
        assert browser["seeds"]["methods"]["learned"]["interval"]
        assert "centralized_sampled" in browser["expected_reward"]


# ------------------------------------------------------- reading it anywhere


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_before_and_after_a_run(page: Page, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    lab = open_lab(page)
    open_all_details(page)
    before = axe_violations(page, f"before a run ({scheme})", [".md-content"])
    assert not before, report(before)

    run(lab)
    open_all_details(page)
    after = axe_violations(page, f"after a run ({scheme})", [".md-content"])
    assert not after, report(after)


def test_on_a_phone_run_is_within_the_first_four_screens(page: Page) -> None:
    """A reader on a phone reaches Run after a short introduction, not after the reference."""
    page.set_viewport_size(PHONE_390)
    page.goto("simulation/")
    lab = page.locator('[data-lab="simulation"]')
    expect(lab).to_have_attribute("data-lab-enhanced", "")
    run_button = lab.get_by_role("button", name="Run", exact=True)
    expect(run_button).to_be_visible()
    with every_block_laid_out(page):  # the blocks above at their real heights
        top = run_button.evaluate("(b) => b.getBoundingClientRect().top + scrollY")
    assert top <= 4 * PHONE_390["height"], f"Run is {top / PHONE_390['height']:.1f} screens down"
    # The reference the reader may want meanwhile is one link away.
    for name, target in (("the toy", "#the-toy"), ("every control", "#controls")):
        link = page.locator("#toy-brief + p").get_by_role("link", name=name, exact=True)
        expect(link).to_have_attribute("href", re.compile(f"{re.escape(target)}$"))


def test_the_lab_fits_a_phone_screen(page: Page) -> None:
    page.set_viewport_size(PHONE)
    lab = open_lab(page)
    field(lab, "Reward table").select_option("custom")
    run(lab)
    open_all_details(page)
    assert lab.evaluate(CLIPPED) == []
    plot = lab.locator("[data-lab-plot]").bounding_box()
    svg = chart(lab).bounding_box()
    assert plot and svg and svg["width"] <= plot["width"] + 1
    assert lab.evaluate(SMALL_CHART_TEXT) == []
    # Wide tables scroll inside their own box, which a keyboard can reach.
    scroller = lab.locator("[data-lab-partners]")
    expect(scroller).to_have_attribute("tabindex", "0")
    # So does any block of the episode's transcript that scrolls, once laid out.
    page.wait_for_function(
        """() => [...document.querySelectorAll("[data-lab-episode] pre > code")].every(
          (c) => (c.scrollWidth > c.clientWidth) === (c.tabIndex === 0))"""
    )


# Per method: its curve's colour and dash, as the browser draws them.
LOOKS = """(lab) => [...lab.querySelectorAll("svg.lab-sim__chart path.lab-sim__line")]
  .map((line) => {
    const style = getComputedStyle(line);
    return [line.getAttribute("class"), style.stroke, style.strokeDasharray];
  })"""
# Per row of Across seeds: how far its name is from its own dots and from the row's above.
NAME_GAPS = """(lab) => {
  const centre = (el) => { const r = el.getBoundingClientRect(); return (r.top + r.bottom) / 2; };
  const rows = [...lab.querySelectorAll(".lab-sim__seeds-row")];
  return rows.map((row, i) => {
    const name = centre(row.querySelector(".lab-sim__seeds-label"));
    const gap = (r) => Math.min(
      ...[...r.querySelectorAll(".lab-sim__dot")].map((d) => Math.abs(centre(d) - name)));
    const own = gap(row);
    const above = i ? gap(rows[i - 1]) : Infinity;
    return [row.dataset.labMethod, own, above];
  });
}"""


def test_on_a_phone_the_charts_tell_every_method_and_seed_apart_on_a_scale(page: Page) -> None:
    """Issue 39, at 390 px: a colour and a dash per method; Across seeds with its axis
    title and each name with its own row; Partner generalization on a scale with its zero,
    over several seeds with their count and spread."""
    page.set_viewport_size(PHONE_390)
    lab = open_lab(page)
    field(lab, "Seeds").fill("3")
    field(lab, "Updates").fill("40")
    run(lab)
    looks = lab.evaluate(LOOKS)
    assert len(looks) == len(run_experiment({"updates": 1})["methods"]), looks
    assert len({stroke for _, stroke, _ in looks}) == len(looks), looks
    assert len({dash for _, _, dash in looks}) == len(looks), looks
    seeds = lab.locator('[data-lab-chart="seeds"]')
    seeds.scroll_into_view_if_needed()
    expect(seeds.locator(".lab-sim__seeds-axis")).to_have_text(
        "Expected episode reward (dashed: the optimum)"
    )
    expect(seeds.locator(".lab-sim__seeds-axis")).to_be_visible()
    for method, own, above in lab.evaluate(NAME_GAPS):
        assert own < above, f"{method}'s name is {own:.0f} px from its dots, {above:.0f} above"
    partners = lab.locator('[data-lab-chart="partners"]')
    partners.scroll_into_view_if_needed()
    scale = partners.locator("[data-lab-partners-scale]")
    expect(scale).to_be_visible()
    expect(scale.locator(".lab-sim__bar-tick").filter(has_text=re.compile(r"^0$"))).to_have_count(1)
    expect(partners.locator("[data-lab-partners-caption]")).to_contain_text(
        "each bar is the median of the 3 seeds"
    )
    expect(partners.locator(".lab-sim__bar-spread").first).to_be_visible()
    assert lab.evaluate(CLIPPED) == []
