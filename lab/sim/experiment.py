"""A toy joint-reward simulation: two LLM-like agents, one shared reward.

The toy written out as a Dec-POMDP:

- **Agents**: two, in distinct roles, as in Liu et al.'s coding setting. The
  *helper* writes the auxiliary function ``aux(nums)``; the *main* agent writes
  the entry point ``solve(nums)``.
- **States**: the task, the turn, and the previous joint output with its score.
- **Joint actions**: each agent's action is one whole response (one of
  :data:`N_RESPONSES` canned programs), not a token; a joint action is a pair of
  responses, a *cell* of the reward table.
- **Transition**: the two responses are put together into one program, the
  joint output. With two turns, the verifier's feedback on it is appended to
  each agent's next prompt.
- **One shared reward**: the verifier scores the joint output alone and returns
  one number for both agents. Nothing says which agent caused it.
- **Local observations**: each agent sees only its own prompt
  (:class:`lab.sim.task.Observation`). It never sees its partner's response.
- **Horizon**: 1 or 2 turns. The *episode reward* the page reports is the mean
  of the turns' shared rewards, so it stays on the reward table's scale.

Policies are softmaxes over whole responses, starting from the role prompts'
prior, sampled at a temperature (1 unless set). Four ways of playing are
compared, plus a partner experiment:

- **Prompted collaboration**: both agents keep the prior; nothing is learned.
- **Learned collaboration** (MAGRPO, Liu et al., AAAI-26, Eq. 1): each agent
  has its own policy over its own prompt. Every update samples a *group* of G
  joint responses from the same joint history; each response's advantage is
  its return minus the group's mean return (:func:`group_advantages`; other
  baselines are options), and *the same advantage goes to both agents*. A group
  pairs the agents' g-th responses (CoMLRL's ``align``) or every response with
  every partner response (``cross``). With two turns the rollouts form a tree,
  as in CoMLRL's multi-turn MAGRPO: every joint response sampled in turn 1,
  duplicates included, starts its own rollout with its own group of G in turn 2
  (siblings share a baseline; ``branching="merge"`` gives each distinct history
  one group instead), and a turn is credited with its return from that turn on,
  ``r_t + discount * r_(t+1)``, where the later term is the mean over its own
  turn-2 group. Lenient learners (Panait, Sullivan & Luke, 2006) are an option:
  each agent judges its response by the best return it earned in the group.
- **Centralized control**, the yardstick: one policy over joint responses,
  conditioned on both prompts, moved by the *exact* natural gradient (no
  sampling, so no seed changes it).
- **Centralized learner (sampled)**: the same joint policy trained by the very
  sampled update the team uses, so that joint control and exactness can be told
  apart.
- **Partner generalization**: the main agent (the ego) trains with fixed
  helpers whose notes land in its prompt, then meets helpers fixed before
  training. The ego's policy reads a note through its words (one weight per
  word and response), so a new note moves it as far as it shares words with
  the notes it trained on: transfer is measured, not assumed.

All expected rewards are exact (every joint history is enumerated), and
everything is deterministic given the seed: one ``random.Random`` per stream,
derived from ``random.Random(seed)``, and sums through ``math.fsum``.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
import random
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from lab.core.advantages import BASELINES, group_advantages
from lab.core.movement import (
    MOVING_THRESHOLD,
    checkpoint,
    describe_movement,
    is_moving,
    total_variation,
)
from lab.core.optimum import OPTIMUM_TOLERANCE, reaches_optimum
from lab.core.stats import (
    band,
    band_updates,
    describe_count,
    describe_exact_count,
    quartiles,
    wilson_interval,
)
from lab.sim.params import ParamError, SimParams, param_spec, validate_params
from lab.sim.task import (
    DEFAULT_HELD_OUT_PARTNERS,
    DEFAULT_TRAINING_PARTNERS,
    N_RESPONSES,
    RESPONSES,
    ROLES,
    Observation,
    Partner,
    PriorFn,
    RewardFn,
    assemble,
    checked_prior,
    checked_reward,
    feedback_text,
    format_score,
    make_reward_fn,
    note_words,
    prompted_prior,
)

__all__ = [
    "BASELINES",
    "METHODS",
    "METHOD_LABELS",
    "OPTIMUM_TOLERANCE",
    "Experiment",
    "JointHistory",
    "ParamError",
    "SimParams",
    "StopExperiment",
    "group_advantages",
    "param_spec",
    "reaches_optimum",
    "run_experiment",
    "validate_params",
]

#: The ways of playing that the learning curves compare.
METHODS = ("prompted", "learned", "centralized", "centralized_sampled")
#: What each method is called on the page.
METHOD_LABELS = {
    "prompted": "Prompted collaboration",
    "learned": "Learned collaboration (MAGRPO)",
    "centralized": "Centralized control",
    "centralized_sampled": "Centralized learner (sampled)",
}
#: The methods whose outcome is the same exact result in every seed (prompted play samples
#: its curve but never learns; the yardstick samples nothing), so a count of their seeds
#: carries no interval.
EXACT_METHODS = frozenset({"prompted", "centralized"})

#: Every joint response, as (helper's response, main agent's response): the table's cells.
CELLS: tuple[tuple[int, int], ...] = tuple(
    (i, j) for i in range(N_RESPONSES) for j in range(N_RESPONSES)
)

#: torch.optim.AdamW's defaults, which CoMLRL's MAGRPOTrainer keeps (it sets only lr).
ADAMW_BETAS = (0.9, 0.999)
ADAMW_EPS = 1e-8
ADAMW_WEIGHT_DECAY = 0.01

ProgressFn = Callable[[int, dict[str, Any]], Any]
#: The advantage every learned method uses: (a group's returns, the baseline) -> advantages.
#: :func:`lab.core.advantages.group_advantages` unless a run is given another
#: (a reader's own, from a graded exercise: :mod:`lab.exercise.train`).
AdvantageFn = Callable[[Sequence[float], str], Sequence[float]]


class StopExperiment(Exception):
    """Raised by a progress callback to end the run early; the results so far are kept."""


# --8<-- [start:transition]
class JointHistory(NamedTuple):
    """Both agents' prompts at one turn: what a centralized policy reads, and a tree node."""

    helper: Observation
    main: Observation

    @classmethod
    def start(cls, note: str | None = None) -> JointHistory:
        """Turn 1: the role prompts, and the partner's note in the main agent's prompt."""
        return cls(Observation("helper"), Observation("main", note=note))

    def then(self, cell: tuple[int, int], feedback: str) -> JointHistory:
        """The next turn's prompts: each agent's own last response and the shared feedback."""
        i, j = cell
        turn = self.helper.turn + 1
        return JointHistory(
            Observation("helper", turn, i, feedback, self.helper.note),
            Observation("main", turn, j, feedback, self.main.note),
        )
        # --8<-- [end:transition]


