"""Helpers for the quality gates: the site's pages, axe-core, keyboard focus, the Visual Lab."""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from lab.sim.render import render_summary
from lesson_hooks.fences.scan import find_lab_fences
from lesson_hooks.fences.sitewide import FENCES
from tests.browser.conftest import PageErrors
from tests.conftest import ROOT, BuiltSite, mkdocs_build

BOOT = 60_000  # ms: a first start of Pyodide on a busy 2-core machine
# The engine tests count in seconds, and WebKitGTK on a loaded 2-core machine is slower still.
BOOT_SECONDS = 180
AXE_SCRIPT = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # the pinned axe-core
# Material's attribute for the palette in use: light is "default", dark is "slate".
SCHEMES = {"light": "default", "dark": "slate"}
PHONE = {"width": 375, "height": 812}
MAPPING = '[data-lab="visual-lab"]'
SIMULATION = '[data-lab="simulation"]'
_SITEMAP = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


# ------------------------------------------------------------------ pages


def build_site(site_dir: Path, *, site_url: str | None = None, **env: str) -> None:
    """``mkdocs build --strict`` into ``site_dir`` with ``env`` set (``OFFLINE="true"``:
    the downloadable copy, as ``./dev zip`` builds it); a failed build fails the test."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        result = mkdocs_build(ROOT / "mkdocs.yml", site_dir, site_url=site_url)
    if result.returncode != 0:
        pytest.fail(f"mkdocs build failed:\n{result.stdout}\n{result.stderr}")


def site_pages(site: BuiltSite) -> list[str]:
    """Every HTML page of the built site, as a path relative to its root ("./" for home).

    The sitemap names the pages readers navigate; the 404 page is not in it,
    so pages are found on disk and the sitemap only cross-checks the result.
    """
    pages: list[str] = []
    for html in sorted(site.dir.rglob("*.html")):
        relative = html.relative_to(site.dir)
        if relative.parts[0] == "assets":
            continue
        if html.name == "index.html":
            pages.append(f"{relative.parent.as_posix()}/".removeprefix("./") or "./")
        else:
            pages.append(relative.as_posix())
    listed = [
        (loc.text or "").strip().removeprefix(site.url) or "./"
        for loc in ElementTree.parse(site.dir / "sitemap.xml").findall("s:url/s:loc", _SITEMAP)
    ]
    assert listed, "the sitemap lists no pages"
    missing = sorted(set(listed) - set(pages))
    assert not missing, f"pages in the sitemap but not in the built site: {missing}"
    return pages


def lab_page(kind: str, lab_id: str) -> str:
    """The address, from the site's root, of the page in ``docs/`` holding the
    ```` ```lab-<kind> ```` block whose id is ``lab_id``; fails saying where to put one."""
    name = f"lab-{kind}"
    for path in sorted((ROOT / "docs").rglob("*.md")):
        source = path.relative_to(ROOT).as_posix()
        markdown = path.read_text(encoding="utf-8")
        if f"```{name}" not in markdown:
            continue
        for fence in find_lab_fences(markdown, source):
            if fence.name == name and FENCES[name].read(fence).id == lab_id:
                page = path.relative_to(ROOT / "docs").with_suffix("")
                folder = page.parent if page.name == "index" else page
                return f"{folder.as_posix()}/".removeprefix("./") or "./"
    pytest.fail(
        f"no page in docs/ holds a ```{name} block with `id: {lab_id}`: put one on a page "
        "(contributing/adding-a-lab-kind.md says where), then run this test again."
    )


def open_lab(page: Page, kind: str, lab_id: str) -> Locator:
    """Open the page holding the ``kind`` lab ``lab_id``, bring the lab into view (which
    starts Python), and wait until its Python is ready; the lab's root element."""
    page.goto(lab_page(kind, lab_id))
    lab = page.locator(f'[data-lab="{kind}"][data-lab-id="{lab_id}"]')
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return lab


def open_all_details(page: Page) -> None:
    """Open every collapsed block, so what it hides is checked too."""
    page.locator("details").evaluate_all("(all) => all.forEach((d) => { d.open = true; })")


CODE_SECTION = "details[data-lab-code-section]"
CODE_SUMMARY = "Edit the verifier and the prior (your own code)"


