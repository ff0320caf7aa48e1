"""The simulation's parameters: one frozen dataclass and one validator.

:func:`validate_params` takes what the page sends (numbers, or the strings a
form field holds) and either returns a :class:`SimParams` or raises
:class:`ParamError` carrying every field's problem at once, as
``{field: reason}``, so the page can show each reason next to its field.
Fields the chosen reward table does not use (``custom_table`` unless the table
is ``custom``, ``penalty_k`` unless it is ``penalty``) are ignored.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from lab.core.advantages import BASELINES
from lab.core.errors import LabError
from lab.sim.task import CLIMBING, Table, penalty_table

__all__ = ["BASELINES", "PARAM_SPEC", "ParamError", "SimParams", "param_spec", "validate_params"]

TABLE_NAMES = ("climbing", "penalty", "custom")
CELL_LIMIT = 1000.0
MAX_SEED = 2**32 - 1

#: Labels, defaults and limits of every field, for the page's form and for the messages.
#: A choice field may name its choices for the page (``choice_labels``, choice -> text);
#: ``used_when`` ({field: [values]}) marks a field the validator ignores unless another
#: field has one of those values (the page hides it then).
PARAM_SPEC: dict[str, dict[str, Any]] = {
    "table": {
        "label": "Reward table",
        "kind": "choice",
        "default": "climbing",
        "choices": list(TABLE_NAMES),
        "choice_labels": {
            "climbing": "Climbing game",
            "penalty": "Penalty game",
            "custom": "Custom table",
        },
    },
    "custom_table": {
        "label": "Custom table",
        "kind": "table",
        "used_when": {"table": ["custom"]},
        "default": None,
        "min": -CELL_LIMIT,
        "max": CELL_LIMIT,
    },
    "penalty_k": {
        "label": "Penalty k",
        "kind": "number",
        "used_when": {"table": ["penalty"]},
        "default": -10.0,
        "min": -CELL_LIMIT,
        "max": 0.0,
    },
    "turns": {"label": "Turns", "kind": "choice", "default": 1, "choices": [1, 2]},
    "discount": {
        "label": "Discount",
        "kind": "number",
        "used_when": {"turns": [2]},
        "default": 1.0,
        "min": 0.0,
        "max": 1.0,
    },
    "advantage": {
        "label": "Baseline",
        "kind": "choice",
        "default": "mean",
        "choices": list(BASELINES),
        "choice_labels": {
            "mean": "Group mean (MAGRPO)",
            "normalized": "Mean and std (GRPO)",
            "leave_one_out": "Leave one out (RLOO)",
            "max": "Group maximum",
        },
    },
    "updates": {"label": "Updates", "kind": "integer", "default": 200, "min": 1, "max": 5000},
    "group_size": {"label": "Group size", "kind": "integer", "default": 32, "min": 2, "max": 256},
    "learning_rate": {
        "label": "Learning rate",
        "kind": "number",
        "default": 0.2,
        "min_exclusive": 0.0,
        "max": 10.0,
    },
    "seed": {"label": "Seed", "kind": "integer", "default": 0, "min": 0, "max": MAX_SEED},
    "seeds": {"label": "Seeds", "kind": "integer", "default": 1, "min": 1, "max": 50},
}


def param_spec() -> dict[str, dict[str, Any]]:
    """A JSON-ready copy of :data:`PARAM_SPEC`."""
    return copy.deepcopy(PARAM_SPEC)


class ParamError(LabError):
    """Invalid parameters; ``fields`` maps each bad field to a reason a reader can act on."""

    def __init__(self, fields: Mapping[str, str]) -> None:
        super().__init__(" ".join(fields.values()), dict(fields))


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"' if len(value) <= 20 else f'"{value[:20]}…"'
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "nothing"}[value]
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    return f"a {type(value).__name__}"


_WHOLE = re.compile(r"\s*[+-]?\d+\s*")


def _as_whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _WHOLE.fullmatch(value):
        return int(value)
    return None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _whole_field(name: str, value: Any, errors: dict[str, str]) -> int | None:
    spec = PARAM_SPEC[name]
    lo, hi = spec["min"], spec["max"]
    number = _as_whole(value)
    if number is None or not lo <= number <= hi:
        errors[name] = (
            f"{spec['label']} must be a whole number from {lo} to {hi}; got {_shown(value)}."
        )
        return None
    return number


def _table_field(value: Any, errors: dict[str, str]) -> Table | None:
    label = PARAM_SPEC["custom_table"]["label"]
    if value is None:
        errors["custom_table"] = f"{label} is needed when the reward table is custom."
        return None
    rows = list(value) if isinstance(value, list | tuple) else None
    if (
        rows is None
        or len(rows) != 3
        or any(not isinstance(row, list | tuple) or len(row) != 3 for row in rows)
    ):
        errors["custom_table"] = f"{label} must be 3 rows of 3 numbers."
        return None
    bad: list[str] = []
    table: list[tuple[float, float, float]] = []
    for r, row in enumerate(rows, start=1):
        cells = []
        for c, cell in enumerate(row, start=1):
            number = _as_number(cell)
            if number is None or abs(number) > CELL_LIMIT:
                bad.append(f"row {r}, column {c} ({_shown(cell)})")
                number = 0.0
            cells.append(number)
        table.append((cells[0], cells[1], cells[2]))
    if bad:
        errors["custom_table"] = (
            f"{label}: every cell must be a number from {-CELL_LIMIT:g} to {CELL_LIMIT:g}; "
            f"check {'; '.join(bad)}."
        )
        return None
    return (table[0], table[1], table[2])


def _parse(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Coerce every field of ``data`` (missing fields take their defaults)."""
    errors: dict[str, str] = {}
    values: dict[str, Any] = {}
    get = lambda name: data.get(name, PARAM_SPEC[name]["default"])  # noqa: E731

    table = get("table")
    name = table.strip().lower() if isinstance(table, str) else None
    if name not in TABLE_NAMES:
        errors["table"] = (
            f"Reward table must be one of {', '.join(TABLE_NAMES)}; got {_shown(table)}."
        )
    values["table"] = name
    values["custom_table"] = _table_field(get("custom_table"), errors) if name == "custom" else None

    values["penalty_k"] = PARAM_SPEC["penalty_k"]["default"]
    if name == "penalty":
        k = _as_number(get("penalty_k"))
        if k is None or not -CELL_LIMIT <= k <= 0:
            errors["penalty_k"] = (
                f"Penalty k must be a number from {-CELL_LIMIT:g} to 0 (it is the cost of "
                f"miscoordinating); got {_shown(get('penalty_k'))}."
            )
        values["penalty_k"] = k

    turns = _as_whole(get("turns"))
    if turns not in (1, 2):
        errors["turns"] = f"Turns must be 1 or 2; got {_shown(get('turns'))}."
    values["turns"] = turns

    values["discount"] = PARAM_SPEC["discount"]["default"]
    if turns == 2:  # one turn has nothing to discount
        discount = _as_number(get("discount"))
        if discount is None or not 0 <= discount <= 1:
            errors["discount"] = (
                f"Discount must be a number from 0 to 1; got {_shown(get('discount'))}."
            )
        values["discount"] = discount

    advantage = get("advantage")
    baseline = advantage.strip().lower() if isinstance(advantage, str) else None
    if baseline not in BASELINES:
        errors["advantage"] = (
            f"Baseline must be one of {', '.join(BASELINES)}; got {_shown(advantage)}."
        )
    values["advantage"] = baseline

    for field_name in ("updates", "group_size", "seed", "seeds"):
        values[field_name] = _whole_field(field_name, get(field_name), errors)

    rate = _as_number(get("learning_rate"))
    if rate is None or not 0 < rate <= PARAM_SPEC["learning_rate"]["max"]:
        errors["learning_rate"] = (
            f"Learning rate must be a number greater than 0 and at most "
            f"{PARAM_SPEC['learning_rate']['max']:g}; got {_shown(get('learning_rate'))}."
        )
    values["learning_rate"] = rate
    return values, errors


