"""One seed's outcome in each lab: what the seed checks count, and what ``stored/`` keeps.

This module's source is part of each lab's fingerprint (:mod:`tests.seeds.store`), with the
``lab`` modules that importing the lab's training pulls in: change how an outcome is made,
here or in ``lab/``, and the stored outcomes are stale. So it imports nothing from the tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lab.lm.model import seed_outcome
from lab.lm.params import validate_lm_params
from lab.sim.experiment import Experiment
from lab.sim.params import validate_params

#: (settings key, seed): one seed's training, as the worker pool receives it.
Job = tuple[str, int]


@dataclass(frozen=True)
class Lab:
    """A lab whose seeds the checks train: its name, its training, one seed's outcome."""

    name: str  # the stored file: tests/seeds/stored/<name>.json
    entry: str  # the module that trains; the lab.* modules it imports are the fingerprint
    seed: Callable[[Job], dict[str, Any]]  # module-level, so spawned workers can import it


def simulation_seed(job: Job) -> dict[str, Any]:
    """A simulation seed's outcome: a row of a run's ``seeds`` (``Experiment.outcome``)."""
    settings, seed = job
    experiment = Experiment(validate_params(json.loads(settings)), seed=seed)
    while not experiment.done:
        experiment.step()
    return experiment.outcome()


def language_model_seed(job: Job) -> dict[str, Any]:
    """A language-model seed's outcome for one method (its key holds ``method``)."""
    key, seed = job
    settings = json.loads(key)
    params = validate_lm_params({**settings["settings"], "seed": seed})
    return seed_outcome(params, settings["method"])


SIMULATION = Lab("simulation", "lab.sim.experiment", simulation_seed)
LANGUAGE_MODELS = Lab("language-models", "lab.lm.model", language_model_seed)
LABS = (SIMULATION, LANGUAGE_MODELS)
