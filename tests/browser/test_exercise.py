"""Graded coding exercises: a reader writes a wrong answer, reads the feedback, takes a
hint, fixes the code, passes, and trains the simulation with it; by mouse, keyboard
and touch; without JavaScript the exercise reads as text."""

from __future__ import annotations

import json

from playwright.sync_api import Browser, Locator, Page, expect

from lesson_hooks.fences.exercise import parse_page
from tests.browser.support import (
    BOOT,
    PHONE_390,
    axe_violations,
    report,
    touch_phone,
    wait_for_editor,
)
from tests.conftest import ROOT, BuiltSite
from tests.support.html import labs_stylesheet, shipped_stylesheet

TRAIN = 90_000  # ms: two runs of the simulation at its defaults, with the machine busy
EXERCISES = {
    block.id: block
    for block in parse_page((ROOT / "docs" / "simulation.md").read_text("utf-8"), "simulation")
}
LM_EXERCISES = {
    block.id: block
    for block in parse_page(
        (ROOT / "docs" / "language-models.md").read_text("utf-8"), "language-models"
    )
}
ADVANTAGE = EXERCISES["group-advantage"]
WRONG = (
    "def group_advantage(returns):\n"
    "    best = max(returns)\n"
    "    return [r - best for r in returns]\n"
)
LOOP = "def group_advantage(returns):\n    while True:\n        pass\n"
STORAGE_KEY = "lab-exercise:/simulation/:group-advantage"

# The DOM holds only the lines in view: ask CodeMirror for the whole document.
EDITOR_TEXT = """async (content) => {
  const url = new URL("../vendor/codemirror/editor.js", document.querySelector(
    'script[src*="assets/lab/labs.js"]').src);
  return (await import(url.href)).editorText(content);
}"""


def open_exercise(
    page: Page, exercise_id: str = "group-advantage", where: str = "simulation/"
) -> Locator:
    page.goto(where)
    lab = page.locator(f"#lab-{exercise_id}")
    wait_for_editor(lab)
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return lab


def editor(lab: Locator, called: str = "group_advantage(returns)") -> Locator:
    return lab.get_by_role("textbox", name=f"Your code: {called} (Python editor)")


def write(lab: Locator, source: str, called: str = "group_advantage(returns)") -> None:
    editor(lab, called).fill(source)
    assert editor(lab, called).evaluate(EDITOR_TEXT) == source


def button(lab: Locator, name: str) -> Locator:
    return lab.get_by_role("button", name=name, exact=True)


def train(page: Page, lab: Locator, updates: int) -> Locator:
    """Train at ``updates`` set in the simulation lab's form; the report, once trained."""
    page.locator('[data-lab="simulation"] [data-lab-field="updates"]').fill(str(updates))
    button(lab, "Train with my advantage").click()
    expect(lab).to_have_attribute("data-lab-run", "trained", timeout=TRAIN)
    return lab.locator("[data-lab-train-result]")


def verdict(lab: Locator, n: int) -> Locator:
    return lab.locator(f'[data-lab-test="{n}"] [data-lab-verdict]')


def test_wrong_then_hint_then_right_then_train(page: Page) -> None:
    lab = open_exercise(page)
    expect(lab.locator("details[data-lab-solution]")).to_be_hidden()
    expect(button(lab, "Train with my advantage")).to_be_disabled()

    # A wrong answer: each public test says what it expected and what came back.
    write(lab, WRONG)
    button(lab, "Run the tests").click()
    expect(lab).to_have_attribute("data-lab-run", "failed")
    expect(verdict(lab, 1)).to_have_text(
        "Not yet. It should return [-1.0, 0.0, 1.0], and it returned [-2.0, -1.0, 0.0]."
    )
    announcer = lab.locator("[data-lab-announcer]")
    expect(announcer).to_contain_text("0 of 2 public tests pass.")
    expect(announcer).to_contain_text("group_advantage([1.0, 2.0, 3.0])")

    # A hint, one at a time.
    button(lab, "Show a hint (1 of 2)").click()
    hints = lab.locator("[data-lab-hint]")
    expect(hints.nth(0)).to_be_visible()
    expect(hints.nth(1)).to_be_hidden()
    expect(announcer).to_contain_text("Hint 1:")

    # A failed Check offers the solution without asking; hidden tests are named by number.
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "failed")
    # ... and the random test, after them.
    expect(lab.locator(".lab-exercise__hidden-results li")).to_have_count(
        len(ADVANTAGE.tests) - len(ADVANTAGE.public) + 1
    )
    expect(lab.locator(".lab-exercise__hidden-results li").last).to_contain_text(
        "Random test: Not yet. With seed "
    )
    saved = json.loads(page.evaluate(f"localStorage.getItem({STORAGE_KEY!r})"))
    assert saved["progress"]["attempts"] == 1 and saved["progress"]["hints"] == 1

    # ... and says so.
    expect(button(lab, "Stuck? Show the solution")).to_be_visible()

    # The fix passes every test, and trains the simulation as the built-in does.
    write(lab, ADVANTAGE.solution)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "passed")
    expect(lab.locator("[data-lab-summary]")).to_contain_text(
        f"All {len(ADVANTAGE.tests) + 1} tests pass."
    )
    expect(button(lab, "Train with my advantage")).to_be_enabled()
    # It trains at the settings the reader left in the simulation lab's form.
    result = train(page, lab, 60)
    expect(lab).to_have_attribute("data-lab-train", "match")
    expect(result).to_contain_text("The two runs match")
    expect(result).to_contain_text("(60 updates, seed 0; the lab's verifier and prior)")
    expect(result).to_contain_text("Expected reward at the end:")
    problems = axe_violations(page, "the exercise after training", ["#lab-group-advantage"])
    assert not problems, report(problems)

    # A reload keeps the progress: passed, so training is still a press away.
    page.reload()
    lab = open_exercise(page)
    expect(button(lab, "Train with my advantage")).to_be_enabled()
    expect(button(lab, "Show a hint (2 of 2)")).to_be_visible()


