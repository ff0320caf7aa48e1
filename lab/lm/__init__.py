"""The language-model lab: two tiny token-level language models trained with MAGRPO.

``corpus`` is their pretraining text, ``tokens`` the models (vocabulary,
pretraining, next-token tables), ``interpreter`` the verifier, ``training``
MAGRPO's update, ``expected`` the exact expected reward, ``model`` the
experiment a run shows, ``params`` the settings, ``render`` the HTML.
"""

from lab.lm.model import pretrained_models, run_language_models, step_language_models
from lab.lm.params import LMParams, lm_param_spec, validate_lm_params

__all__ = [
    "LMParams",
    "lm_param_spec",
    "pretrained_models",
    "run_language_models",
    "step_language_models",
    "validate_lm_params",
]
