"""One validator for every run-style lab's settings, driven by the lab's spec.

A lab describes its settings once, as a spec (``{field: {...}}``, in the
form's order), and declares them as a frozen dataclass deriving from
:class:`Params`. The spec is what the page's form is drawn from and what the
refusals are worded from; the dataclass is what a run reads. Each field of a
spec has a ``label``, a ``kind``, a ``default`` and, by kind:

- ``boolean``: true or false (the strings ``"true"``/``"false"`` too);
- ``choice``: one of ``choices``, names (compared lowercased) or whole numbers;
  ``choice_labels`` (choice -> text) may name them for the page;
- ``integer``: a whole number from ``min`` to ``max``;
- ``number``: a finite number from ``min`` (or above ``min_exclusive``) to ``max``;
- ``table``: ``rows`` rows of ``columns`` numbers, each from ``min`` to ``max``.

Any field may have ``help`` (what it is for: the form writes it before the
limits, :func:`field_hint`), ``note`` (why its limits are what they are: said
in its refusal) and ``used_when`` (``{field: [values]}``, naming fields before
it): a field the settings do not use keeps its default unchecked, and the page
hides it. A field whose default is ``None`` is needed whenever it is used.
An ``integer`` or ``number`` field may have ``max_when``: rules
``{"when": {field: [values]}, "max": ..., "when_text": ..., "note": ...}``,
naming fields before it; under the first rule whose ``when`` the settings meet,
its maximum is that rule's ``max``, and its hint and refusal say ``when_text``
(and the refusal the rule's ``note``), so a setting whose cost grows with
another's cannot ask for a run that would not finish.

Values arrive as the page sends them (numbers, booleans, or the strings a form
field holds); each is parsed once, when the dataclass is made, and every bad
field is refused at once in a :class:`ParamError` (``{field: reason}``), so the
page can show each reason next to its field.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from lab.core.errors import LabError

__all__ = ["ParamError", "Params", "Spec", "field_hint", "field_used", "limits_in_words", "shown"]

#: A lab's settings: each field's description, in the form's order.
Spec = Mapping[str, Mapping[str, Any]]


class ParamError(LabError):
    """Invalid parameters; ``fields`` maps each bad field to a reason a reader can act on."""

    def __init__(self, fields: Mapping[str, str]) -> None:
        super().__init__(" ".join(fields.values()), dict(fields))


# ------------------------------------------------------------------- words


def shown(value: Any) -> str:
    """A refused value as a refusal quotes it: ``"ten"``, ``2.5``, ``true``, ``nothing``."""
    if isinstance(value, str):
        return f'"{value}"' if len(value) <= 20 else f'"{value[:20]}…"'
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "nothing"}[value]
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return str(value)
    return f"a {type(value).__name__}"


def limits_in_words(field: Mapping[str, Any]) -> str:
    """A numeric field's limits as the form says them ("Whole number, 1 to 5000."); else ""."""
    if field["kind"] == "integer":
        limits = f"Whole number, {field['min']} to {field['max']}"
    elif field["kind"] == "number" and "min_exclusive" in field:
        limits = f"Above {field['min_exclusive']:g}, at most {field['max']:g}"
    elif field["kind"] == "number":
        limits = f"From {field['min']:g} to {field['max']:g}"
    else:
        return ""
    lower = "; ".join(f"at most {r['max']:g} {r['when_text']}" for r in field.get("max_when", ()))
    return f"{limits} ({lower})." if lower else f"{limits}."


def field_hint(field: Mapping[str, Any]) -> str:
    """What the form writes under a field: its ``help``, then its limits in words."""
    return " ".join(part for part in (field.get("help", ""), limits_in_words(field)) if part)


