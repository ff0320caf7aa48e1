"""Every listing can be scrolled from the keyboard before any script runs.

A listing wider than a phone scrolls sideways, and a box that scrolls must take
keyboard focus (axe-core: scrollable-region-focusable). Material makes a listing
focusable only from its script, once it sets the block up near the viewport; a
reader who arrives before it (a screen reader on a fast load, Lighthouse) or
without scripts could not scroll it. So the build writes ``tabindex="0"`` on
every listing's ``<code>``: whether it scrolls depends on the reader's width,
unknown here. theme/code-blocks.js takes the tab stop off those that turn out
not to scroll once laid out.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

#: A listing's code: Pygments' ``<pre><span></span><code>``, or a lab's ``<pre …><code>``,
#: when it has no tabindex of its own.
LISTING = re.compile(r"(<pre\b[^>]*>(?:<span></span>)?<code)(?=[\s>])(?![^>]*\btabindex=)")


def focusable_listings(html: str) -> str:
    """``html`` with every listing's ``<code>`` a tab stop."""
    return LISTING.sub(r'\1 tabindex="0"', html)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return focusable_listings(html)
