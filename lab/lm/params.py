"""The language-model lab's parameters: its spec and its frozen dataclass.

:func:`validate_lm_params` takes what the page sends (numbers, booleans, or
the strings a form field holds) and returns an :class:`LMParams`, or raises
:class:`~lab.core.params.ParamError` with every bad field's reason at once, as
``{field: reason}`` (:mod:`lab.core.params` checks every lab's settings from its
spec). The page's form is built from :data:`LM_PARAM_SPEC`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from lab.core.advantages import BASELINES
from lab.core.params import ParamError, Params, Spec

__all__ = [
    "BASELINES",
    "LM_PARAM_SPEC",
    "TOKEN_WEIGHTINGS",
    "LMParams",
    "ParamError",
    "lm_param_spec",
    "validate_lm_params",
]

MAX_SEED = 2**32 - 1
#: How a response's token gradients add up (:func:`lab.lm.training.policy_step`): ``sum``
#: is CoMLRL's sum of token log-probabilities, ``mean`` GRPO's 1/|o| (Shao et al., 2024).
TOKEN_WEIGHTINGS = ("sum", "mean")

#: Labels, defaults and limits of every field, for the page's form and for the messages
#: (the keys are :mod:`lab.core.params`'s).
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
    "temperature": {
        "label": "Temperature",
        "kind": "number",
        "default": 1.0,
        "min_exclusive": 0.0,
        "max": 5.0,
        "help": "Both models write each token from softmax(logits / T); CoMLRL samples at 0.6.",
    },
    "token_weighting": {
        "label": "Token weighting",
        "kind": "choice",
        "default": "sum",
        "choices": list(TOKEN_WEIGHTINGS),
        "help": "sum: every token takes the whole advantage (CoMLRL); "
        "mean: divided by the response's length (GRPO).",
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


@dataclass(frozen=True)
class LMParams(Params):
    """Validated settings of one language-model run (limits in :data:`LM_PARAM_SPEC`)."""

    SPEC: ClassVar[Spec] = LM_PARAM_SPEC

    safe_reward: float = 0.6
    learning_rate: float = 4.0
    group_size: int = 16
    updates: int = 200
    seed: int = 0
    seeds: int = 1
    baseline: str = "mean"
    temperature: float = 1.0
    token_weighting: str = "sum"
    compare_alone: bool = True
    compare_communication: bool = False


def validate_lm_params(data: Mapping[str, Any] | None = None) -> LMParams:
    """Check the page's settings; missing fields take their defaults.

    Raises :class:`ParamError` naming every bad field, unknown ones included.
    """
    return LMParams.from_data(data)
