"""The exact expected reward of a pair of models: every valid joint response, weighed.

Sampling would only estimate it; here every response the verifier could
accept is enumerated with its probability (down to :data:`FLOOR`, whose
left-out mass is reported), so what the page says a run reached is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lab.core.movement import total_variation
from lab.lm.interpreter import CALL, INLINE, NOT_PARSED, global_names, parse, verify, viable
from lab.lm.tokens import END, HELPER, MAIN, MAX_TOKENS, START, TokenLM, Tokens, main_prompt

__all__ = ["FLOOR", "Expectation", "expected_reward", "play_change"]

#: Responses less likely than this are left out of the exact sums; their mass is reported.
FLOOR = 1e-5


def _valid_responses(model: TokenLM, prompt: str) -> tuple[list[tuple[Tokens, float]], float]:
    """Every response that parses with probability >= FLOOR, and the mass left out.

    Prefixes that no continuation can make valid are dropped exactly (they score 0).
    """
    role = prompt.partition(":")[0]
    found: list[tuple[Tokens, float]] = []
    left_out = 0.0
    stack: list[tuple[Tokens, float]] = [((), 1.0)]
    while stack:
        tokens, p = stack.pop()
        a = tokens[-2] if len(tokens) > 1 else START
        b = tokens[-1] if tokens else START
        for token, q in enumerate(model.probs((prompt, a, b))):
            pq = p * q
            if token == END:
                if parse(role, tokens) is not NOT_PARSED:
                    found.append((tokens, pq))
                continue
            if pq < FLOOR:
                left_out += pq  # an upper bound: some of it could never parse anyway
                continue
            longer = (*tokens, token)
            if not viable(role, longer):
                continue
            if len(longer) == MAX_TOKENS:
                if parse(role, longer) is not NOT_PARSED:
                    found.append((longer, pq))
            else:
                stack.append((longer, pq))
    return found, left_out


@dataclass(frozen=True)
class Expectation:
    """Exact probabilities of each verdict (up to ``left_out``) and the expected reward."""

    call: float
    inline: float
    left_out: float
    safe_reward: float

    @property
    def reward(self) -> float:
        return self.call + self.safe_reward * self.inline


@dataclass(frozen=True)
class _MainSplit:
    """Main's valid responses by what they depend on, for :func:`expected_reward`."""

    free_inline: float  # mass of correct responses that look up no helper name
    by_name: dict[str, list[tuple[Tokens, float]]]  # responses looking up exactly that name
    left_out: float


def _split_main(model: TokenLM, prompt: str) -> _MainSplit:
    responses, left_out = _valid_responses(model, prompt)
    free = 0.0
    by_name: dict[str, list[tuple[Tokens, float]]] = {}
    for m, pm in responses:
        names = global_names(parse(MAIN, m))
        if not names:
            # Looks up no function: its verdict is the same with any helper that parses.
            if verify((), m) == INLINE:
                free += pm
        elif len(names) == 1:
            by_name.setdefault(next(iter(names)), []).append((m, pm))
        # Two names: the helper defines at most one, so a NameError.
    return _MainSplit(free, by_name, left_out)


def expected_reward(
    helper: TokenLM, main: TokenLM, safe_reward: float, communication: bool = False
) -> Expectation:
    """Sum over every valid joint response of its probability times its reward.

    Exact but for responses below FLOOR, whose total probability is ``left_out``
    (the true value lies between ``reward`` and ``reward + left_out``).
    """
    helpers, left_out = _valid_responses(helper, HELPER)
    mains: dict[str, _MainSplit] = {}
    call = inline = 0.0
    for h, ph in helpers:
        prompt = main_prompt(h, communication)
        if prompt not in mains:
            mains[prompt] = _split_main(main, prompt)
        split = mains[prompt]
        left_out += ph * split.left_out
        inline += ph * split.free_inline
        function = parse(HELPER, h)
        if function is None:
            continue
        for m, pm in split.by_name.get(function.name, ()):
            verdict = verify(h, m)
            if verdict == CALL:
                call += ph * pm
            elif verdict == INLINE:
                inline += ph * pm
    return Expectation(call, inline, left_out, safe_reward)


def _play(
    helper: TokenLM, main: TokenLM, communication: bool
) -> dict[tuple[Tokens, Tokens], float]:
    """Every joint program whose two halves parse, each at least FLOOR likely, with its
    probability."""
    helpers, _ = _valid_responses(helper, HELPER)
    mains: dict[str, list[tuple[Tokens, float]]] = {}
    play: dict[tuple[Tokens, Tokens], float] = {}
    for h, ph in helpers:
        prompt = main_prompt(h, communication)
        if prompt not in mains:
            mains[prompt] = _valid_responses(main, prompt)[0]
        for m, pm in mains[prompt]:
            play[h, m] = ph * pm
    return play


def play_change(
    before: tuple[TokenLM, TokenLM], after: tuple[TokenLM, TokenLM], communication: bool = False
) -> float:
    """How far a pair's play moved: the total-variation distance between its joint programs'
    distributions before and after (:func:`lab.core.movement.total_variation`).

    The programs compared are those :func:`_play` lists for either pair, each with its exact
    probability under both; everything else is one outcome. Lumping can only hide movement
    among programs that are broken or below FLOOR, so this never exceeds the true distance.
    """
    p, q = _play(*before, communication), _play(*after, communication)

    def probability(pair: tuple[TokenLM, TokenLM], program: tuple[Tokens, Tokens]) -> float:
        h, m = program
        prompt = main_prompt(h, communication)
        return pair[0].probability(HELPER, h) * pair[1].probability(prompt, m)

    for program in q.keys() - p.keys():
        p[program] = probability(before, program)
    for program in p.keys() - q.keys():
        q[program] = probability(after, program)
    rest = (max(0.0, 1.0 - math.fsum(p.values())), max(0.0, 1.0 - math.fsum(q.values())))
    return total_variation({**p, None: rest[0]}, {**q, None: rest[1]})
