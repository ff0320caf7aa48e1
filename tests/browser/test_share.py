"""Settings in the address: Copy link, a link reopened elsewhere, a bad link, an experiment's."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from lab import original_source, run_experiment
from lab.core.export import file_stem
from lab.core.links import link_fragment
from lab.kinds import RUNNERS
from tests.browser.support import (
    BOOT,
    PHONE_390,
    SCHEMES,
    SIMULATION,
    axe_violations,
    own_page,
    use_scheme,
)
from tests.support.runs import CASES

LM = '[data-lab="language-models"]'
# Test-only: the lab calls that reach the worker, to see that opening a link runs nothing.
WATCH_CALLS = """(() => {
  const post = Worker.prototype.postMessage;
  window.__labCalls = [];
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === "call") window.__labCalls.push(message.name);
    return post.call(this, message, ...rest);
  };
})();"""
SVG = "http://www.w3.org/2000/svg"
RUN = 120_000  # ms: three seeds of the penalty game on a busy machine
RUNS = {"run_simulation", "run_language_models", "step_language_models"}


def field(lab: Locator, name: str) -> Locator:
    return lab.locator(f'[data-lab-field="{name}"]')


def error(lab: Locator, name: str) -> Locator:
    return lab.locator(f'[data-lab-error="{name}"]')


def calls(page: Page) -> list[str]:
    return page.evaluate("() => window.__labCalls")


def open_at(page: Page, address: str, lab_selector: str) -> Locator:
    page.add_init_script(WATCH_CALLS)
    page.goto(address)
    lab = page.locator(lab_selector)
    expect(lab).to_have_attribute("data-lab-link", "applied", timeout=BOOT)
    return lab


@pytest.fixture
def fresh(browser: Browser, browser_context_args: dict) -> Iterator[Page]:
    """A page in a context of its own (no storage, no history), failing on its errors."""
    with own_page(browser, browser_context_args) as page:
        yield page


def test_a_copied_link_reopens_the_same_settings_in_a_fresh_context(
    page: Page, fresh: Page
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto("simulation/")
    lab = page.locator(SIMULATION)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    # The teacher's link: the penalty game at k = -100, over 20 seeds.
    field(lab, "table").select_option("penalty")
    field(lab, "penalty_k").fill("-100")
    field(lab, "seeds").fill("20")
    lab.get_by_role("button", name="Copy link").click()
    expect(lab.get_by_role("status").filter(has_text="Link copied.")).to_be_visible()
    link = lab.get_by_label("Link to these settings").input_value()
    assert link.endswith("simulation/#lab-simulation?table=penalty&penalty_k=-100&seeds=20")
    assert page.evaluate("() => navigator.clipboard.readText()") == link

    again = open_at(fresh, link, SIMULATION)
    expect(field(again, "table")).to_have_value("penalty")
    expect(field(again, "penalty_k")).to_have_value("-100")
    expect(field(again, "seeds")).to_have_value("20")
    expect(field(again, "updates")).to_have_value("200")
    expect(again.locator("[data-lab-share-status]")).to_have_text(
        "The link's settings are in the form; press Run to run them."
    )
    expect(again).to_be_in_viewport()
    # Filled, not run.
    expect(again).to_have_attribute("data-lab-run", "idle")
    assert not RUNS & set(calls(fresh))


def test_a_bad_link_shows_pythons_reasons_by_their_fields_and_runs_nothing(page: Page) -> None:
    lab = open_at(
        page, "simulation/#lab-simulation?table=pen&seeds=x&updates=50&colour=", SIMULATION
    )
    expect(error(lab, "table")).to_have_text(
        'Reward table must be one of climbing, penalty, custom; got "pen".'
    )
    expect(error(lab, "seeds")).to_have_text('Seeds must be a whole number from 1 to 50; got "x".')
    expect(field(lab, "seeds")).to_have_attribute("aria-invalid", "true")
    expect(field(lab, "seeds")).to_have_value("x")
    expect(field(lab, "updates")).to_have_value("50")
    names = ", ".join(RUNNERS["simulation"].spec())
    expect(lab.locator("[data-lab-share-status]")).to_have_text(
        "The link's settings are in the form; press Run to run them. Python refused 3 "
        f"settings: see the form. Unknown parameter; expected one of {names}."
    )
    expect(lab).to_have_attribute("data-lab-run", "idle")
    assert not RUNS & set(calls(page))


def test_a_truncated_table_shows_its_cells_and_the_reason(page: Page) -> None:
    lab = open_at(
        page, "simulation/#lab-simulation?table=custom&custom_table=1,2,3;4,5", SIMULATION
    )
    expect(field(lab, "table")).to_have_value("custom")
    expect(lab.locator('[data-lab-cell="1,1"]')).to_have_value("5")
    expect(error(lab, "custom_table")).to_have_text("Custom table must be 3 rows of 3 numbers.")


def test_a_guided_experiments_link_sets_its_lab_and_runs_nothing(page: Page) -> None:
    page.add_init_script(WATCH_CALLS)
    page.goto("simulation/")
    lab = page.locator(SIMULATION)
    experiment = page.locator('[data-lab="experiment"]').first
    link = experiment.get_by_role("link", name="Open the lab with these settings")
    experiment_id = experiment.get_attribute("id")
    href = link.get_attribute("href", timeout=BOOT)
    assert href and f"simulation/#{experiment_id}?" in href
    link.click()
    expect(lab).to_have_attribute("data-lab-link", "applied", timeout=BOOT)
    spec = experiment.get_attribute("data-lab-experiment-spec")
    assert spec
    for name, value in json.loads(spec)["params"].items():
        if isinstance(value, int | float | str) and not isinstance(value, bool):
            shown = (
                str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
            )
            expect(field(lab, name)).to_have_value(shown)
    expect(lab).to_have_attribute("data-lab-run", "idle")
    assert not RUNS & set(calls(page))


def test_copy_link_by_keyboard_without_a_clipboard_selects_the_link(page: Page) -> None:
    # A browser without the Clipboard API (or one that refuses it): the link is shown selected.
    page.add_init_script("Object.defineProperty(navigator, 'clipboard', { value: undefined })")
    page.goto("language-models/")
    lab = page.locator(LM)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    field(lab, "safe_reward").fill("0.9")
    field(lab, "compare_alone").uncheck()
    lab.get_by_role("button", name="Copy link").focus()
    page.keyboard.press("Enter")
    expect(lab).to_have_attribute("data-lab-link", "shown")
    box = lab.get_by_label("Link to these settings")
    expect(box).to_be_focused()
    link = box.input_value()
    assert link.endswith("#lab-language-models?safe_reward=0.9&compare_alone=false")
    selected = page.evaluate(
        "() => document.getSelection().toString() || "
        "document.activeElement.value.slice(document.activeElement.selectionStart,"
        " document.activeElement.selectionEnd)"
    )
    assert selected == link
    expect(lab.locator("[data-lab-share-status]")).to_have_text(
        "Copy the selected link above (Ctrl+C, or ⌘C on a Mac)."
    )


def test_copy_link_with_a_refused_setting_says_so_by_its_field(page: Page) -> None:
    page.goto("language-models/")
    lab = page.locator(LM)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    field(lab, "seeds").fill("0")
    lab.get_by_role("button", name="Copy link").click()
    expect(lab).to_have_attribute("data-lab-link", "refused")
    expect(error(lab, "seeds")).to_contain_text('got "0"')
    expect(field(lab, "seeds")).to_be_focused()
    expect(lab.locator("[data-lab-share-status]")).to_have_text(
        "No link yet: 1 setting needs fixing."
    )


def download(page: Page, lab: Locator, name: str) -> tuple[str, str]:
    """Click the download link ``name``: the file's suggested name and its text."""
    with page.expect_download() as info:
        lab.get_by_role("link", name=name, exact=True).click()
    got = info.value
    path = got.path()
    assert path
    return got.suggested_filename, Path(path).read_text(encoding="utf-8")


