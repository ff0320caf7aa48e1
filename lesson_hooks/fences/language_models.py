"""The language-model lab, declared in Markdown as a ```` ```lab-language-models ```` fence.

The fence's YAML body is optional::

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
:mod:`lesson_hooks.support.memo`). A bad fence fails the build with
``docs/<page>.md:<line>: ...``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from lab.lm.model import TokenLM, describe_models, step_language_models
from lab.lm.params import LMParams, lm_param_spec, validate_lm_params
from lab.lm.render import render_models, render_step
from lab.sim.params import ParamError
from lesson_hooks.fences import base as fence_blocks
from lesson_hooks.fences.base import NULL_TAG, SLUG, Fence, FenceError
from lesson_hooks.support.memo import memoized
from lesson_hooks.support.paths import LAB_DIR

FENCE_INFO = "lab-language-models"
DEFAULT_ID = "language-models"
FENCE_KEYS = ("id", "defaults")
STYLESHEET = f"{LAB_DIR}/widgets/language-models.css"


class LanguageModelsFenceError(FenceError):
    """A bad ```lab-language-models fence; the message starts with ``path:line:``."""


@dataclass(frozen=True)
class LanguageModelsLab:
    id: str
    params: LMParams
    line: int

    @property
    def prefix(self) -> str:
        return f"lab-{self.id}"


def parse_fence(fence: Fence, path: str) -> LanguageModelsLab:
    """Validate one fence's YAML; errors name ``path`` and the line."""

    def fail(line: int, problem: str) -> LanguageModelsFenceError:
        return LanguageModelsFenceError(path, line, problem)

    try:
        root = fence_blocks.compose_yaml(fence.body)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = fence.line + 1 + (mark.line if mark else 0)
        raise fail(line, f"invalid YAML: {err.problem}.") from err
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == NULL_TAG):
        return LanguageModelsLab(DEFAULT_ID, validate_lm_params(), fence.line)

    def line_of(node: yaml.Node) -> int:
        return fence.line + 1 + node.start_mark.line

    if not isinstance(root, yaml.MappingNode):
        raise fail(line_of(root), "the lab's settings are a mapping with keys `id`, `defaults`.")
    lab_id, defaults, lines = DEFAULT_ID, {}, {}
    for key_node, node in root.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key == "id":
            value = node.value if isinstance(node, yaml.ScalarNode) else None
            if not isinstance(value, str) or not SLUG.match(value):
                raise fail(
                    line_of(node),
                    f"`id` {value!r} must be lowercase words joined by "
                    "single hyphens (like language-models).",
                )
            lab_id = value
        elif key == "defaults":
            if not isinstance(node, yaml.MappingNode):
                raise fail(line_of(node), "`defaults` maps parameter names to starting values.")
            for name_node, value_node in node.value:
                name = str(name_node.value)
                defaults[name] = yaml.safe_load(yaml.serialize(value_node))
                lines[name] = line_of(name_node)
        else:
            raise fail(
                line_of(key_node),
                f"unknown key {key!r} in the lab's settings (expected `id`, `defaults`).",
            )
    try:
        params = validate_lm_params(defaults)
    except ParamError as err:
        name, reason = next(iter(err.fields.items()))
        raise fail(lines.get(name, fence.line), f"`defaults`: {name}: {reason}") from err
    return LanguageModelsLab(lab_id, params, fence.line)


def parse_page(markdown: str, path: str) -> list[LanguageModelsLab]:
    fences = fence_blocks.find_fences(markdown, path, FENCE_INFO, LanguageModelsFenceError)
    labs = [parse_fence(fence, path) for fence in fences]
    seen: dict[str, int] = {}
    for lab in labs:
        if lab.id in seen:
            raise LanguageModelsFenceError(
                path,
                lab.line,
                f"a lab with id {lab.id!r} is already on this page "
                f"(line {seen[lab.id]}); give this one its own `id`.",
            )
        seen[lab.id] = lab.line
    return labs


# ----------------------------------------------------------------- rendering


def _hint(spec: Mapping[str, Any]) -> str:
    limits = ""
    if spec["kind"] == "integer":
        limits = f" Whole number, {spec['min']} to {spec['max']}."
    elif spec["kind"] == "number" and "min_exclusive" in spec:
        limits = f" Above {spec['min_exclusive']:g}, at most {spec['max']:g}."
    elif spec["kind"] == "number":
        limits = f" From {spec['min']:g} to {spec['max']:g}."
    return spec["help"] + limits


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
            f'<p class="lm-hint" id="{hint_id}">{escape(spec["help"])}</p>'
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
        f'<p class="lm-hint" id="{hint_id}">{escape(_hint(spec))}</p>'
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


def render_lab(lab: LanguageModelsLab, stylesheet: str = STYLESHEET) -> str:
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


@fence_blocks.file_lines
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if FENCE_INFO not in markdown:
        return markdown
    path = fence_blocks.display_path(page.file, config)
    fences = fence_blocks.find_fences(markdown, path, FENCE_INFO, LanguageModelsFenceError)
    labs = parse_page(markdown, path)
    stylesheet = get_relative_url(STYLESHEET, page.url)
    blocks = [render_lab(lab, stylesheet) for lab in labs]
    return fence_blocks.replace_fences(markdown, fences, blocks)