def softmax(logits: Sequence[float]) -> list[float]:
    """Probabilities from logits."""
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = math.fsum(exps)
    return [e / total for e in exps]


def _tempered(logits: Sequence[float], t: float) -> list[float]:
    """Logits divided by the temperature, from their top, so that a small T cannot overflow."""
    top = max(logits)
    return [(x - top) / t for x in logits]


def sample(probs: Sequence[float], u: float) -> int:
    """The index that ``u`` in [0, 1) falls on in the cumulative ``probs``."""
    acc = 0.0
    last = len(probs) - 1
    for i in range(last):
        acc += probs[i]
        if u < acc:
            return i
    return last


class Policy:
    """A softmax over ``n`` whole responses: prior(a | o) times exp of the weights of o's features.

    ``features(o)`` names what the policy reads in an observation. With the
    default, the observation itself, each prompt gets its own row of weights:
    a tabular policy. A prompt never trained on keeps the prior.

    ``temperature`` T divides the logits (log prior + weights) before the
    softmax, as an LLM samples at a temperature: the policy that acts and is
    scored is softmax(logits / T). ``gradient`` says what the update
    differentiates: ``"untempered"`` (CoMLRL's loss, and the language-model lab's)
    takes log softmax(logits) of the response sampled at T, so its step is
    one-hot - softmax(logits) whatever T; ``"tempered"`` differentiates the policy
    that sampled, log softmax(logits / T), whose gradient is (one-hot - p) / T, so
    the tempered logits move by lr / T² (the on-policy gradient). At T = 1 the two
    are the same and nothing is divided at all. With a baseline whose advantages sum
    to zero over a group (mean, normalized, leave-one-out), the ``- p`` term
    vanishes, so ``"tempered"`` at lr is ``"untempered"`` at lr / T.

    ``optimizer`` says how a step is taken from the gradient: ``"plain"`` (the
    learning rate times it) or ``"adamw"``, CoMLRL's optimizer
    (``torch.optim.AdamW(agent.parameters(), lr=learning_rate)`` in its
    ``MAGRPOTrainer``, so torch's defaults: betas 0.9 and 0.999, eps 1e-8,
    weight decay 0.01). Each observation's row of weights is one AdamW
    parameter with its own moments and step count; a row the update gave no
    gradient is left as it is, as torch skips a parameter whose gradient is None.
    """

    def __init__(
        self,
        n: int,
        prior: Callable[[Any], Sequence[float]],
        features: Callable[[Any], Iterable[Hashable]] = lambda o: (o,),
        temperature: float = 1.0,
        gradient: str = "untempered",
        optimizer: str = "plain",
    ) -> None:
        self.n = n
        self._prior = prior
        self._features = features
        self.temperature = temperature
        self.gradient = gradient
        self.optimizer = optimizer
        #: AdamW's state per row of weights: its step count, first and second moments.
        self._adamw: dict[Hashable, tuple[int, list[float], list[float]]] = {}
        self.weights: dict[Hashable, list[float]] = {}
        self._probs: dict[Any, list[float]] = {}
        self._cumulative: dict[Any, list[float]] = {}
        self._log_prior: dict[Any, list[float]] = {}
        self._untempered: dict[Any, list[float]] = {}
        self._grads: dict[Hashable, list[float]] = {}

    def cumulative(self, observation: Any) -> list[float]:
        """The running sums of :meth:`probs`: what ``random.choices`` samples from (cached)."""
        c = self._cumulative.get(observation)
        if c is None:
            c = self._cumulative[observation] = list(itertools.accumulate(self.probs(observation)))
        return c

    def probs(self, observation: Any, *, untempered: bool = False) -> list[float]:
        """The policy at ``observation`` at its temperature, or with ``untempered`` at T = 1:
        softmax(logits), what CoMLRL's loss differentiates."""
        t = 1.0 if untempered else self.temperature
        cache = self._untempered if untempered and t != self.temperature else self._probs
        p = cache.get(observation)
        if p is None:
            prior = self._prior(observation)
            rows = [self.weights[f] for f in self._features(observation) if f in self.weights]
            if rows:
                log_prior = self._log_prior.get(observation)
                if log_prior is None:
                    log_prior = self._log_prior[observation] = [math.log(x) for x in prior]
                if len(rows) == 1:  # a tabular policy's one row (fsum of one number is itself)
                    row = rows[0]
                    logits = [log_prior[a] + row[a] for a in range(self.n)]
                else:
                    logits = [log_prior[a] + math.fsum(r[a] for r in rows) for a in range(self.n)]
                p = softmax(logits if t == 1.0 else _tempered(logits, t))
            elif t == 1.0:
                p = list(prior)
            else:
                p = softmax(_tempered([math.log(x) for x in prior], t))
            cache[observation] = p
        return p

    def accumulate(self, observation: Any, per_action: Sequence[float]) -> None:
        """Add sum over samples of A * grad log pi(a | observation) to the pending step.

        ``per_action[a]`` is the sum of the advantages of the samples that chose
        ``a`` here; grad log pi(a) is one-hot(a) - pi, per feature.
        """
        total = math.fsum(per_action)
        if total == 0.0 and not any(per_action):
            return
        tempered = self.gradient == "tempered"
        p = self.probs(observation, untempered=not tempered)
        increments = [per_action[b] - total * p[b] for b in range(self.n)]
        if tempered and self.temperature != 1.0:
            increments = [x / self.temperature for x in increments]
        self.add(observation, increments)

    def add(self, observation: Any, increments: Sequence[float]) -> None:
        """Add ``increments`` to the weights of ``observation``'s features, taking effect at
        the next :meth:`apply` (so that every history is scored by the same policy)."""
        for f in self._features(observation):
            g = self._grads.get(f)
            if g is None:
                g = self._grads[f] = [0.0] * self.n
            for b in range(self.n):
                g[b] += increments[b]

    def apply(self, step: float) -> None:
        """Take the pending step (``step`` is the learning rate) and clear it."""
        for f, g in self._grads.items():
            row = self.weights.get(f)
            if row is None:
                row = self.weights[f] = [0.0] * self.n
            if self.optimizer == "adamw":
                self._adamw_step(f, row, g, step)
                continue
            for b in range(self.n):
                row[b] += step * g[b]
        self._grads.clear()
        self._probs.clear()
        self._untempered.clear()
        self._cumulative.clear()

    def _adamw_step(
        self, feature: Hashable, row: list[float], ascent: list[float], lr: float
    ) -> None:
        """torch.optim.AdamW's update of one row (its single-tensor algorithm, in floats).

        torch minimizes the loss -A log pi, whose gradient is minus ``ascent``: the
        moments below are of the ascent, so the step is added, not subtracted.
        """
        t, m, v = self._adamw.get(feature) or (0, [0.0] * self.n, [0.0] * self.n)
        t += 1
        correction1 = 1.0 - ADAMW_BETAS[0] ** t
        root_correction2 = math.sqrt(1.0 - ADAMW_BETAS[1] ** t)
        for b in range(self.n):
            row[b] *= 1.0 - lr * ADAMW_WEIGHT_DECAY  # decoupled decay, towards the prior
            m[b] = ADAMW_BETAS[0] * m[b] + (1.0 - ADAMW_BETAS[0]) * ascent[b]
            v[b] = ADAMW_BETAS[1] * v[b] + (1.0 - ADAMW_BETAS[1]) * ascent[b] * ascent[b]
            denominator = math.sqrt(v[b]) / root_correction2 + ADAMW_EPS
            row[b] += lr / correction1 * m[b] / denominator
        self._adamw[feature] = (t, m, v)


