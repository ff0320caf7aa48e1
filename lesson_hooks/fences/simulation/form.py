"""The simulation lab's form, generated from :func:`lab.param_spec`.

Every field of the spec becomes one labelled control, by its ``kind``
(``choice``, ``integer``, ``number``, ``table``), with the spec's label, choice
texts (``choice_labels``) and limits (said in a hint,
:func:`lab.core.params.field_hint`), an empty error slot the
page fills with :func:`lab.validate_params`'s own reason, and, for a field only
some settings use (``used_when``), those settings as data so the page can hide
it. A field the model adds to the spec appears here with no other change;
``assets/lab/widgets/simulation.js`` reads the controls by these attributes only and
leaves every check to Python.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from html import escape
from typing import Any

from mkdocs.exceptions import PluginError

from lab import param_spec
from lab.core.markup import attrs, el, void
from lab.core.params import field_hint
from lab.sim.render import field_used, format_number
from lab.sim.task import HELPER_RESPONSES, MAIN_RESPONSES
from lesson_hooks.fences.simulation.fence import SimulationLab

#: The choices of the time limit on the reader's code, in seconds (see render_actions).
TIME_LIMITS = (2, 5, 10, 30)
DEFAULT_TIME_LIMIT = 5


class Field:
    """One field of the spec on one lab's form: its ids and the lab's starting value."""

    def __init__(self, lab: SimulationLab, name: str, spec: Mapping[str, Any]) -> None:
        self.lab, self.name, self.spec = lab, name, spec
        self.id = f"{lab.prefix}-{name.replace('_', '-')}"
        self.error_id = f"{self.id}-error"
        self.value = lab.params.to_json().get(name, spec.get("default"))

    def box(self, inner: str, tag: str = "div", after: str = "", **extra: Any) -> str:
        """The field's box: hidden when the lab's settings do not use the field."""
        used_when = self.spec.get("used_when")
        hidden = not field_used(self.spec, self.lab.params.to_json())
        box = attrs(
            class_=f"lab-sim__field lab-sim__field--{self.spec['kind']}",
            data_lab_field_box=self.name,
            data_lab_used_when=json.dumps(used_when) if used_when else None,
            hidden=hidden,
            **extra,
        )
        error = f'<p class="lab-sim__error" id="{self.error_id}" data-lab-error="{self.name}"></p>'
        return f"<{tag}{box}>{inner}{error}{after}</{tag}>"

    def hint(self, text: str) -> tuple[str, str | None]:
        """The hint's markup and id (none for an empty hint)."""
        if not text:
            return "", None
        hint_id = f"{self.id}-hint"
        return f'<p class="lab-sim__hint" id="{hint_id}">{escape(text)}</p>', hint_id

    def described_by(self, hint_id: str | None) -> str:
        return " ".join(i for i in (hint_id, self.error_id) if i)

    def label(self) -> str:
        return f'<label for="{self.id}">{escape(self.spec["label"])}</label>'


def render_choice(field: Field) -> str:
    """A <select> of the spec's choices, named by its ``choice_labels``."""
    spec = field.spec
    names = spec.get("choice_labels", {})
    options = "".join(
        f"<option{attrs(value=c, selected=c == field.value)}>"
        f"{escape(str(names.get(c, names.get(str(c), c))))}</option>"
        for c in spec["choices"]
    )
    numeric = all(isinstance(c, int | float) and not isinstance(c, bool) for c in spec["choices"])
    hint_html, hint_id = field.hint(field_hint(spec))
    select = attrs(
        id=field.id,
        name=field.name,
        data_lab_field=field.name,
        data_lab_kind="choice",
        data_lab_numeric=numeric,
        aria_describedby=field.described_by(hint_id),
    )
    return field.box(f"{field.label()}<select{select}>{options}</select>{hint_html}")


def render_number(field: Field) -> str:
    """A text input (any text reaches Python, which says what is wrong with it)."""
    spec = field.spec
    hint_html, hint_id = field.hint(field_hint(spec))
    inputmode = "numeric" if spec["kind"] == "integer" else "decimal"
    if spec.get("min", 0) < 0:
        inputmode = None  # phone keypads for numeric/decimal may lack a minus sign
    value = field.value
    control = void(
        "input",
        id=field.id,
        name=field.name,
        type="text",
        inputmode=inputmode,
        autocomplete="off",
        spellcheck="false",
        value=format_number(value) if isinstance(value, float) else value,
        data_lab_field=field.name,
        data_lab_kind=spec["kind"],
        aria_describedby=field.described_by(hint_id),
    )
    return field.box(f"{field.label()}{control}{hint_html}")


