"""The Visual Lab, used the four ways a reader can, graded by Python."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lab import check_visual_lab
from lesson_hooks.fences.visual_lab import parse_page
from tests.browser.support import BOOT, finger_drag
from tests.conftest import ROOT

(VISUAL_LAB,) = parse_page((ROOT / "docs" / "lesson.md").read_text(encoding="utf-8"), "lesson")
SPEC: dict[str, Any] = VISUAL_LAB.spec
CONCEPTS: list[str] = SPEC["concepts"]
TEXT = {part["n"]: part["text"] for part in SPEC["parts"]}
ANSWER = {part["n"]: part["answer"] for part in SPEC["parts"]}
FEEDBACK = {part["n"]: part["feedback"] for part in SPEC["parts"]}
STORAGE_KEY = f"lab-mapping:/lesson/:{SPEC['id']}"  # the key readers' browsers already hold
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # the pinned axe-core
# The lesson's content column; the theme's own chrome is tested with the site.
AXE_CONTEXT = {"include": [".md-content"]}


# --------------------------------------------------------------- helpers


def open_lab(page: Page, path: str = "lesson/") -> Locator:
    """The lesson's lab, scrolled into view and with Python ready."""
    page.goto(path)
    lab = page.locator('[data-lab="visual-lab"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return lab


def chip(lab: Locator, concept: str) -> Locator:
    return lab.get_by_role("button", name=concept, exact=True)


def zone(lab: Locator, n: int) -> Locator:
    return lab.get_by_role("button", name=re.compile(rf"^Part {n}, "))


def tray(lab: Locator) -> Locator:
    return lab.get_by_role("list", name="Concepts")


def feedback(lab: Locator, n: int) -> Locator:
    return lab.locator(f"[data-lab-part='{n}'] .lab-feedback")


def summary(lab: Locator) -> Locator:
    return lab.locator("[data-lab-summary]")


def expect_placements(lab: Locator, placed: dict[int, str]) -> None:
    """What a reader sees and hears: each zone's content, and the chips left in the tray."""
    for n, text in TEXT.items():
        expect(zone(lab, n)).to_have_accessible_name(
            f"Part {n}, {text}: {placed.get(n, 'drop here')}"
        )
        expect(zone(lab, n)).to_have_text(placed.get(n, "drop here"))
    for concept in CONCEPTS:
        if concept in placed.values():
            expect(chip(lab, concept)).to_be_hidden()
        else:
            expect(chip(lab, concept)).to_be_visible()


def click_place(lab: Locator, concept: str, n: int) -> None:
    chip(lab, concept).click()
    zone(lab, n).click()


def check(lab: Locator) -> None:
    lab.get_by_role("button", name="Check").click()


def expect_all_correct(lab: Locator) -> None:
    expect(summary(lab)).to_have_text("5 of 5 correct.", timeout=BOOT)
    for n in TEXT:
        expect(feedback(lab, n)).to_have_text(f"Correct. {SPEC['parts'][n - 1]['explanation']}")
        expect(feedback(lab, n).locator("svg")).to_have_count(1)


def focused(locator: Locator) -> bool:
    return locator.evaluate("element => element === document.activeElement")


def key_until_focused(page: Page, target: Locator, key: str, limit: int = 20) -> None:
    """Press ``key`` (Tab or Shift+Tab) until ``target`` has the focus, as a reader would."""
    for _ in range(limit):
        if focused(target):
            return
        page.keyboard.press(key)
    expect(target).to_be_focused()


NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))"
HEADER = 48  # px: Material's header, fixed over the top of the viewport on a desktop


def wheel_into_view(page: Page, top: Locator, bottom: Locator) -> None:
    """Scroll with the mouse wheel, as a reader does, until ``top`` and ``bottom`` are both
    on screen. With a drop target below the fold, Playwright scrolls mid-drag, which ends
    Chromium's emulated HTML5 drag without a drop; and a jump by script, unlike the wheel,
    is not kept in place when the blocks it passes are first laid out above it."""
    for _ in range(40):
        first, last = top.bounding_box(), bottom.bounding_box()
        assert first and last
        viewport = page.viewport_size
        assert viewport
        if first["y"] < HEADER:
            page.mouse.wheel(0, first["y"] - HEADER - 8)
        elif last["y"] + last["height"] > viewport["height"]:
            page.mouse.wheel(0, last["y"] + last["height"] - viewport["height"] + 8)
        else:
            return
        page.evaluate(NEXT_FRAME)
    raise AssertionError("the wheel did not bring both into view")