def open_code(lab: Locator) -> Locator:
    """Open the lab's collapsed code, as a reader does, unless it is open (saved edits
    open it); its editor loads then. Returns the code's <details>."""
    section = lab.locator(CODE_SECTION)
    if section.get_attribute("open") is None:
        section.get_by_text(CODE_SUMMARY, exact=True).click()
    expect(section).to_have_attribute("open", "")
    return section


# Where an editor that never came stands: the lab set up or not, what its panel says,
# the editor's bundle as the browser fetched it, and where the page is scrolled.
EDITOR_WAIT = """(lab) => {
  const bundle = performance.getEntriesByType("resource")
    .filter((entry) => entry.name.includes("vendor/codemirror/"))
    .map(({ name, startTime, responseEnd }) =>
      `${name} ${Math.round(startTime)}-${Math.round(responseEnd)} ms`);
  return JSON.stringify({
    labState: lab.dataset.labState ?? null,
    codeState: lab.querySelector("[data-lab-code-state]")?.textContent ?? null,
    bundle,
    now: Math.round(performance.now()),
    readyState: document.readyState,
    labTop: Math.round(lab.getBoundingClientRect().top),
    scrollY: Math.round(scrollY),
    focused: `${document.activeElement?.tagName}#${document.activeElement?.id}`,
  });
}"""

# The reader who scrolled to a lab's code keeps it in view while the page settles: the
# blocks around it are laid out as they near the view (content-visibility), and after
# a single scroll "if needed" (Playwright's) clean-clone runs found the lab far from
# the view, its editor never loaded (the editor loads as its lab nears the view).
EDITOR_IN_VIEW = """(lab) => {
  const editor = lab.querySelector("[data-lab-code-editor]");
  const box = editor.getBoundingClientRect();
  if (box.bottom < 0 || box.top > innerHeight) editor.scrollIntoView({ block: "center" });
  return editor.dataset.labEditor === "ready";
}"""


def wait_for_editor(lab: Locator) -> None:
    """Bring ``lab``'s code editor into view and keep it there until it is loaded (a
    reader scrolled to it); if it never loads, fail saying where the lab and its
    editor's bundle stand."""
    handle = lab.element_handle()
    # The editor's bundle loads beside Python's start: on a busy machine, as long.
    try:
        lab.page.wait_for_function(EDITOR_IN_VIEW, arg=handle, polling=250, timeout=BOOT)
    except PlaywrightTimeout:
        raise AssertionError(f"no editor: {lab.evaluate(EDITOR_WAIT)}") from None


# A phone the size the walk used (issue 23: charts readable at 390 px).
PHONE_390 = {"width": 390, "height": 844}
# The narrowest screen Material lays out for (an iPhone SE of 2016; a wider phone with
# its text enlarged).
NARROWEST = {"width": 320, "height": 568}
# Every chart text under `root` drawn smaller than 12 CSS px: its font size in the
# SVG's units times the scale the SVG is drawn at (a fixed-size drawing scaled down
# to a phone shrinks its text with it), rotated text (an axis title) included.
SMALL_CHART_TEXT = """(root) => [...root.querySelectorAll("svg text")].flatMap((t) => {
  const { a, b } = t.getScreenCTM();
  const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(a, b);
  return size < 12 ? [`${t.textContent}: ${size.toFixed(1)} px`] : [];
})"""
# Elements past the screen's right edge inside ``root`` that no box on the screen
# holds: not inside a horizontal scroller, nor a box that clips them (a formula's
# MathML copy for screen readers, in a 1 px box). Material sets overflow-x: hidden on
# <html>, which would otherwise just cut them off.
CLIPPED = """(root) => {
  const limit = document.documentElement.clientWidth;
  const held = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const fits = p.getBoundingClientRect().right <= limit + 1;
      if (fits && getComputedStyle(p).overflowX !== "visible") return true;
    }
    return false;
  };
  return [...root.querySelectorAll("*")]
    .filter((el) => {
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.right > limit + 1 && !held(el);
    })
    .map((el) => `${el.tagName.toLowerCase()}.${el.className.baseVal ?? el.className}`);
}"""


# visual-lab.js's SCROLL_EDGE: a finger held this close (px) to the viewport's top or
# bottom scrolls the page.
SCROLL_EDGE = 56


