"""A toy joint-reward simulation: two LLM-like agents, one shared reward.

The toy written out as a Dec-POMDP:

- **Agents**: two, in distinct roles, as in Liu et al.'s coding setting. The
  *helper* writes the auxiliary function ``aux(nums)``; the *main* agent writes
  the entry point ``solve(nums)``.
- **States**: the task, the turn, and the previous joint output with its score.
- **Joint actions**: each agent's action is one whole response (one of three
  canned programs), not a token; a joint action is a pair of responses, so there
  are 3 x 3 = 9 joint responses.
- **Transition**: the two responses are put together into one program, the
  joint output. With two turns, the verifier's feedback on it is appended to
  each agent's next prompt.
- **One shared reward**: the verifier scores the joint output alone and returns
  one number for both agents. Nothing says which agent caused it.
- **Local observations**: each agent sees only its own prompt: its role
  instruction and the task, and from turn 2 its own last response and the
  feedback. It never sees its partner's response.
- **Horizon**: 1 or 2 turns. The episode reward is the mean of the turns'
  shared rewards: the undiscounted return divided by the horizon, so it stays on
  the reward table's scale. Group normalisation makes learning with the mean
  identical to learning with the sum.

Policies are tabular softmaxes over the three responses, one row of logits per
observation (per distinct prompt). Four ways of playing are compared:

- **Prompted collaboration**: both agents keep the role prompt's prior
  (:func:`lab.sim_task.prompted_prior`); nothing is learned.
- **Learned collaboration** (MAGRPO-style, independent learners): each update
  samples a group of G episodes; every episode's advantage is
  (R - group mean) / group std, the *same* advantage for both agents; each
  agent takes a REINFORCE step on its own logits, of size learning rate times
  the group mean of A * grad log pi(a | o). Both start from the prior.
- **Centralized control**, for contrast: one softmax over the nine joint
  responses, conditioned on both prompts, with the same update.
- **Partner generalization**: the main agent (the ego) trains with fixed
  training helpers, whose notes land in its prompt, and is then evaluated with
  held-out helpers fixed before training. A tabular policy shares nothing
  between prompts, so an unseen note sends it back to its prior: the extreme
  case of what a real model may do, which is why it has to be measured.

Everything is deterministic given the seed: one ``random.Random`` per stream,
derived from ``random.Random(seed)``, and sums of floats through
``math.fsum``, which rounds the same on every Python version.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lab.sim_params import ParamError, SimParams, param_spec, validate_params
from lab.sim_task import (
    DEFAULT_HELD_OUT_PARTNERS,
    DEFAULT_TRAINING_PARTNERS,
    RESPONSES,
    Observation,
    Partner,
    PriorFn,
    RewardFn,
    assemble,
    checked_prior,
    checked_reward,
    feedback_text,
    make_reward_fn,
    prompted_prior,
)

__all__ = [
    "METHODS",
    "Experiment",
    "ParamError",
    "SimParams",
    "StopExperiment",
    "group_advantages",
    "param_spec",
    "run_experiment",
    "validate_params",
]

#: The three ways of playing that the learning curves compare.
METHODS = ("prompted", "learned", "centralized")

ProgressFn = Callable[[int, dict[str, Any]], Any]
Probs = Callable[[Any], Sequence[float]]
Decision = tuple[Any, int]


class StopExperiment(Exception):
    """Raised by a progress callback to end the run early; the results so far are kept."""


def softmax(logits: Sequence[float]) -> list[float]:
    """Probabilities from logits."""
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = math.fsum(exps)
    return [e / total for e in exps]


def sample(probs: Sequence[float], u: float) -> int:
    """The index that ``u`` in [0, 1) falls on in the cumulative ``probs``."""
    acc = 0.0
    last = len(probs) - 1
    for i in range(last):
        acc += probs[i]
        if u < acc:
            return i
    return last


# --8<-- [start:advantage]
def group_advantages(returns: Sequence[float]) -> list[float]:
    """MAGRPO's advantage: (R - group mean) / group std; all zero when the group agrees."""
    n = len(returns)
    mean = math.fsum(returns) / n
    std = math.sqrt(math.fsum((r - mean) ** 2 for r in returns) / n)
    if std <= 1e-9 * (1.0 + abs(mean)):
        return [0.0] * n
    return [(r - mean) / std for r in returns]
    # --8<-- [end:advantage]


