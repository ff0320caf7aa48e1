"""Each seed's outcome at given settings, and blocks of seeds assembled from them.

A guided experiment runs a block of seeds (20 on the pages); a run of a lab over seeds
``first`` to ``first + n - 1`` is those seeds' own trainings side by side (each seed
trains alone: :func:`lab.sim.experiment.run_experiment`, :func:`lab.lm.model.tally_seeds`),
so a block's result is assembled here from per-seed outcomes, stored or computed once for
seeds 0-999 (:mod:`tests.seeds.store`) and shared by every experiment and claim at the same
settings. That is what makes checking every block of 1,000 seeds, and counting how often a
block starting at any of them picks each option, cheap.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lab.experiment.outcome import matching_options
from lab.lm.params import LMParams, validate_lm_params
from lab.sim.experiment import seed_statistics
from lab.sim.params import validate_params
from tests.seeds.labs import LANGUAGE_MODELS, SIMULATION
from tests.seeds.store import Outcomes, seed_outcomes

#: The seeds every qualitative claim and every guided experiment is checked over.
ALL_SEEDS = 1000
#: A task is published only if a block starting at a random seed picks its keyed option
#: this often.
PUBLISHABLE = 0.99

NOT_TRAINING = ("seed", "seeds")
#: The language-model lab's settings that change no method's training: what a run compares.
NOT_LM_TRAINING = (*NOT_TRAINING, "compare_alone", "compare_communication")


def settings_key(params: Mapping[str, Any]) -> str:
    """The full settings but the seeds as one string: the same runs whatever the spelling."""
    full = validate_params({k: v for k, v in params.items() if k not in NOT_TRAINING})
    return json.dumps(full.to_json(), sort_keys=True)


def outcomes(count: int = ALL_SEEDS, **params: Any) -> Outcomes:
    """Simulation seeds 0 to ``count - 1``'s outcomes (rows of a run's ``seeds``) at these
    settings (:mod:`tests.seeds.store`: stored, or trained once a session)."""
    return seed_outcomes(SIMULATION, settings_key(params), count)


def lm_outcomes(params: LMParams | Mapping[str, Any], method: str, count: int) -> Outcomes:
    """Language-model seeds 0 to ``count - 1``'s outcomes for ``method`` (a seeds row's
    ``method`` field) at these settings, which make one key whatever the run compares."""
    full = (params if isinstance(params, LMParams) else validate_lm_params(params)).to_json()
    training = {k: v for k, v in full.items() if k not in NOT_LM_TRAINING}
    key = json.dumps({"method": method, "settings": training}, sort_keys=True)
    return seed_outcomes(LANGUAGE_MODELS, key, count)


def block_result(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What a run over these seeds returns under ``seeds`` (all a task's options read)."""
    return {"seeds": {**seed_statistics(rows), "rows": list(rows)}}


def block_odds(
    spec: Mapping[str, Any],
    rows: Sequence[Any],
    size: int,
    result: Callable[[Sequence[Any]], Mapping[str, Any]],
) -> list[float]:
    """How often a block of ``size`` consecutive seeds picks each option (or none, last).

    A reader's block starts at any seed; every start from 0 to ``len(rows) - size`` is
    counted once, so the estimate is exact for those seeds and needs no random draws.
    """
    tally = [0] * (len(spec["options"]) + 1)
    starts = range(len(rows) - size + 1)
    for first in starts:
        matched = matching_options(spec, result(rows[first : first + size]))
        tally[matched[0] if len(matched) == 1 else -1] += 1
    return [n / len(starts) for n in tally]


def unpublishable(experiment: Any, odds: Sequence[float], size: int, seeds: str) -> str:
    """Why a task may not be published: how often a block picks each option, in words."""
    shown = ", ".join(
        f"{o.text!r}: {p:.4f}" for o, p in zip(experiment.options, odds, strict=False)
    )
    return (
        f"{experiment.path}:{experiment.line}: {experiment.id}: a block of {size} seeds "
        f"starting at a random seed (estimated from every such block in seeds {seeds}) picks "
        f"the keyed option with probability {odds[experiment.answer]:.4f}, under {PUBLISHABLE}; "
        f"each option: {shown}; none or several: {odds[-1]:.4f}"
    )
