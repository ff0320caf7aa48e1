"""The simulation lab as a run-style lab (:class:`lab.core.runner.Runner`)."""

from lab.core.runner import Runner
from lab.sim import export
from lab.sim.experiment import run_experiment
from lab.sim.params import param_spec, validate_params

__all__ = ["RUNNER"]

RUNNER = Runner(
    "simulation",
    validate_params,
    run_experiment,
    param_spec,
    export.rows_csv,
    export.curve_csv,
    export.FIGURES,
)
