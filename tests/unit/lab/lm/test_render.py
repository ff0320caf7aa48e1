"""lab.lm.render: the language-model lab's tables, every cell reaching the page as text."""

from __future__ import annotations

import re
from typing import Any

from lab.lm.model import pretrained_models, run_language_models, step_language_models
from lab.lm.render import render_models, render_seeds, render_step

PREFIX = "lab-lm"


def models_with(probability: float, code: str) -> dict[str, Any]:
    before = pretrained_models()
    helper = [{**before["helper"][0], "code": code, "probability": probability}]
    view = before["next_token"]["main"]
    main_view = {**view, "next": [{"token": "<end>", "probability": probability}]}
    return {
        "before": {
            **before,
            "helper": helper,
            "next_token": {**before["next_token"], "main": main_view},
        }
    }


def test_a_probability_below_a_thousandth_is_the_text_lt_0_001() -> None:
    html = render_models(models_with(0.0004, "def area(w, h): return w * h"), PREFIX)
    assert '<span class="lm-prob">&lt;0.001</span>' in html
    assert "<td><code>&lt;end&gt;</code></td><td>&lt;0.001</td>" in html
    assert "<0.001" not in html


def test_what_a_model_wrote_is_text_not_markup() -> None:
    html = render_models(models_with(0.5, '<img src=x onerror="alert(1)">'), PREFIX)
    assert "<img" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


def test_a_step_shows_every_tokens_probability_as_text() -> None:
    step = step_language_models({"seed": 0}, 1)
    step["sample"]["helper"][0] = {"token": "def", "before": 0.0002, "after": 0.0009, "alone": 0.0}
    html = render_step(step, PREFIX)
    assert '<span class="lm-tokens__p">&lt;0.001 → &lt;0.001</span>' in html
    assert html.count('<tr class="is-shown">') == 1
    assert f'<h4 id="{PREFIX}-step-1">Update 1: a group of 16 joint responses</h4>' in html


def test_the_seed_table_escapes_what_it_names() -> None:
    tally = {
        "seeds": 2,
        "optimal": 1,
        "call": 1,
        "inline": 1,
        "broken": 0,
        "still_moving": 0,
        "conventions": {"<b>area</b>": 1},
        "mean_expected_reward": 0.8,
    }
    seeds = {"first": 0, "count": 2, "learned": tally, "runs": [{"seed": 0, "learned": "<i>"}]}
    html = render_seeds(seeds, PREFIX)
    assert "<td>&lt;b&gt;area&lt;/b&gt; 1</td>" in html
    assert "<td>&lt;i&gt;</td>" in html
    assert f'<h4 id="{PREFIX}-seeds-title">Seeds 0 to 1</h4>' in html
    # Each count with its 95% interval, as a share of all seeds.
    assert '<td>1 of 2<span class="lm-interval"> (9% to 91% of all seeds)</span></td>' in html


def test_a_step_shows_each_agents_biggest_change_and_says_how_tokens_share_the_push() -> None:
    step = step_language_models({"seed": 0}, 1)
    html = render_step(step, PREFIX)
    assert html.count("Biggest change in the group's update: ") == 2
    assert "Every token of both responses gets the same advantage" in html
    assert "temperature" not in html
    mean = render_step(
        step_language_models({"token_weighting": "mean", "temperature": 0.6}, 1), "p"
    )
    assert "A / |o| (GRPO's length normalisation)" in mean
    assert "at temperature 0.6, as the models write" in mean


#: A "<" that opens no tag: the HTML checker's "Bad character after <" (and a browser's guess).
STRAY_LT = re.compile(r"<(?![A-Za-z/!])")


def test_every_part_of_a_run_is_free_of_raw_less_than_signs() -> None:
    params = {"updates": 20, "seeds": 3}
    result = run_language_models(params)
    parts = {
        "pretrained": render_models({"before": pretrained_models()}, PREFIX),
        "models": render_models({"before": result["before"], "after": result["after"]}, PREFIX),
        "seeds": render_seeds(result["seeds"], PREFIX),
        "step": render_step(step_language_models(params, 2), PREFIX),
    }
    for name, html in parts.items():
        assert not STRAY_LT.search(html), (name, STRAY_LT.search(html))


def test_a_steps_caption_names_the_arithmetic_of_the_numbers_it_shows() -> None:
    """A x (1 - p) is this response's share; the numbers after the arrow are the whole
    group's update, so the page shows both, as the caption says (issue 23 item 6)."""
    step = step_language_models({}, 2)
    html = render_step(step, PREFIX)
    assert "logit moves by η / G &times; A &times; (1 &minus; p)" in html
    assert "the learning rate (4) and G the group's 16 responses" in html
    rect = step["sample"]["helper"][1]
    assert rect["token"] == "rect"
    assert (
        '<span class="lm-tokens__p">0.383 → 0.374</span>'
        '<span class="lm-tokens__alone">alone 0.420</span>'
    ) in html