def finger_drag(page: Page, source: Locator, target: Locator, steps: int = 8) -> None:
    """Drag with one finger as a reader does: real touch events (pointerType "touch"),
    never outside the screen, from a chip in view. A target beyond the fold is
    reached the way a phone reader reaches it: hold the finger at the screen's edge
    until the page has scrolled the target into view, then move onto it and lift."""
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float = 0, y: float = 0) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def centre(locator: Locator) -> tuple[float, float]:
        box = locator.bounding_box()
        assert box
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def glide(x0: float, y0: float, x1: float, y1: float) -> None:
        for i in range(1, steps + 1):
            touch("touchMove", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)

    height = page.viewport_size["height"] if page.viewport_size else 0
    x, y = centre(source)
    # A reader first scrolls to the chip to grab it. Where an earlier drag left the
    # page depends on how many frames its auto-scroll ran, so the chip may be off
    # screen (a touch there reaches nothing) or in the band that scrolls the page.
    if not SCROLL_EDGE <= y <= height - SCROLL_EDGE:
        source.evaluate('(el) => el.scrollIntoView({ block: "center", behavior: "instant" })')
        x, y = centre(source)
    touch("touchStart", x, y)
    tx, ty = centre(target)
    if not SCROLL_EDGE <= ty <= height - SCROLL_EDGE:
        edge = SCROLL_EDGE / 3 if ty < SCROLL_EDGE else height - SCROLL_EDGE / 3
        glide(x, y, tx, edge)
        x, y = tx, edge
        page.wait_for_function(
            """([element, edge]) => {
              const { top, bottom } = element.getBoundingClientRect();
              const middle = (top + bottom) / 2;
              return middle >= edge && middle <= innerHeight - edge;
            }""",
            arg=[target.element_handle(), SCROLL_EDGE],
        )
        # Out of the edge band first, so the page stops scrolling under the finger.
        y = SCROLL_EDGE + 1 if ty < SCROLL_EDGE else height - SCROLL_EDGE - 1
        touch("touchMove", x, y)
        tx, ty = centre(target)
    glide(x, y, tx, ty)
    touch("touchEnd")
    cdp.detach()


def use_scheme(page: Page, scheme: str) -> None:
    """Switch the reader's system palette and wait until Material follows it."""
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", SCHEMES[scheme])


@functools.cache
def _axe() -> Axe:
    return Axe.from_file(AXE_SCRIPT)


SETTLED = """() => document.getAnimations().every(
  (a) => a.playState !== "running" || a.effect?.getComputedTiming().iterations === Infinity
)"""


# Every element of the article the browser may skip until it nears the viewport
# (content-visibility: auto, lesson.css): its blocks, and a definition list's terms and
# definitions. A JavaScript expression, read from the computed style so that the
# stylesheet stays the one place that says which.
SKIPPABLE = """[...document.querySelectorAll(".md-content__inner *")].filter(
  (el) => getComputedStyle(el).contentVisibility === "auto")"""
SHOW_SKIPPED = (
    "() => new Promise((done) => {\n  for (const el of "
    + SKIPPABLE
    + """) {
    el.style.contentVisibility = "visible";
    el.dataset.testShown = "";
  }
  requestAnimationFrame(() => requestAnimationFrame(done));
})"""
)
UNSHOW_SKIPPED = """() => {
  for (const el of document.querySelectorAll("[data-test-shown]")) {
    el.style.contentVisibility = "";
    delete el.dataset.testShown;
  }
}"""


def report(problems: list[str]) -> str:
    """Problems found (axe's, one per rule), as a failed assertion's message."""
    return f"{len(problems)} problem(s):\n" + "\n".join(problems)


@contextmanager
def every_block_laid_out(page: Page) -> Iterator[None]:
    """The page's blocks as a reader sees each once it nears the viewport.

    The browser skips a block far from the viewport (content-visibility: auto,
    lesson.css): it has only a guessed height and stale colours until shown.
    """
    page.evaluate(SHOW_SKIPPED)
    try:
        yield
    finally:
        page.evaluate(UNSHOW_SKIPPED)


