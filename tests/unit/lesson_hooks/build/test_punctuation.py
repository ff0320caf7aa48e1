"""The doubled-punctuation check (lesson_hooks/build/punctuation.py): prose only, at the page."""

from __future__ import annotations

import pytest
from mkdocs.exceptions import PluginError

from lesson_hooks.build.punctuation import check_html, doubled, prose

PATH = "docs/page.md"

DOUBLED = {
    "full stop": "<p>They have opposing rewards.. One side's gain.</p>",
    "across an element": "<li><strong>Right:</strong> No, <em>opposed</em>.. Gain.</li>",
    "commas": "<p>One,, two.</p>",
    "exclamation marks": "<p>Done!!</p>",
    "question marks": "<p>Really??</p>",
    "semicolons": "<p>One;; two.</p>",
    "full stop after a question mark": "<p>Is it cooperative?. No.</p>",
    "full stop after a comma": "<p>One,. two.</p>",
}

CLEAN = {
    "an ellipsis": "<p>Wait... then go. And …</p>",
    "a relative path": "<p>See ../assets/lab/ and a/../b.</p>",
    "code": "<p>Run <code>a..b</code> and <code>x,,y</code>.</p>",
    "preformatted text": "<pre><code>print('hi')..\nf(a,,b)!!</code></pre>",
    "keys": "<p>Press <kbd>!!</kbd>.</p>",
    "math as typed": '<p><span class="arithmatex">\\(a.. b\\)</span>.</p>',
    "typeset math": '<p><span class="katex"><math><mi>a</mi></math>..</span>.</p>',
    "separate blocks": "<p>One.</p><p>.Two</p>",
    "an attribute": '<p title="a..b">Fine.</p>',
}


@pytest.mark.parametrize("html", DOUBLED.values(), ids=DOUBLED.keys())
def test_doubled_punctuation_fails_at_the_page_naming_the_text(html: str) -> None:
    with pytest.raises(PluginError) as caught:
        check_html(html, PATH)
    message = str(caught.value)
    assert message.startswith(f"{PATH}: doubled punctuation in the page's text: "), message
    assert doubled(prose(html))[0] in message


@pytest.mark.parametrize("html", CLEAN.values(), ids=CLEAN.keys())
def test_ellipses_paths_code_keys_and_math_pass(html: str) -> None:
    check_html(html, PATH)


def test_each_doubled_mark_is_named() -> None:
    html = "<p>First.. second,, third.</p>"
    with pytest.raises(PluginError) as caught:
        check_html(html, PATH)
    assert str(caught.value).count(f"{PATH}: ") == 2


def test_prose_is_the_text_a_reader_reads() -> None:
    assert prose("<p>A <em>b</em>.</p><p>C <code>d</code> e&amp;f</p>") == "A b. C e&f"