def test_after_a_run_its_results_download_as_json_and_csv_with_the_command(page: Page) -> None:
    # The settings tests/unit/lab/test_main.py runs through `python -m lab run` too.
    _call, settings = CASES["simulation"]
    lab = open_at(
        page,
        f"simulation/#{link_fragment(RUNNERS['simulation'], 'lab-simulation', settings)}",
        SIMULATION,
    )
    expect(lab.get_by_role("link", name="Download results (JSON)")).to_have_count(0)
    lab.get_by_role("button", name="Run").click()
    expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)

    cpython = run_experiment(settings)
    stem = file_stem(RUNNERS["simulation"], cpython["params"])
    name, text = download(page, lab, "Download results (JSON)")
    data = json.loads(text)
    assert name == f"{stem}.json"
    assert data["params"] == cpython["params"]
    assert data["expected_reward"] == cpython["expected_reward"]  # Pyodide's numbers are CPython's
    assert data["seeds"]["rows"] == cpython["seeds"]["rows"]

    name, text = download(page, lab, "Download results (CSV)")
    assert name == f"{stem}.csv"
    rows = list(csv.DictReader(io.StringIO(text)))
    methods = [m["id"] for m in cpython["methods"]]
    assert [(int(r["seed"]), r["method"]) for r in rows] == [
        (seed, m) for seed in range(settings["seeds"]) for m in methods
    ]
    for row in rows:
        seed_row = cpython["seeds"]["rows"][int(row["seed"])]
        assert float(row["expected_reward"]) == seed_row["expected_reward"][row["method"]]

    name, text = download(page, lab, "Download the learning curve (CSV)")
    assert name == f"{stem}-curve.csv"
    curve = list(csv.DictReader(io.StringIO(text)))
    assert len(curve) == cpython["params"]["updates"]
    assert [float(r["learned"]) for r in curve] == cpython["mean_reward"]["learned"]

    # The chart reads without the page's stylesheet: its look is in its own attributes.
    name, text = download(page, lab, "Download the learning curve (SVG)")
    assert name == f"{stem}-curve.svg"
    chart = ElementTree.fromstring(text)
    assert chart.tag == f"{{{SVG}}}svg" and chart.get("width")
    lines = chart.findall(f".//{{{SVG}}}path")
    drawn = [
        p for p in lines if p.get("stroke") not in (None, "none") and p.get("display") != "none"
    ]
    assert len(drawn) >= len(methods)
    assert all(el.get("class") is None for el in chart.iter())
    # One point per update the curve drew, as on the page.
    assert int(chart.get("data-lab-points") or 0) > 0

    # The heatmaps and the across-seeds strip, drawn by Python as files that read alone.
    name, text = download(page, lab, "Download the heatmaps (SVG)")
    assert name == f"{stem}-heatmaps.svg"
    heatmaps = ElementTree.fromstring(text)
    groups = heatmaps.findall(f"{{{SVG}}}g")
    assert [g.get("data-method") for g in groups] == methods
    name, text = download(page, lab, "Download the across-seeds strip (SVG)")
    assert name == f"{stem}-seeds.svg"
    strip = ElementTree.fromstring(text)
    dots = strip.findall(f".//{{{SVG}}}circle")
    assert len(dots) == settings["seeds"] * len(methods)

    name, text = download(page, lab, "Download the code (.py)")
    assert name == f"{stem}-code.py" and text == original_source()

    # Reproduce: the settings file to save and the command that prints the same JSON.
    lab.get_by_text("Reproduce", exact=True).click()
    name, text = download(page, lab, "these settings")
    assert name == f"{stem}-settings.json" and json.loads(text) == cpython["params"]
    expect(lab.locator("[data-lab-command]")).to_have_text(
        f"python3 -m lab run simulation {stem}-settings.json"
    )
    zip_link = page.get_by_role("link", name="Download the lab (zip)")
    assert zip_link.get_attribute("download") == "lab.zip"