def axe_violations(
    page: Page, where: str, include: list[str] | None = None, *, as_loaded: bool = False
) -> list[str]:
    """The page's axe-core violations (only inside the ``include`` selectors, if given):
    one entry per rule, naming every element.

    Blocks far from the viewport are laid out first, so axe reads the sizes and
    colours a reader sees on reaching them; ``as_loaded`` audits the page as it
    stands instead, as Lighthouse does at load.
    """
    with contextlib.nullcontext() if as_loaded else every_block_laid_out(page):
        # Colours are only what a reader sees once Material's fades and palette
        # transitions have finished; endless animations (spinners) never do.
        page.wait_for_function(SETTLED)
        results = _axe().run(page, context={"include": include} if include else None)
    found: list[str] = []
    for violation in results.response["violations"]:
        nodes = violation["nodes"]
        first = nodes[0]
        targets = ", ".join(" ".join(map(str, node["target"])) for node in nodes[:8])
        more = f" and {len(nodes) - 8} more" if len(nodes) > 8 else ""
        found.append(
            f"{where}: {violation['id']} ({violation['impact']}): {violation['help']}\n"
            f"    {len(nodes)} element(s): {targets}{more}\n"
            f"    first: {' '.join(first.get('failureSummary', '').split())}\n"
            f"    {first['html'][:200]}"
        )
    return found


def duplicate_ids(page: Page) -> list[str]:
    """Element ids used more than once (copy buttons and links find their block by id)."""
    return page.evaluate(
        """() => {
          const seen = new Map();
          for (const el of document.querySelectorAll("[id]")) {
            seen.set(el.id, (seen.get(el.id) ?? 0) + 1);
          }
          return [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${id} (${n} times)`);
        }"""
    )


def watch(page: Page) -> PageErrors:
    """Console errors and uncaught exceptions of a page made outside the `page` fixture."""
    errors = PageErrors()
    page.on("console", errors.on_console)
    page.on("pageerror", errors.on_page_error)
    return errors


# The page's labs that run Python of their own (a guided experiment drives a lab).
OWN_LABS = ".md-content__inner > .lab:not(.lab-experiment)"


def wait_for_labs(page: Page) -> None:
    """Every lab of the page ready where it stands, unscrolled (each is set up when the
    browser is idle)."""
    for lab in page.locator(OWN_LABS).all():
        expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)


def wait_for_progress(lab: Locator, timeout: float) -> None:
    """Wait until Python reports a long run's progress, whatever its words: a phase can
    come and go between two of expect's polls (the language models' first seed trains
    in about a second), so waiting for one phase's words is a race."""
    expect(lab.locator("[data-lab-progress]")).to_have_text(re.compile(r"\S"), timeout=timeout)


@contextmanager
def own_page(
    browser: Browser, browser_context_args: dict, *, errors_fail: bool = True, **options: Any
) -> Iterator[Page]:
    """A page in a browser context of its own (a reader's own storage; ``options`` over
    the site's context settings), its errors watched. The context closes on the way out
    and the test fails on a page or console error, unless ``errors_fail`` is False (a
    test whose page refuses its own scripts)."""
    context = browser.new_context(**{**browser_context_args, **options})
    try:
        page = context.new_page()
        errors = watch(page)
        yield page
    finally:
        context.close()
    unexpected = errors.unexpected() if errors_fail else []
    assert not unexpected, "The page logged errors:\n" + "\n".join(unexpected)


@contextmanager
def touch_phone(
    browser: Browser, browser_context_args: dict, screen: dict | None = None, **options: Any
) -> Iterator[Page]:
    """:func:`own_page` on a touch phone, 375 px wide unless ``screen`` (context options:
    ``viewport`` and the like) says otherwise."""
    phone = {"viewport": PHONE, **(screen or {}), **options}
    with own_page(browser, browser_context_args, **phone, has_touch=True, is_mobile=True) as page:
        yield page


# ------------------------------------------------------------ the offline note

OFFLINE_NOTE = "[data-offline-status]"
# Test-only instrumentation (an init script): each text the offline note shows, in
# order. A state may last milliseconds: "Pages available offline" when Python was
# ready before the worker had saved the pages, and the lab is then saved at once.
NOTE_TEXTS = f"""
(() => {{
  window.__noteTexts = [];
  new MutationObserver(() => {{
    const text = document.querySelector({json.dumps(OFFLINE_NOTE)})?.textContent ?? "";
    if (text && window.__noteTexts.at(-1) !== text) window.__noteTexts.push(text);
  }}).observe(document, {{ subtree: true, childList: true, characterData: true }});
}})();
"""