def field_used(field: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    """Whether a field matters for these settings (its ``used_when``)."""
    return all(
        values.get(other) in allowed for other, allowed in field.get("used_when", {}).items()
    )


def _requirement(field: Mapping[str, Any]) -> str:
    """What a field's value must be, as a refusal says it ("a whole number from 1 to 5000")."""
    kind = field["kind"]
    if kind == "boolean":
        return "true or false"
    if kind == "choice":
        choices = [str(c) for c in field["choices"]]
        if _numbered(field):  # numbers read as a sentence: "1 or 2", "1, 2 or 3"
            return " or ".join(filter(None, (", ".join(choices[:-1]), choices[-1])))
        return f"one of {', '.join(choices)}"
    condition = f" {field['when_text']}" if "when_text" in field else ""
    if kind == "integer":
        return f"a whole number from {field['min']} to {field['max']}{condition}"
    if "min_exclusive" in field:
        return (
            f"a number greater than {field['min_exclusive']:g} "
            f"and at most {field['max']:g}{condition}"
        )
    return f"a number from {field['min']:g} to {field['max']:g}{condition}"


def _limited(field: Mapping[str, Any], values: Mapping[str, Any]) -> Mapping[str, Any]:
    """The field as these settings limit it: its first ``max_when`` rule that applies, if any."""
    for rule in field.get("max_when", ()):
        if field_used({"used_when": rule["when"]}, values):
            limited = {**field, "max": rule["max"], "when_text": rule["when_text"]}
            if "note" in rule:
                limited["note"] = rule["note"]
            return limited
    return field


def _refusal(field: Mapping[str, Any], value: Any) -> str:
    note = f" ({field['note']})" if "note" in field else ""
    return f"{field['label']} must be {_requirement(field)}{note}; got {shown(value)}."


# ----------------------------------------------------------------- parsing

_WHOLE = re.compile(r"\s*[+-]?\d+\s*")


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _WHOLE.fullmatch(value):
        return int(value)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _numbered(field: Mapping[str, Any]) -> bool:
    return all(isinstance(c, int) and not isinstance(c, bool) for c in field["choices"])


class _Refused(Exception):
    """A value its field does not take; the reason is the reader's."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _within(field: Mapping[str, Any], number: float | None) -> bool:
    if number is None:
        return False
    if "min_exclusive" in field:
        return field["min_exclusive"] < number <= field["max"]
    return field["min"] <= number <= field["max"]


def _table(field: Mapping[str, Any], value: Any) -> tuple[tuple[float, ...], ...]:
    label, height, width = field["label"], field["rows"], field["columns"]
    rows = list(value) if isinstance(value, list | tuple) else None
    if (
        rows is None
        or len(rows) != height
        or any(not isinstance(row, list | tuple) or len(row) != width for row in rows)
    ):
        raise _Refused(f"{label} must be {height} rows of {width} numbers.")
    bad: list[str] = []
    table = []
    for r, row in enumerate(rows, start=1):
        cells = []
        for c, cell in enumerate(row, start=1):
            number = _number(cell)
            if not _within(field, number):
                bad.append(f"row {r}, column {c} ({shown(cell)})")
            cells.append(number)
        table.append(tuple(cells))
    if bad:
        raise _Refused(
            f"{label}: every cell must be a number from {field['min']:g} to {field['max']:g}; "
            f"check {'; '.join(bad)}."
        )
    return tuple(table)


def _needed(spec: Spec, field: Mapping[str, Any]) -> str:
    when = " and ".join(
        f"the {spec[other]['label'].lower()} is {' or '.join(map(str, allowed))}"
        for other, allowed in field.get("used_when", {}).items()
    )
    return f"{field['label']} is needed when {when}." if when else f"{field['label']} is needed."


def _parse(spec: Spec, field: Mapping[str, Any], value: Any) -> Any:
    """One field's value as the run reads it; :class:`_Refused` when the field does not take it."""
    kind = field["kind"]
    if value is None and field["default"] is None:
        raise _Refused(_needed(spec, field))
    if kind == "table":
        return _table(field, value)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
    elif kind == "choice":
        if _numbered(field):
            choice: Any = _whole(value)
        else:
            choice = value.strip().lower() if isinstance(value, str) else None
        if choice in field["choices"]:
            return choice
    elif kind == "integer":
        number: Any = _whole(value)
        if number is not None and field["min"] <= number <= field["max"]:
            return number
    elif kind == "number":
        number = _number(value)
        if _within(field, number):
            return number
    else:
        raise ValueError(f"The spec's field {field['label']!r} has an unknown kind {kind!r}.")
    raise _Refused(_refusal(field, value))


def check(spec: Spec, given: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Parse every field of ``spec`` named in ``given``, in the spec's order, each once.

    Returns the values and the refusals (``{field: reason}``). A field the
    values so far do not use (``used_when``) takes its default, unchecked.
    """
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, field in spec.items():
        if name not in given:
            continue
        if not field_used(field, values):
            values[name] = field["default"]
            continue
        try:
            values[name] = _parse(spec, _limited(field, values), given[name])
        except _Refused as refused:
            errors[name] = refused.reason
            values[name] = None
    return values, errors


@dataclasses.dataclass(frozen=True)
class Params:
    """Base of a lab's validated settings: a frozen dataclass whose fields are its spec's.

    Making one parses and checks every field (:func:`check`), so no instance
    holds a value its spec refuses; :meth:`from_data` makes one from what the
    page sends, missing fields taking the spec's defaults.
    """

    #: The lab's spec (module-level data, so the form and the refusals read the same).
    SPEC: ClassVar[Spec]

    def __post_init__(self) -> None:
        own = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        values, errors = check(self.SPEC, own)
        if errors:
            raise ParamError(errors)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None = None) -> Self:
        """Check the page's settings; missing fields take their defaults.

        Raises :class:`ParamError` naming every bad field, unknown ones included.
        """
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ParamError({"params": "Parameters must be an object of field names and values."})
        spec = cls.SPEC
        errors = {
            str(key): f"Unknown parameter; expected one of {', '.join(spec)}."
            for key in data
            if key not in spec
        }
        given = {f.name: data.get(f.name, spec[f.name]["default"]) for f in dataclasses.fields(cls)}
        try:
            params = cls(**given)
        except ParamError as err:
            raise ParamError({**errors, **err.fields}) from None
        if errors:
            raise ParamError(errors)
        return params

    def to_json(self) -> dict[str, Any]:
        """The settings as plain JSON data (tables as lists)."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, tuple) else value
