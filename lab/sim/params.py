"""The simulation's parameters: its spec and its frozen dataclass.

:func:`validate_params` takes what the page sends (numbers, or the strings a
form field holds) and either returns a :class:`SimParams` or raises
:class:`ParamError` carrying every field's problem at once, as
``{field: reason}``, so the page can show each reason next to its field
(:mod:`lab.core.params` checks every lab's settings from its spec). Fields the
chosen reward table does not use (``custom_table`` unless the table is
``custom``, ``penalty_k`` unless it is ``penalty``) are ignored.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from lab.core.advantages import BASELINES
from lab.core.params import ParamError, Params, Spec
from lab.sim.task import CLIMBING, N_RESPONSES, Table, penalty_table

__all__ = ["BASELINES", "PARAM_SPEC", "ParamError", "SimParams", "param_spec", "validate_params"]

TABLE_NAMES = ("climbing", "penalty", "custom")
#: What the update differentiates when agents sample at a temperature (lab.sim.experiment.Policy).
GRADIENTS = ("untempered", "tempered")
#: How a step is taken from the gradient (lab.sim.experiment.Policy.apply).
OPTIMIZERS = ("plain", "adamw")
#: CoMLRL's default MAGRPOConfig.termination_threshold
#: (OpenMLRL/CoMLRL, comlrl/trainers/reinforce/magrpo.py).
COMLRL_TERMINATION_THRESHOLD = -0.2
CELL_LIMIT = 1000.0
MAX_SEED = 2**32 - 1
#: The largest group when an update samples about G x G episodes (two turns with one turn-2
#: group per sampled joint response, or cross mode): 64 x 64 = 4,096.
MAX_GROUP_SQUARED = 64

#: Labels, defaults and limits of every field, for the page's form and for the messages
#: (the keys are :mod:`lab.core.params`'s).
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
        "rows": N_RESPONSES,
        "columns": N_RESPONSES,
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
        "note": "it is the cost of miscoordinating",
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
            "raw": "None (REINFORCE)",
        },
    },
    "temperature": {
        "label": "Temperature",
        "kind": "number",
        "default": 1.0,
        "min_exclusive": 0.0,
        "max": 100.0,
        # Short: the form sits above Run on a phone; the reference page (Temperature) says
        # how agents sample at T.
        "help": "CoMLRL samples at 0.6.",
    },
    "gradient": {
        "label": "Policy gradient",
        "kind": "choice",
        "default": "untempered",
        "choices": list(GRADIENTS),
        "choice_labels": {
            "untempered": "Of the untempered log-probability (CoMLRL)",
            "tempered": "Of the tempered policy, \u00f7T (on-policy)",
        },
        # Short: the form sits above Run on a phone; the reference page (Policy gradient)
        # says how the two move the sampling policy.
        "help": "What a step differentiates; the two are the same at T = 1.",
    },
    "joint_mode": {
        "label": "Joint mode",
        "kind": "choice",
        "used_when": {"turns": [1]},
        "default": "align",
        "choices": ["align", "cross"],
        "choice_labels": {
            "align": "Align (G joint responses)",
            "cross": "Cross (G \u00d7 G joint responses)",
        },
    },
    "branching": {
        "label": "Turn-2 groups",
        "kind": "choice",
        "used_when": {"turns": [2]},
        "default": "sample",
        "choices": ["sample", "merge"],
        "choice_labels": {
            "sample": "One per sampled joint response (CoMLRL)",
            "merge": "One per distinct joint response",
        },
    },
    "central_group": {
        "label": "Centralized learner's group",
        "kind": "choice",
        "used_when": {"turns": [1], "joint_mode": ["cross"]},
        "default": "group",
        "choices": ["group", "calls"],
        "choice_labels": {
            "group": "G joint responses",
            "calls": "G \u00d7 G joint responses (the team's reward calls)",
        },
        "help": "The team scores G \u00d7 G joint responses an update in cross mode.",
    },
    "termination": {
        "label": "Early termination",
        "kind": "choice",
        "used_when": {"turns": [2]},
        "default": "none",
        "choices": ["none", "group_mean"],
        "choice_labels": {
            "none": "None (every turn-1 group has turn-2 groups)",
            "group_mean": "Above a group mean reward (CoMLRL)",
        },
        # CoMLRL's rule (MAGRPOTrainer._train_step_returns): terminate_here =
        # mean(rewards_vec) > termination_threshold, and then no child of the group is built.
        "help": "A turn-1 group whose mean reward is above the threshold gets no turn 2.",
    },
    "termination_threshold": {
        "label": "Termination threshold",
        "kind": "number",
        "used_when": {"turns": [2], "termination": ["group_mean"]},
        "default": COMLRL_TERMINATION_THRESHOLD,
        "min": -CELL_LIMIT,
        "max": CELL_LIMIT,
        "help": "CoMLRL's default is \u22120.2.",
    },
    "node_loss": {
        "label": "Groups' losses",
        "kind": "choice",
        "used_when": {"turns": [2]},
        "default": "sum",
        "choices": ["sum", "mean"],
        "choice_labels": {
            "sum": "Summed over the update's groups",
            "mean": "Averaged over each turn's groups (CoMLRL)",
        },
    },
    "learner": {
        "label": "Independent learners",
        "kind": "choice",
        "default": "magrpo",
        "choices": ["magrpo", "lenient"],
        "choice_labels": {
            "magrpo": "MAGRPO (one shared advantage)",
            "lenient": "Lenient (Panait et al., 2006)",
        },
    },
    "updates": {"label": "Updates", "kind": "integer", "default": 200, "min": 1, "max": 5000},
    "group_size": {
        "label": "Group size",
        "kind": "integer",
        "default": 32,
        "min": 2,
        "max": 256,
        # Both modes sample about G x G episodes an update: at G = 64 an update of every
        # method takes about 0.1 s in CPython, at 256 over a second (and more in the browser).
        "max_when": [
            {
                "when": {"turns": [2], "branching": ["sample"]},
                "max": MAX_GROUP_SQUARED,
                "when_text": "with two turns and one turn-2 group per sampled joint response",
                "note": "each of the G joint responses of turn 1 starts its own group of G, "
                "so an update samples G + G \u00d7 G episodes",
            },
            {
                "when": {"turns": [1], "joint_mode": ["cross"]},
                "max": MAX_GROUP_SQUARED,
                "when_text": "in cross mode",
                "note": "every response is paired with every partner response, "
                "so an update scores G \u00d7 G joint responses",
            },
        ],
    },
    "learning_rate": {
        "label": "Learning rate",
        "kind": "number",
        "default": 0.2,
        "min_exclusive": 0.0,
        "max": 10.0,
    },
    "optimizer": {
        "label": "Optimizer",
        "kind": "choice",
        "default": "plain",
        "choices": list(OPTIMIZERS),
        "choice_labels": {
            "plain": "Plain gradient step",
            "adamw": "AdamW (CoMLRL; torch's defaults)",
        },
    },
    "seed": {"label": "Seed", "kind": "integer", "default": 0, "min": 0, "max": MAX_SEED},
    "seeds": {"label": "Seeds", "kind": "integer", "default": 1, "min": 1, "max": 50},
}


def param_spec() -> dict[str, dict[str, Any]]:
    """A JSON-ready copy of :data:`PARAM_SPEC`."""
    return copy.deepcopy(PARAM_SPEC)


@dataclass(frozen=True)
class SimParams(Params):
    """Validated parameters of one simulation run (see :data:`PARAM_SPEC` for the limits)."""

    SPEC: ClassVar[Spec] = PARAM_SPEC

    table: str = "climbing"
    custom_table: Table | None = None
    penalty_k: float = -10.0
    turns: int = 1
    discount: float = 1.0
    advantage: str = "mean"
    temperature: float = 1.0
    gradient: str = "untempered"
    joint_mode: str = "align"
    branching: str = "sample"
    central_group: str = "group"
    termination: str = "none"
    termination_threshold: float = COMLRL_TERMINATION_THRESHOLD
    node_loss: str = "sum"
    learner: str = "magrpo"
    updates: int = 200
    group_size: int = 32
    learning_rate: float = 0.2
    optimizer: str = "plain"
    seed: int = 0
    seeds: int = 1

    @property
    def reward_table(self) -> Table:
        """The 3x3 table the default verifier scores with."""
        if self.table == "penalty":
            return penalty_table(self.penalty_k)
        if self.table == "custom" and self.custom_table is not None:
            return self.custom_table
        return CLIMBING


def validate_params(data: Mapping[str, Any] | None = None) -> SimParams:
    """Check the page's parameters; missing fields take their defaults.

    Raises :class:`ParamError` listing every bad field, including unknown ones.
    """
    return SimParams.from_data(data)