HARD_CODED = (
    "def group_advantage(returns):\n"
    "    if returns == [1.0, 2.0, 3.0]:\n"
    "        return [-1.0, 0.0, 1.0]\n"
    "    if returns == [11.0, -30.0, 0.0, 5.0]:\n"
    "        return [14.5, -26.5, 3.5, 8.5]\n"
    "    return [0.0 for r in returns]\n"
)
LEAVE_ONE_OUT = (
    "def group_advantage(returns):\n"
    "    n = len(returns)\n"
    "    m = sum(returns) / n\n"
    "    return [(r - m) * n / (n - 1) for r in returns]\n"
)


def test_hard_coded_public_answers_fail_and_train_says_where_the_runs_part(page: Page) -> None:
    lab = open_exercise(page)
    write(lab, HARD_CODED)
    button(lab, "Run the tests").click()
    expect(lab).to_have_attribute("data-lab-run", "passed")
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "failed")
    random_test = lab.locator(".lab-exercise__hidden-results li").last
    expect(random_test).to_have_attribute("data-lab-result", "incorrect")
    expect(random_test).to_contain_text("it returned [0.0,")
    # The announcer says the first failure: the hidden test the hard-coding misses.
    expect(lab.locator("[data-lab-announcer]")).to_contain_text("5 of 7 tests pass. Hidden test")

    # Leave-one-out passes no test of the mean; trained anyway (it passed once before,
    # as the saved progress says), the report says where the runs part, and by how much.
    write(lab, ADVANTAGE.solution)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "passed")
    write(lab, LEAVE_ONE_OUT)
    result = train(page, lab, 60)
    expect(lab).to_have_attribute("data-lab-train", "differ")
    expect(result).to_contain_text(
        "Your advantages first differ from the built-in ones at update 1"
    )
    expect(result).to_contain_text("the largest gap is")
    expect(result).to_contain_text("as the lab reports it:")


def test_train_uses_the_verifier_and_prior_the_reader_edited(page: Page) -> None:
    page.goto("simulation/")
    code = page.locator('[data-lab="simulation"] [data-lab-code]')
    version = code.get_attribute("data-lab-code-version")
    original = code.locator("[data-lab-code-editor] pre code").text_content()
    assert original and "return table[row][col]" in original
    edited = original.replace("return table[row][col]", "return float(row == 2)")
    key = "lab-code:/simulation/:simulation"
    saved = json.dumps({"version": version, "code": edited})
    page.evaluate("([key, saved]) => localStorage.setItem(key, saved)", [key, saved])
    lab = open_exercise(page)
    expect(code).to_have_attribute("data-lab-code-edited", "true")
    write(lab, ADVANTAGE.solution)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "passed")
    expect(train(page, lab, 20)).to_contain_text(
        "(20 updates, seed 0; your edited verifier and prior)"
    )


def test_the_cross_mode_exercise_passes_its_solution_only(page: Page) -> None:
    lab = open_exercise(page, "cross-advantage")
    exercise = EXERCISES["cross-advantage"]
    called = "cross_advantages(rewards)"
    write(lab, exercise.wrong[0].code, called)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "failed")
    write(lab, exercise.solution, called)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "passed")
    expect(lab.locator("[data-lab-summary]")).to_contain_text(
        f"All {len(exercise.tests) + 1} tests pass."
    )


def test_the_language_model_pages_exercise_passes_its_solution_only(page: Page) -> None:
    lab = open_exercise(page, "token-step", "language-models/")
    exercise = LM_EXERCISES["token-step"]
    called = "token_step(logits, chosen, advantages, rate)"
    write(lab, exercise.wrong[0].code, called)
    button(lab, "Run the tests").click()
    expect(lab).to_have_attribute("data-lab-run", "failed")
    expect(verdict(lab, 1)).to_contain_text("Not yet. It should return")
    write(lab, exercise.solution, called)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "passed")
    problems = axe_violations(page, "the language-model exercise", ["#lab-token-step"])
    assert not problems, report(problems)


