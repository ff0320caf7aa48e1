"""The quality gates over the whole built site: accessibility (axe-core) on every page
and in both labs after use, a keyboard-only walk, unique ids, and no other origin."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.support import (
    BOOT,
    MAPPING,
    OFFLINE_NOTE,
    PHONE,
    SCHEMES,
    SIMULATION,
    SKIPPABLE,
    KeyboardWalk,
    VisualLabSpec,
    axe_violations,
    duplicate_ids,
    open_all_details,
    own_page,
    report,
    site_pages,
    use_scheme,
)
from tests.conftest import BuiltSite

LANGUAGE_MODELS = '[data-lab="language-models"]'
RUN = 90_000  # ms: a default simulation run, Python's start included, on a busy machine
FILLED = '[data-lab-zone]:not([data-lab-holds=""])'


def show(page: Page, path: str) -> None:
    """The page at ``path`` with every <details> open, loaded in the light scheme (the
    audits then switch the reader's scheme with use_scheme, which waits for Material)."""
    page.emulate_media(color_scheme="light")
    page.goto(path)
    open_all_details(page)


# --------------------------------------------------------------- axe-core


def test_every_page_has_no_accessibility_violations(page: Page, site: BuiltSite) -> None:
    """The whole page (header, navigation, content, footer), with every <details> open,
    in each colour scheme (one load: the palette switches as the reader's system's does)."""
    problems: list[str] = []
    for path in site_pages(site):
        show(page, path)
        for scheme in SCHEMES:
            use_scheme(page, scheme)
            problems += axe_violations(page, f"{path} ({scheme})")
    assert not problems, report(problems)


def test_on_a_phone_a_listing_not_yet_laid_out_can_still_be_scrolled_by_keyboard(
    phone: Page,
) -> None:
    """Listings far down the page are skipped until near (content-visibility): one
    that may scroll sideways is a tab stop until it is laid out and shown not to."""
    page = phone
    page.goto("simulation-reference/")
    last = page.locator(".md-typeset > .highlight pre > code").last
    expect(last).to_have_attribute("tabindex", "0")
    last.scroll_into_view_if_needed()
    scrolls = "c => c.scrollWidth > c.clientWidth || c.scrollHeight > c.clientHeight"
    page.wait_for_function(
        f"""() => {{
          const codes = [...document.querySelectorAll(".md-typeset > .highlight pre > code")];
          const c = codes[codes.length - 1];
          return ({scrolls})(c) === (c.getAttribute("tabindex") === "0");
        }}"""
    )


# Every focusable element that sits at the edge of a block the browser may skip
# (content-visibility, lesson.css, which clips what the block paints): its
# keyboard focus ring, shown, drawn within what the block may paint. Inside a
# box that scrolls, the box clips its content anyway (and focus scrolls to it).
RINGS_AT_BLOCK_EDGES = (
    "async () => {\n  const blocks = "
    + SKIPPABLE
    + """;
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const scrolls = (el, block) => {
    for (let up = el; up; up = up === block ? null : up.parentElement) {
      const { overflowX, overflowY } = getComputedStyle(up);
      if (![overflowX, overflowY].every((o) => o === "visible" || o === "clip")) return true;
    }
    return false;
  };
  const near = 6; // px: an element this close to its block's edge
  const focusable = "a[href], button, input, select, textarea, [tabindex='0']";
  const checked = [], clipped = [];
  for (const block of blocks) {
    const inside = [...block.querySelectorAll(focusable)].filter(
      // A disabled button takes no focus, so it shows no ring to cut off.
      (el) => !el.closest("[hidden], details:not([open])") && !el.matches(":disabled") &&
        !scrolls(el, block),
    );
    if (!inside.length) continue;
    block.scrollIntoView({ block: "center" });
    await frame();
    const edge = block.getBoundingClientRect();
    const margin = parseFloat(getComputedStyle(block).overflowClipMargin) || 0;
    for (const el of inside) {
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      const off = [box.left - edge.left, edge.right - box.right, box.top - edge.top,
        edge.bottom - box.bottom];
      if (Math.min(...off) > near) continue;
      el.focus();
      const ring = getComputedStyle(el);
      const reach = ring.outlineStyle === "none" ? 0
        : parseFloat(ring.outlineWidth) + parseFloat(ring.outlineOffset);
      const name = `<${el.tagName.toLowerCase()}> "${el.textContent.trim().slice(0, 30)}"`;
      checked.push(name);
      if (!el.matches(":focus-visible")) clipped.push(`${name}: no focus ring shown`);
      else if (Math.min(...off) + margin < reach) {
        clipped.push(`${name}: ring reaches ${reach}px past it, the block paints ${margin}px`);
      }
    }
  }
  return { checked, clipped };
}"""
)


# The references and the glossary are a few long blocks, all among a page's last eight,
# which are never skipped (lesson.css).
@pytest.mark.parametrize("path", ["lesson/", "simulation/", "simulation-reference/"])
def test_a_focus_ring_at_the_edge_of_a_skipped_block_is_not_cut_off(phone: Page, path: str) -> None:
    page = phone
    page.goto(path)
    page.keyboard.press("Tab")  # focus rings show for the keyboard
    found = page.evaluate(RINGS_AT_BLOCK_EDGES)
    assert found["checked"], f"{path}: no focusable element at a block's edge"
    assert not found["clipped"], "\n".join(found["clipped"])


def test_every_page_on_a_phone_has_no_accessibility_violations(
    phone: Page, site: BuiltSite
) -> None:
    """At 375 px on a touch screen, in each colour scheme, and the navigation drawer
    again once open (the rest of the page stands as it was audited a moment before)."""
    page = phone
    problems: list[str] = []
    for path in site_pages(site):
        show(page, path)
        for scheme in SCHEMES:
            use_scheme(page, scheme)
            problems += axe_violations(page, f"{path} (phone, {scheme})")
        page.get_by_role("banner").locator("label[for='__drawer']").tap()
        expect(page.get_by_role("navigation", name="Navigation")).to_be_in_viewport()
        for scheme in SCHEMES:
            use_scheme(page, scheme)
            problems += axe_violations(
                page, f"{path} (phone, {scheme}, menu open)", [".md-sidebar--primary"]
            )
    assert not problems, report(problems)


# Whether the browser renders a drawer link now (false while skipped, lesson.css).
RENDERED = "link => link.checkVisibility({ contentVisibilityAuto: true })"
SKIPPED = f"link => !({RENDERED})(link)"


def test_on_a_phone_the_closed_drawer_is_not_rendered_but_still_navigable(
    phone: Page,
) -> None:
    """Closed, the drawer's links cost the load nothing yet stay in the accessibility
    tree; opened, they show and take a tap; closed again, they leave."""
    page = phone
    page.goto("simulation/")
    drawer = page.get_by_role("navigation", name="Navigation")
    glossary = drawer.get_by_role("link", name="Glossary", exact=True)
    page.wait_for_function(SKIPPED, arg=glossary.element_handle())
    expect(glossary).to_be_attached()  # found by role: in the accessibility tree
    menu = page.get_by_role("banner").locator("label[for='__drawer']")
    menu.tap()
    expect(drawer).to_be_in_viewport()
    assert glossary.evaluate(RENDERED)
    page.locator(".md-overlay").tap(position={"x": PHONE["width"] - 10, "y": 400})
    page.wait_for_function(SKIPPED, arg=glossary.element_handle())
    menu.tap()
    glossary.tap()
    expect(page).to_have_url(re.compile(r"/glossary/$"))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_search_results_have_no_accessibility_violations(page: Page, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto("./")
    use_scheme(page, scheme)
    box = page.get_by_role("textbox", name="Search")
    box.click()
    expect(page.locator(".md-search-result__meta")).to_have_text("Type to start searching")
    box.press_sequentially("reward")
    expect(page.locator(".md-search-result__item").first).to_be_visible()
    assert not (problems := axe_violations(page, f"search results ({scheme})")), report(problems)


def both_schemes(page: Page, where: str) -> list[str]:
    """Violations in light and in dark, switching the palette without reloading."""
    problems: list[str] = []
    for scheme in SCHEMES:
        use_scheme(page, scheme)
        problems += axe_violations(page, f"{where} ({scheme})")
    return problems


def test_the_mapping_lab_after_check_and_clear_has_no_accessibility_violations(
    page: Page,
) -> None:
    page.goto("lesson/")
    lab = page.locator(MAPPING)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    spec = VisualLabSpec.of(lab)
    placed = {1: spec.answer[2], 2: spec.answer[1], 3: spec.answer[3]}  # two wrong, one right
    for n, concept in placed.items():
        lab.locator(f'[data-lab-chip="{concept}"]').click()
        lab.locator(f'[data-lab-zone="{n}"]').click()
    spare = next(c for c in spec.concepts if c not in placed.values())
    lab.locator(f'[data-lab-chip="{spare}"]').click()  # a chip left selected
    lab.locator('[data-lab-action="check"]').click()
    expect(lab.locator("[data-lab-summary]")).to_contain_text(
        f"1 of {len(spec.answer)} correct", timeout=BOOT
    )
    for result in ("correct", "incorrect", "empty"):
        expect(lab.locator(f'.lab-feedback[data-lab-result="{result}"]').first).to_be_visible()
    problems = both_schemes(page, "lesson/ Visual Lab after Check")

    lab.locator('[data-lab-action="clear"]').click()
    expect(lab.locator(".lab-feedback:visible")).to_have_count(0)
    expect(lab.locator(FILLED)).to_have_count(0)
    problems += both_schemes(page, "lesson/ Visual Lab after Clear")
    assert not problems, report(problems)


def test_the_simulation_lab_after_a_run_has_no_accessibility_violations(page: Page) -> None:
    # Arrive by instant navigation, as a reader from the lesson does.
    page.goto("lesson/")
    page.get_by_role("navigation", name="Navigation").get_by_role(
        "link", name="Simulation Lab", exact=True
    ).click()
    expect(page).to_have_url(re.compile(r"/simulation/$"))
    lab = page.locator(SIMULATION)
    lab.scroll_into_view_if_needed()
    expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    lab.get_by_role("button", name="Run", exact=True).click()
    expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)
    expect(lab.locator("[data-lab-results]")).to_be_visible()
    open_all_details(page)
    problems = both_schemes(page, "simulation/ after a run")
    problems += [f"simulation/ after a run: id {i} is not unique" for i in duplicate_ids(page)]
    assert not problems, report(problems)


# ---------------------------------------------------------------- controls

LOOK = """button => {
  const style = getComputedStyle(button);
  return { opacity: Number(style.opacity), color: style.color, cursor: style.cursor };
}"""


@pytest.mark.parametrize(
    ("path", "lab"), [("simulation/", SIMULATION), ("language-models/", LANGUAGE_MODELS)]
)
def test_a_disabled_control_looks_disabled_in_every_lab(page: Page, path: str, lab: str) -> None:
    # Issue 39: the language-model lab's Stop looked as pressable as Copy link beside it.
    page.goto(path)
    root = page.locator(lab)
    root.scroll_into_view_if_needed()
    expect(root).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    stop = root.get_by_role("button", name="Stop", exact=True)
    copy = root.get_by_role("button", name="Copy link", exact=True)
    expect(stop).to_be_disabled()
    expect(copy).to_be_enabled()
    disabled, enabled = stop.evaluate(LOOK), copy.evaluate(LOOK)
    assert disabled["opacity"] < 1 == enabled["opacity"], (disabled, enabled)
    assert disabled["cursor"] == "not-allowed", disabled


# --------------------------------------------------------------------- ids

# Material's copy button finds its block by id (data-clipboard-target).
COPY_TARGETS = """() => [...document.querySelectorAll(".md-code__button[data-clipboard-target]")]
  .filter((button) => {
    const own = button.closest("pre")?.querySelector(":scope > code");
    return document.querySelector(button.dataset.clipboardTarget) !== own;
  })
  .map((button) => button.closest("pre").textContent.trim().slice(0, 60))"""


TOOLBAR_NAMES = """() => [...document.querySelectorAll(".md-content .md-code__nav")]
  .map((nav) => nav.getAttribute("aria-label") ?? "")"""


def every_code_block_set_up(page: Page) -> None:
    """Material sets a code block up (its copy button, in a toolbar) only as it nears
    the viewport (content.lazy, mkdocs.yml): the reader's scroll past each one."""
    # Material's rule; a lab's code block gives way to its editor once that loads.
    copied = ".md-content pre:not(.no-copy, .no-copy pre, [data-lab-code-editor] pre):visible"
    for block in page.locator(copied).all():
        # To the middle: Material's lazy set-up missed a block left at the viewport's
        # bottom edge (the teacher's page's solutions, one after another).
        block.evaluate("(el) => el.scrollIntoView({ block: 'center' })")
        expect(block.locator(".md-code__nav")).to_be_attached()


def test_ids_are_unique_and_each_copy_button_copies_its_own_block(
    page: Page, site: BuiltSite
) -> None:
    """And each block's toolbar has a name of its own (landmark-unique)."""
    problems: list[str] = []
    for path in site_pages(site):
        page.goto(path)
        every_code_block_set_up(page)
        problems += [f"{path}: id {found} is not unique" for found in duplicate_ids(page)]
        problems += [
            f"{path}: the copy button of the block starting {text!r} copies another block"
            for text in page.evaluate(COPY_TARGETS)
        ]
        names = page.evaluate(TOOLBAR_NAMES)
        problems += [
            f"{path}: code block toolbar named {name!r} {names.count(name)} times"
            for name in sorted(set(names))
            if not name or names.count(name) > 1
        ]
    assert not problems, report(problems)


# ---------------------------------------------------------------- keyboard


def tab_direction(page: Page, selector: str) -> str:
    """Tab when ``selector`` comes after the focused element, else Shift+Tab."""
    after = page.evaluate(
        """(selector) => {
          const target = document.querySelector(selector);
          const from = document.activeElement;
          return Boolean(from.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING);
        }""",
        selector,
    )
    return "Tab" if after else "Shift+Tab"


def links_to(page: Page, path: str) -> bool:
    """Is the focus on a link to the site's page ``path``?"""
    return page.evaluate(
        """(path) => {
          const el = document.activeElement;
          return el instanceof HTMLAnchorElement &&
            new URL(el.href).pathname === new URL(path, __md_scope).pathname;
        }""",
        path,
    )


def page_link_hash(page: Page) -> str:
    """The #fragment of the focused link, if any."""
    return page.evaluate("() => new URL(document.activeElement.href).hash")


def test_keyboard_only_walk_through_the_lesson_and_both_labs(page: Page) -> None:
    """From the top of the lesson to both labs' results with only the keyboard,
    the focus always visible and never dropped after a key press."""
    page.goto("lesson/")
    walk = KeyboardWalk(page)
    lab = page.locator(MAPPING)
    summary = lab.locator("[data-lab-summary]")

    def chip(concept: str) -> str:
        return f'{MAPPING} [data-lab-chip="{concept}"]'

    def zone(n: int) -> str:
        return f'{MAPPING} [data-lab-zone="{n}"]'

    def go(selector: str, limit: int = 15) -> None:
        walk.to(selector, key=tab_direction(page, selector), limit=limit)

    def place(concept: str, n: int, key: str) -> None:
        go(chip(concept))
        walk.press(key)
        expect(page.locator(chip(concept))).to_have_attribute("aria-pressed", "true")
        go(zone(n))
        walk.press(key)
        expect(page.locator(zone(n))).to_have_attribute("data-lab-holds", concept)

    assert "Skip to content" in walk.press("Tab").what
    # Through the header, navigation and lesson text to the Visual Lab.
    walk.to(f"{MAPPING} [data-lab-chip]", limit=120)
    spec = VisualLabSpec.of(lab)

    # Escape cancels a selection; Delete returns a placed chip to the tray.
    walk.press("Enter")
    walk.press("Escape")
    expect(lab.locator('[aria-pressed="true"]')).to_have_count(0)
    wrong = next(c for c in spec.concepts if c != spec.answer[1])
    place(wrong, 1, "Enter")
    walk.press("Delete")
    expect(page.locator(zone(1))).to_have_attribute("data-lab-holds", "")

    for n, concept in spec.answer.items():
        place(concept, n, "Enter" if n % 2 else "Space")
    go(f'{MAPPING} [data-lab-action="check"]')
    walk.press("Enter")
    parts = len(spec.answer)
    expect(summary).to_contain_text(f"{parts} of {parts} correct", timeout=BOOT)
    go(f'{MAPPING} [data-lab-action="clear"]')
    walk.press("Space")
    expect(lab.locator(FILLED)).to_have_count(0)
    expect(summary).to_be_empty()

    # On to the simulation lab by the first link there after the Visual Lab.
    # (to the page itself: the lesson's note on "the next section" links to a section of it)
    walk.to(lambda: links_to(page, "simulation/") and not page_link_hash(page), limit=30)
    page.keyboard.press("Enter")  # a new page: the focus starts over
    expect(page).to_have_url(re.compile(r"/simulation/$"))
    sim = page.locator(SIMULATION)
    expect(sim).to_have_attribute("data-lab-enhanced", "")  # the reader sees the new page
    run = f'{SIMULATION} [data-lab-action="run"]'
    walk.to(run, limit=120)
    walk.press("Enter")
    expect(sim).to_have_attribute("data-lab-run", "done", timeout=RUN)
    expect(page.locator(run)).to_be_focused()
    expect(sim.locator("[data-lab-summary]")).not_to_be_empty()
    walk.to(f"{SIMULATION} [data-lab-results] *", limit=15)


# ------------------------------------------------------------------ origin

# Every address a page's markup and styles would load from, requested or not yet.
RESOURCES = """() => {
  const urls = [];
  for (const el of document.querySelectorAll("[src], [srcset], link[href], object[data]")) {
    if (el.src) urls.push(el.src);
    if (el.tagName === "LINK" && !/\\b(canonical|alternate|author|license)\\b/.test(el.rel)) {
      urls.push(el.href);
    }
    for (const part of (el.getAttribute("srcset") ?? "").split(",")) {
      const url = part.trim().split(/\\s+/)[0];
      if (url) urls.push(new URL(url, document.baseURI).href);
    }
    if (el.data) urls.push(el.data);
  }
  for (const sheet of document.styleSheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      urls.push(sheet.href); // unreadable: a sheet from another origin
      continue;
    }
    for (const rule of rules) {
      for (const [, url] of rule.cssText.matchAll(/url\\("?([^")]+)"?\\)/g)) {
        if (!url.startsWith("data:")) urls.push(new URL(url, sheet.href ?? document.baseURI).href);
      }
    }
  }
  return urls;
}"""


def foreign(urls: list[str], origin: str) -> list[str]:
    return sorted({u for u in urls if not u.startswith((origin, "data:", "blob:", "about:"))})


def start_labs(page: Page) -> None:
    """Scroll each lab on the page into view and wait for its Python (a guided experiment
    runs none of its own: it drives a lab)."""
    for lab in page.locator('[data-lab]:not([data-lab="experiment"])').all():
        lab.scroll_into_view_if_needed()
        expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)