class Environment:
    """The verifier's side: every possible joint output, each with one shared reward.

    The verifier is a deterministic function of the joint output, so it is asked
    once per possible program, before training; a bad value is refused up front,
    naming the joint output.
    """

    def __init__(self, reward_fn: RewardFn) -> None:
        self.outputs = {cell: assemble(*cell) for cell in CELLS}
        self.rewards = {cell: checked_reward(reward_fn, out) for cell, out in self.outputs.items()}
        self.feedback = {cell: feedback_text(r) for cell, r in self.rewards.items()}
        self.best = max(self.rewards.values())

    def table(self) -> list[list[float]]:
        return [[self.rewards[i, j] for j in range(N_RESPONSES)] for i in range(N_RESPONSES)]


_ACTIONS = range(N_RESPONSES)
_CELL_INDICES = range(len(CELLS))
_CELL_INDEX = {cell: k for k, cell in enumerate(CELLS)}
#: The probability of every cell at one joint history (in CELLS order).
Joint = Callable[[JointHistory], Sequence[float]]

#: A learning policy, what it observed, the action it took in each sample of a group, and
#: its role: which advantages it gets (0 the helper or the joint learner, 1 the main agent).
Learning = tuple[Policy, Any, list[int], int]


class Learner:
    """What the team and the joint learner share: how a group's advantages reach their policies."""

    def learning(self, h: JointHistory, cells: Sequence[tuple[int, int]]) -> Iterator[Learning]:
        raise NotImplementedError

    def credit(
        self,
        h: JointHistory,
        cells: Sequence[tuple[int, int]],
        advantages: Mapping[int, Sequence[float]],
    ) -> None:
        """Give each learning policy, at what it observed, each sample's advantage for the
        action it took: its role's advantages (MAGRPO: the same shared-reward ones for all)."""
        for policy, observation, actions, role in self.learning(h, cells):
            per_action = [0.0] * policy.n
            for a, advantage in zip(actions, advantages[role], strict=True):
                per_action[a] += advantage
            policy.accumulate(observation, per_action)


class Team(Learner):
    """Two agents, each acting on its own prompt; the helper may be a fixed partner.

    A fixed partner is given as its probabilities: it acts but never learns.
    With ``cross`` (CoMLRL's ``joint_mode="cross"``) a group pairs every sampled
    helper response with every sampled main response, G x G joint responses;
    otherwise (``align``) the g-th responses are paired, G joint responses.
    """

    def __init__(
        self, helper: Policy | Sequence[float], main: Policy, *, cross: bool = False
    ) -> None:
        self.helper = helper if isinstance(helper, Policy) else None
        self._fixed = None if isinstance(helper, Policy) else list(helper)
        self._fixed_cumulative = (
            None if self._fixed is None else list(itertools.accumulate(self._fixed))
        )
        self.main = main
        self.cross = cross
        #: The learning agents, by their index in a cell (0 the helper, 1 the main agent).
        self.roles = (1,) if self.helper is None else (0, 1)

    def _probs(self, h: JointHistory) -> tuple[Sequence[float], Sequence[float]]:
        ph = self._fixed if self.helper is None else self.helper.probs(h.helper)
        return ph, self.main.probs(h.main)

    def _cumulative(self, h: JointHistory) -> tuple[Sequence[float], Sequence[float]]:
        ch = self._fixed_cumulative if self.helper is None else self.helper.cumulative(h.helper)
        return ch, self.main.cumulative(h.main)

    def joint(self, h: JointHistory) -> list[float]:
        ph, pm = self._probs(h)
        return [ph[i] * pm[j] for i, j in CELLS]

    def group(self, h: JointHistory, size: int, rng: random.Random) -> list[tuple[int, int]]:
        """The joint responses sampled at ``h``: each agent samples ``size`` from its own prompt."""
        ch, cm = self._cumulative(h)
        # One draw per agent and sample, from each agent's own distribution.
        helper = rng.choices(_ACTIONS, cum_weights=ch, k=size)
        main = rng.choices(_ACTIONS, cum_weights=cm, k=size)
        if self.cross:
            return [(i, j) for i in helper for j in main]
        return list(zip(helper, main, strict=True))

    @staticmethod
    def action(role: int, cell: tuple[int, int]) -> int:
        """What the agent in ``role`` wrote in ``cell``."""
        return cell[role]

    def learning(self, h: JointHistory, cells: Sequence[tuple[int, int]]) -> Iterator[Learning]:
        """Each learning agent at its own prompt, with what it wrote in each joint response."""
        yield self.main, h.main, [cell[1] for cell in cells], 1
        if self.helper is not None:
            yield self.helper, h.helper, [cell[0] for cell in cells], 0


