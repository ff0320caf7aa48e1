"""The lab's own functions, under the names an exercise gives them, for its property test.

An exercise block names one of :data:`REFERENCES` (``reference:``). Its
:class:`Reference` says what the reader's function must agree with: the lab's
own code, under each of the exercise's function names (``functions``), and how
to draw random inputs for it (``draw``). :func:`lab.exercise.grade.check_exercise`
uses it twice: a hidden test's expected value is the reference's value of the
test's call, so the spec the page ships holds no hidden answer; and a property
test compares the reader's function with the reference on inputs drawn at check
time from a seed the failure message shows.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lab.core.advantages import group_advantages
from lab.sim.experiment import Policy
from lab.sim.task import assemble, table_reward

__all__ = ["REFERENCES", "Reference"]

Draw = Callable[[random.Random], tuple[str, tuple[Any, ...]]]


@dataclass(frozen=True)
class Reference:
    """The lab's functions under an exercise's names, and the random calls to check them on."""

    functions: Mapping[str, Callable[..., Any]]
    draw: Draw
    #: What the property test checks, in the reader's words.
    about: str
    cases: int = 40


def _returns(rng: random.Random, least: int = 1) -> list[float]:
    """A group of returns: whole numbers (a tie is then exact), sometimes all equal."""
    n = rng.randint(least, 8)
    if rng.random() < 0.15:
        return [float(rng.randint(-30, 30))] * n
    return [float(rng.randint(-30, 30)) for _ in range(n)]


# ------------------------------------------------------------ shared reward


def shared_rewards(table: Sequence[Sequence[float]], helper: int, main: int) -> list[float]:
    """The verifier's score of the joint output (helper, main), once for each agent."""
    reward = table_reward(assemble(helper, main), table)
    return [reward, reward]


def _draw_table(rng: random.Random) -> tuple[str, tuple[Any, ...]]:
    table = [[rng.randint(-30, 30) for _ in range(3)] for _ in range(3)]
    return "shared_rewards", (table, rng.randrange(3), rng.randrange(3))


# ---------------------------------------------------------------- advantages


def _draw_group(rng: random.Random) -> tuple[str, tuple[Any, ...]]:
    return "group_advantage", (_returns(rng),)


def _draw_baselines(rng: random.Random) -> tuple[str, tuple[Any, ...]]:
    name = rng.choice(("normalized_advantage", "leave_one_out_advantage"))
    return name, (_returns(rng, least=2),)


def cross_advantages(rewards: Sequence[Sequence[float]]) -> list[list[float]]:
    """Cross mode's credit per sample, before the lab divides by the G x G joint responses.

    The group is every helper sample i paired with every main sample j, listed as
    :meth:`lab.sim.experiment.Team.group` lists it; each joint response's advantage
    (:func:`group_advantages`, the mean baseline) goes to both of its responses, so
    a sample's credit is the sum over the joint responses it is part of.
    """
    g = len(rewards)
    flat = group_advantages([r for row in rewards for r in row], "mean")
    helper = [sum(flat[i * g + j] for j in range(g)) for i in range(g)]
    main = [sum(flat[i * g + j] for i in range(g)) for j in range(g)]
    return [helper, main]


def _draw_cross(rng: random.Random) -> tuple[str, tuple[Any, ...]]:
    g = rng.randint(1, 5)
    cells = [-30, 0, 5, 6, 7, 11]
    return "cross_advantages", ([[float(rng.choice(cells)) for _ in range(g)] for _ in range(g)],)


# ------------------------------------------------------------ policy steps


def _stepped(logits: Sequence[float], per_action: Sequence[float], step: float) -> list[float]:
    """The lab's :class:`Policy` at temperature 1 with ``logits`` as its weights (a uniform
    prior adds the same log to every logit, which softmax ignores), after one step."""
    n = len(logits)
    policy = Policy(n, lambda _o: [1.0 / n] * n)
    policy.weights["o"] = [float(x) for x in logits]
    policy.accumulate("o", per_action)
    policy.apply(step)
    return policy.weights["o"]


def policy_step(logits: Sequence[float], action: int, advantage: float, step: float) -> list[float]:
    """One sample's policy-gradient step, as :meth:`Policy.accumulate` and ``apply`` take it."""
    per_action = [0.0] * len(logits)
    per_action[action] = advantage
    return _stepped(logits, per_action, step)


def _draw_step(rng: random.Random) -> tuple[str, tuple[Any, ...]]:
    n = rng.randint(2, 5)
    logits = [round(rng.uniform(-3, 3), 2) for _ in range(n)]
    advantage = round(rng.uniform(-4, 4), 2)
    return "policy_step", (logits, rng.randrange(n), advantage, round(rng.uniform(0.05, 2), 2))


def token_step(
    logits: Sequence[float], chosen: Sequence[int], advantages: Sequence[float], rate: float
) -> list[float]:
    """One context's logits after a group's MAGRPO step (the language-model lab's
    :func:`lab.lm.training.policy_step` at one context every response passed): each
    token chosen there takes its response's advantage, and the step is rate / G."""
    per_action = [0.0] * len(logits)
    for token, advantage in zip(chosen, advantages, strict=True):
        per_action[token] += advantage
    return _stepped(logits, per_action, rate / len(advantages))


def _draw_tokens(rng: random.Random) -> tuple[str, tuple[Any, ...]]:
    n = rng.randint(2, 6)
    g = rng.randint(1, 8)
    logits = [round(rng.uniform(-3, 3), 2) for _ in range(n)]
    rewards = [rng.choice((-1.0, 0.0, 1.0, 2.0)) for _ in range(g)]
    chosen = [rng.randrange(n) for _ in range(g)]
    rate = round(rng.uniform(0.1, 2), 2)
    # Not only the mean baseline, whose advantages sum to zero (the probabilities cancel).
    baseline = rng.choice(("mean", "max", "raw"))
    return "token_step", (logits, chosen, group_advantages(rewards, baseline), rate)


REFERENCES: dict[str, Reference] = {
    "shared-reward": Reference(
        {"shared_rewards": shared_rewards},
        _draw_table,
        "random 3 x 3 tables and cells, checked against the lab's verifier",
    ),
    "group-advantage": Reference(
        {"group_advantage": lambda returns: group_advantages(returns, "mean")},
        _draw_group,
        "random groups of returns, checked against the lab's group_advantages",
    ),
    "other-baselines": Reference(
        {
            "normalized_advantage": lambda returns: group_advantages(returns, "normalized"),
            "leave_one_out_advantage": lambda returns: group_advantages(returns, "leave_one_out"),
        },
        _draw_baselines,
        "random groups of returns, checked against the lab's group_advantages",
    ),
    "cross-advantage": Reference(
        {"cross_advantages": cross_advantages},
        _draw_cross,
        "random G x G groups, checked against the lab's cross-mode credit",
    ),
    "softmax-step": Reference(
        {"policy_step": policy_step},
        _draw_step,
        "random logits, actions, advantages and steps, checked against the lab's Policy",
    ),
    "token-step": Reference(
        {"token_step": token_step},
        _draw_tokens,
        "random contexts and groups, checked against the lab's policy step",
    ),
}
