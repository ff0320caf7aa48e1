"""lab.lm_render escapes every number it shows, so its tables are valid HTML."""

from __future__ import annotations

import re

from lab.lm import TokenLM, describe_models, run_language_models, step_language_models
from lab.lm_render import render_models, render_seeds, render_step

PREFIX = "lab-language-models"
#: A "<" that opens no tag: the HTML checker's "Bad character after <" (and a browser's guess).
STRAY_LT = re.compile(r"<(?![A-Za-z/!])")


def test_a_probability_below_a_thousandth_reads_as_escaped_text() -> None:
    # The pretrained models the page shows without JavaScript hold several (today's defect).
    html = render_models({"before": describe_models(TokenLM(), TokenLM(), False)}, PREFIX)
    assert "&lt;0.001" in html
    assert not STRAY_LT.search(html), STRAY_LT.search(html)


def test_every_part_of_a_run_is_free_of_raw_less_than_signs() -> None:
    params = {"updates": 20, "seeds": 3}
    result = run_language_models(params)
    parts = {
        "models": render_models({"before": result["before"], "after": result["after"]}, PREFIX),
        "seeds": render_seeds(result["seeds"], PREFIX),
        "step": render_step(step_language_models(params, 2), PREFIX),
    }
    for name, html in parts.items():
        assert not STRAY_LT.search(html), (name, STRAY_LT.search(html))