def note_texts(page: Page) -> list[str]:
    """What the offline note has said on this page so far (needs NOTE_TEXTS added first)."""
    return page.evaluate("window.__noteTexts")


# ------------------------------------------------------------------ focus

# What the keyboard focus is on, and whether a reader can see it: an outline
# or a box-shadow on a rendered element. Material's palette radios are 0 by 0 px
# and draw their ring on the label after them (.md-option.focus-visible + label);
# a code editor draws it around the editing area (an outline on a near ancestor).
FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const own = el.getBoundingClientRect();
  const next = el.nextElementSibling;
  const ring = own.width * own.height === 0 && next?.tagName === "LABEL" ? next : el;
  const style = getComputedStyle(ring);
  const box = ring.getBoundingClientRect();
  const outlined = (s) => s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0;
  let around = false;
  for (let up = el.parentElement, n = 0; up && n < 3; up = up.parentElement, n += 1) {
    around ||= outlined(getComputedStyle(up));
  }
  const name = [el.getAttribute("aria-label"), el.textContent, el.title]
    .map((text) => (text ?? "").trim().replace(/\\s+/g, " "))
    .find(Boolean)?.slice(0, 50) ?? "";
  const hint = (el.getAttribute("aria-describedby") ?? "").split(/\\s+/)
    .map((id) => document.getElementById(id)?.textContent ?? "").join(" ");
  return {
    what: `<${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}> "${name}"`,
    editor: el.isContentEditable,
    hint,
    href: el.href ? String(el.href) : null,
    indicator: outlined(style) || style.boxShadow !== "none" || around,
    rendered: box.width > 0 && box.height > 0 && style.visibility === "visible",
  };
}"""


@dataclass(frozen=True)
class Focus:
    what: str
    editor: bool  # a code editor, where Tab indents instead of moving on
    hint: str  # its accessible description
    href: str | None
    indicator: bool
    rendered: bool


def focus_of(page: Page) -> Focus | None:
    """The focused element, or None when the focus is on <body> (lost)."""
    found = page.evaluate(FOCUS)
    return Focus(**found) if found else None


class KeyboardWalk:
    """A reader using only the keyboard; after every key the focus must be visible."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.trail: list[str] = []  # what each key press reached, for failure messages

    def press(self, key: str) -> Focus:
        """Press ``key``; the focus must then be on a rendered element with a visible ring."""
        self.page.keyboard.press(key)
        focus = focus_of(self.page)
        self.trail.append(f"{key} -> {focus.what if focus else '<body>'}")
        assert focus is not None, f"after {key}, the focus was lost to <body>\n{self.recent()}"
        assert focus.rendered, f"after {key}, the focus is on a hidden element\n{self.recent()}"
        assert focus.indicator, f"after {key}, the focus ring is invisible\n{self.recent()}"
        return focus

    def to(self, target: str | Callable[[], bool], *, key: str = "Tab", limit: int) -> Focus:
        """Press ``key`` until ``target`` (a CSS selector, or a test) has the focus."""
        if isinstance(target, str):
            selector = target

            def reached() -> bool:
                return self.page.locator(selector).evaluate_all(
                    "(all) => all.includes(document.activeElement)"
                )

            target = reached
        for _ in range(limit):
            focus = self.press(key)
            if target():
                return focus
            if focus.editor:
                # Tab indents in a code editor; the reader must be told how to leave.
                assert re.search(r"\bEsc(ape)?\b", focus.hint), (
                    f"keyboard trap: {focus.what} keeps Tab and its description does not "
                    f"say how to leave it ({focus.hint!r})\n{self.recent()}"
                )
                self.press("Escape")
        raise AssertionError(f"not reached in {limit} presses of {key}\n{self.recent()}")

    def recent(self, n: int = 12) -> str:
        return "keys so far (latest last):\n  " + "\n  ".join(self.trail[-n:])


# ------------------------------------------------------------ the Visual Lab

