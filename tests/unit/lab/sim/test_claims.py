"""Every claim the simulation lab's pages make about the model, checked against the model.

Each entry quotes a page (``docs/simulation.md`` or ``docs/simulation-reference.md``)
and says how the claim is checked: here the claims a quick run can check; what
the page says about learning over many seeds is checked in ``tests/seeds``
(CI). A claim edited on the page without its check here fails (the quote is no
longer found), and a model change that makes a claim false fails its check.
"""

# ruff: noqa: RUF001 (the quotes keep the page's typography: multiplication and minus signs)
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from lab import (
    Experiment,
    ParamError,
    param_spec,
    prompted_prior,
    run_experiment,
    validate_params,
)
from lab.core.advantages import group_advantages
from lab.core.movement import MOVING_THRESHOLD, MOVING_WINDOW
from lab.core.stats import describe_count
from lab.sim.experiment import JointHistory, softmax
from lab.sim.task import CLIMBING, DEFAULT_HELD_OUT_PARTNERS, Observation, Partner, penalty_table
from tests.support.pages import simulation_pages_say

SEEDS = 20  # seeds 0-19


@cache
def runs(**params: Any) -> dict[str, Any]:
    """One run over seeds 0-19 with ``params`` (cached: several claims read the same run)."""
    return run_experiment({"seeds": SEEDS, "seed": 0, **params})


def rows(**params: Any) -> list[dict[str, Any]]:
    return runs(**params)["seeds"]["rows"]


def helper_view(table: Any) -> list[float]:
    """What each helper response earns against the main agent's prompted prior."""
    main = prompted_prior(Observation("main"))
    return [math.fsum(main[j] * table[i][j] for j in range(3)) for i in range(3)]


def main_view(table: Any) -> list[float]:
    """What each main-agent response earns against the helper's prompted prior."""
    helper = prompted_prior(Observation("helper"))
    return [math.fsum(helper[i] * table[i][j] for i in range(3)) for j in range(3)]


def _passes_threshold(size: int, temperature: float, threshold: float) -> float:
    """Exactly: the probability that a group of ``size`` joint responses sampled from the
    climbing game's prior at ``temperature`` has a mean reward above ``threshold``."""
    helper = softmax([math.log(p) / temperature for p in prompted_prior(Observation("helper"))])
    main = softmax([math.log(p) / temperature for p in prompted_prior(Observation("main"))])
    cells = [(helper[i] * main[j], CLIMBING[i][j]) for i in range(3) for j in range(3)]
    return math.fsum(
        math.prod(p for p, _ in group)
        for group in itertools.product(cells, repeat=size)
        if math.fsum(r for _, r in group) / size > threshold
    )


def _cross_steps(size: int) -> tuple[list[float], list[float]]:
    """Each helper response's weight in its gradient, in one cross group of ``size`` x
    ``size``: the lab's (from its update) and CoMLRL's (each response's sum of joint
    returns, the mean baseline over those sums, the loss averaged over its ``size``
    responses: MAGRPOTrainer's cross mode)."""
    from lab.sim import experiment as sim

    experiment = Experiment({"joint_mode": "cross", "group_size": size})
    team = experiment._teams["learned"]
    seen: list[Any] = []
    team.credit = lambda h, cells, adv: seen.append((cells, adv[0]))  # type: ignore[method-assign]
    sim._update(team, experiment.env, experiment._start, experiment.how, sim.random.Random(5))
    ((cells, advantages),) = seen
    lab = [math.fsum(advantages[g * size : (g + 1) * size]) for g in range(size)]
    sums = [
        math.fsum(experiment.env.rewards[c] for c in cells[g * size : (g + 1) * size])
        for g in range(size)
    ]
    comlrl = [a / size for a in group_advantages(sums, "mean")]
    return lab, comlrl


def _noisy() -> Partner:
    return next(p for p in DEFAULT_HELD_OUT_PARTNERS if p.name == "Noisy helper")


@dataclass(frozen=True)
class Claim:
    quote: str
    check: Callable[[], bool]


def best_reply(table: Any, role: str, partner: int) -> int:
    """The response of ``role`` that earns most against the partner's response ``partner``."""
    if role == "helper":
        return max(range(3), key=lambda i: table[i][partner])
    return max(range(3), key=lambda j: table[partner][j])