@dataclass(frozen=True)
class SimParams:
    """Validated parameters of one simulation run (see :data:`PARAM_SPEC` for the limits)."""

    table: str = "climbing"
    custom_table: Table | None = None
    penalty_k: float = -10.0
    turns: int = 1
    discount: float = 1.0
    advantage: str = "mean"
    updates: int = 200
    group_size: int = 32
    learning_rate: float = 0.2
    seed: int = 0
    seeds: int = 1

    def __post_init__(self) -> None:
        values, errors = _parse({f.name: getattr(self, f.name) for f in fields(self)})
        if errors:
            raise ParamError(errors)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def reward_table(self) -> Table:
        """The 3x3 table the default verifier scores with."""
        if self.table == "penalty":
            return penalty_table(self.penalty_k)
        if self.table == "custom" and self.custom_table is not None:
            return self.custom_table
        return CLIMBING

    def to_json(self) -> dict[str, Any]:
        """The parameters as plain JSON data (tables as lists)."""
        return {
            "table": self.table,
            "custom_table": None
            if self.custom_table is None
            else [list(row) for row in self.custom_table],
            "penalty_k": self.penalty_k,
            "turns": self.turns,
            "discount": self.discount,
            "advantage": self.advantage,
            "updates": self.updates,
            "group_size": self.group_size,
            "learning_rate": self.learning_rate,
            "seed": self.seed,
            "seeds": self.seeds,
        }


def validate_params(data: Mapping[str, Any] | None = None) -> SimParams:
    """Check the page's parameters; missing fields take their defaults.

    Raises :class:`ParamError` listing every bad field, including unknown ones.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ParamError({"params": "Parameters must be an object of field names and values."})
    errors = {
        str(key): f"Unknown parameter; expected one of {', '.join(PARAM_SPEC)}."
        for key in data
        if key not in PARAM_SPEC
    }
    values, field_errors = _parse(data)
    errors.update(field_errors)
    if errors:
        raise ParamError(errors)
    return SimParams(**values)