def pointer_drag(page: Page, source: Locator, target: Locator) -> None:
    """Drag with the mouse in small steps, as a hand would."""
    start, end = source.bounding_box(), target.bounding_box()
    assert start and end
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=10)
    page.mouse.up()


# ---------------------------------------------------------- back to top


SCROLL_UP_A_LITTLE = (
    "async () => { scrollBy(0, 300); await new Promise(requestAnimationFrame);"
    " await new Promise(requestAnimationFrame); scrollBy(0, -150); }"
)


def test_back_to_top_stays_off_the_chips_while_the_reader_works_in_the_lab(
    phone: Page,
) -> None:
    """Issue 39: scrolling up while placing concepts brought Material's "Back to top"
    pill over the top chip."""
    page = phone
    page.goto("lesson/")
    lab = page.locator('[data-lab="visual-lab"]')
    expect(lab).to_have_attribute("data-lab-enhanced", "")
    pill = page.locator(".md-top")
    heading = page.get_by_role("heading", name="Why This Matters")
    heading.scroll_into_view_if_needed()
    page.evaluate(SCROLL_UP_A_LITTLE)
    expect(pill).to_be_visible()  # elsewhere on the page the pill shows, as Material's
    chip = lab.locator("[data-lab-chip]").first
    chip.scroll_into_view_if_needed()
    chip.tap()
    expect(chip).to_have_attribute("aria-pressed", "true")
    page.evaluate(SCROLL_UP_A_LITTLE)
    expect(pill).to_be_hidden()
    # Back to reading (the chip put down, a tap on the text outside): the pill is back.
    chip.tap()
    expect(chip).to_have_attribute("aria-pressed", "false")
    lab.locator("xpath=preceding::p[1]").tap()
    page.evaluate(SCROLL_UP_A_LITTLE)
    expect(pill).to_be_visible()


# ---------------------------------------------------------------- without JS


def test_without_javascript_the_visual_lab_reads_as_a_list(no_script_page: Page) -> None:
    no_script_page.goto("lesson/")
    lab = no_script_page.locator('[data-lab="visual-lab"]')
    expect(lab.get_by_text(SPEC["prompt"])).to_be_visible()
    expect(lab.locator("[data-lab-concepts] li")).to_have_text(CONCEPTS)
    expect(lab.locator("[data-lab-parts] > li")).to_have_text(list(TEXT.values()))
    expect(lab.get_by_role("button")).to_have_count(0)
    answers = lab.get_by_text("Answers and explanations")
    expect(answers).to_be_visible()
    answers.click()
    expect(lab.locator("details li").first).to_contain_text(f"{TEXT[1]}: {ANSWER[1]}.")


# ------------------------------------------------------------------- mouse


def test_solve_by_mouse(page: Page) -> None:
    lab = open_lab(page)
    wheel_into_view(page, tray(lab), zone(lab, len(TEXT)))
    expect(lab.get_by_text("Answers and explanations")).to_be_hidden()

    chip(lab, "Policy").drag_to(zone(lab, 1))
    chip(lab, "Observation").drag_to(zone(lab, 2))
    expect_placements(lab, {1: "Policy", 2: "Observation"})

    # Between zones: onto a filled zone swaps the two chips.
    zone(lab, 2).drag_to(zone(lab, 1))
    expect_placements(lab, {1: "Observation", 2: "Policy"})
    expect(lab.locator("[data-lab-announcer]")).to_have_text(
        "Observation placed on part 1. Policy moved to part 2."
    )

    # Onto an empty zone moves it; back to the tray returns it.
    chip(lab, "Reward").drag_to(zone(lab, 3))
    zone(lab, 3).drag_to(zone(lab, 4))
    expect_placements(lab, {1: "Observation", 2: "Policy", 4: "Reward"})
    zone(lab, 4).drag_to(tray(lab))
    expect_placements(lab, {1: "Observation", 2: "Policy"})
    expect(lab.locator("[data-lab-announcer]")).to_have_text("Reward returned to the concepts.")

    # A tray chip dropped on a filled zone sends the zone's chip back to the tray.
    chip(lab, "Reward").drag_to(zone(lab, 2))
    expect_placements(lab, {1: "Observation", 2: "Reward"})
    for n in (2, 3, 4, 5):
        chip(lab, ANSWER[n]).drag_to(zone(lab, n))
    expect_placements(lab, ANSWER)

    check(lab)
    expect_all_correct(lab)


