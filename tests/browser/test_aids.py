"""The glossary's definitions by hover, keyboard and touch; math typeset from our own origin."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.conftest import BuiltSite

TOOLTIP = ".md-tooltip2"


def test_math_is_typeset_with_a_readable_copy(page: Page) -> None:
    page.goto("lesson/#worked-example")
    formula = page.locator("#worked-example ~ * .arithmatex").first
    expect(formula.locator(".katex")).to_have_count(1)
    # KaTeX keeps MathML beside the drawing for screen readers.
    expect(page.locator(".arithmatex .katex-mathml math").first).to_be_attached()
    policy = page.locator(".arithmatex", has_text="π")
    expect(policy.first).to_be_attached()


def test_katex_downloads_only_when_math_nears_the_viewport(page: Page) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("lesson/")
    expect(page.locator("[data-lab='mapping']")).to_be_attached()
    page.wait_for_load_state("networkidle")
    assert not [url for url in requested if "/vendor/katex/" in url]
    page.locator("#worked-example").scroll_into_view_if_needed()
    expect(page.locator("#worked-example ~ * .katex").first).to_be_visible()
    assert [url for url in requested if url.endswith("/vendor/katex/katex.mjs")]


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


def test_a_tap_shows_a_definition(browser: Browser, site: BuiltSite) -> None:
    context = browser.new_context(has_touch=True, is_mobile=True, base_url=site.url)
    page = context.new_page()
    page.goto("glossary/")
    term = page.locator(".md-content abbr").filter(has_text=re.compile(r"^GRPO$")).first
    term.tap()
    expect(page.locator(TOOLTIP)).to_contain_text("Group Relative Policy Optimization")
    context.close()
