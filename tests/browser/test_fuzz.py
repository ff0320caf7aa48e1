"""Random sequences of drags, taps, clicks and keys on the Visual Lab.

After every step the lab must be consistent (each zone holds at most one chip,
each concept is in exactly one place, verdicts describe what is placed now),
show what a model of the Visual Lab predicts, and the page must log no error.
The sequences are seeded: set LAB_FUZZ_SEED to explore others; a failure
names the seed, batch and step, and the actions that led there.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.conftest import PageErrors
from tests.browser.support import (
    BOOT,
    MAPPING,
    VisualLabSpec,
    consistency_problems,
    finger_drag,
    mapping_state,
    placements,
    watch,
)

SEED = int(os.environ.get("LAB_FUZZ_SEED", "2026"))
BATCHES = 3  # per device; each starts from a cleared Visual Lab
STEPS = 50  # actions per batch: 2 devices x 3 batches x 50 = 300
KEYS = ["Enter", "Space", "Escape", "Delete", "Backspace"]
# Tall enough that the whole lab, verdicts shown, fits on screen: no drag ever
# scrolls the page, which keeps every run of a seed identical.
DEVICES = {
    "mouse-and-keyboard": {"viewport": {"width": 1280, "height": 1200}},
    "touch": {"viewport": {"width": 375, "height": 1800}, "has_touch": True, "is_mobile": True},
}
CHECKED = re.compile(r"\d+ of \d+ correct|Could not check")

# The point of the tray furthest from any chip in it, relative to the tray, or
# null when every point is close to a chip. A finger near a button lands on the
# button (Chromium's touch adjustment), so a tap meant for the tray must be clear.
FREE_SPOT = """(tray) => {
  const box = tray.getBoundingClientRect();
  const chips = [...tray.querySelectorAll("[data-lab-chip]")]
    .filter((chip) => chip.checkVisibility())
    .map((chip) => chip.getBoundingClientRect());
  let best = null;
  for (let y = 4; y < box.height - 4; y += 4) {
    for (let x = 4; x < box.width - 4; x += 4) {
      const px = box.x + x, py = box.y + y;
      const gap = Math.min(Infinity, ...chips.map((r) => Math.hypot(
        Math.max(r.left - px, 0, px - r.right), Math.max(r.top - py, 0, py - r.bottom))));
      if (!best || gap > best.gap) best = { x, y, gap };
    }
  }
  return best && best.gap >= 24 ? { x: best.x, y: best.y } : null;
}"""

Selection = tuple[str, int | None]  # (concept, the part it was picked up from, or None)


@dataclass
class Model:
    """What the Visual Lab should show, by the rules of issue 3: one chip per
    zone, placing onto a filled zone swaps (or sends a tray chip's rival home)."""

    placed: dict[int, str] = field(default_factory=dict)
    selected: Selection | None = None

    def part_of(self, concept: str) -> int | None:
        return next((n for n, c in self.placed.items() if c == concept), None)

    def place(self, concept: str, n: int) -> None:
        source = self.part_of(concept)
        self.selected = None
        if source == n:
            return
        displaced = self.placed.get(n)
        self.placed[n] = concept
        if source is not None:
            if displaced:
                self.placed[source] = displaced
            else:
                del self.placed[source]

    def to_tray(self, n: int) -> None:
        if n in self.placed:
            del self.placed[n]
            self.selected = None

    def choose_chip(self, concept: str) -> None:
        self.selected = None if self.selected == (concept, None) else (concept, None)

    def choose_zone(self, n: int) -> None:
        if self.selected is not None:
            concept, source = self.selected
            if source == n:
                self.selected = None
            else:
                self.place(concept, n)
        elif n in self.placed:
            self.selected = (self.placed[n], n)

    def choose_tray(self) -> None:
        if self.selected is not None and self.selected[1] is not None:
            self.to_tray(self.selected[1])

    def drop(self, concept: str, target: int | None) -> None:
        """A drag ends on part ``target``, or on the tray (None)."""
        self.selected = None
        if target is not None:
            self.place(concept, target)
        elif (source := self.part_of(concept)) is not None:
            self.to_tray(source)

    def clear(self) -> None:
        self.placed.clear()
        self.selected = None


def shown_selection(state: dict) -> Selection | None:
    """The selection as the lab shows it: a pressed tray chip, or a picked-up part."""
    for chip in state["chips"]:
        if chip["pressed"]:
            return (chip["concept"], None)
    for zone in state["zones"]:
        if zone["picked"] and zone["chips"]:
            return (zone["chips"][0], zone["n"])
    return None


class Fuzzer:
    """One device's reader doing random things to the lab, checked after each."""

    def __init__(
        self, page: Page, errors: PageErrors, device: str, spec: VisualLabSpec, lab: Locator
    ) -> None:
        self.page, self.errors, self.device, self.spec, self.lab = page, errors, device, spec, lab
        self.model = Model()
        self.log: list[str] = []
        self.where = ""
        self.rng = random.Random()

    # ------------------------------------------------------------- targets

    def chip(self, concept: str) -> Locator:
        return self.lab.locator(f'[data-lab-chip="{concept}"]')

    def zone(self, n: int) -> Locator:
        return self.lab.locator(f'[data-lab-zone="{n}"]')

    def tray(self) -> Locator:
        return self.lab.locator("[data-lab-concepts]")

    def button(self, action: str) -> Locator:
        return self.lab.locator(f'[data-lab-action="{action}"]')

    def in_tray(self) -> list[str]:
        return [c for c in self.spec.concepts if self.model.part_of(c) is None]

    def target(self) -> tuple[str, Callable[[], Locator], Callable[[], None]]:
        """Something to click or tap: a tray chip, a part, or the tray itself."""
        options: list[tuple[str, Callable[[], Locator], Callable[[], None]]] = []
        for c in self.in_tray():
            options.append(
                (f"chip {c}", lambda c=c: self.chip(c), lambda c=c: self.model.choose_chip(c))
            )
        for n in self.spec.text:
            options.append(
                (f"part {n}", lambda n=n: self.zone(n), lambda n=n: self.model.choose_zone(n))
            )
        options.append(("the tray", self.tray, self.model.choose_tray))
        return self.rng.choice(options)  # type: ignore[return-value]

    def drag_ends(self) -> tuple[str, str, Locator, int | None, Locator]:
        """A chip to drag (from the tray or a part) and where it lands (a part or the tray)."""
        sources = [(c, None) for c in self.in_tray()] + [
            (c, n) for n, c in sorted(self.model.placed.items())
        ]
        while True:
            concept, source = self.rng.choice(sources)
            landing: int | None = self.rng.choice([*self.spec.text, None])
            # Dropping where it started would be a click, not a drag.
            if landing != source:
                break
        grab = self.chip(concept) if source is None else self.zone(source).locator(".lab-chip")
        drop = self.tray() if landing is None else self.zone(landing)
        start = "the tray" if source is None else f"part {source}"
        end = "the tray" if landing is None else f"part {landing}"
        return concept, f"{concept} from {start} to {end}", grab, landing, drop

    # ------------------------------------------------------------- actions

    def click(self, tap: bool) -> None:
        what, locator, effect = self.target()
        self.log.append(f"{'tap' if tap else 'click'} {what}")
        position = None
        if what == "the tray":
            position = self.tray().evaluate(FREE_SPOT)
            if position is None:
                self.log[-1] += " (no room between its chips: skipped)"
                return
        if tap:
            locator().tap(position=position)
        else:
            locator().click(position=position)
        effect()

    def drag(self, finger: bool) -> None:
        concept, what, grab, landing, drop = self.drag_ends()
        self.log.append(f"{'finger-drag' if finger else 'drag'} {what}")
        if finger:
            finger_drag(self.page, grab, drop, steps=6)
        else:
            grab.drag_to(drop)
        self.model.drop(concept, landing)

    def key(self) -> None:
        focusable = [(f"chip {c}", self.chip(c), c, None) for c in self.in_tray()]
        focusable += [(f"part {n}", self.zone(n), None, n) for n in self.spec.text]
        what, locator, concept, n = self.rng.choice(focusable)
        key = self.rng.choice(KEYS)
        self.log.append(f"{key} on {what}")
        locator.focus()
        self.page.keyboard.press(key)
        if key in ("Enter", "Space"):
            if concept is not None:
                self.model.choose_chip(concept)
            else:
                self.model.choose_zone(n)
        elif key == "Escape":
            self.model.selected = None
        elif n is not None:
            self.model.to_tray(n)

    def check(self, tap: bool) -> None:
        how = "tap" if tap else self.rng.choice(["click", "Enter"])
        self.log.append(f"{how} Check")
        button = self.button("check")
        if how == "tap":
            button.tap()
        elif how == "click":
            button.click()
        else:
            button.focus()
            self.page.keyboard.press("Enter")
        summary = self.lab.locator("[data-lab-summary]")
        expect(summary).to_have_text(CHECKED, timeout=BOOT)
        state = mapping_state(self.lab)
        hidden = [f["n"] for f in state["feedback"] if not f["shown"]]
        self.require(not hidden, f"after Check, parts {hidden} show no verdict")

    def clear(self, tap: bool) -> None:
        self.log.append(f"{'tap' if tap else 'click'} Clear")
        button = self.button("clear")
        if tap:
            button.tap()
        else:
            button.click()
        self.model.clear()
        state = mapping_state(self.lab)
        shown = [f["n"] for f in state["feedback"] if f["shown"]]
        self.require(not shown and not state["summary"], f"after Clear, verdicts remain: {shown}")

    def step(self) -> None:
        touch = self.device == "touch"
        actions: list[tuple[float, Callable[[], None]]] = [
            (5, lambda: self.click(tap=touch)),
            (3, lambda: self.drag(finger=touch)),
            (1, lambda: self.check(tap=touch)),
            (0.5, lambda: self.clear(tap=touch)),
        ]
        if not touch:
            actions.append((5, self.key))
        weights, moves = zip(*actions, strict=True)
        self.rng.choices(moves, weights=weights)[0]()

    # ------------------------------------------------------------ checking

    def require(self, ok: bool, problem: str) -> None:
        if not ok:
            raise AssertionError(self.failure([problem]))

    def failure(self, problems: list[str]) -> str:
        return (
            f"{self.where}: reproduce with LAB_FUZZ_SEED={SEED}\n"
            + "\n".join(f"  - {p}" for p in problems)
            + "\nlast actions (latest last):\n  "
            + "\n  ".join(self.log[-15:])
        )

    def verify(self) -> None:
        state = mapping_state(self.lab)
        problems = consistency_problems(state, self.spec)
        if placements(state) != self.model.placed:
            problems.append(f"the parts show {placements(state)}, expected {self.model.placed}")
        if shown_selection(state) != self.model.selected:
            problems.append(f"the selection is {shown_selection(state)}, not {self.model.selected}")
        problems += self.errors.unexpected()
        if problems:
            raise AssertionError(self.failure(problems))

    def run(self) -> None:
        for batch in range(BATCHES):
            self.rng = random.Random(f"{SEED}:{self.device}:{batch}")
            self.where = f"{self.device}, start of batch {batch}"
            self.log.append(f"-- batch {batch}")
            self.clear(tap=self.device == "touch")
            for step in range(STEPS):
                self.where = f"{self.device}, batch {batch}, step {step}"
                self.step()
                self.verify()


@pytest.fixture(params=list(DEVICES))
def reader(
    request: pytest.FixtureRequest, browser: Browser, browser_context_args: dict
) -> Iterator[tuple[str, Page, PageErrors]]:
    context = browser.new_context(**{**browser_context_args, **DEVICES[request.param]})
    page = context.new_page()
    errors = watch(page)
    yield request.param, page, errors
    context.close()
    # The fuzzer reads the errors at each check; this reads those after its last one.
    assert not errors.unexpected(), "The page logged errors:\n" + "\n".join(errors.unexpected())


def test_random_interactions_keep_the_mapping_lab_consistent(
    reader: tuple[str, Page, PageErrors],
) -> None:
    name, page, errors = reader
    page.goto("lesson/")
    lab = page.locator(MAPPING)
    lab.evaluate("(root) => root.scrollIntoView({block: 'center'})")
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    fuzzer = Fuzzer(page, errors, name, VisualLabSpec.of(lab), lab)
    fuzzer.run()

    # What is on the parts survives a reload, as the reader left it.
    before = placements(mapping_state(lab))
    page.reload()
    expect(lab).to_have_attribute("data-lab-enhanced", "")
    fuzzer.where = f"{name}, after a reload"
    fuzzer.model.selected = None
    fuzzer.verify()
    assert placements(mapping_state(lab)) == before
