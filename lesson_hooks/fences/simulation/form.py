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

from functools import partial

from lab import param_spec
from lab.core.markup import Markup, el, void
from lab.sim.render import format_number
from lab.sim.task import HELPER_RESPONSES, MAIN_RESPONSES, Table
from lesson_hooks.fences.fields import Field, Style, render_fields
from lesson_hooks.fences.simulation.fence import SimulationLab

#: The choices of the time limit on the reader's code, in seconds (see render_actions).
TIME_LIMITS = (2, 5, 10, 30)
DEFAULT_TIME_LIMIT = 5


#: The simulation's class names for the shared field renderer.
STYLE = Style(field="lab-sim__field", hint="lab-sim__hint", error="lab-sim__error")


def render_key() -> Markup:
    """What the response ids in a table's headers stand for."""
    groups = [
        el(
            "div",
            None,
            el("p", None, role),
            el(
                "ul",
                {"class": "lab-sim__key-list"},
                *(el("li", None, el("code", None, r.id), f": {r.summary}") for r in responses),
            ),
        )
        for role, responses in (
            ("Helper (rows)", HELPER_RESPONSES),
            ("Main (columns)", MAIN_RESPONSES),
        )
    ]
    return el("div", {"class": "lab-sim__key"}, *groups)


def render_table(field: Field, table: Table) -> Markup:
    """A reward table: a grid of cells, rows the helper's responses, columns the main agent's.

    ``table`` is the one the lab's settings score with, so the grid starts from it.
    """
    spec = field.spec
    lo, hi = format_number(spec["min"]), format_number(spec["max"])
    field.hint_text = field.hint_text or (
        "Rows: the helper's response; columns: the main agent's. Each cell is the shared "
        f"reward, a number from {lo} to {hi}."
    )
    head = (el("th", {"scope": "col"}, el("code", None, r.id)) for r in MAIN_RESPONSES)
    rows = (
        el(
            "tr",
            None,
            el("th", {"scope": "row"}, el("code", None, helper.id)),
            *(
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
            ),
        )
        for i, helper in enumerate(HELPER_RESPONSES)
    )
    grid = el(
        "table",
        {"class": "lab-sim__grid", "data-lab-field": field.name, "data-lab-kind": "table"},
        el(
            "thead",
            None,
            el("tr", None, el("td", {"class": "lab-sim__corner"}, "helper \\ main"), *head),
        ),
        el("tbody", None, *rows),
    )
    # The key follows the error slot, as a note on the whole table.
    return field.box(
        el("legend", None, spec["label"]),
        field.hint(),
        el("div", {"class": "lab-sim__scroll"}, grid),
        field.error(),
        render_key(),
        tag="fieldset",
        aria_describedby=field.described_by,
    )


def render_form(lab: SimulationLab) -> Markup:
    """The controls, in :func:`lab.param_spec` order; Run (:func:`render_actions`) submits it."""
    table = partial(render_table, table=lab.params.reward_table)
    fields = render_fields(lab.prefix, lab.params.to_json(), param_spec(), STYLE, {"table": table})
    return el(
        "form",
        {
            "class": "lab-sim__form",
            "id": f"{lab.prefix}-form",
            "data-lab-form": True,
            "novalidate": True,
            "hidden": True,
            "aria-label": "Simulation settings",
        },
        el("div", {"class": "lab-sim__fields"}, fields),
    )


def render_actions(lab: SimulationLab) -> Markup:
    """Run (the form's submit button, placed after the code), Stop and the time limit."""
    p = lab.prefix
    limit_id = f"{p}-time-limit"
    options = (
        el("option", {"value": s, "selected": s == DEFAULT_TIME_LIMIT}, f"{s} s")
        for s in TIME_LIMITS
    )
    run = {"type": "submit", "form": f"{p}-form", "class": "md-button md-button--primary"}
    stop = {"type": "button", "class": "md-button", "data-lab-action": "stop", "disabled": True}
    return el(
        "div",
        {"class": "lab-sim__actions", "data-lab-actions": True, "hidden": True},
        el("button", {**run, "data-lab-action": "run"}, "Run"),
        el("button", stop, "Stop"),
        el(
            "div",
            {"class": "lab-sim__limit"},
            el("label", {"for": limit_id}, "Time limit for your code"),
            el(
                "select",
                {
                    "id": limit_id,
                    "data-lab-time-limit": True,
                    "aria-describedby": f"{limit_id}-hint",
                },
                *options,
            ),
        ),
        el(
            "p",
            {"class": "lab-sim__hint lab-sim__limit-hint", "id": f"{limit_id}-hint"},
            "Counts only the time Python spends in your code, not the training, which can take "
            "longer; past it, the lab stops the run, as Stop does. Stop ends any run at once.",
        ),
    )
