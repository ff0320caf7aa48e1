"""The reader's own Python in the simulation lab: edit, run, fail readably, stop, keep."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lab import original_source, run_experiment, run_with_code
from lab.sim.render import format_reward
from lab.sim.user_code import MAX_OUTPUT, code_version
from tests.browser.support import (
    BOOT,
    CLIPPED,
    CODE_SECTION,
    CODE_SUMMARY,
    PHONE,
    WATCH,
    lab_log,
    open_code,
    summary_sentences,
    wait_for_editor,
    when,
)
from tests.conftest import ROOT

RUN = 90_000  # ms: a default run, with the machine busy
LIMIT = 5_000  # ms: the default time limit on the reader's code
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ORIGINAL = original_source()
RETURN_CELL = "    return table[row][col]\n"
FAVOUR_STUB_ALONE = "    return 20 if (row, col) == (2, 2) else table[row][col]\n"
RUNAWAY = "    while True:\n        pass\n"
EDITOR_NAME = "Your code: the verifier and the prior (Python editor)"
STORAGE_KEY = "lab-code:/simulation/:simulation"  # page path and lab id

# The DOM holds only the lines in view: ask CodeMirror for the whole document.
EDITOR_TEXT = """async (content) => {
  const url = new URL("../vendor/codemirror/editor.js", document.querySelector(
    'script[src*="assets/lab/labs.js"]').src);
  return (await import(url.href)).editorText(content);
}"""


# ---------------------------------------------------------------- helpers


def edit(old: str, new: str, source: str = ORIGINAL) -> str:
    assert source.count(old) == 1, old
    return source.replace(old, new)


def line_of(source: str, text: str) -> int:
    (line,) = [n for n, line in enumerate(source.splitlines(), 1) if text in line]
    return line


def run_failing(lab: Locator, returns: str, at: str) -> int:
    """Run with table_reward's return line replaced by ``returns``, which fails there;
    the line of the reader's code holding ``at``, where the error must point."""
    source = edit(RETURN_CELL, returns)
    write(lab, source)
    run(lab, "error")
    return line_of(source, at)


def open_lab(page: Page) -> Locator:
    """The simulation lab with its editor loaded and Python ready."""
    page.add_init_script(WATCH)
    page.goto("simulation/")
    lab = page.locator('[data-lab="simulation"]')
    lab.scroll_into_view_if_needed()
    open_code(lab)
    wait_for_editor(lab)
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return lab


def editor(lab: Locator) -> Locator:
    return lab.get_by_role("textbox", name=EDITOR_NAME)


def editor_text(lab: Locator) -> str:
    return editor(lab).evaluate(EDITOR_TEXT)


def write(lab: Locator, source: str) -> None:
    editor(lab).fill(source)
    assert editor_text(lab) == source


def button(lab: Locator, name: str) -> Locator:
    return lab.get_by_role("button", name=name, exact=True)


def run(lab: Locator, state: str = "done") -> None:
    button(lab, "Run").click()
    expect(lab).to_have_attribute("data-lab-run", state, timeout=RUN)


def summary(lab: Locator) -> Locator:
    return lab.locator("[data-lab-summary]")


def code_error(lab: Locator) -> Locator:
    return lab.locator("[data-lab-code-error]")


def settled(results: dict[str, Any], method: str) -> str:
    i, j = results["settled_on"][method]["cell"]
    return f"{results['responses']['helper'][i]['id']} + {results['responses']['main'][j]['id']}"


# ------------------------------------------------------------ runs with it


def test_an_edited_reward_moves_the_curve_and_the_heatmap(page: Page) -> None:
    lab = open_lab(page)
    expect(lab.locator("[data-lab-code-state]")).to_have_text("The original code.")
    favour = edit(RETURN_CELL, FAVOUR_STUB_ALONE)
    expected = run_with_code({}, favour)
    assert settled(expected, "learned") == settled(expected, "centralized") == "stub + alone"

    write(lab, favour)
    expect(lab.locator("[data-lab-code-state]")).to_contain_text("Edited")
    run(lab)

    # The best joint response is now stub + alone, and both learners find it.
    for sentence in summary_sentences(expected):
        expect(summary(lab)).to_contain_text(sentence)
    expect(summary(lab)).to_contain_text("This run used your edited code.")
    for method in ("learned", "centralized"):
        best = lab.locator(f'[data-lab-heatmap="{method}"] td.is-best')
        expect(best).to_have_count(1)
        expect(best).to_contain_text("20")
        expect(best).to_contain_text("best joint response")
        row = lab.locator(f'[data-lab-heatmap="{method}"] tbody tr').nth(2)
        expect(row.locator("td").nth(2)).to_have_class("is-best")
    # The curve aims at the new best, and its numbers are CPython's for this code.
    expect(lab.locator("svg.lab-sim__chart")).to_contain_text("best joint response 20")
    lab.get_by_text("The learning curve as a table").click()
    last = lab.locator("[data-lab-curve-table] tbody tr").last
    expect(last.locator("td").nth(1)).to_have_text(
        format_reward(expected["mean_reward"]["learned"][-1])
    )