class TabularSoftmax:
    """A softmax over ``n`` responses, one row of logits per observation key.

    A key never trained on keeps the prior's logits (``init``), so ``logits``
    holds exactly the prompts the policy has been trained on.
    """

    def __init__(self, n: int, init: Callable[[Any], Sequence[float]]) -> None:
        self.n = n
        self._init = init
        self.logits: dict[Any, list[float]] = {}
        self._probs: dict[Any, list[float]] = {}

    def probs(self, key: Any) -> list[float]:
        p = self._probs.get(key)
        if p is None:
            row = self.logits.get(key)
            p = softmax(row) if row is not None else list(self._init(key))
            self._probs[key] = p
        return p

    def reinforce(
        self, decisions: Sequence[Sequence[Decision]], advantages: Sequence[float], step: float
    ) -> None:
        """One REINFORCE step: logits += step * sum of A * grad log pi(a | key)."""
        n = self.n
        grads: dict[Any, list[float]] = {}
        for episode, adv in zip(decisions, advantages, strict=True):
            if adv == 0.0:
                continue
            for key, action in episode:
                p = self.probs(key)
                g = grads.get(key)
                if g is None:
                    g = grads[key] = [0.0] * n
                for b in range(n):
                    g[b] -= adv * p[b]
                g[action] += adv
        for key, g in grads.items():
            row = self.logits.get(key)
            if row is None:
                row = self.logits[key] = [math.log(p) for p in self._init(key)]
            for b in range(n):
                row[b] += step * g[b]
        self._probs.clear()


class Environment:
    """The verifier's side: the nine possible joint outputs, each with one shared reward.

    The verifier is a deterministic function of the joint output, so it is asked
    once per possible program, before training; a bad value is refused up front,
    naming the joint output.
    """

    def __init__(self, reward_fn: RewardFn) -> None:
        self.outputs = [[assemble(i, j) for j in range(3)] for i in range(3)]
        self.rewards = [[checked_reward(reward_fn, out) for out in row] for row in self.outputs]
        self.feedback = [[feedback_text(r) for r in row] for row in self.rewards]


_FIRST_HELPER_KEY = ("helper", 1, None, None, None)
_FIRST_MAIN_KEY = ("main", 1, None, None, None)


def _first_keys(note: str | None) -> tuple[tuple, tuple]:
    """Both agents' turn-1 observation keys; a partner's note sits in the main agent's."""
    if note is None:
        return _FIRST_HELPER_KEY, _FIRST_MAIN_KEY
    return _FIRST_HELPER_KEY, ("main", 1, None, None, note)


# --8<-- [start:rollout]
def _rollout(
    helper: Probs, main: Probs, env: Environment, turns: int, rng: random.Random, note: str | None
) -> tuple[float, list[Decision], list[Decision]]:
    """One decentralized episode: each agent acts on its own prompt only."""
    kh, km = _first_keys(note)
    dh: list[Decision] = []
    dm: list[Decision] = []
    total = 0.0
    for t in range(1, turns + 1):
        i = sample(helper(kh), rng.random())
        j = sample(main(km), rng.random())
        dh.append((kh, i))
        dm.append((km, j))
        total += env.rewards[i][j]
        if t < turns:
            fb = env.feedback[i][j]
            kh = ("helper", t + 1, i, fb, None)
            km = ("main", t + 1, j, fb, note)
    return total / turns, dh, dm
    # --8<-- [end:rollout]


def _rollout_joint(
    policy: TabularSoftmax, env: Environment, turns: int, rng: random.Random
) -> tuple[float, list[Decision]]:
    """One centralized episode: one policy picks both responses from both prompts."""
    kh, km = _first_keys(None)
    decisions: list[Decision] = []
    total = 0.0
    for t in range(1, turns + 1):
        key = (kh, km)
        x = sample(policy.probs(key), rng.random())
        i, j = divmod(x, 3)
        decisions.append((key, x))
        total += env.rewards[i][j]
        if t < turns:
            fb = env.feedback[i][j]
            kh = ("helper", t + 1, i, fb, None)
            km = ("main", t + 1, j, fb, None)
    return total / turns, decisions


