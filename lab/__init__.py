"""The lesson's lab: pure Python that runs unchanged under CPython and Pyodide.

Nothing here imports ``js`` or ``pyodide``; :mod:`lab.browser` is the only
module that does, and only the worker imports it.
"""

from lab.mapping import check_mapping
from lab.quiz import check_quiz
from lab.sim import Experiment, StopExperiment, group_advantages, run_experiment
from lab.sim_params import ParamError, SimParams, param_spec, validate_params
from lab.sim_task import (
    CLIMBING,
    DEFAULT_HELD_OUT_PARTNERS,
    DEFAULT_TRAINING_PARTNERS,
    JointOutput,
    Observation,
    Partner,
    UserFunctionError,
    make_reward_fn,
    penalty_table,
    prompted_prior,
    table_reward,
    which_response,
)
from lab.user_code import UserCodeError, load_user_code, original_source, run_with_code

__all__ = [
    "CLIMBING",
    "DEFAULT_HELD_OUT_PARTNERS",
    "DEFAULT_TRAINING_PARTNERS",
    "Experiment",
    "JointOutput",
    "Observation",
    "ParamError",
    "Partner",
    "SimParams",
    "StopExperiment",
    "UserCodeError",
    "UserFunctionError",
    "check_mapping",
    "check_quiz",
    "group_advantages",
    "load_user_code",
    "make_reward_fn",
    "original_source",
    "param_spec",
    "penalty_table",
    "prompted_prior",
    "run_experiment",
    "run_with_code",
    "table_reward",
    "validate_params",
    "which_response",
]
