"""Tab stops in the HTML the build writes (lesson_hooks/build/tab_stops.py)."""

from __future__ import annotations

from lesson_hooks.build.tab_stops import focusable_listings, focusable_terms


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


def test_only_the_first_use_of_each_glossary_term_becomes_a_tab_stop() -> None:
    html = (
        '<p><abbr title="Multi-agent RL">MARL</abbr> and <abbr title="Group …">GRPO</abbr>,'
        ' then <abbr title="Multi-agent RL">MARL</abbr> again.</p>'
    )
    assert focusable_terms(html) == (
        '<p><abbr tabindex="0" title="Multi-agent RL">MARL</abbr> and'
        ' <abbr tabindex="0" title="Group …">GRPO</abbr>,'
        ' then <abbr title="Multi-agent RL">MARL</abbr> again.</p>'
    )