# ---------------------------------------------------------------- keyboard


def test_solve_by_keyboard_only(page: Page) -> None:
    page.goto("lesson/#visual-lab")
    lab = page.locator('[data-lab="visual-lab"]')
    announcer = lab.locator("[data-lab-announcer]")
    key_until_focused(page, chip(lab, CONCEPTS[0]), "Tab")

    # Tab order: the chips, then the zones in part order, then Check and Clear.
    order = [chip(lab, c) for c in CONCEPTS] + [zone(lab, n) for n in TEXT]
    order += [lab.get_by_role("button", name=name) for name in ("Check", "Clear")]
    for target in order:
        expect(target).to_be_focused()
        page.keyboard.press("Tab")

    # Enter selects, Escape cancels, Space selects again, Enter on a zone places.
    key_until_focused(page, chip(lab, "Observation"), "Shift+Tab")
    page.keyboard.press("Enter")
    expect(chip(lab, "Observation")).to_have_attribute("aria-pressed", "true")
    expect(announcer).to_contain_text("Observation selected.")
    page.keyboard.press("Escape")
    expect(chip(lab, "Observation")).to_have_attribute("aria-pressed", "false")
    expect(announcer).to_contain_text("Selection cancelled.")
    page.keyboard.press("Space")
    key_until_focused(page, zone(lab, 1), "Tab")
    page.keyboard.press("Enter")
    expect_placements(lab, {1: "Observation"})
    expect(zone(lab, 1)).to_be_focused()
    expect(announcer).to_have_text("Observation placed on part 1.")

    def place(concept: str, n: int, key: str = "Enter") -> None:
        key_until_focused(page, chip(lab, concept), "Shift+Tab")
        page.keyboard.press(key)
        key_until_focused(page, zone(lab, n), "Tab")
        page.keyboard.press(key)

    place("Action", 2, "Space")
    place("Policy", 3)
    expect_placements(lab, {1: "Observation", 2: "Action", 3: "Policy"})

    # Enter on a filled zone picks its chip up; Enter on another zone swaps them.
    page.keyboard.press("Enter")
    expect(announcer).to_contain_text("Policy picked up from part 3.")
    key_until_focused(page, zone(lab, 2), "Shift+Tab")
    page.keyboard.press("Enter")
    expect_placements(lab, {1: "Observation", 2: "Policy", 3: "Action"})

    # Delete and Backspace on a filled zone return its chip to the tray.
    place("Reward", 5)
    page.keyboard.press("Delete")
    expect_placements(lab, {1: "Observation", 2: "Policy", 3: "Action"})
    expect(announcer).to_have_text("Reward returned to the concepts.")
    place("Environment transition", 4)
    page.keyboard.press("Backspace")
    expect_placements(lab, {1: "Observation", 2: "Policy", 3: "Action"})

    place("Reward", 4)
    place("Environment transition", 5)
    key_until_focused(page, lab.get_by_role("button", name="Check"), "Tab")
    page.keyboard.press("Enter")
    expect_all_correct(lab)
    expect(announcer).to_have_text("5 of 5 correct.")


# ------------------------------------------------------------------- touch