def test_the_solution_asks_first_and_a_runaway_loop_is_stopped(page: Page) -> None:
    lab = open_exercise(page)
    button(lab, "Show the solution").click()
    expect(button(lab, "Not yet")).to_be_focused()
    page.keyboard.press("Enter")
    expect(lab.locator("details[data-lab-solution]")).to_be_hidden()
    button(lab, "Show the solution").click()
    button(lab, "Show it").click()
    expect(lab.locator("details[data-lab-solution]")).to_have_attribute("open", "")
    expect(lab.locator("details[data-lab-solution]")).to_contain_text("baseline is this function")

    write(lab, LOOP)
    button(lab, "Run the tests").click()
    expect(lab).to_have_attribute("data-lab-run", "stopped", timeout=BOOT)
    expect(lab.locator("[data-lab-summary]")).to_contain_text("your code ran too long")
    # Python is back: the next check runs.
    write(lab, ADVANTAGE.solution)
    button(lab, "Run the tests").click()
    expect(lab).to_have_attribute("data-lab-run", "passed", timeout=BOOT)


def test_by_keyboard(page: Page) -> None:
    lab = open_exercise(page, "shared-reward")
    run = button(lab, "Run the tests")
    run.focus()
    page.keyboard.press("Enter")
    expect(lab).to_have_attribute("data-lab-run", "failed")
    page.keyboard.press("Tab")
    expect(button(lab, "Check")).to_be_focused()
    page.keyboard.press("Enter")
    expect(lab).to_have_attribute("data-lab-run", "failed")
    expect(lab.locator("[data-lab-announcer]")).to_contain_text("Test 1, shared_rewards(")


def test_on_a_phone_by_touch(browser: Browser, browser_context_args: dict) -> None:
    with touch_phone(browser, browser_context_args, {"viewport": PHONE_390}) as page:
        lab = open_exercise(page, "softmax-step")
        button(lab, "Show a hint (1 of 2)").tap()
        expect(lab.locator("[data-lab-hint]").nth(0)).to_be_visible()
        button(lab, "Check").tap()
        expect(lab).to_have_attribute("data-lab-run", "failed")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE_390["width"]


def test_without_javascript_it_reads_as_text(no_script_page: Page) -> None:
    no_script_page.goto("simulation/")
    lab = no_script_page.locator("#lab-group-advantage")
    expect(lab.locator(".lab-exercise__prompt")).to_contain_text("Eq. 1")
    expect(lab.locator("[data-lab-code-editor]")).to_contain_text("def group_advantage")
    expect(lab.locator("[data-lab-test]")).to_have_count(len(ADVANTAGE.public))
    for details in lab.locator("details").all():
        expect(details).not_to_have_attribute("open", "")
    expect(lab.locator("[data-lab-controls]")).to_be_hidden()


def test_on_paper_an_exercise_is_its_prompt_starter_and_tests(page: Page) -> None:
    lab = open_exercise(page)
    button(lab, "Show the solution").click()
    button(lab, "Show it").click()
    expect(lab.locator("details[data-lab-solution]")).to_be_visible()
    page.emulate_media(media="print")
    for part in ("details[data-lab-solution]", "[data-lab-controls]", "[data-lab-train]"):
        expect(lab.locator(part)).to_be_hidden()
    expect(lab.locator(".lab-exercise__prompt")).to_be_visible()
    expect(lab.locator("[data-lab-test]").first).to_be_visible()


# The editor's look, as computed (a bare <div> and <p> would be a block at 16 px with
# 1em margins), and, to show the simulation lab's stylesheet is absent, its actions' row.
EDITOR_LOOK = """(lab) => {
  const style = (selector) => getComputedStyle(document.querySelector(selector));
  return {
    tools: style(`#${lab.id} .lab-code__tools`).display,
    keys: style(`#${lab.id} .lab-code__keys`).fontSize,
    state: style(`#${lab.id} .lab-code__state`).marginBottom,
    muted: getComputedStyle(lab).getPropertyValue("--lab-code-muted").trim(),
    simulation: style(".lab-sim__actions").display,
  };
}"""


def test_the_editor_is_styled_on_a_page_without_the_simulation_labs_stylesheet(
    page: Page, site: BuiltSite
) -> None:
    """The code editor is shared (issue 36): an exercise on a page without a simulation lab
    gets its styles from lab.css, not from the simulation lab's stylesheet. The page's
    one stylesheet for its labs is served here without the simulation lab's part."""
    joined = labs_stylesheet(site.dir, "simulation")
    simulation = shipped_stylesheet(site.dir, "assets/lab/widgets/simulation.css")
    assert joined.count(simulation) == 1
    page.route(
        "**/assets/lab/styles/*.css",
        lambda route: route.fulfill(
            status=200, content_type="text/css", body=joined.replace(simulation, "")
        ),
    )
    lab = open_exercise(page)
    assert lab.evaluate(EDITOR_LOOK) == {
        "tools": "flex",
        "keys": "14px",
        "state": "0px",
        "muted": "#6b6b6b",
        "simulation": "block",
    }