class CentralLearner(Learner):
    """One sampled policy over joint responses, reading both prompts: the joint learner.

    It is trained by the very update the team is (:func:`_grow`: a group of G
    joint responses, each against the group's baseline), so that what it
    reaches and the team does not is what joint control gives, apart from
    exactness (which the natural-gradient yardstick adds). In cross mode the
    team scores G x G joint responses a group; ``squared`` gives the joint
    learner as many (G x G samples), so that the two compare at equal reward calls.
    """

    roles = (0,)

    def __init__(self, policy: Policy, *, squared: bool = False) -> None:
        self.policy = policy
        self.squared = squared

    def joint(self, h: JointHistory) -> list[float]:
        return self.policy.probs(h)

    def group(self, h: JointHistory, size: int, rng: random.Random) -> list[tuple[int, int]]:
        k = size * size if self.squared else size
        picks = rng.choices(_CELL_INDICES, cum_weights=self.policy.cumulative(h), k=k)
        return [CELLS[k] for k in picks]

    @staticmethod
    def action(role: int, cell: tuple[int, int]) -> tuple[int, int]:
        return cell

    def learning(self, h: JointHistory, cells: Sequence[tuple[int, int]]) -> Iterator[Learning]:
        """The one policy, at the joint history, with the joint response it chose each time."""
        yield self.policy, h, [_CELL_INDEX[cell] for cell in cells], 0


@dataclass(frozen=True)
class Training:
    """How one update samples and credits: group size, turns, discount, baseline, branching.

    ``merge``: turn-1 siblings that played the same joint response share one
    turn-2 group (one subtree per distinct history) instead of each sampling
    its own (CoMLRL's rollout tree). ``lenient``: each agent judges each of its
    responses by the best return it earned in the group (Panait et al., 2006).
    ``stop_above``: CoMLRL's early termination (``MAGRPOTrainer._train_step_returns``
    in OpenMLRL/CoMLRL, ``comlrl/trainers/reinforce/magrpo.py``): a group whose
    mean reward is above it starts no next-turn group, so each of its joint
    responses' return is its own reward. ``node_mean``: each turn's groups'
    gradients are averaged instead of summed, as CoMLRL averages the losses of
    the groups ("nodes") it trains on together, one turn at a time
    (``_process_buffer``, ``_update_from_samples``).
    """

    size: int
    turns: int
    discount: float
    baseline: str
    merge: bool = False
    lenient: bool = False
    stop_above: float | None = None
    node_mean: bool = False
    #: False for prompted play, which samples its curve like the others but never learns.
    credit: bool = True
    advantages: AdvantageFn = group_advantages


def _lenient(returns: Sequence[float], actions: Sequence[Hashable]) -> list[float]:
    """Each sample's return replaced by the best return its agent's response earned in the group.

    A lenient learner (Panait, Sullivan & Luke, 2006) forgives its partner's
    exploration: of the several rewards one action of its own received, it
    keeps the maximum, as if the partner had answered it well.
    """
    best: dict[Hashable, float] = {}
    for r, a in zip(returns, actions, strict=True):
        if a not in best or r > best[a]:
            best[a] = r
    return [best[a] for a in actions]


#: One group's credit, kept to be scaled before it is given: its turn, joint history,
#: joint responses and each role's advantages.
Credit = tuple[int, JointHistory, Sequence[tuple[int, int]], dict[int, list[float]]]


def _update(
    team: Learner, env: Environment, history: JointHistory, how: Training, rng: random.Random
) -> tuple[float, float]:
    """One update's rollout tree from ``history`` (:func:`_grow`), every group credited.

    With ``how.node_mean`` each group's credit waits until the tree is grown, to
    be divided by the number of groups of its turn.
    """
    if not how.node_mean:
        return _grow(team, env, history, how, rng)
    credits: list[Credit] = []
    value = _grow(team, env, history, how, rng, credits)
    per_turn = collections.Counter(turn for turn, *_ in credits)
    for turn, node, cells, advantages in credits:
        k = per_turn[turn]
        team.credit(node, cells, {role: [a / k for a in v] for role, v in advantages.items()})
    return value


# --8<-- [start:learned-update]
def _grow(
    team: Learner,
    env: Environment,
    history: JointHistory,
    how: Training,
    rng: random.Random,
    credits: list[Credit] | None = None,
) -> tuple[float, float]:
    """Sample one group of joint responses at ``history``, credit them, and recurse.

    Returns the group's mean return (the value of ``history``, discounted) and its
    mean sum of rewards (what the learning curve shows). ``credits``, if given,
    collects each group's credit instead of giving it (:func:`_update`).
    """
    cells = team.group(history, how.size, rng)
    n = len(cells)
    rewards = [env.rewards[cell] for cell in cells]
    returns, totals = rewards, rewards
    turn = history.helper.turn
    # CoMLRL's early termination: terminate_here = mean(rewards_vec) > termination_threshold.
    stopped = (
        turn < how.turns and how.stop_above is not None and math.fsum(rewards) / n > how.stop_above
    )
    if turn < how.turns and not stopped:
        nexts = {c: history.then(c, env.feedback[c]) for c in cells}
        if how.merge:
            # Siblings that played the same cell reached the same joint history: one subtree.
            later: dict[tuple[int, int], tuple[float, float]] = {}
            for cell in cells:
                if cell not in later:
                    later[cell] = _grow(team, env, nexts[cell], how, rng, credits)
            after = [later[c] for c in cells]
        else:
            # Every sampled joint response starts its own rollout, duplicates too (CoMLRL).
            after = [_grow(team, env, nexts[c], how, rng, credits) for c in cells]
        returns = [r + how.discount * a[0] for r, a in zip(rewards, after, strict=True)]
        totals = [r + a[1] for r, a in zip(rewards, after, strict=True)]
    elif stopped:
        # In the learning curve a stopped episode's last answer stands for the turns left.
        totals = [r * (how.turns - turn + 1) for r in rewards]
    if not how.credit:
        return math.fsum(returns) / n, math.fsum(totals) / n
    if how.lenient:
        advantages = {
            role: [
                a / n
                for a in how.advantages(
                    _lenient(returns, [team.action(role, c) for c in cells]), how.baseline
                )
            ]
            for role in team.roles
        }
    else:
        # The same advantage for both agents: the shared reward does not say who earned it.
        shared = [a / n for a in how.advantages(returns, how.baseline)]
        advantages = dict.fromkeys(team.roles, shared)
    if credits is None:
        team.credit(history, cells, advantages)
    else:
        credits.append((turn, history, cells, advantages))
    return math.fsum(returns) / n, math.fsum(totals) / n
    # --8<-- [end:learned-update]


