"""The simulation lab: two tabular agents trained on one shared reward (MAGRPO's update).

``task`` is the toy (roles, responses, reward tables, the verifier and prior the
reader may edit), ``params`` its settings, ``experiment`` the training and the
exact yardsticks, ``render`` the HTML a run shows, ``user_code`` the reader's code.
"""

from lab.sim.experiment import Experiment, StopExperiment, group_advantages, run_experiment
from lab.sim.params import ParamError, SimParams, param_spec, validate_params

__all__ = [
    "Experiment",
    "ParamError",
    "SimParams",
    "StopExperiment",
    "group_advantages",
    "param_spec",
    "run_experiment",
    "validate_params",
]