def _group_limits() -> dict[str, int]:
    """The largest group each way of sampling accepts."""
    settings = {
        "two turns": {"turns": 2},
        "cross": {"joint_mode": "cross"},
        "align": {},
        "merge": {"turns": 2, "branching": "merge"},
    }

    def largest(given: dict[str, Any]) -> int:
        for size in range(256, 1, -1):
            try:
                validate_params({**given, "group_size": size})
            except ParamError:
                continue
            return size
        return 0

    return {name: largest(given) for name, given in settings.items()}


CLAIMS = [
    Claim(
        "`core` earns 0.2 × 11 + 0.1 × (−30) = −0.8, `filter` earns −1.1, and `stub` earns 3.5",
        lambda: [round(v, 2) for v in helper_view(CLIMBING)] == [-0.8, -1.1, 3.5],
    ),
    Claim(
        "each agent's part of the best joint answer earns less, averaged over its partner's "
        "behaviour, than a safe response does",
        lambda: helper_view(CLIMBING)[0] < helper_view(CLIMBING)[2],
    ),
    Claim(
        "The response that belongs to the best joint answer earns less than the safe one",
        lambda: (
            helper_view(CLIMBING)[0] < helper_view(CLIMBING)[2]
            and main_view(CLIMBING)[0] < main_view(CLIMBING)[2]
        ),
    ),
    Claim(
        "`delegate` earns 0.2 × 11 + 0.1 × (−30) = −0.8, `combine` −5.3, and `alone` 4.1",
        lambda: [round(v, 2) for v in main_view(CLIMBING)] == [-0.8, -5.3, 4.1],
    ),
    Claim(
        "CoMLRL also stops growing the tree below a group whose mean reward is above its "
        "`termination_threshold` (−0.2 by default): none of that group's joint responses gets a "
        "turn-2 group, however each scored",
        lambda: (
            param_spec()["termination_threshold"]["default"] == -0.2
            and param_spec()["termination"]["used_when"] == {"turns": [2]}
        ),
    ),
    Claim(
        "At the climbing game's prior a joint response earns 2.18 on average, far above −0.2: a "
        "group of 4 (CoMLRL's default `num_generations`) sampled from the prior at CoMLRL's "
        "temperature, 0.6, has a mean reward above −0.2 with probability 0.97",
        lambda: (
            round(runs(updates=1)["expected_reward"]["prompted"], 2) == 2.18
            and round(_passes_threshold(4, 0.6, -0.2), 2) == 0.97
        ),
    ),
    Claim(
        "`raw` shows what a baseline is for: every sampled response is pushed by its whole "
        "reward, up when the reward is positive and down when it is negative, whatever the rest "
        "of its group earned",
        lambda: group_advantages([11.0, -30.0, 5.0], "raw") == [11.0, -30.0, 5.0],
    ),
    Claim(
        "With the `mean` baseline the two push each response in the same direction, in "
        "proportion to its mean return over the partner's G responses minus the group's mean, "
        "but CoMLRL's step is G times the lab's",
        lambda: all(
            c == pytest.approx(size * lab, abs=1e-12)
            for size in (4, 8)
            for lab, c in zip(*_cross_steps(size), strict=True)
        ),
    ),
    Claim(
        "in cross mode the team scores G × G joint responses an update where the joint learner "
        "samples G, unless *Centralized learner's group* gives it G × G",
        lambda: (
            [
                len(
                    Experiment({"joint_mode": "cross", "group_size": 4, **g})._joint_learner.group(
                        JointHistory.start(), 4, random.Random(0)
                    )
                )
                for g in ({}, {"central_group": "calls"})
            ]
            == [4, 16]
            and not Experiment({"learner": "lenient"})._joint_how.lenient
        ),
    ),
    Claim(
        "against `alone` the helper's best reply is `filter` (6)",
        lambda: best_reply(CLIMBING, "helper", 2) == 1 and CLIMBING[1][2] == 6,
    ),
    Claim(
        "against `filter` the main agent's best reply is `combine` (7), and `filter` + `combine` "
        "is an equilibrium, the best one they can reach without committing",
        lambda: (
            best_reply(CLIMBING, "main", 1) == 1
            and best_reply(CLIMBING, "helper", 1) == 1
            and CLIMBING[1][1] == 7
        ),
    ),
    Claim(
        "`core` earns (11 − 30 + 0) / 3 = −6.3 and `stub` (0 + 0 + 5) / 3 = 1.7",
        lambda: (
            round(math.fsum(CLIMBING[0]) / 3, 1) == -6.3
            and round(math.fsum(CLIMBING[2]) / 3, 1) == 1.7
        ),
    ),
    Claim(
        "`core` earns 0.2 × 10 + 0.1 × (−100) = −8, `filter` −19, `stub` 1.4",
        lambda: [round(v, 2) for v in helper_view(penalty_table(-100))] == [-8, -19, 1.4],
    ),
    Claim(
        "here that is an equilibrium, since each safe response is the best reply to the other",
        lambda: (
            best_reply(penalty_table(-100), "helper", 2) == 2
            and best_reply(penalty_table(-100), "main", 2) == 2
        ),
    ),
    Claim(
        "`core` earns 2 against `stub`'s 1.4 from the start",
        lambda: [round(v, 2) for v in helper_view(penalty_table(0))] == [2, 1, 1.4],
    ),
    Claim(
        "sits next to a −30, where it meets the other agent's *other* commitment",
        lambda: (
            CLIMBING[0][1] == CLIMBING[1][0] == -30 and CLIMBING[0][0] == max(map(max, CLIMBING))
        ),
    ),
    Claim(
        "a quarter of the time `aux` only filters, and delegating to a filter scores −30 (a "
        "quarter of the time `aux` is a stub, which scores 0)",
        lambda: (
            _noisy().probabilities == (0.5, 0.25, 0.25)
            and CLIMBING[1][0] == -30
            and CLIMBING[2][0] == 0
            # ... which is where the noisy helper's expected score of a delegating ego comes from.
            and math.fsum(p * CLIMBING[i][0] for i, p in enumerate(_noisy().probabilities)) == -2
        ),
    ),
    Claim(
        "A commitment beside a safe response, `core` + `alone` or `stub` + `delegate`, scores 0.",
        lambda: CLIMBING[0][2] == CLIMBING[2][0] == 0,
    ),
    Claim(
        "each agent gives its safe response 70% of the time",
        lambda: (
            prompted_prior(Observation("helper"))[2] == 0.7
            and prompted_prior(Observation("main"))[2] == 0.7
        ),
    ),
    Claim(
        "*T* = 1, the default, is the lab as it was before this control existed, seed for seed",
        lambda: runs(updates=20) == runs(updates=20, temperature=1.0),
    ),
    Claim(
        'its "20 of 20 seeds" is one result counted twenty times',
        lambda: len({r["expected_reward"]["centralized"] for r in rows(updates=20)}) == 1,
    ),
    Claim(
        "10 of 20 seeds says the rate over all seeds is somewhere between 30% and 70%",
        lambda: describe_count(10, 20).endswith("somewhere between 30% and 70% of all seeds"),
    ),
    Claim(
        "Groups go up to 256, but to 64 where an update samples about G × G episodes: with two "
        "turns and one turn-2 group per sampled joint response (G + G × G episodes, 4,160 for "
        "groups of 64), and in cross mode",
        lambda: (
            _group_limits() == {"two turns": 64, "cross": 64, "align": 256, "merge": 256}
            and 64 + 64 * 64 == 4160
        ),
    ),
    Claim(
        "GRPO's form ([Shao et al., 2024](references.md#shao-2024)); not one of CoMLRL's modes",
        lambda: (
            group_advantages([0, 4], "mean") == [-2.0, 2.0]
            and group_advantages([0, 4], "normalized") == [-1.0, 1.0]
        ),
    ),
    Claim(
        "two turn-1 samples that wrote the same joint response still get a group each",
        lambda: validate_params({"turns": 2}).branching == "sample",
    ),
    Claim(
        "With two turns CoMLRL's cross tree has G⁴ episodes per update, over a million for groups "
        "of 32, more than a browser can sample; the lab offers cross with one turn only.",
        lambda: 32**4 > 1_000_000 and param_spec()["joint_mode"]["used_when"] == {"turns": [1]},
    ),
    Claim(
        'Above 0.01 the summary says "after N updates, still moving"',
        lambda: MOVING_THRESHOLD == 0.01 and MOVING_WINDOW == 0.1,
    ),
]


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.quote[:48] for c in CLAIMS])
def test_the_page_makes_this_claim_and_the_model_bears_it_out(claim: Claim) -> None:
    assert simulation_pages_say(claim.quote), "the page no longer says this"
    assert claim.check(), f"the model no longer bears this out: {claim.quote}"
