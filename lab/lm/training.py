"""MAGRPO for the two language models: sample a group, score it, push every token.

Each update samples a group of G joint responses from the same prompts; each
one's advantage is its reward minus the group's baseline
(:func:`lab.core.advantages.group_advantages`), and that one number multiplies
the gradient of log pi of *every token* of *both* agents' responses (Liu et
al., Eq. 1). ``token_weighting`` says how: ``sum`` (CoMLRL's loss, the sum of the
response's token log-probabilities) gives every token the whole advantage;
``mean`` (GRPO's 1/|o|, Shao et al., 2024) divides it by the number of
decisions that wrote the response, its end token included.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lab.core.advantages import group_advantages
from lab.lm.interpreter import reward, verify
from lab.lm.params import LMParams
from lab.lm.tokens import HELPER, MAIN, VOCAB, Key, TokenLM, Tokens, main_prompt, response_steps

__all__ = ["Sample", "Trained", "magrpo_update", "policy_step", "sample_group", "train"]


@dataclass  # not frozen: a frozen one's __init__ is several times slower (~10,000 a run)
class Sample:
    helper: Tokens
    main: Tokens
    prompt: str  # main's prompt
    verdict: str
    reward: float


def sample_group(
    helper: TokenLM, main: TokenLM, params: LMParams, rng: random.Random, communication: bool
) -> list[Sample]:
    group = []
    for _ in range(params.group_size):
        h = helper.generate(HELPER, rng)
        prompt = main_prompt(h, communication)
        m = main.generate(prompt, rng)
        verdict = verify(h, m)
        group.append(Sample(h, m, prompt, verdict, reward(verdict, params.safe_reward)))
    return group


# --8<-- [start:policy-step]
def policy_step(
    model: TokenLM,
    responses: Sequence[tuple[str, Tokens]],
    adv: Sequence[float],
    rate: float,
    weighting: str = "sum",
) -> None:
    """theta += rate * mean over the group of A * grad log pi(response).

    The gradient of log softmax at a context is onehot(token) - probs, so a token
    the model was already sure of (p near 1) barely moves. With ``weighting`` "mean",
    log pi(response) is the mean of its tokens' log-probabilities instead of their sum.
    """
    if not any(adv):
        return  # every reward was the same: no response did better than its group
    # Identical responses share one gradient: sum their advantages first.
    summed: dict[tuple[str, Tokens], float] = {}
    for response, a in zip(responses, adv, strict=True):
        summed[response] = summed.get(response, 0.0) + a
    chosen: dict[Key, list[float]] = {}
    weight: dict[Key, float] = {}
    size = len(VOCAB)
    for (prompt, tokens), a in summed.items():
        if a == 0.0:
            continue
        steps = response_steps(prompt, tokens)
        if weighting == "mean":
            steps = list(steps)
            a /= len(steps)
        for key, token in steps:
            row = chosen.get(key)
            if row is None:
                row = chosen[key] = [0.0] * size
                weight[key] = 0.0
            row[token] += a
            weight[key] += a
    scale = rate / len(adv)
    # At each context, row - w * probs is the summed gradient (row[t]: the advantages
    # of the times token t was chosen there; w: all of them); each logit moves by scale times it.
    for key, row in chosen.items():
        w, logits, probs = weight[key], model.logits(key), model.gradient_probs(key)
        model.set_logits(
            key, [x + scale * (r - w * p) for x, r, p in zip(logits, row, probs, strict=True)]
        )


# --8<-- [end:policy-step]


def magrpo_update(
    helper: TokenLM,
    main: TokenLM,
    params: LMParams,
    rng: random.Random,
    learners: tuple[str, ...],
    communication: bool,
) -> tuple[list[Sample], list[float]]:
    """One MAGRPO update; returns the group and its advantages."""
    group = sample_group(helper, main, params, rng, communication)
    adv = group_advantages([s.reward for s in group], params.baseline)
    rate, weighting = params.learning_rate, params.token_weighting
    if HELPER in learners:
        policy_step(helper, [(HELPER, s.helper) for s in group], adv, rate, weighting)
    if MAIN in learners:
        policy_step(main, [(s.prompt, s.main) for s in group], adv, rate, weighting)
    return group, adv


@dataclass
class Trained:
    """What :func:`train` returns: the models, the curve, the random stream (positioned where
    the next update would draw) and, when asked, copies of the models after update ``at``."""

    helper: TokenLM
    main: TokenLM
    curve: list[float]
    rng: random.Random
    at_checkpoint: tuple[TokenLM, TokenLM] | None = None


def train(
    params: LMParams,
    stream: int,
    learners: tuple[str, ...] = (HELPER, MAIN),
    communication: bool = False,
    on_update: Callable[[int, float], Any] | None = None,
    updates: int | None = None,
    keep_at: int | None = None,
) -> Trained:
    """Train from the pretrained models; ``stream`` keeps each comparison's randomness apart.

    ``keep_at`` keeps a copy of both models as they were after that many updates (0: the
    pretrained ones), so that a run can say how far they moved since (:mod:`lab.core.movement`).
    """
    rng = random.Random(params.seed * 8 + stream)
    helper, main = TokenLM(temperature=params.temperature), TokenLM(temperature=params.temperature)
    kept = (helper.copy(), main.copy()) if keep_at == 0 else None
    curve = []
    for u in range(1, (params.updates if updates is None else updates) + 1):
        group, _ = magrpo_update(helper, main, params, rng, learners, communication)
        curve.append(math.fsum(s.reward for s in group) / len(group))
        if on_update:
            on_update(u, curve[-1])
        if u == keep_at:
            kept = (helper.copy(), main.copy())
    return Trained(helper, main, curve, rng, kept)