def test_solve_by_touch_on_a_phone(phone: Page) -> None:
    page = phone
    lab = open_lab(page)

    # Tap a chip, then tap a zone.
    chip(lab, "Observation").tap()
    expect(chip(lab, "Observation")).to_have_attribute("aria-pressed", "true")
    zone(lab, 1).tap()
    chip(lab, "Policy").tap()
    zone(lab, 2).tap()
    expect_placements(lab, {1: "Observation", 2: "Policy"})

    # Drag with a finger: from the tray, between zones, and back to the tray.
    lab.evaluate("element => element.scrollIntoView({block: 'start'})")
    # Under the prompt and the site's instruction, part 3 starts below the fold: the
    # finger held at the screen's edge scrolls the page until it can reach it.
    part3 = zone(lab, 3).bounding_box()
    assert part3 and part3["y"] + part3["height"] > page.viewport_size["height"]  # type: ignore[index]
    finger_drag(page, chip(lab, "Action"), zone(lab, 3))
    expect_placements(lab, {1: "Observation", 2: "Policy", 3: "Action"})
    zone(lab, 3).scroll_into_view_if_needed()
    finger_drag(page, zone(lab, 3).locator(".lab-chip"), zone(lab, 2))
    expect_placements(lab, {1: "Observation", 2: "Action", 3: "Policy"})
    lab.evaluate("element => element.scrollIntoView({block: 'start'})")
    finger_drag(page, zone(lab, 2).locator(".lab-chip"), tray(lab))
    expect_placements(lab, {1: "Observation", 3: "Policy"})
    finger_drag(page, chip(lab, "Action"), zone(lab, 2))
    expect_placements(lab, {1: "Observation", 2: "Action", 3: "Policy"})
    finger_drag(page, zone(lab, 2).locator(".lab-chip"), zone(lab, 3))  # onto a filled zone: swap
    expect_placements(lab, {1: "Observation", 2: "Policy", 3: "Action"})

    # A pointer drag with a mouse or stylus on the same small screen.
    # A mouse drag does not scroll the page: the tray and part 4 both in view.
    zone(lab, 4).evaluate("element => element.scrollIntoView({block: 'end'})")
    pointer_drag(page, chip(lab, "Environment transition"), zone(lab, 4))
    expect_placements(
        lab, {1: "Observation", 2: "Policy", 3: "Action", 4: "Environment transition"}
    )

    chip(lab, "Reward").tap()
    zone(lab, 4).tap()  # onto a filled zone: the tray chip goes there, the other returns
    chip(lab, "Environment transition").tap()
    zone(lab, 5).tap()
    lab.get_by_role("button", name="Check").tap()
    expect_all_correct(lab)

    # Nothing in the lab is wider than the phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    box = lab.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375


# ------------------------------------------------------------ feedback, clear


def test_a_wrong_answer_shows_its_targeted_feedback(page: Page) -> None:
    lab = open_lab(page)
    click_place(lab, "Action", 2)  # the model is the policy, not the action
    click_place(lab, "Reward", 1)
    click_place(lab, "Observation", 3)
    check(lab)

    expect(summary(lab)).to_have_text("0 of 5 correct. 2 parts are still empty: 4 and 5.")
    expect(feedback(lab, 2)).to_have_text(f"Incorrect. {FEEDBACK[2]['Action']}")
    expect(feedback(lab, 2)).to_contain_text("The model is the policy")
    expect(feedback(lab, 1)).to_have_text(f"Incorrect. {FEEDBACK[1]['Reward']}")
    expect(feedback(lab, 3)).to_have_text(f"Incorrect. {FEEDBACK[3]['Observation']}")
    for n in (4, 5):
        expect(feedback(lab, n)).to_have_text(f"Part {n} is empty.")
    expect(zone(lab, 2)).to_have_attribute("data-lab-result", "incorrect")
    expect(zone(lab, 2)).to_have_accessible_description(f"Incorrect. {FEEDBACK[2]['Action']}")
    expect(lab.locator("[data-lab-announcer]")).to_have_text(
        "0 of 5 correct. 2 parts are still empty: 4 and 5. Incorrect: parts 1, 2 and 3."
    )

    # Moving a chip clears that part's verdict and the now-stale score.
    click_place(lab, "Policy", 2)
    expect(feedback(lab, 2)).to_be_hidden()
    expect(feedback(lab, 1)).to_be_visible()
    expect(summary(lab)).to_be_hidden()
    check(lab)
    expect(summary(lab)).to_have_text("1 of 5 correct. 2 parts are still empty: 4 and 5.")
    expect(feedback(lab, 2)).to_have_text(f"Correct. {SPEC['parts'][1]['explanation']}")


def test_clear_returns_every_chip_and_clears_the_feedback(page: Page) -> None:
    lab = open_lab(page)
    click_place(lab, "Observation", 1)
    click_place(lab, "Reward", 2)
    check(lab)
    expect(summary(lab)).to_have_text("1 of 5 correct. 3 parts are still empty: 3, 4 and 5.")

    lab.get_by_role("button", name="Clear").click()
    expect_placements(lab, {})
    expect(lab.locator(".lab-feedback:visible")).to_have_count(0)
    expect(lab.locator("[data-lab-result]")).to_have_count(0)
    expect(summary(lab)).to_be_hidden()
    expect(lab.locator("[data-lab-announcer]")).to_contain_text("Cleared.")

    page.reload()
    lab = open_lab(page, "lesson/")
    expect_placements(lab, {})


# ------------------------------------------------------------------ storage