def printed(lab: Locator) -> Locator:
    return lab.locator("[data-lab-output]")


def test_what_the_code_prints_appears_beside_the_result_escaped_and_bounded(page: Page) -> None:
    lab = open_lab(page)
    noisy = f'print("<b>not bold</b>")\nprint("x" * {MAX_OUTPUT + 100})\n' + edit(
        "    row = which", "    print('never shown: past the limit')\n    row = which"
    )
    write(lab, noisy)
    run(lab)
    expect(printed(lab)).to_contain_text("Your code printed (the first 10,000 characters; ")
    expect(printed(lab).locator("pre")).to_contain_text("<b>not bold</b>")
    expect(printed(lab).locator("b")).to_have_count(0)
    text = printed(lab).locator("pre").inner_text()
    assert len(text) == MAX_OUTPUT
    expect(summary(lab)).to_contain_text("This run used your edited code.")

    # The original code prints nothing, and nothing old stays on the page.
    button(lab, "Reset the code").click()
    run(lab)
    expect(printed(lab)).to_have_count(0)


def test_what_failing_code_printed_is_shown_with_its_error(page: Page) -> None:
    lab = open_lab(page)
    write(lab, 'print("checking", 1 + 1)\n' + ORIGINAL + "\n1 / 0\n")
    run(lab, "error")
    expect(code_error(lab).get_by_role("alert")).to_contain_text("ZeroDivisionError")
    expect(printed(lab).locator("pre")).to_have_text("checking 2")


def test_a_run_cannot_change_what_the_next_run_sees(page: Page) -> None:
    lab = open_lab(page)
    meddle = (
        ORIGINAL
        + "\nimport builtins, lab.sim.task, lab.sim.params\n"
        + "lab.sim.task.CLIMBING = ((0, 0, 0),) * 3\n"
        + "lab.sim.params.PARAM_SPEC['updates']['max'] = 1\n"
        + "builtins.abs = lambda x: 0\n"
    )
    write(lab, meddle)
    run(lab)
    button(lab, "Reset the code").click()
    run(lab)
    # The same numbers as a clean run in CPython: the meddling was undone in between.
    lab.get_by_text("The learning curve as a table").click()
    clean = run_experiment()
    last = lab.locator("[data-lab-curve-table] tbody tr").last
    for k, method in enumerate(("prompted", "learned", "centralized")):
        expect(last.locator("td").nth(k)).to_have_text(
            format_reward(clean["mean_reward"][method][-1])
        )
    for sentence in summary_sentences(clean):
        expect(summary(lab)).to_contain_text(sentence)


def test_a_syntax_error_shows_the_traceback_at_the_readers_line(page: Page) -> None:
    lab = open_lab(page)
    line = run_failing(lab, "    return table[row][col\n", at="return table[row][col")

    alert = code_error(lab).get_by_role("alert")
    expect(alert).to_have_text(f"Line {line}: SyntaxError: '[' was never closed")
    traceback = code_error(lab).locator(".lab-code__traceback")
    expect(traceback).to_contain_text(f'File "<your code>", line {line}')
    expect(traceback).to_contain_text("return table[row][col")
    expect(lab.locator("[data-lab-results]")).to_be_hidden()

    # The error leads to the line; the lab stays usable.
    button(lab, f"Show line {line} in the editor").click()
    expect(editor(lab)).to_be_focused()
    assert page.evaluate("getSelection().toString()") == "    return table[row][col"
    button(lab, "Reset the code").click()
    expect(code_error(lab)).to_be_hidden()
    run(lab)
    expect(summary(lab)).to_contain_text(summary_sentences(run_experiment())[0])


