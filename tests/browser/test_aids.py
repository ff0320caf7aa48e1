"""The glossary's definitions by hover, keyboard and touch; math typeset at build time."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.browser.support import touch_phone

TOOLTIP = ".md-tooltip2"


def test_math_is_typeset_with_a_readable_copy(page: Page) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("lesson/#worked-example")
    formula = page.locator("#worked-example ~ * .arithmatex").first
    expect(formula.locator(".katex")).to_have_count(1)
    # KaTeX keeps MathML beside the drawing for screen readers.
    expect(page.locator(".arithmatex .katex-mathml math").first).to_be_attached()
    policy = page.locator(".arithmatex", has_text="π")
    expect(policy.first).to_be_attached()
    # Typeset at build time: the reader's browser downloads no KaTeX code.
    page.wait_for_load_state("networkidle")
    assert [url for url in requested if url.endswith("/vendor/katex/katex.min.css")]
    assert not [url for url in requested if "katex" in url and url.endswith(("js", ".map"))]
    assert not [url for url in requested if "/theme/math.js" in url]


def test_math_reads_without_javascript_in_katexs_fonts(no_script_page: Page) -> None:
    """Typeset at build time: it reads with JavaScript off, in KaTeX's own fonts."""
    page = no_script_page
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("simulation-reference/")
    discount = page.locator(".arithmatex").filter(
        has=page.locator("annotation", has_text=r"\gamma \, \bar r_2")
    )
    drawing = discount.locator(".katex-html")
    expect(drawing).to_be_visible()
    # The bar over r: the accent KaTeX draws, laid out by its own stylesheet and fonts.
    expect(drawing.locator(".accent-body")).to_have_text("ˉ")
    assert "KaTeX_Main" in drawing.evaluate("e => getComputedStyle(e.closest('.katex')).fontFamily")
    expect(discount.locator(".katex-mathml")).to_have_css("position", "absolute")  # read, not shown
    page.wait_for_load_state("networkidle")
    katex = [url for url in requested if "/vendor/katex/" in url]
    assert any(url.endswith("/katex.min.css") for url in katex)
    assert any(url.endswith(".woff2") for url in katex)


def test_math_reached_by_instant_navigation_gets_katexs_stylesheet(page: Page) -> None:
    # Only pages with math link it; Material's instant navigation brings the new page's head.
    page.goto("summary/")
    stylesheet = 'link[rel="stylesheet"][href$="vendor/katex/katex.min.css"]'
    expect(page.locator(stylesheet)).to_have_count(0)
    page.evaluate("() => { window.__sameDocument = true; }")
    page.get_by_role("navigation", name="Navigation").get_by_role(
        "link", name="Simulation Lab Reference", exact=True
    ).click()
    expect(page).to_have_url(re.compile(r"/simulation-reference/$"))
    expect(page.locator(".arithmatex .katex-mathml").first).to_have_css("position", "absolute")
    assert page.evaluate("() => window.__sameDocument === true"), "not an instant navigation"
    expect(page.locator(stylesheet)).to_have_count(1)


def test_a_definition_shows_on_hover_and_on_keyboard_focus(page: Page) -> None:
    page.goto("lesson/")
    term = page.locator(".md-content abbr", has_text="MARL").first
    definition = "Multi-agent reinforcement learning"
    term.hover()
    expect(page.locator(TOOLTIP)).to_contain_text(definition)
    page.mouse.move(0, 0)
    expect(page.locator(TOOLTIP)).to_have_count(0)
    expect(term).to_have_attribute("tabindex", "0")
    term.focus()
    expect(page.locator(TOOLTIP)).to_contain_text(definition)
    # Only the first use of a term on a page is a tab stop.
    later = page.locator(".md-content abbr", has_text="MARL").nth(1)
    expect(later).not_to_have_attribute("tabindex", "0")


def test_a_tap_shows_a_definition(browser: Browser, browser_context_args: dict) -> None:
    with touch_phone(browser, browser_context_args) as page:
        page.goto("glossary/")
        term = page.locator(".md-content abbr").filter(has_text=re.compile(r"^GRPO$")).first
        term.tap()
        expect(page.locator(TOOLTIP)).to_contain_text("Group Relative Policy Optimization")
