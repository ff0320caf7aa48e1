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
from html import escape
from typing import Any

from mkdocs.utils import get_relative_url

from lab.core.params import field_hint
from lab.lm.model import TokenLM, describe_models, step_language_models
from lab.lm.params import LMParams, lm_param_spec, validate_lm_params
from lab.lm.render import render_models, render_step
from lesson_hooks.fences.base import Fence
from lesson_hooks.fences.custom import LabFence
from lesson_hooks.fences.settings import Lab, lab_archive, read_lab, render_share
from lesson_hooks.support.memo import memoized
from lesson_hooks.support.paths import LAB_DIR

DEFAULT_ID = "language-models"
STYLESHEET = f"{LAB_DIR}/widgets/language-models.css"

LanguageModelsLab = Lab[LMParams]


def read_language_models(fence: Fence) -> LanguageModelsLab:
    """The block's id and defaults (checked by :func:`lab.lm.params.validate_lm_params`)."""
    return read_lab(fence, validate_lm_params, DEFAULT_ID)


def render_field(lab: LanguageModelsLab, name: str, spec: Mapping[str, Any]) -> str:
    field_id = f"{lab.prefix}-{name.replace('_', '-')}"
    hint_id, error_id = f"{field_id}-hint", f"{field_id}-error"
    value = lab.params.to_json()[name]
    common = (
        f'id="{field_id}" name="{name}" data-lab-field="{name}" '
        f'aria-describedby="{hint_id} {error_id}"'
    )
    if spec["kind"] == "boolean":
        control = f'<input type="checkbox" {common}{" checked" if value else ""}>'
        label = f'<label for="{field_id}">{control} {escape(spec["label"])}</label>'
        return (
            f'<div class="lm-field lm-field--check" data-lab-field-box="{name}">{label}'
            f'<p class="lm-hint" id="{hint_id}">{escape(field_hint(spec))}</p>'
            f'<p class="lm-error" id="{error_id}" data-lab-error="{name}"></p></div>'
        )
    if spec["kind"] == "choice":
        options = "".join(
            f'<option value="{escape(c)}"{" selected" if c == value else ""}>'
            f"{escape(c.replace('_', ' '))}</option>"
            for c in spec["choices"]
        )
        control = f"<select {common}>{options}</select>"
    else:
        mode = "numeric" if spec["kind"] == "integer" else "decimal"
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        control = (
            f'<input type="text" inputmode="{mode}" autocomplete="off" spellcheck="false" '
            f'value="{escape(shown)}" {common}>'
        )
    return (
        f'<div class="lm-field" data-lab-field-box="{name}">'
        f'<label for="{field_id}">{escape(spec["label"])}</label>{control}'
        f'<p class="lm-hint" id="{hint_id}">{escape(field_hint(spec))}</p>'
        f'<p class="lm-error" id="{error_id}" data-lab-error="{name}"></p></div>'
    )


def first_update(args: Mapping[str, Any]) -> dict[str, str]:
    """The first update's group and the pretrained models, rendered for the page."""
    p = args["prefix"]
    before = describe_models(TokenLM(), TokenLM(), False)
    return {
        "step": render_step(step_language_models(args["settings"], 1), p),
        "before": render_models({"before": before}, p),
    }


def render_lab(
    lab: LanguageModelsLab, stylesheet: str = STYLESHEET, archive: str | None = None
) -> str:
    p = lab.prefix
    settings = lab.params.to_json()
    fields = "".join(render_field(lab, name, spec) for name, spec in lm_param_spec().items())
    shown = memoized(first_update, {"settings": settings, "prefix": p})
    return f"""<div class="lab lab-lm" id="{p}" data-lab="language-models" \
data-lab-id="{lab.id}" data-lab-run="idle">
<link rel="stylesheet" href="{escape(stylesheet)}">
<div class="lm-fallback" data-lab-fallback>
<p><strong>This lab needs JavaScript.</strong> It trains the two models in Python, inside your \
browser. Below, computed when the page was built with the lab's settings: the first update's \
group of joint responses, and the models before training.</p>
</div>
<form class="lm-form" id="{p}-form" data-lab-form novalidate hidden \
aria-label="Language-model lab settings">
<div class="lm-fields">{fields}</div>
<div class="lm-actions">
<button type="submit" class="md-button md-button--primary" data-lab-action="run">Run</button>
<button type="button" class="md-button" data-lab-action="step">Step</button>
<button type="button" class="md-button" data-lab-action="stop" disabled>Stop</button>
</div>
</form>
{render_share(p, archive or lab_archive())}
<p class="lab-status" data-lab-status role="status"></p>
<p class="lm-progress" data-lab-progress aria-live="off"></p>
<p class="lm-summary" data-lab-summary aria-live="polite"></p>
<div class="lm-block" data-lab-curve hidden>
<h3 id="{p}-curve-title">Reward while training</h3>
<div class="lm-plot" data-lab-plot></div>
</div>
<div class="lm-block" data-lab-seeds hidden></div>
<div class="lm-block">
<h3 id="{p}-step-title">One update, up close</h3>
<p class="lm-caption" data-lab-step-hint hidden>Step shows the next update of the run these \
settings make: press it again for the one after.</p>
<div data-lab-step>{shown["step"]}</div>
</div>
<div class="lm-block">
<h3 id="{p}-models-title">The models</h3>
<div data-lab-models>{shown["before"]}</div>
</div>
</div>"""


def _render(lab: LanguageModelsLab, fence: Fence) -> str:
    return render_lab(
        lab, get_relative_url(STYLESHEET, fence.page.url), lab_archive(fence.page.url)
    )


FENCE = LabFence("language-models", read_language_models, _render, unique="page")
formatter = FENCE.format
parse_page = FENCE.read_page
