"""Tab stops the keyboard needs, written into the HTML before any script runs.

A reader who arrives before the page's scripts have run (a screen reader on a
fast load, Lighthouse) or without them gets the same tab stops as after:

- Every listing's ``<code>``. A listing wider than a phone scrolls sideways, and
  a box that scrolls must take keyboard focus (axe-core:
  scrollable-region-focusable). Material makes a listing focusable only from
  its script, once it sets the block up near the viewport. Whether a listing
  scrolls depends on the reader's width, unknown here, so every one is a stop;
  theme/code-blocks.js takes the stop off those that turn out not to scroll.
- The first use of each glossary term on a page (``<abbr title>``). Material
  (content.tooltips) shows the definition while a term is hovered or focused,
  but an ``<abbr>`` cannot take focus, so keyboard and touch readers would
  never see it; a tap focuses it too, which shows the definition on a phone.
  Later uses would only add stops with the same text.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

#: A listing's code: Pygments' ``<pre><span></span><code>``, or a lab's ``<pre …><code>``,
#: when it has no tabindex of its own.
LISTING = re.compile(r"(<pre\b[^>]*>(?:<span></span>)?<code)(?=[\s>])(?![^>]*\btabindex=)")
#: A glossary term as Python-Markdown's abbr extension writes it.
TERM = re.compile(r"<abbr title=\"[^\"]*\">([^<]*)</abbr>")


def focusable_listings(html: str) -> str:
    """``html`` with every listing's ``<code>`` a tab stop."""
    return LISTING.sub(r'\1 tabindex="0"', html)


def focusable_terms(html: str) -> str:
    """``html`` with the first use of each glossary term a tab stop."""
    seen: set[str] = set()

    def first(match: re.Match[str]) -> str:
        term = match[1].strip()
        if term in seen:
            return match[0]
        seen.add(term)
        return match[0].replace("<abbr ", '<abbr tabindex="0" ', 1)

    return TERM.sub(first, html)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return focusable_terms(focusable_listings(html))
