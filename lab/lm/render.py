"""The language-model lab's results as HTML, for the build and for the worker alike.

All markup is made by :mod:`lab.core.markup`, so whatever a result holds (code,
tokens, numbers such as ``<0.001``) reaches the page as text. Element ids start
with the lab's ``prefix`` (``lab-<id>``) so a page can hold several labs.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from lab.core.markup import Markup, el, join, trusted
from lab.core.movement import MOVING_THRESHOLD
from lab.core.stats import wilson_interval

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
# The tables' signs and the caption's formula, as the page has always written them.
MINUS, TIMES = trusted("&minus;"), trusted("&times;")


def _prose(text: str) -> Markup:
    """One of this module's own sentences: escaped, with its apostrophes as typed.

    The page has always carried them so (an escaped apostrophe is ``&#x27;``);
    an apostrophe is safe in text and in a double-quoted attribute.
    """
    return trusted(html.escape(text, quote=False).replace('"', "&quot;"))


def _num(x: float, digits: int = 2) -> Markup:
    text = f"{x:+.{digits}f}" if digits and x != 0 else f"{x:.{digits}f}"
    return join(text.split("-"), MINUS)


def _p(x: float) -> str:
    if 0 < x < 0.001:
        return "<0.001"
    return f"{x:.3f}"


def _code(text: str) -> Markup:
    return el("code", None, text) if text else el("em", None, "(nothing)")


def _strength(a: float) -> int:
    """A tint bucket 0 (no push) to 3 (a strong push) for an advantage."""
    size = abs(a)
    return 0 if size < 1e-9 else 1 if size < 0.15 else 2 if size < 0.35 else 3


def _head(*columns: str) -> Markup:
    """A table's head row: one column header per name."""
    return el("thead", None, el("tr", None, *(el("th", {"scope": "col"}, c) for c in columns)))


def _scroll(label: str, table: Markup) -> Markup:
    """A wide table in a region the keyboard can scroll."""
    return el(
        "div", {"class": "lm-scroll", "tabindex": "0", "role": "region", "aria-label": label}, table
    )


def render_step(step: Mapping[str, Any], prefix: str) -> Markup:
    """One update: the group of joint responses with R and A, and one sample's tokens."""
    shown = step["shown"]
    rows = [
        el(
            "tr",
            {"class": "is-shown" if i == shown else None},
            el("th", {"scope": "row"}, i + 1),
            el("td", None, _code(g["helper"])),
            el("td", None, _code(g["main"])),
            el("td", None, VERDICT_TEXT[g["verdict"]]),
            el("td", None, f"{g['reward']:g}"),
            el("td", None, _num(g["advantage"])),
        )
        for i, g in enumerate(step["group"])
    ]
    sample = step["sample"]
    a = sample["advantage"]
    direction = "up" if a > 0 else "down" if a < 0 else "none"

    def tokens(items: Sequence[Mapping[str, Any]], who: str) -> Markup:
        chips = [
            el(
                "li",
                None,
                el("code", None, t["token"]),
                el("span", {"class": "lm-tokens__p"}, f"{_p(t['before'])} → {_p(t['after'])}"),
                el("span", {"class": "lm-tokens__alone"}, f"alone {_p(t['alone'])}"),
            )
            for t in items
        ]
        attributes = {
            "class": f"lm-tokens lm-tokens--{direction}",
            "data-strength": _strength(a),
            "aria-label": (
                f"{who}: each token with its probability before → after the group's update, "
                "then after this response's share alone"
            ),
        }
        return join(
            [
                el("p", {"class": "lm-tokens__who"}, who),
                el("ol", attributes, *chips),
                el("p", {"class": "lm-caption"}, _biggest_move(items)),
            ]
        )

    params = step["params"]
    if params.get("token_weighting", "sum") == "mean":
        share = join(
            [
                _prose(
                    "Each token gets the advantage divided by its response's length, A / |o| "
                    "(GRPO's length normalisation): the helper's "
                    f"{len(sample['helper'])} decisions get "
                ),
                _num(a / len(sample["helper"]), 3),
                _prose(f" each, main's {len(sample['main'])} get "),
                _num(a / len(sample["main"]), 3),
                _prose(". From this response alone, each token's logit moves by η / G "),
                TIMES,
                _prose(" that share "),
            ]
        )
    else:
        share = join(
            [
                "Every token of both responses gets the same advantage, ",
                _num(a),
                _prose(
                    ": one number for the whole joint response. From this response alone, each "
                    "token's logit moves by η / G "
                ),
                TIMES,
                " A ",
            ]
        )
    temperature = params.get("temperature", 1.0)
    tempered = (
        _prose(
            f" The probabilities shown are at temperature {temperature:g}, as the models write; "
            "the update's p is at temperature 1, as in CoMLRL's loss."
        )
        if temperature != 1.0
        else ""
    )
    update, n = step["update"], len(step["group"])
    group = el(
        "table",
        {"class": "lm-group"},
        _head("#", "Helper writes", "Main writes", "Verifier", "R", "A"),
        el("tbody", None, *rows),
    )
    return join(
        [
            el(
                "h4",
                {"id": f"{prefix}-step-{update}"},
                f"Update {update}: a group of {n} joint responses",
            ),
            el(
                "p",
                {"class": "lm-caption"},
                _prose(
                    f"Mean reward {step['mean_reward']:.2f}. Each advantage A is the reward R "
                    "minus the group's baseline ("
                ),
                step["params"]["baseline"],
                ").",
            ),
            _scroll(f"Group of update {update}", group),
            el(
                "h4",
                {"id": f"{prefix}-sample-{update}"},
                f"Response {shown + 1}, token by token (A = ",
                _num(a),
                ")",
            ),
            el(
                "p",
                {"class": "lm-caption"},
                share,
                TIMES,
                " (1 ",
                MINUS,
                _prose(
                    f" p), with η the learning rate ({params['learning_rate']:g}) and G the "
                    f"group's {n} responses: a token the model was already sure of barely "
                    "changes; the uncertain choices move. Each token shows its probability "
                    "before → after the whole group's update, then (alone) after this "
                    "response's share only: the group's other responses push the same choices "
                    "too, so the two can differ, even in direction."
                ),
                tempered,
            ),
            tokens(sample["helper"], "Helper"),
            tokens(sample["main"], "Main"),
        ]
    )


def _biggest_move(items: Sequence[Mapping[str, Any]]) -> Markup:
    """Which of a response's tokens the whole update moved most, before and after."""
    moves = [abs(t["after"] - t["before"]) for t in items]
    if not moves or max(moves) == 0:
        return _prose("No token's probability changed.")
    t = items[moves.index(max(moves))]
    return join(
        [
            _prose("Biggest change in the group's update: "),
            el("code", None, t["token"]),
            f", {_p(t['before'])} → {_p(t['after'])}.",
        ]
    )


def _responses(items: Sequence[Mapping[str, Any]]) -> Markup:
    rows = (
        el(
            "li",
            None,
            _code(r["code"]),
            " ",
            el("span", {"class": "lm-prob"}, _p(r["probability"])),
        )
        for r in items
    )
    return el("ol", {"class": "lm-responses"}, *rows)


def _next_token(view: Mapping[str, Any]) -> Markup:
    rows = (
        el(
            "tr",
            None,
            el("td", None, el("code", None, t["token"])),
            el("td", None, _p(t["probability"])),
        )
        for t in view["next"]
    )
    return el(
        "table",
        {"class": "lm-next"},
        el("caption", None, "After ", el("code", None, view["so_far"]), ", the next token"),
        _head("token", "p"),
        el("tbody", None, *rows),
    )


def render_models(models: Mapping[str, Mapping[str, Any]], prefix: str) -> Markup:
    """The models ``before`` (pretrained) and, when trained, ``after``."""
    columns = []
    for when, title in (("before", "Before training"), ("after", "After MAGRPO")):
        if when not in models:
            continue
        m = models[when]
        columns.append(
            el(
                "div",
                {"class": "lm-model"},
                el("h4", {"id": f"{prefix}-model-{when}"}, title),
                el("p", None, _prose("The helper's most likely responses:")),
                _responses(m["helper"]),
                _next_token(m["next_token"]["helper"]),
                el("p", None, _prose("Main's most likely bodies:")),
                _responses(m["main"]),
                _next_token(m["next_token"]["main"]),
            )
        )
    return el("div", {"class": "lm-models"}, *columns)


def _count(successes: int, trials: int) -> Markup:
    """``18 of 20`` and its 95% interval: ``(70% to 97% of all seeds)``."""
    low, high = wilson_interval(successes, trials)
    return join(
        [
            f"{successes} of {trials}",
            el("span", {"class": "lm-interval"}, f" ({low:.0%} to {high:.0%} of all seeds)"),
        ]
    )


def render_seeds(seeds: Mapping[str, Any], prefix: str) -> Markup:
    """The many-seed distribution: each count with its interval, and each seed's outcome."""
    methods = [m for m in METHOD_TEXT if seeds.get(m)]
    rows = []
    for m in methods:
        t = seeds[m]
        names = ", ".join(f"{k} {v}" for k, v in t["conventions"].items()) or "none"
        rows.append(
            el(
                "tr",
                None,
                el("th", {"scope": "row"}, METHOD_TEXT[m]),
                *(
                    el("td", None, _count(t[c], t["seeds"]))
                    for c in ("call", "inline", "optimal", "still_moving")
                ),
                el("td", None, names),
                el("td", None, f"{t['mean_expected_reward']:.2f}"),
            )
        )
    per_seed = (
        el(
            "tr",
            None,
            el("th", {"scope": "row"}, r["seed"]),
            *(el("td", None, r.get(m, "")) for m in methods),
        )
        for r in seeds["runs"]
    )
    first, last = seeds["first"], seeds["first"] + seeds["count"] - 1
    outcome = el(
        "table",
        {"class": "lm-seeds"},
        _head(
            "Method",
            "Calls a shared name",
            "Inlines w * h",
            "Within 2% of the best",
            "Still moving at the end",
            "Conventions",
            "Mean expected reward",
        ),
        el("tbody", None, *rows),
    )
    each = el(
        "table",
        {"class": "lm-seeds"},
        _head("Seed", *(METHOD_TEXT[m] for m in methods)),
        el("tbody", None, *per_seed),
    )
    return join(
        [
            el("h4", {"id": f"{prefix}-seeds-title"}, f"Seeds {first} to {last}"),
            _scroll("Outcome over seeds", outcome),
            el(
                "p",
                {"class": "lm-caption"},
                _prose(
                    "Each count of seeds comes with its 95% interval (Wilson): the share of all "
                    "seeds it is consistent with. A pair calls a shared name, or inlines, by its "
                    "most likely program; it is within 2% of the best by its "
                    "exact expected reward, as the simulation lab counts; it is still moving "
                    f"when its play, the distribution of its joint programs, changed by more "
                    f"than {MOVING_THRESHOLD:g} (total variation) over the last tenth of the "
                    "updates, as the simulation lab measures."
                ),
            ),
            el(
                "details",
                None,
                el(
                    "summary",
                    None,
                    _prose("Each seed's outcome (the name called, or how it ended)"),
                ),
                _scroll("Each seed", each),
            ),
        ]
    )
