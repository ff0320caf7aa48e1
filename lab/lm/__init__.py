"""The language-model lab: two tiny token-level language models trained with MAGRPO.

``corpus`` is their pretraining text, ``model`` the models, the verifier and the
training, ``params`` the settings, ``render`` the HTML a run shows.
"""

from lab.lm.model import run_language_models, step_language_models
from lab.lm.params import LMParams, lm_param_spec, validate_lm_params

__all__ = [
    "LMParams",
    "lm_param_spec",
    "run_language_models",
    "step_language_models",
    "validate_lm_params",
]
