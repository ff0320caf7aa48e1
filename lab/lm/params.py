"""The language-model lab's parameters: a spec as data and one validator.

:func:`validate_lm_params` takes what the page sends (numbers, booleans, or
the strings a form field holds) and returns an :class:`LMParams`, or raises
:class:`~lab.sim.params.ParamError` with every bad field's reason at once, as
``{field: reason}``. The page's form is built from :data:`LM_PARAM_SPEC`.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from lab.core.advantages import BASELINES
from lab.sim.params import ParamError

__all__ = ["BASELINES", "LM_PARAM_SPEC", "LMParams", "lm_param_spec", "validate_lm_params"]

MAX_SEED = 2**32 - 1

#: Labels, defaults and limits of every field, for the page's form and for the messages.
LM_PARAM_SPEC: dict[str, dict[str, Any]] = {
    "safe_reward": {
        "label": "Safe reward",
        "kind": "number",
        "default": 0.6,
        "min": 0.0,
        "max": 1.0,
        "help": "What a correct program earns when main writes the product itself.",
    },
    "learning_rate": {
        "label": "Learning rate",
        "kind": "number",
        "default": 4.0,
        "min_exclusive": 0.0,
        "max": 20.0,
        "help": "How far each update moves the logits.",
    },
    "group_size": {
        "label": "Group size",
        "kind": "integer",
        "default": 16,
        "min": 2,
        "max": 64,
        "help": "Joint responses sampled per update (G).",
    },
    "updates": {
        "label": "Updates",
        "kind": "integer",
        "default": 200,
        "min": 1,
        "max": 1000,
        "help": "Training steps.",
    },
    "seed": {
        "label": "Seed",
        "kind": "integer",
        "default": 0,
        "min": 0,
        "max": MAX_SEED,
        "help": "The randomness of a run; the same seed gives the same run.",
    },
    "seeds": {
        "label": "Seeds",
        "kind": "integer",
        "default": 1,
        "min": 1,
        "max": 100,
        "help": "Runs seed, seed + 1, … and shows how many reach the optimum.",
    },
    "baseline": {
        "label": "Baseline",
        "kind": "choice",
        "default": "mean",
        "choices": list(BASELINES),
        "help": "What each reward is compared with to make its advantage.",
    },
    "compare_alone": {
        "label": "Also train each agent alone",
        "kind": "boolean",
        "default": True,
        "help": "Each agent trained against the untrained partner, then paired.",
    },
    "compare_communication": {
        "label": "Also let main read the helper's code",
        "kind": "boolean",
        "default": False,
        "help": "Main's prompt then holds the name the helper defined.",
    },
}


def lm_param_spec() -> dict[str, dict[str, Any]]:
    """A JSON-ready copy of :data:`LM_PARAM_SPEC`."""
    return copy.deepcopy(LM_PARAM_SPEC)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"' if len(value) <= 20 else f'"{value[:20]}…"'
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "nothing"}[value]
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return str(value)
    return f"a {type(value).__name__}"


_WHOLE = re.compile(r"\s*[+-]?\d+\s*")


def _number(value: Any, whole: bool) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        if whole:
            return int(value) if _WHOLE.fullmatch(value) else None
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, int):
        return value if whole else float(value)
    if isinstance(value, float) and math.isfinite(value):
        if whole:
            return int(value) if value.is_integer() else None
        return value
    return None


def _field(name: str, value: Any) -> tuple[Any, str | None]:
    """The coerced value of one field, or the reason it is refused."""
    spec = LM_PARAM_SPEC[name]
    kind, label = spec["kind"], spec["label"]
    if kind == "boolean":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true", None
        return None, f"{label} must be true or false; got {_shown(value)}."
    if kind == "choice":
        text = value.strip().lower() if isinstance(value, str) else None
        if text in spec["choices"]:
            return text, None
        return None, f"{label} must be one of {', '.join(spec['choices'])}; got {_shown(value)}."
    number = _number(value, whole=kind == "integer")
    hi = spec["max"]
    if kind == "integer":
        lo = spec["min"]
        if number is None or not lo <= number <= hi:
            return None, f"{label} must be a whole number from {lo} to {hi}; got {_shown(value)}."
        return number, None
    if "min_exclusive" in spec:
        lo = spec["min_exclusive"]
        if number is None or not lo < number <= hi:
            return None, (
                f"{label} must be a number greater than {lo:g} and at most {hi:g}; "
                f"got {_shown(value)}."
            )
        return number, None
    lo = spec["min"]
    if number is None or not lo <= number <= hi:
        return None, f"{label} must be a number from {lo:g} to {hi:g}; got {_shown(value)}."
    return number, None


@dataclass(frozen=True)
class LMParams:
    """Validated settings of one language-model run (limits in :data:`LM_PARAM_SPEC`)."""

    safe_reward: float = 0.6
    learning_rate: float = 4.0
    group_size: int = 16
    updates: int = 200
    seed: int = 0
    seeds: int = 1
    baseline: str = "mean"
    compare_alone: bool = True
    compare_communication: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def validate_lm_params(data: Mapping[str, Any] | None = None) -> LMParams:
    """Check the page's settings; missing fields take their defaults.

    Raises :class:`ParamError` naming every bad field, unknown ones included.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ParamError({"params": "Parameters must be an object of field names and values."})
    errors = {
        str(key): f"Unknown parameter; expected one of {', '.join(LM_PARAM_SPEC)}."
        for key in data
        if key not in LM_PARAM_SPEC
    }
    values: dict[str, Any] = {}
    for name, spec in LM_PARAM_SPEC.items():
        value, reason = _field(name, data.get(name, spec["default"]))
        if reason:
            errors[name] = reason
        values[name] = value
    if errors:
        raise ParamError(errors)
    return LMParams(**values)
