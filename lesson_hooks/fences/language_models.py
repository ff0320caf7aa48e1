"""The language-model lab, declared in Markdown as a ```` ```lab-language-models ```` block.

The block's YAML body is optional (:mod:`lesson_hooks.fences.settings`)::

    ```lab-language-models
    id: language-models       # optional; names the lab's element ids (lab-<id>-...)
    defaults:                 # optional; starting values, checked by lab.lm.params
      safe_reward: 0.75
    ```

The form's fields come from :data:`lab.lm.params.LM_PARAM_SPEC`; Python checks
every value when the reader runs, so the page holds no copy of the rules. The
build renders the pretrained models and the first update's group with the lab's
settings (by the same :mod:`lab.lm.render` the worker uses), so readers
without JavaScript see real output (a warm build reads it from the build memo,
:mod:`lesson_hooks.support.memo`). A bad block fails the build with
``docs/<page>.md:<line>: ...``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lab.core.markup import Markup, el, join, trusted
from lab.lm.model import TokenLM, describe_models, step_language_models
from lab.lm.params import LMParams, lm_param_spec, validate_lm_params
from lab.lm.render import render_models, render_step
from lesson_hooks.fences.base import Fence
from lesson_hooks.fences.fields import Style, render_fields
from lesson_hooks.fences.settings import (
    Lab,
    lab_archive,
    read_lab,
    render_fallback,
    render_share,
    render_shell,
    run_lab_fence,
)
from lesson_hooks.support.memo import memoized

DEFAULT_ID = "language-models"

LanguageModelsLab = Lab[LMParams]


def read_language_models(fence: Fence) -> LanguageModelsLab:
    """The block's id and defaults (checked by :func:`lab.lm.params.validate_lm_params`)."""
    return read_lab(fence, validate_lm_params, DEFAULT_ID)


#: The language-model lab's class names for the shared field renderer.
STYLE = Style(field="lm-field", hint="lm-hint", error="lm-error")


def first_update(args: Mapping[str, Any]) -> dict[str, str]:
    """The first update's group and the pretrained models, rendered for the page."""
    p = args["prefix"]
    before = describe_models(TokenLM(), TokenLM(), False)
    # Labelled as the build's, so the first Step (update 2) visibly moves on from it.
    built = el(
        "p",
        {"class": "lm-caption", "data-lab-step-built": ""},
        el("strong", None, "Before any Step:"),
        " update 1 of the run these settings make, computed when this page was built. "
        "Step shows update 2, then each next one.",
    )
    return {
        "step": join([built, render_step(step_language_models(args["settings"], 1), p)]),
        "before": render_models({"before": before}, p),
    }


# The thick line's moving average (language-models.js reads it from the key).
WINDOW = 10


def _curve_key() -> Markup:
    """What each line of the reward chart is, under it, as text a phone keeps readable."""
    items = (
        ("lm-key__raw", "Thin line: the mean reward of each update's group of joint responses."),
        ("lm-key__mean", f"Thick line: the average of the last {WINDOW} updates' means."),
        ("lm-key__safe", "Dashed line: the safe reward, what a correct program earns inline."),
    )
    # The band's entry: shown, and its words filled in, by a run over several seeds.
    band = el(
        "li",
        {"class": "lm-key__item", "data-lab-band-key": True, "hidden": True},
        el("span", {"class": "lm-key__swatch lm-key__band"}),
        el("span", {"data-lab-band-text": True}),
    )
    return el(
        "ul",
        {"class": "lm-key", "data-lab-window": WINDOW},
        *(
            el("li", {"class": "lm-key__item"}, el("span", {"class": f"lm-key__swatch {c}"}), text)
            for c, text in items
        ),
        band,
    )


def _block(title_id: str, title: str, *children: object, **named: Any) -> Markup:
    """A titled part of the lab's results."""
    heading = el("h3", {"id": title_id}, title)
    return el("div", {"class": "lm-block"}, "\n", heading, *children, **named)


def render_lab(lab: LanguageModelsLab, archive: str | None = None) -> Markup:
    p = lab.prefix
    settings = lab.params.to_json()
    fields = render_fields(p, settings, lm_param_spec(), STYLE)
    shown = memoized(first_update, {"settings": settings, "prefix": p})
    button = "md-button"
    form = el(
        "form",
        {
            "class": "lm-form",
            "id": f"{p}-form",
            "data-lab-form": True,
            "novalidate": True,
            "hidden": True,
            "aria-label": "Language-model lab settings",
        },
        "\n",
        el("div", {"class": "lm-fields"}, fields),
        "\n",
        el(
            "div",
            {"class": "lm-actions"},
            "\n",
            el(
                "button",
                {
                    "type": "submit",
                    "class": f"{button} {button}--primary",
                    "data-lab-action": "run",
                },
                "Run",
            ),
            "\n",
            el("button", {"type": "button", "class": button, "data-lab-action": "step"}, "Step"),
            "\n",
            el(
                "button",
                {"type": "button", "class": button, "data-lab-action": "stop", "disabled": True},
                "Stop",
            ),
            "\n",
        ),
        "\n",
    )
    parts = (
        render_fallback(
            "lm-fallback",
            "It trains the two models in Python, inside your browser. Below, computed when "
            "the page was built with the lab's settings: the first update's group of joint "
            "responses, and the models before training.",
        ),
        form,
        render_share(p, archive or lab_archive()),
        el("p", {"class": "lab-status", "data-lab-status": True, "role": "status"}),
        el("p", {"class": "lm-progress", "data-lab-progress": True, "aria-live": "off"}),
        el("p", {"class": "lm-summary", "data-lab-summary": True, "aria-live": "polite"}),
        _block(
            f"{p}-curve-title",
            "Reward while training",
            "\n",
            el("div", {"class": "lm-plot", "data-lab-plot": True}),
            "\n",
            _curve_key(),
            "\n",
            data_lab_curve=True,
            hidden=True,
        ),
        el(
            "div",
            {"class": "lm-block", "data-lab-seeds": True, "data-lab-html": "seeds", "hidden": True},
        ),
        _block(
            f"{p}-step-title",
            "One update, up close",
            "\n",
            el(
                "p",
                {"class": "lm-caption", "data-lab-step-hint": True, "hidden": True},
                "Step shows the next update of the run these settings make: press it again for "
                "the one after.",
            ),
            "\n",
            # Which update the view shows, and of which run (language-models.js): a Step's
            # words go here, so the lab's summary stays the Run's, beside its curve.
            el(
                "p",
                {
                    "class": "lm-caption lm-step-note",
                    "data-lab-step-note": True,
                    "aria-live": "polite",
                    "hidden": True,
                },
            ),
            "\n",
            # Rendered by lab.lm.render through the markup builder; the memo hands back text.
            el("div", {"data-lab-step": True, "data-lab-html": "step"}, trusted(shown["step"])),
            "\n",
        ),
        _block(
            f"{p}-models-title",
            "The models",
            "\n",
            el(
                "div",
                {"data-lab-models": True, "data-lab-html": "models"},
                trusted(shown["before"]),
            ),
            "\n",
        ),
    )
    return render_shell(lab, "language-models", "lab-lm", parts)


FENCE = run_lab_fence("language-models", read_language_models, render_lab)
formatter = FENCE.format
parse_page = FENCE.read_page