def test_reload_keeps_placements(page: Page) -> None:
    lab = open_lab(page)
    placed = {1: "Observation", 2: "Action", 4: "Reward"}
    for n, concept in placed.items():
        click_place(lab, concept, n)
    saved = json.loads(page.evaluate(f"localStorage.getItem({STORAGE_KEY!r})"))
    assert saved == {
        "version": SPEC["version"],
        "placements": {str(n): c for n, c in placed.items()},
    }

    page.reload()
    lab = page.locator('[data-lab="visual-lab"]')
    expect_placements(lab, placed)
    check(page.locator('[data-lab="visual-lab"]'))
    expect(summary(lab)).to_have_text(
        "2 of 5 correct. 2 parts are still empty: 3 and 5.", timeout=BOOT
    )


@pytest.mark.parametrize(
    "stored",
    [
        json.dumps({"version": "000000000000", "placements": {"1": "Observation"}}),
        json.dumps({"version": SPEC["version"], "placements": {"1": "Token"}}),
        json.dumps({"version": SPEC["version"], "placements": {"1": "Action", "2": "Action"}}),
        json.dumps({"version": SPEC["version"], "placements": {"9": "Action"}}),
        json.dumps(["Observation"]),
        "{not json",
    ],
    ids=["stale version", "unknown concept", "chip twice", "unknown part", "not an object", "junk"],
)
def test_stale_or_unreadable_saved_state_is_ignored(page: Page, stored: str) -> None:
    page.goto("lesson/")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [STORAGE_KEY, stored])
    page.reload()
    lab = page.locator('[data-lab="visual-lab"]')
    expect(lab).to_have_attribute("data-lab-enhanced", "")
    expect_placements(lab, {})


# ------------------------------------------------------------ accessibility


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_before_and_after_check(page: Page, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    lab = open_lab(page)
    axe = Axe.from_file(AXE)
    before = axe.run(page, context=AXE_CONTEXT)
    assert before.violations_count == 0, before.generate_report()

    click_place(lab, "Observation", 1)
    click_place(lab, "Action", 2)
    chip(lab, "Reward").click()  # a chip left selected
    check(lab)
    expect(summary(lab)).to_have_text("1 of 5 correct. 3 parts are still empty: 3, 4 and 5.")
    after = axe.run(page, context=AXE_CONTEXT)
    assert after.violations_count == 0, after.generate_report()


# ----------------------------------------------------------- instant navigation


def test_the_lab_keeps_working_across_instant_navigation(page: Page) -> None:
    lab = open_lab(page)
    click_place(lab, "Observation", 1)
    page.evaluate("document.documentElement.dataset.sameDocument = 'yes'")

    page.get_by_role("navigation", name="Navigation").get_by_role(
        "link", name="Summary"
    ).first.click()
    expect(page).to_have_url(re.compile(r"/summary/$"))
    page.get_by_role("navigation", name="Navigation").get_by_role(
        "link", name="LLMs as Cooperative Agents"
    ).first.click()
    expect(page).to_have_url(re.compile(r"/lesson/$"))
    assert page.evaluate("document.documentElement.dataset.sameDocument") == "yes"

    lab = page.locator('[data-lab="visual-lab"]')
    expect_placements(lab, {1: "Observation"})
    expect(lab).to_have_attribute("data-lab-state", "ready")  # the same worker, still ready
    for n in (2, 3, 4, 5):
        click_place(lab, ANSWER[n], n)
    check(lab)
    expect_all_correct(lab)
    assert [w.url for w in page.workers if w.url.endswith("/assets/lab/worker.js")] == [
        f"{page.url.split('/lesson/')[0]}/assets/lab/worker.js"
    ]


# ------------------------------------------------------------ cross-runtime


def test_browser_python_grades_like_cpython(page: Page) -> None:
    assignments: list[dict[str, str | None]] = [
        {str(n): concept for n, concept in zip(TEXT, order, strict=True)}
        for order in itertools.permutations(CONCEPTS)
    ]
    # And a few partial ones, with empty parts both absent and null.
    assignments += [{"1": "Observation", "2": None}, {}, {"3": "Policy", "5": "Reward"}]
    page.goto("./")
    results = page.evaluate(
        """async ({spec, assignments}) => {
            const url = new URL("assets/lab/client.js", __md_scope);
            const { getRuntime } = await import(url);
            const runtime = getRuntime();
            const results = [];
            for (const placements of assignments) {
                results.push(await runtime.call("check_visual_lab", { spec, placements }));
            }
            return results;
        }""",
        {"spec": SPEC, "assignments": assignments},
    )
    assert len(results) == 123
    assert results == [check_visual_lab(SPEC, placements) for placements in assignments]