def test_an_exception_in_the_readers_function_points_at_its_line(page: Page) -> None:
    lab = open_lab(page)
    line = run_failing(lab, "    return table[row][col] / (row - col)\n", at="(row - col)")
    expect(code_error(lab).get_by_role("alert")).to_contain_text(
        f"Line {line}, in table_reward: ZeroDivisionError"
    )
    traceback = code_error(lab).locator(".lab-code__traceback")
    expect(traceback).to_contain_text("Traceback (most recent call last):")
    expect(traceback).to_contain_text(f'File "<your code>", line {line}, in table_reward')
    # Only the reader's frames: nothing from the lab's own files.
    assert "sim.py" not in traceback.inner_text()


def test_a_reward_that_is_not_a_number_is_refused_naming_the_joint_output(page: Page) -> None:
    lab = open_lab(page)
    write(lab, edit(RETURN_CELL, "    return None if (row, col) == (0, 1) else 1\n"))
    run(lab, "error")
    expect(code_error(lab).get_by_role("alert")).to_have_text(
        "table_reward must return a finite number for every joint output; it returned None "
        "for the joint output helper core + main combine:"
    )
    expect(code_error(lab).locator(".lab-code__error-detail")).to_contain_text(
        "return sum(n * n for n in aux(nums))"
    )


# ------------------------------------------------------------------- Stop


def start_runaway(lab: Locator, page: Page) -> None:
    write(lab, edit("    row = which_response", RUNAWAY + "    row = which_response"))
    button(lab, "Run").click()
    expect(lab).to_have_attribute("data-lab-in-code", "true", timeout=RUN)
    assert lab_log(page)["terminated"] == 0


def recovers(lab: Locator, page: Page) -> None:
    """After a stop: a fresh Python, and the original code runs normally."""
    assert lab_log(page)["terminated"] == 1
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    expect(lab.get_by_role("status")).to_have_text("Python is ready.")
    expect(button(lab, "Run")).to_be_enabled()
    button(lab, "Reset the code").click()
    run(lab)
    expect(summary(lab)).to_contain_text(summary_sentences(run_experiment())[0])


def test_stop_ends_a_runaway_loop_within_a_second(page: Page) -> None:
    lab = open_lab(page)
    lab.get_by_label("Time limit for your code").select_option("30")
    start_runaway(lab, page)

    button(lab, "Stop").click()

    expect(lab).to_have_attribute("data-lab-run", "stopped", timeout=1_000)
    log = lab_log(page)
    assert when(page, "data-lab-run", "stopped") - log["stopClickAt"] < 1_000
    expect(summary(lab)).to_have_text("Stopped after 0 updates of 200. Python was restarted.")
    recovers(lab, page)


# A browser may run a long timeout early: Chromium by up to its 8 ms leeway. Here
# every timeout of a second or more runs 50 ms early, so a limit kept by one
# timeout alone would stop the reader's code before its 5 s.
EARLY_TIMEOUTS = """
(() => {
  const setTimeout = window.setTimeout;
  window.setTimeout = (run, ms, ...args) => setTimeout(run, ms >= 1000 ? ms - 50 : ms, ...args);
})();
"""


def test_the_time_limit_stops_a_runaway_loop_within_a_second_of_it(page: Page) -> None:
    page.add_init_script(EARLY_TIMEOUTS)
    lab = open_lab(page)
    limit = lab.get_by_label("Time limit for your code")
    expect(limit.locator("option:checked")).to_have_text("5 s")
    expect(limit).to_have_accessible_description(
        "Counts only the time Python spends in your code, not the training, which can take "
        "longer; past it, the lab stops the run, as Stop does. Stop ends any run at once."
    )
    start_runaway(lab, page)

    expect(lab).to_have_attribute("data-lab-run", "stopped", timeout=LIMIT + 5_000)

    log = lab_log(page)
    stopped = when(page, "data-lab-run", "stopped")
    entered = when(page, "data-lab-in-code", "true")
    assert LIMIT <= stopped - entered < LIMIT + 1_000, stopped - entered
    # The limit counts time in the reader's code only: from the click it is later by
    # however long the run took to reach that code (over a second on a busy machine).
    assert stopped - log["runClickAt"] >= LIMIT, stopped - log["runClickAt"]
    expect(summary(lab)).to_have_text(
        "Stopped after 5 s: your code ran too long. Python was restarted."
    )
    recovers(lab, page)