def render_key() -> str:
    """What the response ids in a table's headers stand for."""
    groups = []
    for role, responses in (
        ("Helper (rows)", HELPER_RESPONSES),
        ("Main (columns)", MAIN_RESPONSES),
    ):
        items = "".join(
            f"<li><code>{escape(r.id)}</code>: {escape(r.summary)}</li>" for r in responses
        )
        groups.append(f'<div><p>{role}</p><ul class="lab-sim__key-list">{items}</ul></div>')
    return f'<div class="lab-sim__key">{"".join(groups)}</div>'


def render_table(field: Field) -> str:
    """A reward table: a grid of cells, rows the helper's responses, columns the main agent's."""
    spec = field.spec
    table = field.lab.params.reward_table
    lo, hi = format_number(spec["min"]), format_number(spec["max"])
    hint_html, hint_id = field.hint(
        field_hint(spec)
        or "Rows: the helper's response; columns: the main agent's. Each cell is the shared "
        f"reward, a number from {lo} to {hi}."
    )
    head = "".join(f'<th scope="col"><code>{escape(r.id)}</code></th>' for r in MAIN_RESPONSES)
    rows = []
    for i, helper in enumerate(HELPER_RESPONSES):
        cells = "".join(
            el(
                "td",
                None,
                void(
                    "input",
                    id=f"{field.id}-{i + 1}-{j + 1}",
                    type="text",
                    autocomplete="off",
                    spellcheck="false",
                    value=format_number(table[i][j]),
                    data_lab_cell=f"{i},{j}",
                    aria_label=f"Reward for helper {helper.id} with main {main.id}",
                    aria_describedby=field.error_id,
                ),
            )
            for j, main in enumerate(MAIN_RESPONSES)
        )
        rows.append(f'<tr><th scope="row"><code>{escape(helper.id)}</code></th>{cells}</tr>')
    grid = attrs(class_="lab-sim__grid", data_lab_field=field.name, data_lab_kind="table")
    inner = (
        f"<legend>{escape(spec['label'])}</legend>{hint_html}"
        f'<div class="lab-sim__scroll"><table{grid}><thead><tr>'
        f'<td class="lab-sim__corner">helper \\ main</td>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    # The key follows the error slot, as a note on the whole table.
    return field.box(inner, "fieldset", render_key(), aria_describedby=field.described_by(hint_id))


#: How each kind of field is drawn; a kind without an entry fails the build.
RENDERERS: dict[str, Callable[[Field], str]] = {
    "choice": render_choice,
    "integer": render_number,
    "number": render_number,
    "table": render_table,
}


def render_field(lab: SimulationLab, name: str, spec: Mapping[str, Any]) -> str:
    """One field of the spec as a labelled control with its hint and error slot."""
    renderer = RENDERERS.get(spec.get("kind", ""))
    if renderer is None:
        raise PluginError(
            f"lab.param_spec()'s field {name!r} has kind {spec.get('kind')!r}; the form "
            f"draws only {', '.join(RENDERERS)} ({__name__}.RENDERERS)."
        )
    return renderer(Field(lab, name, spec))


def render_form(lab: SimulationLab) -> str:
    """The controls, in :func:`lab.param_spec` order; Run (:func:`render_actions`) submits it."""
    fields = "".join(render_field(lab, name, spec) for name, spec in param_spec().items())
    return (
        f'<form class="lab-sim__form" id="{lab.prefix}-form" data-lab-form novalidate hidden '
        f'aria-label="Simulation settings">'
        f'<div class="lab-sim__fields">{fields}</div></form>'
    )


def render_actions(lab: SimulationLab) -> str:
    """Run (the form's submit button, placed after the code), Stop and the time limit."""
    p = lab.prefix
    limit_id = f"{p}-time-limit"
    options = "".join(
        f"<option{attrs(value=s, selected=s == DEFAULT_TIME_LIMIT)}>{s} s</option>"
        for s in TIME_LIMITS
    )
    return (
        f'<div class="lab-sim__actions" data-lab-actions hidden>'
        f'<button type="submit" form="{p}-form" class="md-button md-button--primary" '
        f'data-lab-action="run">Run</button>'
        f'<button type="button" class="md-button" data-lab-action="stop" disabled>Stop</button>'
        f'<div class="lab-sim__limit"><label for="{limit_id}">Time limit for your code</label>'
        f'<select id="{limit_id}" data-lab-time-limit aria-describedby="{limit_id}-hint">'
        f"{options}</select></div>"
        f'<p class="lab-sim__hint lab-sim__limit-hint" id="{limit_id}-hint">Counts only the time '
        "Python spends in your code, not the training, which can take longer; past it, the lab "
        "stops the run, as Stop does. Stop ends any run at once.</p></div>"
    )