@pytest.mark.parametrize(
    ("address", "selector"),
    [
        ("simulation/#lab-simulation?seeds=1&updates=20", SIMULATION),
        ("language-models/#lab-language-models?updates=20&compare_alone=false", LM),
    ],
)
def test_a_reproduce_command_wider_than_a_phone_says_it_scrolls(
    page: Page, address: str, selector: str
) -> None:
    """Issue 39: at 390 px both labs' Reproduce commands were cut off with nothing to say so."""
    page.set_viewport_size(PHONE_390)
    lab = open_at(page, address, selector)
    lab.get_by_role("button", name="Run").click()
    expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)
    lab.get_by_text("Reproduce", exact=True).click()
    command = lab.locator("[data-lab-command]")
    expect(command).to_be_visible()
    assert command.evaluate("el => el.scrollWidth > el.clientWidth + 1"), "it fits: no test"
    expect(command).to_have_attribute("data-scrolls", "more")
    cue = "el => getComputedStyle(el, '::before').content"
    assert "Scroll sideways for the rest of the command" in command.evaluate(cue)
    command.evaluate("el => el.scrollTo({left: el.scrollWidth})")
    expect(command).to_have_attribute("data-scrolls", "end")
    assert "Scroll back for the command's start" in command.evaluate(cue)
    # The cue is the page's, not the command's: what a reader copies is the command alone.
    assert command.inner_text().startswith("python3 -m lab run ")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_language_model_lab_with_its_link_and_downloads_has_no_accessibility_violations(
    page: Page, scheme: str
) -> None:
    lab = open_at(page, "language-models/#lab-language-models?updates=20", LM)
    use_scheme(page, scheme)
    lab.get_by_role("button", name="Copy link").click()
    expect(lab.get_by_label("Link to these settings")).to_be_visible()
    lab.get_by_role("button", name="Run").click()
    expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)
    expect(lab.get_by_role("link", name="Download the reward curve (SVG)")).to_be_visible()
    lab.get_by_text("Reproduce", exact=True).click()
    expect(lab.locator("[data-lab-command]")).to_be_visible()
    assert axe_violations(page, f"language-models/ after a run ({scheme})", [LM]) == []


def test_a_link_waits_for_a_reader_saving_data_to_start_python(page: Page) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setDataSaverOverride", {"dataSaverEnabled": True})
    page.goto("language-models/#lab-language-models?seeds=4")
    lab = page.locator(LM)
    start = lab.get_by_role("button", name=re.compile(r"^Start Python, about \d+ MB$"))
    expect(start).to_be_visible(timeout=BOOT)
    expect(lab).to_be_in_viewport()  # the link scrolled to its lab without Python
    expect(lab).to_have_attribute("data-lab-state", "idle")
    expect(lab).not_to_have_attribute("data-lab-link", "applied")
    start.click()
    expect(lab).to_have_attribute("data-lab-link", "applied", timeout=BOOT)
    expect(field(lab, "seeds")).to_have_value("4")