# The run ended, or has gone on for well past a 2 s limit.
ENDED_OR_PAST_LIMIT = """() => {
  const lab = document.querySelector('[data-lab="simulation"]');
  return lab.dataset.labRun !== "running" || performance.now() - window.__lab.runClickAt > 3500;
}"""


def test_the_limit_counts_only_the_readers_code_not_the_training(page: Page) -> None:
    lab = open_lab(page)
    lab.get_by_label("Time limit for your code").select_option("2")
    lab.get_by_label("Updates", exact=True).fill("5000")
    lab.get_by_label("Group size", exact=True).fill("256")
    button(lab, "Run").click()

    page.wait_for_function(ENDED_OR_PAST_LIMIT, polling=100, timeout=RUN)

    # Training outlasts the limit and goes on, drawing its curve.
    expect(lab).to_have_attribute("data-lab-run", "running")
    assert lab_log(page)["terminated"] == 0
    points = re.compile(r"^[1-9]\d*$")
    expect(lab.locator("svg.lab-sim__chart")).to_have_attribute(
        "data-lab-points", points, timeout=RUN
    )
    expect(lab).to_have_attribute("data-lab-run", "running")
    assert lab_log(page)["terminated"] == 0
    button(lab, "Stop").click()
    expect(lab).to_have_attribute("data-lab-run", "stopped")
    expect(summary(lab)).to_contain_text("Python was restarted.")


# ------------------------------------------------------- keeping the code


def test_the_code_is_collapsed_and_opens_from_the_keyboard_with_its_editor(page: Page) -> None:
    """Most readers never edit it: it stays out of the way of Run until opened."""
    page.goto("simulation/")
    lab = page.locator('[data-lab="simulation"]')
    expect(lab).to_have_attribute("data-lab-enhanced", "")
    section = lab.locator(CODE_SECTION)
    expect(section).not_to_have_attribute("open", "")
    expect(button(lab, "Run")).to_be_visible()
    expect(lab.locator(".highlight")).to_be_hidden()
    lab.scroll_into_view_if_needed()
    # Not loaded while closed, however near the reader is.
    expect(lab.locator("[data-lab-code-editor]")).not_to_have_attribute("data-lab-editor", "ready")
    summary = section.get_by_text(CODE_SUMMARY, exact=True)
    summary.focus()
    page.keyboard.press("Enter")
    expect(section).to_have_attribute("open", "")
    wait_for_editor(lab)
    write(lab, edit(RETURN_CELL, FAVOUR_STUB_ALONE))
    # The reader's saved edits are what Run uses: on the next visit the code shows itself.
    page.reload()
    lab = page.locator('[data-lab="simulation"]')
    expect(lab.locator(CODE_SECTION)).to_have_attribute("open", "")
    wait_for_editor(lab)
    expect(lab.locator("[data-lab-code-state]")).to_contain_text("Edited")


def test_reload_keeps_edits_and_reset_restores_the_original(page: Page) -> None:
    lab = open_lab(page)
    edited = edit(RETURN_CELL, FAVOUR_STUB_ALONE)
    reset = button(lab, "Reset the code")
    expect(reset).to_be_disabled()
    write(lab, edited)
    expect(reset).to_be_enabled()

    page.reload()
    lab = open_lab(page)
    assert editor_text(lab) == edited
    expect(lab.locator("[data-lab-code-state]")).to_contain_text("Edited")

    button(lab, "Reset the code").click()
    assert editor_text(lab) == ORIGINAL
    expect(lab.locator("[data-lab-code-state]")).to_have_text("The original code.")
    # Reset is one edit: undo brings the reader's version back, redo the original.
    editor(lab).focus()
    page.keyboard.press("Control+z")
    assert editor_text(lab) == edited
    page.keyboard.press("Control+Shift+z")
    assert editor_text(lab) == ORIGINAL

    page.reload()
    lab = open_lab(page)
    assert editor_text(lab) == ORIGINAL
    assert page.evaluate(f"localStorage.getItem({json.dumps(STORAGE_KEY)})") is None


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param(json.dumps({"version": "000000000000", "code": "x = 1\n"}), id="stale"),
        pytest.param("{not json", id="unreadable"),
        pytest.param(json.dumps({"version": code_version(ORIGINAL), "code": 5}), id="not-text"),
    ],
)
def test_saved_edits_of_another_original_or_unreadable_are_ignored(page: Page, stored: str) -> None:
    page.add_init_script(f"localStorage.setItem({json.dumps(STORAGE_KEY)}, {json.dumps(stored)})")
    lab = open_lab(page)
    assert editor_text(lab) == ORIGINAL
    expect(button(lab, "Reset the code")).to_be_disabled()
    run(lab)


