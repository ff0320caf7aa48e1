"""The keyboard focus after Material's instant navigation: at the start of the
new page's content (or the link's #fragment), never left behind in the old page."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, Route, expect

from tests.browser.support import KeyboardWalk, focus_of

# Instant navigation keeps the document; a full page load would drop this mark.
MARK = "() => { window.__sameDocument = true; }"
SAME = "() => window.__sameDocument === true"
IN_CONTENT = "() => Boolean(document.activeElement?.closest('article.md-content__inner'))"


def follow_by_keyboard(page: Page, link: Locator) -> None:
    """Focus the link the way a Tab would and press Enter on it."""
    page.evaluate(MARK)
    link.focus()
    page.keyboard.press("Enter")


def summary_link(page: Page) -> Locator:
    return page.get_by_role("navigation", name="Navigation").get_by_role("link", name="Summary")


def summary_title(page: Page) -> Locator:
    return page.get_by_role("heading", level=1, name=re.compile("Summary"))


def assert_tab_goes_on_in_the_content(page: Page) -> None:
    """The navigation was instant, and the next Tab goes on through the content, not back
    to the site menu."""
    assert page.evaluate(SAME), "the link loaded a new document, not an instant navigation"
    KeyboardWalk(page).press("Tab")
    assert page.evaluate(IN_CONTENT), "after Tab, the focus is outside the page's content"


def test_a_page_reached_by_a_link_has_the_focus_at_its_title(page: Page) -> None:
    page.goto("lesson/")
    # A page loaded in full keeps the browser's own order: "Skip to content" first.
    assert "Skip to content" in KeyboardWalk(page).press("Tab").what

    follow_by_keyboard(page, summary_link(page))
    expect(page).to_have_url(re.compile(r"/summary/$"))
    title = summary_title(page)
    expect(title).to_be_focused()
    expect(title).to_be_in_viewport()
    focus = focus_of(page)
    assert focus and focus.indicator, f"the focus on the title is not visible: {focus}"
    assert_tab_goes_on_in_the_content(page)


def test_a_tab_pressed_while_the_next_page_loads_is_not_stranded_in_the_old_one(
    page: Page,
) -> None:
    page.goto("lesson/")
    shown: list[str] = []  # the title on screen when Tab was pressed

    def tab_before_it_arrives(route: Route) -> None:
        # The new page's request waits here, so the old page is still on screen.
        page.keyboard.press("Tab")
        shown.append(page.locator("article h1").inner_text())
        route.continue_()

    page.route(re.compile(r"/summary/$"), tab_before_it_arrives)
    follow_by_keyboard(page, summary_link(page))
    expect(summary_title(page)).to_be_focused()
    assert shown and "Summary" not in shown[0], f"Tab was not pressed on the old page: {shown}"
    assert_tab_goes_on_in_the_content(page)


def test_a_link_to_a_section_of_another_page_focuses_that_section_where_it_scrolled(
    page: Page,
) -> None:
    page.goto("lesson/")
    follow_by_keyboard(page, page.locator('.md-content a[href$="/references/#zhou-2023"]').first)
    expect(page).to_have_url(re.compile(r"/references/#zhou-2023$"))
    section = page.locator("#zhou-2023")
    expect(section).to_be_focused()
    expect(section).to_be_in_viewport()
    assert page.evaluate("() => window.scrollY") > 0, "the page scrolled back to its top"
    assert page.evaluate(SAME), "the link loaded a new document, not an instant navigation"

    # Tab goes on from the section, as a browser does after following a #fragment.
    KeyboardWalk(page).press("Tab")
    expect(section.locator("a.headerlink")).to_be_focused()