def use_labs(page: Page) -> None:
    """Check the Visual Lab and run the simulation, wherever they are."""
    for lab in page.locator(MAPPING).all():
        lab.locator('[data-lab-action="check"]').click()
        expect(lab.locator("[data-lab-summary]")).to_contain_text("correct", timeout=BOOT)
    for lab in page.locator(SIMULATION).all():
        lab.get_by_role("button", name="Run", exact=True).click()
        expect(lab).to_have_attribute("data-lab-run", "done", timeout=RUN)


SEARCH_RESULT = (
    '.md-search-result__item, [role="listbox"][aria-label="Search results"] [role="option"]'
)


def test_every_page_makes_requests_only_to_its_own_origin(
    browser: Browser, browser_context_args: dict, built: BuiltSite
) -> None:
    """Every page, read to the end, its labs used, searched, with the service
    worker precaching as it does for readers; and nothing in any page's
    markup or styles points elsewhere. Under either generator: Zensical's own
    Pyodide block and offline shim would load from CDNs."""
    site = built
    requests: list[str] = []
    referenced: list[str] = []
    with own_page(
        browser, browser_context_args, base_url=site.url, service_workers="allow"
    ) as page:
        # The context also sees what workers and the service worker fetch.
        page.context.on("request", lambda request: requests.append(request.url))
        for path in site_pages(site):
            page.goto(path, wait_until="networkidle")
            open_all_details(page)
            page.keyboard.press("End")
            start_labs(page)
            use_labs(page)
            page.wait_for_load_state("networkidle")
            referenced += [f"{path}: {url}" for url in foreign(page.evaluate(RESOURCES), site.url)]
        page.goto("./")
        box = page.get_by_role("textbox", name="Search")
        box.click()
        # Zensical's search is a dialog of its own: the click opens it, and its field takes
        # the focus a moment later (typing at once once went into the box behind it).
        field = page.get_by_role("combobox", name="Search") if site.generator == "zensical" else box
        expect(field).to_be_focused()
        field.press_sequentially("reward")
        # Material's result list, or Zensical's (its search is its own chrome).
        expect(page.locator(SEARCH_RESULT).first).to_be_visible()
        # The footer note appears once the service worker has cached the site and Python.
        expect(page.locator(OFFLINE_NOTE)).to_have_text("Available offline", timeout=BOOT)
        page.wait_for_load_state("networkidle")
    assert any(url.endswith(".wasm") for url in requests), "Python never started"
    assert not (elsewhere := foreign(requests, site.url)), report(elsewhere)
    assert not referenced, report(referenced)