def test_the_editor_is_reached_with_tab_and_left_with_escape_then_tab(page: Page) -> None:
    lab = open_lab(page)
    hint = "In the editor, Tab indents. To leave it from the keyboard, press Esc, then Tab."
    expect(editor(lab)).to_have_accessible_description(hint)
    # The form's last control comes just before the code's summary, then the code
    # (its fields are the spec's).
    last_field = lab.locator("[data-lab-form]").locator("input:visible, select:visible").last
    summary = lab.locator(CODE_SECTION).get_by_text(CODE_SUMMARY, exact=True)
    last_field.focus()

    page.keyboard.press("Tab")
    expect(summary).to_be_focused()
    page.keyboard.press("Tab")
    expect(editor(lab)).to_be_focused()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Tab")  # indents: Tab does not leave the editor
    expect(editor(lab)).to_be_focused()
    assert editor_text(lab) == "    " + ORIGINAL
    page.keyboard.press("Control+z")
    assert editor_text(lab) == ORIGINAL

    page.keyboard.type("# mine\n")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    expect(button(lab, "Reset the code")).to_be_focused()
    page.keyboard.press("Enter")  # Reset disables itself and hands focus back to the code
    expect(editor(lab)).to_be_focused()
    assert editor_text(lab) == ORIGINAL
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Tab")
    expect(summary).to_be_focused()


# --------------------------------------------------------- reading it anywhere


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_with_the_editor_and_an_error(page: Page, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    lab = open_lab(page)
    axe = Axe.from_file(AXE)
    context = {"include": [['[data-lab="simulation"]']]}
    result = axe.run(page, context=context)
    assert result.violations_count == 0, result.generate_report()

    run_failing(lab, "    return table[row][col] / 0\n", at="/ 0")
    result = axe.run(page, context=context)
    assert result.violations_count == 0, result.generate_report()


CODE_BG = """() => [
  getComputedStyle(document.querySelector(".cm-editor")).backgroundColor,
  getComputedStyle(document.querySelector(".md-typeset .highlight pre > code")).backgroundColor,
]"""


def test_the_editor_follows_the_palette(page: Page) -> None:
    page.emulate_media(color_scheme="light")
    open_lab(page)
    light, code_block = page.evaluate(CODE_BG)
    assert light == code_block  # the editor looks like the page's code blocks

    page.emulate_media(color_scheme="dark")  # no reload: the palette toggles live
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    dark, code_block = page.evaluate(CODE_BG)
    assert dark == code_block != light


def test_the_editor_and_its_errors_fit_a_phone(page: Page) -> None:
    page.set_viewport_size(PHONE)
    lab = open_lab(page)
    run_failing(lab, "    return table[row][col] / 0\n", at="/ 0")
    assert lab.evaluate(CLIPPED) == []
    box = lab.locator(".cm-editor").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # Typing still works on a narrow screen.
    editor(lab).press("Control+End")
    page.keyboard.type("# phone\n")
    assert editor_text(lab).endswith("# phone\n")


def test_without_javascript_the_code_is_a_read_only_highlighted_block(no_script_page: Page) -> None:
    no_script_page.goto("simulation/")
    # Collapsed without JavaScript too; <details> opens without it.
    no_script_page.get_by_text(CODE_SUMMARY, exact=True).click()
    code = no_script_page.locator('[data-lab="simulation"] [data-lab-code]')
    expect(code.get_by_role("heading")).to_have_text("Your code: the verifier and the prior")
    block = code.locator(".highlight pre > code")
    assert block.text_content() == ORIGINAL
    expect(block.locator("span.k").first).to_be_visible()  # highlighted
    expect(code.get_by_role("textbox")).to_have_count(0)
    expect(code.get_by_role("button")).to_have_count(0)
    expect(no_script_page.get_by_role("button", name="Run", exact=True)).to_be_hidden()
