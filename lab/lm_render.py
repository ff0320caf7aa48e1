"""The language-model lab's results as HTML, for the build and for the worker alike.

Everything here escapes what it shows, numbers too: a cell may read ``<0.001``.
Element ids start with the lab's ``prefix`` (``lab-<id>``) so a page can hold
several labs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["render_models", "render_seeds", "render_step"]

VERDICT_TEXT = {
    "call": "correct, calls the helper",
    "inline": "correct, main's own product",
    "broken": "broken",
}
METHOD_TEXT = {
    "learned": "MAGRPO",
    "trained_alone": "Trained alone, then paired",
    "communication": "Main reads the helper's code",
}


def _n(x: object, spec: str = "") -> str:
    """A number as markup: formatted by ``spec``, then escaped like any other text."""
    return escape(format(x, spec))


def _num(x: float, digits: int = 2) -> str:
    spec = f"+.{digits}f" if digits and x != 0 else f".{digits}f"
    return _n(x, spec).replace("-", "&minus;")


def _p(x: float) -> str:
    return escape("<0.001") if 0 < x < 0.001 else _n(x, ".3f")


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>" if text else "<em>(nothing)</em>"


def _strength(a: float) -> int:
    """A tint bucket 0 (no push) to 3 (a strong push) for an advantage."""
    size = abs(a)
    return 0 if size < 1e-9 else 1 if size < 0.15 else 2 if size < 0.35 else 3


def render_step(step: Mapping[str, Any], prefix: str) -> str:
    """One update: the group of joint responses with R and A, and one sample's tokens."""
    shown = step["shown"]
    rows = []
    for i, g in enumerate(step["group"]):
        mark = ' class="is-shown"' if i == shown else ""
        rows.append(
            f'<tr{mark}><th scope="row">{i + 1}</th><td>{_code(g["helper"])}</td>'
            f"<td>{_code(g['main'])}</td><td>{escape(VERDICT_TEXT[g['verdict']])}</td>"
            f"<td>{_n(g['reward'], 'g')}</td><td>{_num(g['advantage'])}</td></tr>"
        )
    sample = step["sample"]
    a = sample["advantage"]
    direction = "up" if a > 0 else "down" if a < 0 else "none"

    def tokens(items: Sequence[Mapping[str, Any]], who: str) -> str:
        chips = "".join(
            f"<li><code>{escape(t['token'])}</code>"
            f'<span class="lm-tokens__p">{_p(t["before"])} → {_p(t["after"])}</span></li>'
            for t in items
        )
        return (
            f'<p class="lm-tokens__who">{escape(who)}</p>'
            f'<ol class="lm-tokens lm-tokens--{direction}" data-strength="{_strength(a)}" '
            f'aria-label="{escape(who)}: each token with its probability before → after">'
            f"{chips}</ol>"
        )

    n = len(step["group"])
    return (
        f'<h4 id="{prefix}-step-{step["update"]}">Update {step["update"]}: a group of {n} '
        f"joint responses</h4>"
        f'<p class="lm-caption">Mean reward {step["mean_reward"]:.2f}. Each advantage A is the '
        f"reward R minus the group's baseline ({escape(step['params']['baseline'])}).</p>"
        f'<div class="lm-scroll" tabindex="0" role="region" aria-label="Group of update '
        f'{step["update"]}"><table class="lm-group"><thead><tr><th scope="col">#</th>'
        f'<th scope="col">Helper writes</th><th scope="col">Main writes</th>'
        f'<th scope="col">Verifier</th><th scope="col">R</th><th scope="col">A</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
        f'<h4 id="{prefix}-sample-{step["update"]}">Response {shown + 1}, token by token '
        f"(A = {_num(a)})</h4>"
        f'<p class="lm-caption">Every token of both responses gets the same advantage, '
        f"{_num(a)}: one number for the whole joint response. Each token's logit moves by "
        f"A &times; (1 &minus; p), so a token the model was already sure of barely changes; the "
        f"uncertain choices move.</p>"
        f"{tokens(sample['helper'], 'Helper')}{tokens(sample['main'], 'Main')}"
    )


def _responses(items: Sequence[Mapping[str, Any]]) -> str:
    rows = "".join(
        f'<li>{_code(r["code"])} <span class="lm-prob">{_p(r["probability"])}</span></li>'
        for r in items
    )
    return f'<ol class="lm-responses">{rows}</ol>'


def _next_token(view: Mapping[str, Any]) -> str:
    rows = "".join(
        f"<tr><td><code>{escape(t['token'])}</code></td><td>{_p(t['probability'])}</td></tr>"
        for t in view["next"]
    )
    return (
        f'<table class="lm-next"><caption>After <code>{escape(view["so_far"])}</code>, '
        f'the next token</caption><thead><tr><th scope="col">token</th>'
        f'<th scope="col">p</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def render_models(models: Mapping[str, Mapping[str, Any]], prefix: str) -> str:
    """The models ``before`` (pretrained) and, when trained, ``after``."""
    columns = []
    for when, title in (("before", "Before training"), ("after", "After MAGRPO")):
        if when not in models:
            continue
        m = models[when]
        columns.append(
            f'<div class="lm-model"><h4 id="{prefix}-model-{when}">{title}</h4>'
            f"<p>The helper's most likely responses:</p>{_responses(m['helper'])}"
            f"{_next_token(m['next_token']['helper'])}"
            f"<p>Main's most likely bodies:</p>{_responses(m['main'])}"
            f"{_next_token(m['next_token']['main'])}</div>"
        )
    return f'<div class="lm-models">{"".join(columns)}</div>'


def render_seeds(seeds: Mapping[str, Any], prefix: str) -> str:
    """The many-seed distribution: how many reached the optimum, and each seed's outcome."""
    methods = [m for m in METHOD_TEXT if seeds.get(m)]
    rows = []
    for m in methods:
        t = seeds[m]
        names = ", ".join(f"{escape(k)} {_n(v)}" for k, v in t["conventions"].items()) or "none"
        rows.append(
            f'<tr><th scope="row">{escape(METHOD_TEXT[m])}</th><td>{_n(t["optimal"])} of '
            f"{_n(t['seeds'])}</td><td>{_n(t['inline'])}</td><td>{names}</td>"
            f"<td>{_n(t['mean_expected_reward'], '.2f')}</td></tr>"
        )
    head = "".join(f'<th scope="col">{escape(METHOD_TEXT[m])}</th>' for m in methods)
    per_seed = "".join(
        f'<tr><th scope="row">{_n(r["seed"])}</th>'
        + "".join(f"<td>{escape(str(r.get(m, '')))}</td>" for m in methods)
        + "</tr>"
        for r in seeds["runs"]
    )
    return (
        f'<h4 id="{prefix}-seeds-title">Seeds {seeds["first"]} to '
        f"{seeds['first'] + seeds['count'] - 1}</h4>"
        f'<div class="lm-scroll" tabindex="0" role="region" aria-label="Outcome over seeds">'
        f'<table class="lm-seeds"><thead><tr><th scope="col">Method</th>'
        f'<th scope="col">Reached the optimum</th><th scope="col">Stuck inlining</th>'
        f'<th scope="col">Conventions</th><th scope="col">Mean expected reward</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
        f"<details><summary>Each seed's outcome (the name called, or how it ended)</summary>"
        f'<div class="lm-scroll" tabindex="0" role="region" aria-label="Each seed">'
        f'<table class="lm-seeds"><thead><tr><th scope="col">Seed</th>{head}</tr></thead>'
        f"<tbody>{per_seed}</tbody></table></div></details>"
    )