# The mapping lab as the DOM shows it, read in one go after each step.
MAPPING_STATE = """(root) => {
  const text = (el) => el.textContent.trim().replace(/\\s+/g, " ");
  return {
    chips: [...root.querySelectorAll("[data-lab-chip]")].map((chip) => ({
      concept: chip.dataset.labChip,
      inTray: chip.checkVisibility(),
      pressed: chip.getAttribute("aria-pressed") === "true",
    })),
    zones: [...root.querySelectorAll("[data-lab-zone]")].map((zone) => ({
      n: Number(zone.dataset.labZone),
      chips: [...zone.querySelectorAll(".lab-chip")].map(text),
      holds: zone.dataset.labHolds ?? null,
      text: text(zone),
      label: zone.getAttribute("aria-label"),
      result: zone.dataset.labResult ?? null,
      picked: zone.classList.contains("is-picked"),
    })),
    feedback: [...root.querySelectorAll("[data-lab-part]")].map((part) => {
      const box = part.querySelector(".lab-feedback");
      return {
        n: Number(part.dataset.labPart),
        shown: !box.hidden,
        result: box.dataset.labResult ?? null,
        text: text(box),
      };
    }),
    summary: text(root.querySelector("[data-lab-summary]")),
    trayEmpty: root.querySelector("[data-lab-concepts]").classList.contains("is-empty"),
    leftovers:
      document.querySelectorAll(".lab-chip--ghost").length +
      root.querySelectorAll(".is-drag-source, .is-over").length +
      root.classList.contains("is-dragging"),
  };
}"""


@dataclass(frozen=True)
class VisualLabSpec:
    """The Visual Lab as the page ships it to the Python checker."""

    concepts: list[str]
    text: dict[int, str]
    answer: dict[int, str]

    @classmethod
    def of(cls, lab: Locator) -> VisualLabSpec:
        url = lab.evaluate("(root) => new URL(root.dataset.labSpec, location.href).href")
        response = lab.page.request.get(url)
        assert response.ok, f"{url}: HTTP {response.status}"
        spec = response.json()
        return cls(
            concepts=list(spec["concepts"]),
            text={part["n"]: part["text"] for part in spec["parts"]},
            answer={part["n"]: part["answer"] for part in spec["parts"]},
        )


def mapping_state(lab: Locator) -> dict[str, Any]:
    return lab.evaluate(MAPPING_STATE)


def placements(state: dict[str, Any]) -> dict[int, str]:
    """Part number -> the concept its zone shows."""
    return {zone["n"]: zone["chips"][0] for zone in state["zones"] if zone["chips"]}


SCORE = re.compile(r"^(\d+) of (\d+) correct\b")