# --8<-- [start:yardstick]
def _natural_step(
    policy: Policy, env: Environment, history: JointHistory, how: Training, step: float
) -> tuple[float, float]:
    """Move a centralized policy by the exact natural gradient below ``history``.

    At every joint history, each joint response's logit moves by ``step`` times its
    exact advantage Q - V, however unlikely the response is (Kakade, 2001; for a
    softmax policy this converges to the optimum, Agarwal et al., 2021). Returns
    the history's value before the step, discounted and as a plain sum of rewards.
    """
    probs = policy.probs(history)
    q, totals = [], []
    for cell in CELLS:
        value = total = env.rewards[cell]
        if history.helper.turn < how.turns:
            nxt = history.then(cell, env.feedback[cell])
            later, later_total = _natural_step(policy, env, nxt, how, step)
            value += how.discount * later
            total += later_total
        q.append(value)
        totals.append(total)
    v = math.fsum(p * x for p, x in zip(probs, q, strict=True))
    policy.add(history, [step * (x - v) for x in q])
    return v, math.fsum(p * x for p, x in zip(probs, totals, strict=True))
    # --8<-- [end:yardstick]


def _exact(
    joint: Joint, env: Environment, turns: int, note: str | None = None
) -> tuple[float, list[list[list[float]]]]:
    """Expected episode reward and each turn's joint-response distribution, exactly."""
    histories: dict[JointHistory, float] = {JointHistory.start(note): 1.0}
    terms: list[float] = []
    by_turn = []
    for turn in range(1, turns + 1):
        dist = [[0.0] * N_RESPONSES for _ in range(N_RESPONSES)]
        following: dict[JointHistory, float] = {}
        for history, weight in histories.items():
            for cell, p in zip(CELLS, joint(history), strict=True):
                p *= weight
                dist[cell[0]][cell[1]] += p
                terms.append(p * env.rewards[cell])
                if turn < turns:
                    nxt = history.then(cell, env.feedback[cell])
                    following[nxt] = following.get(nxt, 0.0) + p
        by_turn.append(dist)
        histories = following
    return math.fsum(terms) / turns, by_turn


def _total_variation(p: list[list[float]], q: list[list[float]]) -> float:
    """The total-variation distance of two distributions over the table's cells."""
    return total_variation({c: p[c[0]][c[1]] for c in CELLS}, {c: q[c[0]][c[1]] for c in CELLS})


def _check_partners(partners: Sequence[Partner], which: str) -> tuple[Partner, ...]:
    partners = tuple(partners)
    for partner in partners:
        p = partner.probabilities
        if (
            len(p) != N_RESPONSES
            or any(not math.isfinite(v) or v < 0 for v in p)
            or math.fsum(p) <= 0
        ):
            raise ValueError(
                f"Partner {partner.name!r} needs {N_RESPONSES} non-negative probabilities."
            )
    if which == "training" and not partners:
        raise ValueError("The ego needs at least one training partner.")
    return partners


def _normalised(p: Sequence[float]) -> list[float]:
    total = math.fsum(p)
    return [v / total for v in p]


def _ego_features(observation: Observation) -> tuple[Hashable, ...]:
    """What the ego reads: its turn's situation, and each word of the partner's note."""
    words = tuple(("word", observation.turn, w) for w in sorted(note_words(observation.note)))
    if observation.turn == 1:
        return words
    situation = ("prompt", observation.turn, observation.last_response, observation.feedback)
    return (situation, *words)


def cell_name(cell: Sequence[int]) -> str:
    """A joint response as the page names it: ``core + delegate``."""
    return f"{RESPONSES['helper'][cell[0]].id} + {RESPONSES['main'][cell[1]].id}"


def _cell_summary(dist: list[list[float]], env: Environment) -> dict[str, Any]:
    """The most likely joint response (the first in table order on a tie)."""
    cell = max(CELLS, key=lambda c: dist[c[0]][c[1]])
    return {
        "cell": list(cell),
        "name": cell_name(cell),
        "probability": dist[cell[0]][cell[1]],
        "reward": env.rewards[cell],
    }


