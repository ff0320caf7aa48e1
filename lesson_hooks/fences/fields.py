"""A run-style lab's form fields, drawn from its parameter spec (one renderer for every lab).

Each field of a spec (:mod:`lab.core.params`) becomes one labelled control by
its ``kind`` (``boolean``, ``choice``, ``integer``, ``number``; a lab may add
its own kinds, as the simulation does for its reward ``table``), with the
spec's label, choice texts (``choice_labels``) and limits in words
(:func:`lab.core.params.field_hint`), and an empty error slot that the page
fills with Python's own reason. A field only some settings use (``used_when``)
carries those settings as data and starts hidden when the lab's settings do
not use it. The widgets read the controls by their ``data-lab-*`` attributes
only and leave every check to Python.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mkdocs.exceptions import PluginError

from lab.core.markup import Markup, el, join, void
from lab.core.params import field_hint, field_used


@dataclass(frozen=True)
class Style:
    """A lab's class names: its field box, hint and error slot."""

    field: str
    hint: str
    error: str


class Field:
    """One field of a spec on one lab's form: its ids, the lab's starting value, its parts."""

    def __init__(
        self,
        prefix: str,
        values: Mapping[str, Any],
        name: str,
        spec: Mapping[str, Any],
        style: Style,
    ) -> None:
        self.values, self.name, self.spec, self.style = values, name, spec, style
        self.id = f"{prefix}-{name.replace('_', '-')}"
        self.error_id = f"{self.id}-error"
        self.value = values.get(name, spec.get("default"))
        self.hint_text = field_hint(spec)

    @property
    def hint_id(self) -> str | None:
        return f"{self.id}-hint" if self.hint_text else None

    @property
    def described_by(self) -> str:
        return " ".join(i for i in (self.hint_id, self.error_id) if i)

    def hint(self) -> Markup | None:
        if not self.hint_text:
            return None
        return el("p", {"class": self.style.hint, "id": self.hint_id}, self.hint_text)

    def label(self, *before: object) -> Markup:
        return el("label", {"for": self.id}, *before, self.spec["label"])

    def error(self) -> Markup:
        return el(
            "p", {"class": self.style.error, "id": self.error_id, "data-lab-error": self.name}
        )

    def box(self, *children: object, tag: str = "div", **extra: Any) -> Markup:
        """The field's box: hidden when the lab's settings do not use the field."""
        used_when = self.spec.get("used_when")
        attributes = {
            "class": f"{self.style.field} {self.style.field}--{self.spec['kind']}",
            "data-lab-field-box": self.name,
            "data-lab-used-when": json.dumps(used_when) if used_when else None,
            "hidden": not field_used(self.spec, self.values),
        }
        return el(tag, attributes, *children, **extra)

    def control(
        self, before: Mapping[str, Any] | None = None, after: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The attributes every control carries, for the widget and for assistive technology."""
        return {
            "id": self.id,
            "name": self.name,
            **(before or {}),
            "data-lab-field": self.name,
            "data-lab-kind": self.spec["kind"],
            **(after or {}),
            "aria-describedby": self.described_by,
        }


def format_value(value: Any) -> str:
    """A starting value as the form writes it: 11, -30, 7.5, 0.25 (Python's ``g``)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def render_boolean(field: Field) -> Markup:
    """A checkbox inside its label."""
    box = void("input", field.control({"type": "checkbox", "checked": bool(field.value)}))
    return field.box(field.label(box, " "), field.hint(), field.error())


def render_choice(field: Field) -> Markup:
    """A <select> of the spec's choices, named by its ``choice_labels``."""
    spec = field.spec
    names = spec.get("choice_labels", {})
    # A choice with no label reads as its value, words apart: leave_one_out -> leave one out.
    options = join(
        el(
            "option",
            {"value": c, "selected": c == field.value},
            names.get(c, names.get(str(c), str(c).replace("_", " "))),
        )
        for c in spec["choices"]
    )
    numeric = all(isinstance(c, int | float) and not isinstance(c, bool) for c in spec["choices"])
    select = el("select", field.control(after={"data-lab-numeric": numeric}), options)
    return field.box(field.label(), select, field.hint(), field.error())


def render_number(field: Field) -> Markup:
    """A text input (any text reaches Python, which says what is wrong with it)."""
    inputmode = "numeric" if field.spec["kind"] == "integer" else "decimal"
    if field.spec.get("min", 0) < 0:
        inputmode = None  # phone keypads for numeric/decimal may lack a minus sign
    control = void(
        "input",
        field.control(
            {
                "type": "text",
                "inputmode": inputmode,
                "autocomplete": "off",
                "spellcheck": "false",
                "value": format_value(field.value),
            }
        ),
    )
    return field.box(field.label(), control, field.hint(), field.error())


Renderer = Callable[[Field], Markup]

#: How each common kind of field is drawn.
RENDERERS: dict[str, Renderer] = {
    "boolean": render_boolean,
    "choice": render_choice,
    "integer": render_number,
    "number": render_number,
}


def render_fields(
    prefix: str,
    values: Mapping[str, Any],
    spec: Mapping[str, Mapping[str, Any]],
    style: Style,
    extra: Mapping[str, Renderer] | None = None,
) -> Markup:
    """Every field of ``spec`` in order; a kind with no renderer fails the build."""
    renderers = {**RENDERERS, **(extra or {})}
    out = []
    for name, field_spec in spec.items():
        renderer = renderers.get(field_spec.get("kind", ""))
        if renderer is None:
            raise PluginError(
                f"the parameter spec's field {name!r} has kind {field_spec.get('kind')!r}; "
                f"the form draws only {', '.join(renderers)} ({__name__})."
            )
        out.append(renderer(Field(prefix, values, name, field_spec, style)))
    return join(out)
