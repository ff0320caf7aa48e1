"""The language-model lab as a run-style lab (:class:`lab.core.runner.Runner`)."""

from lab.core.runner import Runner
from lab.lm import export
from lab.lm.model import run_language_models
from lab.lm.params import lm_param_spec, validate_lm_params

__all__ = ["RUNNER"]

RUNNER = Runner(
    "language-models",
    validate_lm_params,
    run_language_models,
    lm_param_spec,
    export.rows_csv,
    export.curve_csv,
)