class Experiment:
    """One run of every method for one seed, one update at a time, so a caller can draw and stop.

    ``params`` may be a :class:`SimParams`, the page's dict (validated here), or
    None for the defaults. ``reward_fn`` (the verifier, given the joint output
    only) and ``prior_fn`` (the role prompts' prior, given one observation)
    default to :func:`lab.sim.task.make_reward_fn` of the params' table and
    :func:`lab.sim.task.prompted_prior`. The held-out partners are fixed here,
    before the first update. ``seed`` overrides the params' seed (for runs over
    several seeds). ``advantages`` replaces the built-in advantage (:data:`AdvantageFn`).
    """

    def __init__(
        self,
        params: SimParams | Mapping[str, Any] | None = None,
        *,
        reward_fn: RewardFn | None = None,
        prior_fn: PriorFn | None = None,
        training_partners: Sequence[Partner] = DEFAULT_TRAINING_PARTNERS,
        held_out_partners: Sequence[Partner] = DEFAULT_HELD_OUT_PARTNERS,
        seed: int | None = None,
        advantages: AdvantageFn = group_advantages,
    ) -> None:
        self.params = params if isinstance(params, SimParams) else validate_params(params)
        self.seed = self.params.seed if seed is None else seed
        self.env = Environment(reward_fn or make_reward_fn(self.params.reward_table))
        self.training_partners = _check_partners(training_partners, "training")
        self.held_out_partners = _check_partners(held_out_partners, "held-out")
        prior = prior_fn or prompted_prior
        priors: dict[Observation, list[float]] = {}

        def agent_prior(observation: Observation) -> list[float]:
            p = priors.get(observation)
            if p is None:
                p = priors[observation] = checked_prior(prior, observation)
            return p

        def joint_prior(history: JointHistory) -> list[float]:
            ph, pm = agent_prior(history.helper), agent_prior(history.main)
            return [ph[i] * pm[j] for i, j in CELLS]

        sampling = {
            "temperature": self.params.temperature,
            "gradient": self.params.gradient,
            "optimizer": self.params.optimizer,
        }
        self.prompted = Policy(N_RESPONSES, agent_prior, **sampling)
        self.helper = Policy(N_RESPONSES, agent_prior, **sampling)
        self.main = Policy(N_RESPONSES, agent_prior, **sampling)
        # The exact yardstick samples nothing, so it has no temperature.
        self.central = Policy(len(CELLS), joint_prior)
        self.central_sampled = Policy(len(CELLS), joint_prior, **sampling)
        self.ego = Policy(N_RESPONSES, agent_prior, _ego_features, **sampling)
        p = self.params
        self.how = Training(
            p.group_size,
            p.turns,
            p.discount,
            p.advantage,
            merge=p.branching == "merge",
            lenient=p.learner == "lenient",
            stop_above=p.termination_threshold if p.termination == "group_mean" else None,
            node_mean=p.node_loss == "mean",
            advantages=advantages,
        )
        # One agent alone has no partner to forgive, nor a partner's responses to cross.
        self._joint_how = dataclasses.replace(self.how, lenient=False)
        cross = p.turns == 1 and p.joint_mode == "cross"
        self._teams = {
            "prompted": Team(self.prompted, self.prompted, cross=cross),
            "learned": Team(self.helper, self.main, cross=cross),
        }
        self._hows = {
            "prompted": dataclasses.replace(self.how, credit=False),
            "learned": self.how,
        }
        self._joint_learner = CentralLearner(
            self.central_sampled, squared=cross and p.central_group == "calls"
        )
        self._partner_teams = [
            (Team(_normalised(q.probabilities), self.ego, cross=cross), JointHistory.start(q.note))
            for q in self.training_partners
        ]
        # One start for every update: its prompts' hashes are computed once, not every time.
        self._start = JointHistory.start()
        self._joint: dict[str, Joint] = {
            "prompted": self._teams["prompted"].joint,
            "learned": self._teams["learned"].joint,
            "centralized": self.central.probs,
            "centralized_sampled": self.central_sampled.probs,
        }

        master = random.Random(self.seed)
        self._rngs = {
            name: random.Random(master.getrandbits(64))
            for name in ("prompted", "learned", "centralized", "partners")
        }
        self._episode_seed = master.getrandbits(64)
        self.mean_reward: dict[str, list[float]] = {m: [] for m in METHODS}
        self.updates_done = 0
        self.stopped = False
        # Where each method's play stood at the start of the last tenth of training.
        self.checkpoint = checkpoint(p.updates)
        self._at_checkpoint: dict[str, list[list[list[float]]]] | None = None
        self._expected: tuple[int, dict[str, Any]] | None = None
        if self.checkpoint == 0:
            self._at_checkpoint = self._distributions()

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
        lr, env = self.params.learning_rate, self.env
        start = self._start
        for method, team in self._teams.items():
            _, total = _update(team, env, start, self._hows[method], self._rngs[method])
            self.mean_reward[method].append(total / self.how.turns)
        self.helper.apply(lr)
        self.main.apply(lr)
        # The yardstick: exact, so that what one learner could reach is never missed by chance.
        _, total = _natural_step(self.central, env, start, self.how, lr)
        self.mean_reward["centralized"].append(total / self.how.turns)
        self.central.apply(1.0)
        # The joint learner: the same sampled update over joint responses, with its own stream.
        _, total = _update(
            self._joint_learner, env, start, self._joint_how, self._rngs["centralized"]
        )
        self.mean_reward["centralized_sampled"].append(total / self.how.turns)
        self.central_sampled.apply(lr)

        # A group shares its prompt, as in GRPO: one training partner per update, in turn.
        team, start = self._partner_teams[self.updates_done % len(self._partner_teams)]
        _update(team, env, start, self.how, self._rngs["partners"])
        self.ego.apply(lr)
        self.updates_done += 1
        if self.updates_done == self.checkpoint:
            self._at_checkpoint = self._distributions()

    def _distributions(self) -> dict[str, list[list[list[float]]]]:
        return {m: value[1] for m, value in self.expected().items()}

    def movement(self) -> dict[str, float] | None:
        """Per method, how far its play moved over the last tenth of the updates.

        The largest total-variation distance, over the turns, between the joint
        responses' distribution at update ``checkpoint`` and now; None unless
        the run went from the checkpoint to its last update.
        """
        if self._at_checkpoint is None or self.updates_done != self.params.updates:
            return None
        now = self._distributions()
        return {
            m: max(
                _total_variation(before, after)
                for before, after in zip(self._at_checkpoint[m], now[m], strict=True)
            )
            for m in METHODS
        }

    def progress(self) -> dict[str, Any]:
        """The learning curves so far."""
        return {
            "seed": self.seed,
            "update": self.updates_done,
            "updates": self.params.updates,
            "mean_reward": {m: list(v) for m, v in self.mean_reward.items()},
        }

    def expected(self) -> dict[str, tuple[float, list[list[list[float]]]]]:
        """Each method's exact expected episode reward and per-turn joint distributions."""
        cached = self._expected
        if cached is None or cached[0] != self.updates_done:
            values = {m: _exact(self._joint[m], self.env, self.params.turns) for m in METHODS}
            cached = self._expected = (self.updates_done, values)
        return cached[1]

    def _partner_scores(self) -> dict[str, Any]:
        env, turns = self.env, self.params.turns

        def score(partner: Partner) -> dict[str, Any]:
            p = _normalised(partner.probabilities)
            after, _ = _exact(Team(p, self.ego).joint, env, turns, partner.note)
            before, _ = _exact(Team(p, self.prompted).joint, env, turns, partner.note)
            # The partner ignores the history, so the best reply is the same every turn.
            values = [
                math.fsum(p[i] * env.rewards[i, j] for i in range(N_RESPONSES))
                for j in range(N_RESPONSES)
            ]
            best = max(range(N_RESPONSES), key=values.__getitem__)
            return {
                "name": partner.name,
                "description": partner.description,
                "note": partner.note,
                "probabilities": p,
                "score": after,
                "score_before_training": before,
                "best_response": values[best],
                "best_reply": RESPONSES["main"][best].id,
            }

        training = [score(partner) for partner in self.training_partners]
        held_out = [score(partner) for partner in self.held_out_partners]

        def mean(key: str, scores: list[dict[str, Any]]) -> float | None:
            return math.fsum(s[key] for s in scores) / len(scores) if scores else None

        return {
            "ego": "main",
            "training": training,
            "held_out": held_out,
            "training_mean": mean("score", training),
            "held_out_mean": mean("score", held_out),
            "held_out_best_mean": mean("best_response", held_out),
        }

    def still_moving(self) -> dict[str, bool] | None:
        """Per method, whether its play was still moving at the end (:mod:`lab.core.movement`)."""
        moved = self.movement()
        return None if moved is None else {m: is_moving(v) for m, v in moved.items()}

    def outcome(self) -> dict[str, Any]:
        """The exact outcome of every method: what a row of the many-seed table shows."""
        expected = self.expected()
        partners = self._partner_scores()
        return {
            "seed": self.seed,
            "still_moving": self.still_moving(),
            "expected_reward": {m: expected[m][0] for m in METHODS},
            "reached_optimum": {m: reaches_optimum(expected[m][0], self.env.best) for m in METHODS},
            "settled_on": {
                m: [_cell_summary(dist, self.env)["name"] for dist in expected[m][1]]
                for m in METHODS
            },
            # The trained ego with every partner, so that a count over seeds can read them.
            "partners": [
                {k: s[k] for k in ("name", "score", "score_before_training", "best_response")}
                for group in ("training", "held_out")
                for s in partners[group]
            ],
        }

    def _movement_json(self) -> dict[str, Any] | None:
        moved = self.movement()
        if moved is None:
            return None
        return {
            "from_update": self.checkpoint,
            "to_update": self.updates_done,
            "threshold": MOVING_THRESHOLD,
            "change": moved,
            "still_moving": {m: is_moving(v) for m, v in moved.items()},
        }

    def results(self) -> dict[str, Any]:
        """Everything the page shows, as plain JSON data."""
        env = self.env
        expected = self.expected()
        settled = {}
        for m in METHODS:
            turns = [_cell_summary(dist, env) for dist in expected[m][1]]
            settled[m] = {
                **turns[-1],
                "turns": turns,
                "expected_reward": expected[m][0],
                "optimal": reaches_optimum(expected[m][0], env.best),
            }
        return {
            "params": self.params.to_json(),
            "seed": self.seed,
            "updates_done": self.updates_done,
            "stopped": self.stopped and self.updates_done < self.params.updates,
            "methods": [
                {"id": m, "label": METHOD_LABELS[m], "exact": m in EXACT_METHODS} for m in METHODS
            ],
            "responses": {
                role: [{"id": r.id, "summary": r.summary, "code": r.code} for r in RESPONSES[role]]
                for role in ROLES
            },
            "rewards": env.table(),
            "joint_outputs": [
                [env.outputs[i, j].text for j in range(N_RESPONSES)] for i in range(N_RESPONSES)
            ],
            "optimum": {
                "reward": env.best,
                "cells": [list(c) for c in CELLS if env.rewards[c] == env.best],
                "tolerance": OPTIMUM_TOLERANCE,
            },
            "mean_reward": {m: list(v) for m, v in self.mean_reward.items()},
            "expected_reward": {m: expected[m][0] for m in METHODS},
            "joint_distribution": {m: expected[m][1][-1] for m in METHODS},
            "joint_distribution_by_turn": {m: expected[m][1] for m in METHODS},
            "settled_on": settled,
            "movement": self._movement_json(),
            "partners": self._partner_scores(),
            "episode": self.record_episode(),
        }

    def record_episode(self) -> dict[str, Any]:
        """One episode of the learned agents, each step labelled with its MARL concept."""
        rng = random.Random(self._episode_seed)
        env, turns = self.env, self.params.turns
        policies = {"helper": self.helper, "main": self.main}
        history = JointHistory.start()
        steps = []
        rewards = []
        for t in range(1, turns + 1):
            agents = []
            chosen = {}
            for role in ROLES:
                observation = getattr(history, role)
                probs = list(policies[role].probs(observation))
                a = sample(probs, rng.random())
                chosen[role] = a
                response = RESPONSES[role][a]
                agents.append(
                    {
                        "agent": role,
                        "observation": {"label": "Observation", "text": observation.text},
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
            cell = (chosen["helper"], chosen["main"])
            reward = env.rewards[cell]
            rewards.append(reward)
            if t < turns:
                history = history.then(cell, env.feedback[cell])
                transition = {
                    "label": "Environment transition",
                    "text": "The verifier's feedback is appended to each agent's prompt "
                    f"for turn {t + 1}.",
                    "next_observations": [
                        {"agent": role, "text": getattr(history, role).text} for role in ROLES
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
                    "joint_output": {"label": "Joint output", "text": env.outputs[cell].text},
                    "reward": {
                        "label": "Reward",
                        "value": reward,
                        "text": env.feedback[cell] + " Both agents receive this one number.",
                    },
                    "transition": transition,
                }
            )
        return {
            "method": "learned",
            "turns": steps,
            "episode_reward": math.fsum(rewards) / turns,
        }


def seed_statistics(outcomes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per method, over the seeds run: how many reached the optimum (with its 95% Wilson
    interval, as fractions; None for an exact method, whose seeds are one result
    repeated), how many were still moving at the end, and the spread."""
    per_method = {}
    count = len(outcomes)
    for m in METHODS:
        values = [o["expected_reward"][m] for o in outcomes]
        reached = sum(1 for o in outcomes if o["reached_optimum"][m])
        moving = sum(1 for o in outcomes if (o.get("still_moving") or {}).get(m))
        per_method[m] = {
            "reached_optimum": reached,
            "interval": None if m in EXACT_METHODS else list(wilson_interval(reached, count)),
            "still_moving": moving,
            "mean": math.fsum(values) / len(values),
            **quartiles(values),
        }
    return {"count": count, "methods": per_method}


def curve_band(curves: Sequence[Mapping[str, Sequence[float]]]) -> dict[str, Any] | None:
    """Each method's learning curve across seeds: median and quartiles, at up to
    :data:`lab.core.stats.BAND_POINTS` updates (every k-th, and the last); None for fewer
    than 2 seeds."""
    if len(curves) < 2:
        return None
    n = min(len(c[m]) for c in curves for m in METHODS)
    if n == 0:
        return None
    updates = band_updates(n)
    methods = {m: band([c[m] for c in curves], updates) for m in METHODS}
    return {"seeds": len(curves), "updates": updates, "methods": methods}


def _turn_text(turns: Sequence[Mapping[str, Any]]) -> str:
    if len(turns) == 1:
        t = turns[0]
        return f"most likely plays {t['name']} (reward {format_score(t['reward'])})"
    parts = [
        f"turn {n} {t['name']} ({format_score(t['reward'])})" for n, t in enumerate(turns, start=1)
    ]
    return "most likely plays " + ", then ".join(parts)


def _moving_text(results: Mapping[str, Any], method: str) -> str:
    """ "; after 200 updates, still moving (...)", or nothing for play that never learns."""
    movement = results.get("movement")
    if method == "prompted" or not movement:
        return ""
    change = movement["change"][method]
    return "; " + describe_movement(change, movement["from_update"], movement["to_update"])


def summarize(results: Mapping[str, Any]) -> list[str]:
    """The outcome in sentences, made from the numbers (the page shows them as they are)."""
    best = results["optimum"]["reward"]
    lines = []
    for m in METHODS:
        s = results["settled_on"][m]
        verdict = (
            "it found the best joint response"
            if s["optimal"]
            else f"short of the best possible {format_score(best)}"
        )
        lines.append(
            f"{METHOD_LABELS[m]} {_turn_text(s['turns'])}; expected episode reward "
            f"{s['expected_reward']:.2f}, {verdict}{_moving_text(results, m)}."
        )
    seeds = results.get("seeds")
    if seeds and seeds["count"] > 1:
        first = results["params"]["seed"]
        count = seeds["count"]
        counts = "; ".join(
            f"{METHOD_LABELS[m].split(' (')[0].lower()} in "
            + (
                describe_exact_count(seeds["methods"][m]["reached_optimum"], count)
                if m in EXACT_METHODS
                else describe_count(seeds["methods"][m]["reached_optimum"], count, aside=True)
            )
            for m in METHODS
        )
        lines.append(
            f"Over {count} seeds ({first} to {first + count - 1}), the optimum was reached by "
            f"{counts}."
        )
        moving = seeds["methods"]["learned"].get("still_moving")
        if moving is not None and results.get("movement"):
            lines.append(
                "Learned collaboration was still moving at the end in "
                f"{describe_count(moving, count, aside=True)}."
            )
    partners = results["partners"]
    if partners["held_out"]:
        lines.append(
            f"With held-out partners the trained main agent scored "
            f"{partners['held_out_mean']:.2f} on average, against "
            f"{partners['held_out_best_mean']:.2f} for the best reply to each."
        )
    at = results.get("stopped_at") if results.get("stopped") else None
    if at:
        total = results["params"]["seeds"]
        if total == 1:
            lines.append(f"Stopped after {at['update']} updates.")
        else:
            done = seeds["count"] if seeds else 0
            lines.append(
                f"Stopped in seed {at['seed_index'] + 1} of {total}, after {at['update']} "
                f"updates; {done} seed{'' if done == 1 else 's'} finished."
            )
    return lines


def run_experiment(
    params: SimParams | Mapping[str, Any] | None = None,
    on_progress: ProgressFn | None = None,
    *,
    reward_fn: RewardFn | None = None,
    prior_fn: PriorFn | None = None,
    training_partners: Sequence[Partner] = DEFAULT_TRAINING_PARTNERS,
    held_out_partners: Sequence[Partner] = DEFAULT_HELD_OUT_PARTNERS,
    progress_every: int | None = None,
    advantages: AdvantageFn = group_advantages,
) -> dict[str, Any]:
    """Run every method and the partner experiment over ``params.seeds`` seeds; return results.

    The first seed (``params.seed``) gives the curves, heatmaps and transcript;
    every seed adds a row to ``results["seeds"]``. ``on_progress(update,
    partial)`` is called every ``progress_every`` updates (default: about 20
    calls per seed) and after each seed's last; ``partial`` is
    :meth:`Experiment.progress` plus ``seed_index``, ``seeds`` and the rows so far.
    Returning a true value, or raising :class:`StopExperiment`, stops the run
    cleanly; the results then cover what was done (``"stopped": true``).
    """
    p = params if isinstance(params, SimParams) else validate_params(params)
    total = p.updates
    every = progress_every if progress_every is not None else max(1, total // 20)
    if every < 1:
        raise ValueError("progress_every must be at least 1.")
    first: dict[str, Any] | None = None
    rows: list[dict[str, Any]] = []
    curves: list[dict[str, list[float]]] = []
    stopped = False
    stopped_at: dict[str, int] | None = None
    for index in range(p.seeds):
        experiment = Experiment(
            p,
            reward_fn=reward_fn,
            prior_fn=prior_fn,
            training_partners=training_partners,
            held_out_partners=held_out_partners,
            seed=p.seed + index,
            advantages=advantages,
        )
        requested = False
        while not experiment.done:
            experiment.step()
            done = experiment.updates_done
            if on_progress is not None and (done % every == 0 or done == total):
                partial = {**experiment.progress(), "seed_index": index, "seeds": p.seeds}
                partial["rows"] = list(rows)
                partial["text"] = f"Training: {done} of {total} updates."
                if p.seeds > 1:
                    partial["text"] = (
                        f"Training seed {index + 1} of {p.seeds}: {done} of {total} updates."
                    )
                if index:
                    # The curves drawn are the first seed's; later seeds only add rows.
                    del partial["mean_reward"]
                try:
                    requested = bool(on_progress(done, partial))
                except StopExperiment:
                    requested = True
                if requested:
                    experiment.stop()
        finished = experiment.updates_done == total
        if first is None:
            first = experiment.results()
            first["stopped"] = not finished
        if finished:
            rows.append(experiment.outcome())
            curves.append(experiment.mean_reward)
        if requested:
            stopped = not finished or index < p.seeds - 1
            stopped_at = {"seed_index": index, "update": experiment.updates_done}
            break
    assert first is not None
    first["stopped"] = first["stopped"] or stopped
    first["stopped_at"] = stopped_at if first["stopped"] else None
    first["seeds"] = {**seed_statistics(rows), "rows": rows} if rows else None
    first["curve_band"] = curve_band(curves)
    first["summary"] = summarize(first)
    return first
