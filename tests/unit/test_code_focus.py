"""Listings are tab stops in the HTML the build writes (lesson_hooks/build/code_focus.py)."""

from __future__ import annotations

from lesson_hooks.build.code_focus import focusable_listings


def test_every_listing_becomes_a_tab_stop_and_nothing_else_does() -> None:
    html = (
        '<pre><span></span><code><a id="__codelineno-0-1"></a>x = 1</code></pre>'
        '<pre class="lab-sim__code no-copy"><code>def f(): pass</code></pre>'
        "<p>inline <code>x</code> stays as it is</p>"
        '<pre><code tabindex="-1">kept</code></pre>'
    )
    assert focusable_listings(html) == (
        '<pre><span></span><code tabindex="0"><a id="__codelineno-0-1"></a>x = 1</code></pre>'
        '<pre class="lab-sim__code no-copy"><code tabindex="0">def f(): pass</code></pre>'
        "<p>inline <code>x</code> stays as it is</p>"
        '<pre><code tabindex="-1">kept</code></pre>'
    )