def _exact(
    joint: Callable[[tuple, tuple], Sequence[float]],
    env: Environment,
    turns: int,
    note: str | None = None,
) -> tuple[float, list[list[list[float]]]]:
    """Expected episode reward and each turn's 3x3 joint-response distribution, exactly."""
    states: dict[tuple, float] = {_first_keys(note): 1.0}
    terms: list[float] = []
    by_turn = []
    for t in range(1, turns + 1):
        dist = [[0.0] * 3 for _ in range(3)]
        following: dict[tuple, float] = {}
        for (kh, km), weight in states.items():
            probs = joint(kh, km)
            for x in range(9):
                i, j = divmod(x, 3)
                p = weight * probs[x]
                dist[i][j] += p
                terms.append(p * env.rewards[i][j])
                if t < turns:
                    fb = env.feedback[i][j]
                    nxt = (("helper", t + 1, i, fb, None), ("main", t + 1, j, fb, note))
                    following[nxt] = following.get(nxt, 0.0) + p
        by_turn.append(dist)
        states = following
    return math.fsum(terms) / turns, by_turn


def _independent(helper: Probs, main: Probs) -> Callable[[tuple, tuple], list[float]]:
    def joint(kh: tuple, km: tuple) -> list[float]:
        ph, pm = helper(kh), main(km)
        return [ph[x // 3] * pm[x % 3] for x in range(9)]

    return joint


def _fixed(probabilities: Sequence[float]) -> Probs:
    return lambda key: probabilities


def _check_partners(partners: Sequence[Partner], which: str) -> tuple[Partner, ...]:
    partners = tuple(partners)
    for partner in partners:
        p = partner.probabilities
        if len(p) != 3 or any(not math.isfinite(v) or v < 0 for v in p) or math.fsum(p) <= 0:
            raise ValueError(f"Partner {partner.name!r} needs three non-negative probabilities.")
    if which == "training" and not partners:
        raise ValueError("The ego needs at least one training partner.")
    return partners


def _normalised(p: Sequence[float]) -> tuple[float, ...]:
    total = math.fsum(p)
    return tuple(v / total for v in p)


def _cell_summary(dist: list[list[float]], env: Environment) -> dict[str, Any]:
    """The most likely joint response (the first in table order on a tie)."""
    best = max(max(row) for row in env.rewards)
    i, j = divmod(max(range(9), key=lambda x: dist[x // 3][x % 3]), 3)
    return {
        "cell": [i, j],
        "probability": dist[i][j],
        "reward": env.rewards[i][j],
        "optimal": env.rewards[i][j] == best,
    }


class Experiment:
    """One run of every method, one update at a time, so a caller can draw and stop between.

    ``params`` may be a :class:`SimParams`, the page's dict (validated here), or
    None for the defaults. ``reward_fn`` (the verifier, given the joint output
    only) and ``prior_fn`` (the role prompts' prior, given one observation)
    default to :func:`lab.sim_task.make_reward_fn` of the params' table and
    :func:`lab.sim_task.prompted_prior`. The held-out partners are fixed here,
    before the first update.
    """

    def __init__(
        self,
        params: SimParams | Mapping[str, Any] | None = None,
        *,
        reward_fn: RewardFn | None = None,
        prior_fn: PriorFn | None = None,
        training_partners: Sequence[Partner] = DEFAULT_TRAINING_PARTNERS,
        held_out_partners: Sequence[Partner] = DEFAULT_HELD_OUT_PARTNERS,
    ) -> None:
        self.params = params if isinstance(params, SimParams) else validate_params(params)
        self.env = Environment(reward_fn or make_reward_fn(self.params.reward_table))
        self.training_partners = _check_partners(training_partners, "training")
        self.held_out_partners = _check_partners(held_out_partners, "held-out")
        prior = prior_fn or prompted_prior
        priors: dict[Any, list[float]] = {}

        def agent_prior(key: Any) -> list[float]:
            p = priors.get(key)
            if p is None:
                p = priors[key] = checked_prior(prior, Observation.from_key(key))
            return p

        def joint_prior(key: Any) -> list[float]:
            ph, pm = agent_prior(key[0]), agent_prior(key[1])
            return [ph[x // 3] * pm[x % 3] for x in range(9)]

        self.prompted = TabularSoftmax(3, agent_prior)
        self.helper = TabularSoftmax(3, agent_prior)
        self.main = TabularSoftmax(3, agent_prior)
        self.central = TabularSoftmax(9, joint_prior)
        self.ego = TabularSoftmax(3, agent_prior)

        master = random.Random(self.params.seed)
        self._rngs = {
            name: random.Random(master.getrandbits(64))
            for name in ("prompted", "learned", "centralized", "partners")
        }
        self._episode_seed = master.getrandbits(64)
        self.mean_reward: dict[str, list[float]] = {m: [] for m in METHODS}
        self.updates_done = 0
        self.stopped = False

    @property
    def done(self) -> bool:
        return self.stopped or self.updates_done >= self.params.updates

    def stop(self) -> None:
        """End the run; :meth:`results` then describes the policies as they are."""
        self.stopped = True

    def step(self) -> None:
        """One update of every method (prompted only samples; it never learns)."""
        if self.done:
            return
        p, env, turns, size = self.params, self.env, self.params.turns, self.params.group_size
        step = p.learning_rate / size

        rng = self._rngs["prompted"]
        prompted = self.prompted.probs
        returns = [_rollout(prompted, prompted, env, turns, rng, None)[0] for _ in range(size)]
        self.mean_reward["prompted"].append(math.fsum(returns) / size)

        # --8<-- [start:learned-update]
        rng = self._rngs["learned"]
        episodes = [
            _rollout(self.helper.probs, self.main.probs, env, turns, rng, None) for _ in range(size)
        ]
        returns = [e[0] for e in episodes]
        advantages = group_advantages(returns)
        # The same advantage for both agents: the shared reward does not say who earned it.
        self.helper.reinforce([e[1] for e in episodes], advantages, step)
        self.main.reinforce([e[2] for e in episodes], advantages, step)
        self.mean_reward["learned"].append(math.fsum(returns) / size)
        # --8<-- [end:learned-update]

        rng = self._rngs["centralized"]
        joint = [_rollout_joint(self.central, env, turns, rng) for _ in range(size)]
        returns = [e[0] for e in joint]
        self.central.reinforce([e[1] for e in joint], group_advantages(returns), step)
        self.mean_reward["centralized"].append(math.fsum(returns) / size)

        # A group shares its prompt, as in GRPO: one training partner per update, in turn.
        rng = self._rngs["partners"]
        partner = self.training_partners[self.updates_done % len(self.training_partners)]
        helper = _fixed(_normalised(partner.probabilities))
        episodes = [
            _rollout(helper, self.ego.probs, env, turns, rng, partner.note) for _ in range(size)
        ]
        advantages = group_advantages([e[0] for e in episodes])
        self.ego.reinforce([e[2] for e in episodes], advantages, step)

        self.updates_done += 1

    def progress(self) -> dict[str, Any]:
        """The learning curves so far."""
        return {
            "update": self.updates_done,
            "updates": self.params.updates,
            "mean_reward": {m: list(v) for m, v in self.mean_reward.items()},
        }

    def _joint(self, method: str) -> Callable[[tuple, tuple], Sequence[float]]:
        if method == "prompted":
            return _independent(self.prompted.probs, self.prompted.probs)
        if method == "learned":
            return _independent(self.helper.probs, self.main.probs)
        return lambda kh, km: self.central.probs((kh, km))

    def _partner_scores(self) -> dict[str, Any]:
        env, turns = self.env, self.params.turns

        def score(partner: Partner) -> dict[str, Any]:
            helper = _fixed(_normalised(partner.probabilities))
            after, _ = _exact(_independent(helper, self.ego.probs), env, turns, partner.note)
            before, _ = _exact(_independent(helper, self.prompted.probs), env, turns, partner.note)
            return {
                "name": partner.name,
                "description": partner.description,
                "note": partner.note,
                "probabilities": list(_normalised(partner.probabilities)),
                "score": after,
                "score_before_training": before,
            }

        training = [score(partner) for partner in self.training_partners]
        held_out = [score(partner) for partner in self.held_out_partners]
        return {
            "ego": "main",
            "training": training,
            "held_out": held_out,
            "training_mean": math.fsum(s["score"] for s in training) / len(training),
            "held_out_mean": math.fsum(s["score"] for s in held_out) / len(held_out)
            if held_out
            else None,
        }

    def results(self) -> dict[str, Any]:
        """Everything the page shows, as plain JSON data."""
        env, turns = self.env, self.params.turns
        expected: dict[str, float] = {}
        by_turn: dict[str, list[list[list[float]]]] = {}
        for method in METHODS:
            expected[method], by_turn[method] = _exact(self._joint(method), env, turns)
        best = max(max(row) for row in env.rewards)
        return {
            "params": self.params.to_json(),
            "updates_done": self.updates_done,
            "stopped": self.stopped and self.updates_done < self.params.updates,
            "responses": {
                role: [{"id": r.id, "summary": r.summary, "code": r.code} for r in RESPONSES[role]]
                for role in ("helper", "main")
            },
            "rewards": [list(row) for row in env.rewards],
            "joint_outputs": [[out.text for out in row] for row in env.outputs],
            "optimum": {
                "reward": best,
                "cells": [[i, j] for i in range(3) for j in range(3) if env.rewards[i][j] == best],
            },
            "mean_reward": {m: list(v) for m, v in self.mean_reward.items()},
            "expected_reward": expected,
            "joint_distribution": {m: by_turn[m][-1] for m in METHODS},
            "joint_distribution_by_turn": by_turn,
            "settled_on": {m: _cell_summary(by_turn[m][-1], env) for m in METHODS},
            "partners": self._partner_scores(),
            "episode": self.record_episode(),
        }

    def record_episode(self) -> dict[str, Any]:
        """One episode of the learned agents, each step labelled with its MARL concept."""
        rng = random.Random(self._episode_seed)
        env, turns = self.env, self.params.turns
        policies = {"helper": self.helper, "main": self.main}
        keys = dict(zip(("helper", "main"), _first_keys(None), strict=True))
        steps = []
        rewards = []
        for t in range(1, turns + 1):
            agents = []
            chosen = {}
            for role in ("helper", "main"):
                obs = Observation.from_key(keys[role])
                probs = list(policies[role].probs(keys[role]))
                a = sample(probs, rng.random())
                chosen[role] = a
                response = RESPONSES[role][a]
                agents.append(
                    {
                        "agent": role,
                        "observation": {"label": "Observation", "text": obs.text},
                        "policy": {
                            "label": "Policy",
                            "text": f"The {role} agent's learned softmax policy for this prompt.",
                            "probabilities": probs,
                            "responses": [r.id for r in RESPONSES[role]],
                        },
                        "action": {
                            "label": "Action",
                            "response": response.id,
                            "summary": response.summary,
                            "text": response.code,
                        },
                    }
                )
            i, j = chosen["helper"], chosen["main"]
            reward = env.rewards[i][j]
            rewards.append(reward)
            if t < turns:
                fb = env.feedback[i][j]
                keys = {
                    "helper": ("helper", t + 1, i, fb, None),
                    "main": ("main", t + 1, j, fb, None),
                }
                transition = {
                    "label": "Environment transition",
                    "text": "The verifier's feedback is appended to each agent's prompt "
                    f"for turn {t + 1}.",
                    "next_observations": [
                        {"agent": role, "text": Observation.from_key(keys[role]).text}
                        for role in ("helper", "main")
                    ],
                }
            else:
                transition = {
                    "label": "Environment transition",
                    "text": "The joint program is delivered and the episode ends "
                    f"(horizon {turns}).",
                    "next_observations": [],
                }
            steps.append(
                {
                    "turn": t,
                    "agents": agents,
                    "joint_output": {"label": "Joint output", "text": env.outputs[i][j].text},
                    "reward": {
                        "label": "Reward",
                        "value": reward,
                        "text": env.feedback[i][j] + " Both agents receive this one number.",
                    },
                    "transition": transition,
                }
            )
        return {
            "method": "learned",
            "turns": steps,
            "episode_reward": math.fsum(rewards) / turns,
        }


def run_experiment(
    params: SimParams | Mapping[str, Any] | None = None,
    on_progress: ProgressFn | None = None,
    *,
    reward_fn: RewardFn | None = None,
    prior_fn: PriorFn | None = None,
    training_partners: Sequence[Partner] = DEFAULT_TRAINING_PARTNERS,
    held_out_partners: Sequence[Partner] = DEFAULT_HELD_OUT_PARTNERS,
    progress_every: int | None = None,
) -> dict[str, Any]:
    """Run prompted, learned and centralized play and the partner experiment; return results.

    ``on_progress(update, partial)`` is called every ``progress_every`` updates
    (default: about 20 calls per run) and after the last; ``partial`` is
    :meth:`Experiment.progress`. Returning a true value, or raising
    :class:`StopExperiment`, stops the run cleanly; the results then cover the
    updates done (``"stopped": true``).
    """
    experiment = Experiment(
        params,
        reward_fn=reward_fn,
        prior_fn=prior_fn,
        training_partners=training_partners,
        held_out_partners=held_out_partners,
    )
    total = experiment.params.updates
    every = progress_every if progress_every is not None else max(1, total // 20)
    if every < 1:
        raise ValueError("progress_every must be at least 1.")
    while not experiment.done:
        experiment.step()
        if on_progress is not None and (
            experiment.updates_done % every == 0 or experiment.updates_done == total
        ):
            try:
                stop = on_progress(experiment.updates_done, experiment.progress())
            except StopExperiment:
                stop = True
            if stop:
                experiment.stop()
    return experiment.results()
