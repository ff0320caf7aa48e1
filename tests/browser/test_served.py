"""What a reader's phone gets as served (issue 35): the page accessible before any script
runs, choices large enough for a finger, and no reading text too small to read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.support import BOOT, PHONE, axe_violations, report, site_pages, watch
from tests.conftest import BuiltSite

# A phone of today's common size (390 CSS px: an iPhone 12 to 15).
PHONE_390 = {**PHONE, "width": 390}

#: A page served with this header runs none of its own scripts; the test's own
#: evaluation (axe) still runs, as a browser's devtools would.
NO_SCRIPTS = {"content-security-policy": "script-src 'none'"}

# The DOM as it stands at DOMContentLoaded (Material's bundle and the site's module
# scripts have run; nothing scheduled later has), kept for a second look.
AT_DOM_CONTENT_LOADED = """document.addEventListener("DOMContentLoaded", () => {
  window.__atDOMContentLoaded = "<!doctype html>" + document.documentElement.outerHTML;
}, { once: true });"""


def _is_page(request_url: str, site: BuiltSite) -> bool:
    path = request_url.split("?")[0].removeprefix(site.url)
    return path == "" or path.endswith("/") or path.endswith(".html")


@pytest.fixture
def phone_without_scripts(browser: Browser, browser_context_args: dict) -> Iterator[Page]:
    """A 390 px touch phone whose pages run no script of theirs (the browser's refusals of
    their scripts are the only console errors, so none is watched for)."""
    context = browser.new_context(
        **{**browser_context_args, "viewport": PHONE_390}, has_touch=True, is_mobile=True
    )
    try:
        yield context.new_page()
    finally:
        context.close()


def test_every_page_is_accessible_before_any_script_runs(
    phone_without_scripts: Page, site: BuiltSite
) -> None:
    """A screen reader or a crawler that meets the page before its scripts (or without
    them) finds it as accessible as after: the fixes are in the HTML the build writes."""
    page = phone_without_scripts

    def without_scripts(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, **NO_SCRIPTS})

    page.route(lambda url: _is_page(url, site), without_scripts)
    problems: list[str] = []
    for path in site_pages(site):
        page.goto(path)
        assert page.evaluate("() => !document.documentElement.classList.contains('js')")
        problems += axe_violations(page, f"{path} (no script, as loaded)", as_loaded=True)
        problems += axe_violations(page, f"{path} (no script)")
    assert not problems, report(problems)


def test_every_page_is_accessible_as_it_stands_at_dom_content_loaded(
    phone_without_scripts: Page, browser: Browser, browser_context_args: dict, site: BuiltSite
) -> None:
    """The page as Material's set-up leaves it at DOMContentLoaded, before idle work (the
    moment a fast load lets Lighthouse audit it), audited with no script running on."""
    context = browser.new_context(**{**browser_context_args, "viewport": PHONE_390})
    loading = context.new_page()
    errors = watch(loading)
    loading.add_init_script(AT_DOM_CONTENT_LOADED)
    audited = phone_without_scripts
    snapshot: dict[str, str] = {}

    def serve_snapshot(route: Route) -> None:
        route.fulfill(
            status=200,
            headers={"content-type": "text/html; charset=utf-8", **NO_SCRIPTS},
            body=snapshot["html"],
        )

    audited.route(lambda url: _is_page(url, site), serve_snapshot)
    problems: list[str] = []
    try:
        for path in site_pages(site):
            loading.goto(path, wait_until="domcontentloaded")
            snapshot["html"] = loading.evaluate("() => window.__atDOMContentLoaded")
            audited.goto(path)
            problems += axe_violations(audited, f"{path} (at DOMContentLoaded)")
    finally:
        context.close()
    assert not errors.unexpected(), "The page logged errors:\n" + "\n".join(errors.unexpected())
    assert not problems, report(problems)


# Every visible text of the article, and the font size it is drawn at. KaTeX's sub- and
# superscripts (.mtight) are smaller by typographic convention, its zero-width struts
# (.vlist-s) and its MathML copy (.katex-mathml, for screen readers) are not drawn text.
SMALL_TEXT = """(least) => {
  for (const el of document.querySelectorAll(".md-typeset > *")) {
    el.style.contentVisibility = "visible";
  }
  for (const details of document.querySelectorAll(".md-content details")) details.open = true;
  const small = new Map();
  const content = document.querySelector(".md-content");
  const texts = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el.checkVisibility({ visibilityProperty: true })) continue;
    if (el.closest(".katex-mathml, .mtight, .vlist-s")) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size >= least) continue;
    const name = `<${el.tagName.toLowerCase()} class="${el.className}"> at ${size.toFixed(1)}px`;
    small.set(name, `${small.get(name) ?? ""} ${node.textContent.trim()}`.slice(0, 60));
  }
  return [...small].map(([name, text]) => `${name}: "${text.trim()}"`);
}"""


def test_on_a_phone_no_reading_text_is_below_12px(phone_page: Page, site: BuiltSite) -> None:
    """Code included (the worked example's prompts and programs were 10.9 px)."""
    problems: list[str] = []
    for path in site_pages(site):
        phone_page.goto(path)
        problems += [f"{path}: {found}" for found in phone_page.evaluate(SMALL_TEXT, 12)]
    assert not problems, "\n".join(problems)


# Each quiz and experiment choice: its box, and its label's (the label is part of the target).
CHOICES = """() => [...document.querySelectorAll(
  ".lab-quiz__option input, .lab-experiment__option input")].map((input) => {
  input.scrollIntoView({ block: "center" });
  const box = input.getBoundingClientRect(), label = input.closest("label").getBoundingClientRect();
  return { name: input.name, value: input.value, width: box.width, height: box.height,
    inLabel: box.left >= label.left && box.right <= label.right && box.top >= label.top
      && box.bottom <= label.bottom, labelHeight: label.height };
})"""


@pytest.mark.parametrize("path", ["lesson/", "simulation/", "language-models/"])
def test_on_a_phone_each_choice_is_at_least_24_px_with_its_label_as_target(
    phone_page: Page, path: str
) -> None:
    """WCAG 2.5.8: the radio or check box itself, not only the label around it."""
    phone_page.goto(path)
    choices = phone_page.evaluate(CHOICES)
    assert choices, f"{path} has no quiz or experiment choices"
    small = [c for c in choices if c["width"] < 24 or c["height"] < 24 or not c["inLabel"]]
    assert not small, small


@pytest.fixture
def phone_page(browser: Browser, browser_context_args: dict) -> Iterator[Page]:
    """A 390 px touch phone; the test fails on any page error it logs."""
    context = browser.new_context(
        **{**browser_context_args, "viewport": PHONE_390}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    errors = watch(page)
    try:
        yield page
    finally:
        context.close()
    assert not errors.unexpected(), "The page logged errors:\n" + "\n".join(errors.unexpected())


# Lighthouse's mobile preset: a Moto G Power's screen.
LIGHTHOUSE_PHONE = {"viewport": {"width": 412, "height": 823}, "device_scale_factor": 1.75}


@pytest.mark.parametrize("path", ["lesson/", "simulation/", "language-models/"])
def test_with_its_labs_set_up_far_below_a_page_is_accessible_as_it_stands(
    browser: Browser, browser_context_args: dict, path: str
) -> None:
    """As Lighthouse audits a fast load: the labs set up, never scrolled to, so the browser
    still skips them and lays their lines out only when asked (a short guess at a lab's
    height put its links over the next card's radios)."""
    context = browser.new_context(
        **{**browser_context_args, **LIGHTHOUSE_PHONE}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    errors = watch(page)
    try:
        page.goto(path)
        for lab in page.locator(".md-content__inner > .lab:not(.lab-experiment)").all():
            expect(lab).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
        problems = axe_violations(page, f"{path} (labs set up, as loaded)", as_loaded=True)
    finally:
        context.close()
    assert not errors.unexpected(), "The page logged errors:\n" + "\n".join(errors.unexpected())
    assert not problems, report(problems)
