"""The lesson's lab: pure Python that runs unchanged under CPython and Pyodide.

Nothing here imports ``js`` or ``pyodide``; :mod:`lab.browser` is the only
module that does, and only the worker imports it.
"""

import sys

from lab.graded import check_quiz, check_visual_lab
from lab.lm import run_language_models
from lab.sim import (
    Experiment,
    ParamError,
    SimParams,
    StopExperiment,
    group_advantages,
    param_spec,
    run_experiment,
    validate_params,
)
from lab.sim import task as _sim_task
from lab.sim.task import (
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
from lab.sim.user_code import UserCodeError, load_user_code, original_source, run_with_code

# Readers' code written before the subpackages imports ``lab.sim_task``; it is the
# same module as ``lab.sim.task``, so such code still runs.
sys.modules.setdefault("lab.sim_task", _sim_task)

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
    "check_quiz",
    "check_visual_lab",
    "group_advantages",
    "load_user_code",
    "make_reward_fn",
    "original_source",
    "param_spec",
    "penalty_table",
    "prompted_prior",
    "run_experiment",
    "run_language_models",
    "run_with_code",
    "table_reward",
    "validate_params",
    "which_response",
]
