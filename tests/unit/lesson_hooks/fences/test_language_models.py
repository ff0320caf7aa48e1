"""The ```lab-language-models fence: form from lab.lm.params, bad fences name file:line."""

from __future__ import annotations

import re

import pytest

from lab.lm.params import LM_PARAM_SPEC, validate_lm_params
from lesson_hooks.fences.language_models import parse_page, render_lab
from tests.support.located import raises_located

PATH = "docs/page.md"


def page(body: str, before: str = "Intro.\n\n") -> str:
    return f"{before}```lab-language-models\n{body}```\n"


def fails_at(markdown: str, line: int, problem: str) -> None:
    raises_located(lambda: parse_page(markdown, PATH), PATH, line, problem)


def test_an_empty_fence_is_the_default_lab() -> None:
    (lab,) = parse_page(page(""), PATH)
    assert lab.id == "language-models" and lab.params == validate_lm_params()
    assert lab.line == 3


def test_defaults_are_checked_by_the_validator_at_their_line() -> None:
    (lab,) = parse_page(page("id: trap\ndefaults:\n  safe_reward: 0.9\n  seeds: 5\n"), PATH)
    assert (lab.id, lab.params.safe_reward, lab.params.seeds) == ("trap", 0.9, 5)
    fails_at(
        page("defaults:\n  updates: 10\n  safe_reward: 2\n"),
        6,
        "`defaults`: safe_reward: Safe reward must be a number from 0 to 1; got 2.",
    )


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        ("colour: red\n", 4, "unknown key 'colour'"),
        ("id: Bad Id\n", 4, "`id` 'Bad Id' must be lowercase"),
        ("defaults: 3\n", 4, "`defaults` maps parameter names"),
        ("defaults:\n  seeds: [1\n", 5, "invalid YAML"),
        ("- a list\n", 4, "the lab's settings are a mapping"),
        ("defaults:\n  group: 3\n", 5, "`defaults`: group: Unknown parameter"),
    ],
)
def test_a_bad_fence_fails_at_its_line(body: str, line: int, problem: str) -> None:
    fails_at(page(body), line, problem)


def test_an_unclosed_fence_and_a_repeated_id_are_named() -> None:
    fails_at("```lab-language-models\nid: a\n", 1, "the ```lab-language-models fence is never")
    twice = page("") + "\n" + page("", before="")
    fails_at(twice, 6, "a lab with id 'language-models' is already on this page (line 3)")


def test_a_fence_shown_as_an_example_is_left_alone() -> None:
    assert parse_page("````markdown\n```lab-language-models\n```\n````\n", PATH) == []


def test_the_form_has_one_labelled_control_per_spec_field_and_no_rules() -> None:
    (lab,) = parse_page(page("id: x\ndefaults:\n  compare_alone: false\n"), PATH)
    html = render_lab(lab)
    for name in LM_PARAM_SPEC:
        control = re.search(rf'<(input|select)[^>]*data-lab-field="{name}"[^>]*>', html)
        assert control, name
        field_id = f"lab-x-{name.replace('_', '-')}"
        assert f'id="{field_id}"' in control[0] and f'for="{field_id}"' in html
        assert f'aria-describedby="{field_id}-hint {field_id}-error"' in control[0]
    assert 'data-lab-field="compare_alone"' in html
    box = re.search(r'<input[^>]*data-lab-field="compare_alone"[^>]*>', html)
    assert box and 'type="checkbox"' in box[0] and " checked" not in box[0]
    assert "data-lab-min" not in html and "pattern=" not in html  # Python checks the values


def test_readers_without_javascript_get_a_real_first_update_and_the_pretrained_models() -> None:
    (lab,) = parse_page(page(""), PATH)
    html = render_lab(lab)
    assert html.count('<tr class="is-shown">') == 1
    assert 'id="lab-language-models-model-before"' in html
    assert "def area(w, h): return w * h" in html
    assert "&lt;end&gt;" in html and "<end>" not in html