def consistency_problems(state: dict[str, Any], spec: VisualLabSpec) -> list[str]:
    """Everything about the lab's DOM that contradicts itself or the Visual Lab."""
    problems: list[str] = []
    chips = [chip["concept"] for chip in state["chips"]]
    if sorted(chips) != sorted(spec.concepts):
        problems.append(f"the chips are {chips}, not one per concept {spec.concepts}")
    zones = {zone["n"]: zone for zone in state["zones"]}
    if sorted(zones) != sorted(spec.text):
        problems.append(f"the zones are parts {sorted(zones)}, not {sorted(spec.text)}")
    for n, zone in zones.items():
        if len(zone["chips"]) > 1:
            problems.append(f"part {n} holds {len(zone['chips'])} chips: {zone['chips']}")
        shown = zone["chips"][0] if zone["chips"] else None
        if (zone["holds"] or None) != shown:
            problems.append(f"part {n} shows {shown} but records {zone['holds']!r}")
        if zone["text"] != (shown or "drop here"):
            problems.append(f"part {n} reads {zone['text']!r} with {shown} on it")
        label = f"Part {n}, {spec.text.get(n)}: {shown or 'drop here'}"
        if zone["label"] != label:
            problems.append(f"part {n} is named {zone['label']!r}, not {label!r}")
        if zone["picked"] and shown is None:
            problems.append(f"empty part {n} is marked as picked up")
    for concept in spec.concepts:
        in_tray = sum(c["inTray"] for c in state["chips"] if c["concept"] == concept)
        on_parts = [n for n, zone in zones.items() if concept in zone["chips"]]
        if in_tray + len(on_parts) != 1:
            where = (["the tray"] if in_tray else []) + [f"part {n}" for n in on_parts]
            problems.append(f"{concept} is in {len(where)} places: {where or 'nowhere'}")
    visible = sum(c["inTray"] for c in state["chips"]) + sum(
        len(z["chips"]) for z in zones.values()
    )
    if visible != len(spec.concepts):
        problems.append(f"{visible} chips are shown for {len(spec.concepts)} concepts")
    placed = placements(state)
    if state["trayEmpty"] != (len(placed) == len(spec.concepts)):
        problems.append(f"the tray says empty={state['trayEmpty']} with {len(placed)} placed")
    pressed = [c["concept"] for c in state["chips"] if c["pressed"]]
    picked = [n for n, zone in zones.items() if zone["picked"]]
    if len(pressed) + len(picked) > 1:
        problems.append(f"several selections at once: chips {pressed}, parts {picked}")
    if any(not c["inTray"] for c in state["chips"] if c["pressed"]):
        problems.append(f"a placed chip is still pressed in the tray: {pressed}")
    if state["leftovers"]:
        problems.append(f"{state['leftovers']} elements still styled as mid-drag")
    # A verdict shown must describe the placement shown now, never an old one.
    for item in state["feedback"]:
        n = item["n"]
        expected = (
            "empty"
            if n not in placed
            else "correct"
            if placed[n] == spec.answer.get(n)
            else "incorrect"
        )
        zone_result = zones[n]["result"] if n in zones else None
        if item["shown"]:
            if item["result"] != expected:
                problems.append(
                    f"part {n} ({placed.get(n)}) shows verdict {item['result']}, not {expected}"
                )
            if zone_result != item["result"]:
                problems.append(
                    f"part {n}'s zone says {zone_result}, its feedback {item['result']}"
                )
        elif zone_result is not None:
            problems.append(f"part {n}'s zone keeps verdict {zone_result} with its feedback hidden")
    score = SCORE.match(state["summary"])
    if score:
        correct = sum(placed.get(n) == answer for n, answer in spec.answer.items())
        if (int(score[1]), int(score[2])) != (correct, len(spec.answer)):
            problems.append(f"the summary says {state['summary']!r} with {correct} correct")
    return problems


# ------------------------------------------------------------ simulation


def summary_sentences(results: dict[str, Any]) -> list[str]:
    """What the simulation lab's summary says about ``results`` (lab.sim.render, under CPython)."""
    found = re.findall(r"<(?:p|li)>(.*?)</(?:p|li)>", render_summary(results))
    assert found, "a summary"
    return [unescape(text) for text in found]


# ------------------------------------------------------- the simulation lab's log

# Test-only instrumentation (an init script): when the simulation lab's states
# change, when Stop is pressed, and how many workers end (performance.now()
# timestamps, in ms).
WATCH = """
(() => {
  window.__lab = { states: [], terminated: 0, stopClickAt: null, runClickAt: null };
  const terminate = Worker.prototype.terminate;
  Worker.prototype.terminate = function () {
    window.__lab.terminated += 1;
    return terminate.call(this);
  };
  document.addEventListener("click", (event) => {
    const action = event.target.closest?.("[data-lab-action]")?.dataset.labAction;
    if (action === "stop") window.__lab.stopClickAt = performance.now();
    if (action === "run") window.__lab.runClickAt = performance.now();
  }, true);
  new MutationObserver((records) => {
    for (const { target, attributeName } of records) {
      if (target.dataset?.lab !== "simulation") continue;
      const value = target.getAttribute(attributeName);
      window.__lab.states.push([attributeName, value, performance.now()]);
    }
  }).observe(document, {
    subtree: true,
    attributeFilter: ["data-lab-run", "data-lab-in-code", "data-lab-state"],
  });
})();
"""


def lab_log(page: Page) -> dict[str, Any]:
    return page.evaluate("window.__lab")


def when(page: Page, attribute: str, value: str) -> float:
    """The first time the lab's ``attribute`` became ``value``."""
    times = [t for name, v, t in lab_log(page)["states"] if name == attribute and v == value]
    assert times, (attribute, value, lab_log(page)["states"])
    return times[0]
