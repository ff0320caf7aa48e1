"""The site in Firefox and WebKit: what a reader does, written once for both.

Run one engine with ``./dev test -m firefox`` (or ``-m webkit``). Chromium walks
each of these paths, and more, in the Playwright suite beside this one
(test_visual_lab, test_simulation, test_user_code, test_isolation,
test_experiments, test_offline, test_language_models, test_exercise, test_share,
test_quality), so this one runs them in the engines that suite does not reach
(the same paths again in Chromium cost the suite about 100 s of its 25 minutes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lab import original_source, run_experiment
from lesson_hooks.fences.visual_lab import parse_page
from tests.browser.engines.base import Engine
from tests.browser.engines.conftest import ENGINES, allow_errors, also_home, lab_ready
from tests.browser.support import BOOT_SECONDS, CODE_SECTION, CODE_SUMMARY, OFFLINE_NOTE, site_pages
from tests.conftest import ROOT, BuiltSite
from tools.static_server import StaticServer

RUN = 180  # s: a default simulation run on a busy machine
MAPPING = '[data-lab="visual-lab"]'
SIMULATION = '[data-lab="simulation"]'
(VISUAL_LAB,) = parse_page((ROOT / "docs" / "lesson.md").read_text(encoding="utf-8"), "lesson")
SPEC: dict[str, Any] = VISUAL_LAB.spec
PARTS = {part["n"]: part for part in SPEC["parts"]}
ANSWER = {n: part["answer"] for n, part in PARTS.items()}
ORIGINAL = original_source()


@pytest.fixture(params=[param for param in ENGINES if param.values != ("chromium",)])
def engine_name(request: pytest.FixtureRequest) -> str:
    """Firefox and WebKit (the module's docstring says why not Chromium)."""
    return request.param


HEADING = """() => {
  const h1 = document.querySelector("h1");
  return h1 && h1.getClientRects().length > 0 ? h1.textContent.trim() : null;
}"""
LABS_MOUNTED = """() => [...document.querySelectorAll("[data-lab]:has([data-lab-status])")].every(
  (lab) => lab.hasAttribute("data-lab-state"))"""
# Drag and drop as the page sees it from a mouse: real mouse drags cannot be
# driven in these engines' automation, synthetic DragEvents sharing one DataTransfer can.
DRAG = """(from, to) => {
  const data = new DataTransfer();
  const fire = (el, type) => el.dispatchEvent(
    new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
  const source = document.querySelector(from);
  const target = document.querySelector(to);
  fire(source, "dragstart");
  fire(target, "dragenter");
  fire(target, "dragover");
  fire(target, "drop");
  fire(source, "dragend");
}"""
# The editor's DOM holds only the lines in view: ask CodeMirror for the whole text.
EDITOR_TEXT = """async () => {
  const url = new URL("../vendor/codemirror/editor.js",
    document.querySelector('script[src*="assets/lab/labs.js"]').src);
  const content = document.querySelector('[data-lab="simulation"] .cm-content');
  return (await import(url.href)).editorText(content);
}"""
SELECT = """(selector, value) => {
  const select = document.querySelector(selector);
  select.value = value;
  select.dispatchEvent(new Event("change", { bubbles: true }));
}"""


# ---------------------------------------------------------------- helpers


def chip(concept: str) -> str:
    return f'{MAPPING} [data-lab-chip="{concept}"]'


def zone(n: int) -> str:
    return f'{MAPPING} [data-lab-zone="{n}"]'


def mapping_button(engine: Engine, name: str) -> None:
    engine.click(f"{MAPPING} button", name)


def expect_placed(engine: Engine, placed: dict[int, str]) -> None:
    for n in PARTS:
        engine.text_is(zone(n), placed.get(n, "drop here"))


def expect_all_correct(engine: Engine) -> None:
    engine.text_is(f"{MAPPING} [data-lab-summary]", "5 of 5 correct.", timeout=BOOT_SECONDS)
    for n, part in PARTS.items():
        engine.text_is(
            f"{MAPPING} [data-lab-part='{n}'] .lab-feedback", f"Correct. {part['explanation']}"
        )


def focused(engine: Engine, selector: str) -> bool:
    return engine.call(
        "(s) => [...document.querySelectorAll(s)].includes(document.activeElement)", selector
    )


def key_to(engine: Engine, selector: str, key: str, limit: int = 20) -> None:
    """Press ``key`` (Tab or Shift+Tab) until ``selector`` has the focus, as a reader would."""
    for _ in range(limit):
        if focused(engine, selector):
            return
        engine.press(key)
    assert focused(engine, selector), f"{engine.name}: {key} never reached {selector}"


def open_simulation(engine: Engine, origin: StaticServer) -> None:
    engine.goto(origin.url + "simulation/")
    lab_ready(engine, SIMULATION, timeout=BOOT_SECONDS)
    # The code is collapsed until the reader opens it (saved edits open it themselves).
    code = f"{SIMULATION} {CODE_SECTION}"
    if engine.attribute(code, "open") is None:
        # By keyboard, as Run is (a WebDriver click on it was at times lost under load).
        engine.focus(f"{code} > summary", CODE_SUMMARY)
        engine.press("Enter")
    editor = f"{SIMULATION} [data-lab-code-editor]"
    engine.attribute_is(editor, "data-lab-editor", "ready", timeout=BOOT_SECONDS)


def sim_button(engine: Engine, name: str) -> None:
    engine.click(f"{SIMULATION} button", name)


def run(engine: Engine, state: str = "done") -> None:
    # By keyboard (the mouse path is the Playwright suite's): WebKitWebDriver's click
    # on the Run button was at times lost under load, the lab left idle.
    engine.focus(f"{SIMULATION} button", "Run")
    engine.press("Enter")
    engine.attribute_is(SIMULATION, "data-lab-run", state, timeout=RUN)


def where(engine: Engine) -> str:
    """What the tab shows, for a failure message."""
    return engine.call("() => `${location.href}: ${document.title}`")


def type_at_the_end(engine: Engine, text: str) -> None:
    """Type ``text`` at the end of the editor's code, at the start of its empty last line."""
    assert ORIGINAL.endswith("\n")
    engine.click(f"{SIMULATION} .cm-content")
    engine.press("Control+End")
    engine.type(text)


# ------------------------------------------------------------- every page


def test_every_page_loads_without_errors_or_other_origins(
    engine: Engine, origin: StaticServer, site: BuiltSite
) -> None:
    for path in site_pages(site):
        engine.goto(origin.url + path)
        assert engine.call(HEADING), f"{engine.name}: {path} shows no heading"
        # Every Python lab's code has loaded (it shows its state) before the page is left.
        engine.wait_for(LABS_MOUNTED, timeout=60, what=f"the labs of {path} to load")
    # The engine fixture then fails the test on any error or foreign request.


# ------------------------------------------------------------------- labs
# Each page load boots Python again (seconds in WebKitGTK), so each test goes
# through a lab's whole path on as few loads as it can, in steps a reader takes.


def test_the_mapping_lab_by_click_keyboard_and_drag_and_after_a_reload(
    engine: Engine, origin: StaticServer
) -> None:
    engine.goto(origin.url + "lesson/")
    engine.attribute_is(MAPPING, "data-lab-state", "idle", timeout=30)  # not before it is needed
    lab_ready(engine, MAPPING, timeout=BOOT_SECONDS)
    engine.text_is(f"{MAPPING} [data-lab-status]", "Python is ready.")

    # By click: a wrong answer shows its feedback.
    engine.click(chip("Action"))
    engine.click(zone(2))
    mapping_button(engine, "Check")
    engine.text_is(
        f"{MAPPING} [data-lab-part='2'] .lab-feedback",
        f"Incorrect. {PARTS[2]['feedback']['Action']}",
        timeout=BOOT_SECONDS,
    )
    assert engine.attribute(zone(2), "data-lab-result") == "incorrect"
    for n, concept in ANSWER.items():  # the right chip onto part 2 sends Action back
        engine.click(chip(concept))
        engine.click(zone(n))
    expect_placed(engine, ANSWER)
    mapping_button(engine, "Check")
    expect_all_correct(engine)
    mapping_button(engine, "Clear")
    expect_placed(engine, {})

    # By keyboard: Enter or Space picks a chip, Tab moves on, Enter places it.
    engine.focus(chip(SPEC["concepts"][0]))
    for n, concept in ANSWER.items():
        key_to(engine, chip(concept), "Shift+Tab")
        engine.press("Space" if n % 2 else "Enter")
        assert engine.attribute(chip(concept), "aria-pressed") == "true"
        key_to(engine, zone(n), "Tab")
        engine.press("Enter")
        engine.text_is(zone(n), concept)
    key_to(engine, f"{MAPPING} [data-lab-action='check']", "Tab")
    engine.press("Enter")
    expect_all_correct(engine)
    mapping_button(engine, "Clear")
    expect_placed(engine, {})

    # By drag: onto a part, back to the tray, then the answers.
    engine.call(DRAG, chip("Reward"), zone(1))
    expect_placed(engine, {1: "Reward"})
    engine.call(DRAG, zone(1), f"{MAPPING} [data-lab-concepts]")
    expect_placed(engine, {})
    for n, concept in ANSWER.items():
        engine.call(DRAG, chip(concept), zone(n))
    expect_placed(engine, ANSWER)

    # The placements are saved: a reload shows them, and Check grades them.
    engine.reload()
    expect_placed(engine, ANSWER)
    mapping_button(engine, "Check")
    expect_all_correct(engine)


def test_the_simulation_runs_and_the_editor_edits_runs_and_resets(
    engine: Engine, origin: StaticServer
) -> None:
    open_simulation(engine, origin)
    run(engine)
    assert engine.text(f"{SIMULATION} [data-lab-summary]")
    points = engine.attribute(f"{SIMULATION} svg.lab-sim__chart", "data-lab-points")
    assert points and int(points) > 0, points
    # A line and a heatmap for each method the default run reports (CPython says which).
    methods = len(run_experiment({})["methods"])
    assert engine.count(f"{SIMULATION} svg.lab-sim__chart path.lab-sim__line") == methods
    assert engine.count(f"{SIMULATION} [data-lab-heatmap]") == methods
    assert engine.count(f'{SIMULATION} [data-lab-chart="partners"] tr') > 0

    engine.text_is(f"{SIMULATION} [data-lab-code-state]", "The original code.")
    mark = f"# edited in {engine.name}"
    type_at_the_end(engine, mark)
    assert engine.call(EDITOR_TEXT) == ORIGINAL + mark
    engine.text_contains(f"{SIMULATION} [data-lab-code-state]", "Edited")
    run(engine)
    engine.text_contains(f"{SIMULATION} [data-lab-summary]", "This run used your edited code.")

    sim_button(engine, "Reset the code")
    engine.text_is(f"{SIMULATION} [data-lab-code-state]", "The original code.")
    assert engine.call(EDITOR_TEXT) == ORIGINAL


# Whether the site's service worker controls the page.
CONTROLLED = "() => navigator.serviceWorker.controller !== null"


def test_the_time_limit_and_stop_restart_python_and_the_lab_recovers(
    engine: Engine, origin: StaticServer
) -> None:
    # A first visit, once the service worker controls it (not isolated yet): the restarts'
    # new workers fetch Python through it.
    open_simulation(engine, origin)
    engine.wait_for(CONTROLLED, timeout=BOOT_SECONDS, what="the service worker to control the page")
    assert engine.call("() => crossOriginIsolated") is False
    limit = f'{SIMULATION} select[id$="time-limit"]'
    engine.call(SELECT, limit, "2")
    type_at_the_end(engine, "while True: pass")

    run(engine, "stopped")  # past the 2 s limit
    engine.text_contains(f"{SIMULATION} [data-lab-summary]", "your code ran too long.")
    engine.text_contains(f"{SIMULATION} [data-lab-summary]", "Python was restarted.")
    lab_ready(engine, SIMULATION, timeout=BOOT_SECONDS)

    engine.call(SELECT, limit, "30")
    sim_button(engine, "Run")
    engine.attribute_is(SIMULATION, "data-lab-in-code", "true", timeout=RUN)
    sim_button(engine, "Stop")
    engine.attribute_is(SIMULATION, "data-lab-run", "stopped", timeout=10)
    engine.text_contains(f"{SIMULATION} [data-lab-summary]", "Python was restarted.")
    lab_ready(engine, SIMULATION, timeout=BOOT_SECONDS)

    sim_button(engine, "Reset the code")
    run(engine)
    assert engine.text(f"{SIMULATION} [data-lab-summary]")


# A guided experiment's card, below the lab it runs; its run fills the lab's results above it.
CARD = '[data-lab-experiment="climbing-defaults"]'
# Wholly in the viewport, below Material's header.
IN_VIEW = """(s) => {
  const box = document.querySelector(s).getBoundingClientRect();
  const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
  return box.height > 0 && box.top >= header && box.bottom <= innerHeight;
}"""
SCROLLED = "() => [scrollY, CSS.supports('overflow-anchor', 'auto')]"


def test_a_guided_experiments_outcome_is_in_view_when_its_run_ends(
    engine: Engine, origin: StaticServer
) -> None:
    """Issue 39: WebKit keeps no reader's place (no scroll anchoring) while the lab's
    results appear above the card; the card keeps its own, and shows its outcome."""
    engine.goto(origin.url + "simulation/")
    lab_ready(engine, SIMULATION, timeout=BOOT_SECONDS)
    engine.call("(s) => document.querySelector(s).scrollIntoView()", CARD)
    engine.attribute_is(CARD, "data-lab-enhanced", "", timeout=30)
    engine.click(f"{CARD} input[type=radio]")
    # By keyboard, as the lab's Run is (WebKitWebDriver's clicks were at times lost).
    engine.focus(f"{CARD} button", "Run this experiment")
    engine.press("Enter")
    engine.attribute_is(CARD, "data-lab-experiment-state", "done", timeout=RUN)
    outcome = f"{CARD} [data-lab-experiment-outcome]"
    assert engine.text(outcome).startswith("You predicted ")
    engine.wait_for(
        IN_VIEW,
        outcome,
        timeout=10,
        what=lambda: f"the outcome in view (scrollY, anchoring: {engine.call(SCROLLED)})",
    )


# What each engine does once the site's service worker serves a page (tested,
# not assumed): whether the page is cross-origin isolated (its COOP and COEP
# headers), and whether Stop can then interrupt Python, which takes a
# SharedArrayBuffer; WebKitGTK's MiniBrowser isolates but has none. Where Stop
# cannot interrupt, it and the time limit restart Python, as on a first visit.
ISOLATED = {"chromium": True, "firefox": True, "webkit": True}
INTERRUPTS = {"chromium": True, "firefox": True, "webkit": False}
INTERRUPTS_JS = """async () => {
  const { getRuntime } = await import(new URL("assets/lab/client.js", __md_scope));
  return getRuntime().interrupts;
}"""


def stop_a_runaway_loop(engine: Engine, *, restarts: bool) -> None:
    """Past a 2 s time limit on a loop in the reader's code; the lab says how it stopped."""
    engine.call(SELECT, f'{SIMULATION} select[id$="time-limit"]', "2")
    type_at_the_end(engine, "while True: pass")
    run(engine, "stopped")
    said = "Stopped after 2 s: your code ran too long."
    if restarts:
        engine.text_is(f"{SIMULATION} [data-lab-summary]", f"{said} Python was restarted.")
        lab_ready(engine, SIMULATION, timeout=BOOT_SECONDS)
    else:
        engine.text_is(f"{SIMULATION} [data-lab-summary]", said)
        engine.text_is(f"{SIMULATION} [data-lab-status]", "Python is ready.")
    sim_button(engine, "Reset the code")


def test_the_time_limit_before_and_after_the_service_worker_isolates_the_page(
    engine: Engine, origin: StaticServer
) -> None:
    # A first visit: the service worker takes the page, which stays not isolated (the
    # time-limit test above restarts Python on such a page).
    open_simulation(engine, origin)
    engine.wait_for(CONTROLLED, timeout=BOOT_SECONDS, what="the service worker to control the page")
    assert engine.call("() => crossOriginIsolated") is False

    # The next visit: served by the service worker.
    open_simulation(engine, origin)
    isolated = engine.call("() => crossOriginIsolated")
    debug = engine.call(
        "() => [!!navigator.serviceWorker.controller,"
        " performance.getEntriesByType('navigation')[0]?.workerStart]"
    )
    assert isolated is ISOLATED[engine.name], (
        f"{engine.name}: crossOriginIsolated is {isolated} {debug}"
    )
    interrupts = engine.call(INTERRUPTS_JS)
    assert interrupts is INTERRUPTS[engine.name], f"{engine.name}: interrupts is {interrupts}"
    stop_a_runaway_loop(engine, restarts=not interrupts)
    run(engine)
    engine.text_contains(f"{SIMULATION} [data-lab-summary]", "Prompted collaboration")


# ---------------------------------------------------------------- offline


def test_the_service_worker_serves_a_revisit_offline(
    request: pytest.FixtureRequest, engine: Engine, origin: StaticServer
) -> None:
    note = OFFLINE_NOTE
    engine.goto(origin.url + "lesson/")
    # (The note says "Pages available offline" first, at times only for a moment:
    # tests/browser/test_offline.py follows its every text in Chromium.)
    lab_ready(engine, MAPPING, timeout=BOOT_SECONDS)
    engine.text_is(note, "Available offline", timeout=BOOT_SECONDS)

    origin.network_off.set()
    # Network-first pages try the network before their saved copy; engines log that failure.
    allow_errors(request, r"NetworkError|network connection was lost|Failed to fetch|Load failed")
    for path in ("summary/", "lesson/"):
        engine.goto(origin.url + path)
        engine.wait_for(HEADING, timeout=30, what=lambda: f"a heading offline, at {where(engine)}")
        engine.reload()
        engine.wait_for(
            HEADING, timeout=30, what=lambda: f"a heading offline, reloaded, at {where(engine)}"
        )
    engine.text_is(note, "Available offline")  # Python too, as the worker reports


@pytest.mark.parametrize("engine_name", [p for p in ENGINES if p.values == ("firefox",)])
def test_the_service_worker_leaves_firefoxs_prefetch_of_the_next_page_to_the_browser(
    engine: Engine, origin: StaticServer
) -> None:
    """Firefox prefetches a page's <link rel="next"> once it has loaded. One the worker
    answered, and Firefox then gave up on, was logged as the page's error (a CI run)."""
    engine.goto(origin.url + "lesson/")
    engine.wait_for(
        "() => !!navigator.serviceWorker.controller",
        timeout=BOOT_SECONDS,
        what="the worker to take the page",
    )
    engine.goto(origin.url + "simulation/")
    assert engine.call("() => !!navigator.serviceWorker.controller"), "the worker serves the page"
    page_after = engine.call("() => document.querySelector('link[rel=next]').href")
    assert page_after == origin.url + "simulation-reference/"
    # The browser's own request says it is a prefetch; one the worker made for it does not.
    prefetched = origin.prefetched.wait_for("/simulation-reference/", timeout=30)
    assert "/simulation-reference/" in prefetched, prefetched


def test_the_downloaded_copy_reads_from_disk(
    request: pytest.FixtureRequest, engine: Engine, offline_copy: Path
) -> None:
    """Pages from file:// (the zip's folder). WebKit: not served, so no injected error capture."""
    home = offline_copy.resolve().as_uri() + "/"
    also_home(request, home)
    pages = sorted(p.relative_to(offline_copy).as_posix() for p in offline_copy.rglob("*.html"))
    # 404.html is a server's page (its addresses are absolute): nothing shows it from disk.
    pages = [p for p in pages if not p.startswith("assets/") and p != "404.html"]
    assert "lesson.html" in pages
    for path in pages:
        engine.goto(home + path)
        assert engine.call(HEADING), f"{engine.name}: {path} from disk shows no heading"
    engine.goto(home + "lesson.html")
    engine.attribute_is(MAPPING, "data-lab-state", "error", timeout=30)
    engine.text_contains(f"{MAPPING} [data-lab-status]", "python3 -m http.server")


LANGUAGE_MODELS = '[data-lab="language-models"]'


def test_the_language_models_step_and_train(engine: Engine, origin: StaticServer) -> None:
    engine.goto(origin.url + "language-models/")
    lab_ready(engine, LANGUAGE_MODELS, timeout=BOOT_SECONDS)
    engine.click(f"{LANGUAGE_MODELS} button", "Step")
    engine.attribute_is(LANGUAGE_MODELS, "data-lab-run", "stepped", timeout=RUN)
    assert engine.text(f"{LANGUAGE_MODELS} [data-lab-step]"), where(engine)
    engine.click(f"{LANGUAGE_MODELS} button", "Run")
    engine.attribute_is(LANGUAGE_MODELS, "data-lab-run", "done", timeout=RUN)
    assert engine.text(f"{LANGUAGE_MODELS} [data-lab-summary]"), where(engine)


EXERCISE = "#lab-group-advantage"
MEAN_LINE = (
    "def group_advantage(returns): return [r - sum(returns) / len(returns) for r in returns]"
)
MAX_LINE = "def group_advantage(returns): return [r - max(returns) for r in returns]"


def exercise_button(engine: Engine, name: str) -> None:
    # By keyboard, as Run is (a WebDriver click on a button was at times lost under load).
    engine.focus(f"{EXERCISE} button", name)
    engine.press("Enter")


def test_a_reader_fails_takes_a_hint_passes_and_trains_with_the_exercise(
    engine: Engine, origin: StaticServer
) -> None:
    engine.goto(origin.url + "simulation/")
    lab_ready(engine, EXERCISE, timeout=BOOT_SECONDS)
    engine.attribute_is(
        f"{EXERCISE} [data-lab-code-editor]", "data-lab-editor", "ready", timeout=BOOT_SECONDS
    )
    # A wrong answer, typed on the starter's empty last line (a later def replaces the first).
    engine.click(f"{EXERCISE} .cm-content")
    engine.press("Control+End")
    engine.type(MAX_LINE)
    exercise_button(engine, "Check")
    engine.attribute_is(EXERCISE, "data-lab-run", "failed", timeout=RUN)
    engine.text_contains(f'{EXERCISE} [data-lab-test="1"] [data-lab-verdict]', "Not yet.")
    engine.text_contains(f"{EXERCISE} [data-lab-announcer]", "Test 1, group_advantage(")
    exercise_button(engine, "Show a hint (1 of 2)")
    engine.text_contains(f"{EXERCISE} [data-lab-announcer]", "Hint 1:")
    # The fix: the last line replaced.
    engine.click(f"{EXERCISE} .cm-content")
    engine.press("Control+End")
    engine.press("Shift+Home")
    engine.type(MEAN_LINE)
    exercise_button(engine, "Check")
    engine.attribute_is(EXERCISE, "data-lab-run", "passed", timeout=RUN)
    exercise_button(engine, "Train with my advantage")
    engine.attribute_is(EXERCISE, "data-lab-run", "trained", timeout=RUN)
    assert engine.attribute(EXERCISE, "data-lab-train") == "match", where(engine)


# Set a text field as a reader's typing does: its value, then an input event.
FILL = """(selector, value) => {
  const input = document.querySelector(selector);
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}"""
SHARE_SETTINGS = {"table": "penalty", "penalty_k": "-100", "seeds": "20"}
FORM = """(s) => Object.fromEntries([...document.querySelectorAll(`${s} [data-lab-field]`)]
  .map((control) => [control.dataset.labField, control.value]))"""


def test_a_link_made_in_one_tab_reopens_its_settings_in_a_fresh_one(
    request: pytest.FixtureRequest, engine: Engine, engine_name: str, origin: StaticServer
) -> None:
    engine.goto(origin.url + "simulation/")
    lab_ready(engine, SIMULATION, timeout=BOOT_SECONDS)
    engine.call(SELECT, f'{SIMULATION} [data-lab-field="table"]', "penalty")
    for name in ("penalty_k", "seeds"):
        engine.call(FILL, f'{SIMULATION} [data-lab-field="{name}"]', SHARE_SETTINGS[name])
    # By keyboard, as Run is (WebKitWebDriver's clicks were at times lost under load).
    engine.focus(f"{SIMULATION} button", "Copy link")
    engine.press("Enter")
    # Copied where the engine's clipboard allows it, else shown selected for the reader to copy.
    engine.wait_for(
        "(s) => ['copied', 'shown'].includes(document.querySelector(s).dataset.labLink)",
        SIMULATION,
        timeout=BOOT_SECONDS,
        what=lambda: f"the link to be made ({engine.text(SIMULATION + ' [data-lab-share]')!r})",
    )
    link = engine.call(f"() => document.querySelector('{SIMULATION} [data-lab-link]').value")
    assert link == origin.url + "simulation/#lab-simulation?table=penalty&penalty_k=-100&seeds=20"

    fresh = request.getfixturevalue(f"{engine_name}_browser").tab()
    try:
        fresh.goto(link)
        fresh.attribute_is(SIMULATION, "data-lab-link", "applied", timeout=BOOT_SECONDS)
        fresh.wait_for(
            "(s, settings) => Object.entries(settings).every(([name, value]) =>"
            ' document.querySelector(`${s} [data-lab-field="${name}"]`).value === value)',
            SIMULATION,
            SHARE_SETTINGS,
            timeout=30,
            what=lambda: f"the form to hold {SHARE_SETTINGS} ({fresh.call(FORM, SIMULATION)})",
        )
        assert fresh.attribute(SIMULATION, "data-lab-run") == "idle"  # filled, not run
        assert not fresh.errors(), fresh.errors()
    finally:
        fresh.close()
