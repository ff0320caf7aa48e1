"""The language-model lab's experiment: train, measure, and say what happened.

:func:`run_language_models` trains the pair with MAGRPO from the seed (and,
as asked, each agent alone and with main reading the helper's code), over
``seeds`` seeds, and returns what the page shows: the models before and after,
the outcome and its exact expected reward, the curve, the tally over seeds and
a summary made from the numbers. :func:`step_language_models` shows one update
whole. The pieces: :mod:`lab.lm.tokens` (the models), :mod:`lab.lm.interpreter`
(the verifier), :mod:`lab.lm.training` (MAGRPO), :mod:`lab.lm.expected` (the
exact expected reward).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

from lab.core.movement import MOVING_THRESHOLD, checkpoint, describe_movement, is_moving
from lab.core.optimum import OPTIMUM_TOLERANCE, reaches_optimum
from lab.core.stats import band, band_updates, describe_count, wilson_interval
from lab.lm.expected import expected_reward, play_change
from lab.lm.interpreter import BROKEN, CALL, INLINE, reward, verify
from lab.lm.params import LMParams, validate_lm_params
from lab.lm.tokens import (
    HELPER,
    MAIN,
    START,
    VOCAB,
    TokenLM,
    Tokens,
    code_text,
    joint_code,
    main_prompt,
    tokenize,
    words,
)
from lab.lm.training import magrpo_update, policy_step, train

__all__ = [
    "TokenLM",
    "describe_models",
    "pretrained_models",
    "reaches_optimum",
    "run_language_models",
    "seed_outcome",
    "step_language_models",
    "summarize",
    "tally_seeds",
]

Progress = Callable[[dict[str, Any]], Any]


def _round(x: float) -> float:
    return round(x, 6)


def _responses(model: TokenLM, prompt: str, k: int = 4) -> list[dict[str, Any]]:
    return [
        {"code": code_text(t), "tokens": words(t), "probability": _round(p)}
        for t, p in model.most_likely(prompt, k)
    ]


#: The decision points the next-token view shows: (agent, prompt, the response so far).
NEXT_TOKEN_VIEWS = ((HELPER, HELPER, "def"), (MAIN, MAIN, "return"))


def _next_tokens(model: TokenLM, prompt: str, so_far: str, k: int = 5) -> dict[str, Any]:
    tokens = tokenize(so_far)
    a = tokens[-2] if len(tokens) > 1 else START
    probs = model.probs((prompt, a, tokens[-1]))
    top = sorted(range(len(VOCAB)), key=lambda j: (-probs[j], j))[:k]
    return {
        "prompt": prompt,
        "so_far": so_far,
        "next": [{"token": VOCAB[j], "probability": _round(probs[j])} for j in top],
    }


def describe_models(helper: TokenLM, main: TokenLM, communication: bool) -> dict[str, Any]:
    """The most likely responses of each model and its next-token view."""
    best_helper = helper.most_likely(HELPER)[0][0]
    prompt = main_prompt(best_helper, communication)
    return {
        "helper": _responses(helper, HELPER),
        "main": _responses(main, prompt),
        "main_prompt": prompt,
        "next_token": {
            agent: _next_tokens(helper if agent == HELPER else main, p, so_far)
            for agent, p, so_far in NEXT_TOKEN_VIEWS
        },
    }


def outcome(
    helper: TokenLM,
    main: TokenLM,
    params: LMParams,
    communication: bool,
    at_checkpoint: tuple[TokenLM, TokenLM] | None = None,
) -> dict:
    """What the pair now writes most often, its exact expected reward, whether that
    expected reward is within 2% of the best (``optimal``) and, given the pair as it was at
    the start of the last tenth of training, how far its play moved since (``change``) and
    whether it was still moving (:mod:`lab.core.movement`; ``None`` for untrained play)."""
    h = helper.most_likely(HELPER)[0][0]
    prompt = main_prompt(h, communication)
    m = main.most_likely(prompt)[0][0]
    verdict = verify(h, m)
    value = reward(verdict, params.safe_reward)
    expectation = expected_reward(helper, main, params.safe_reward, communication)
    return {
        "helper": code_text(h),
        "main": code_text(m),
        "code": joint_code(h, m),
        "verdict": verdict,
        "reward": value,
        "optimal": reaches_optimum(expectation.reward, _optimum(params)["reward"]),
        "convention": VOCAB[h[1]] if verdict == CALL else None,
        "expected_reward": _round(expectation.reward),
        "calls": _round(expectation.call),
        "inlines": _round(expectation.inline),
        "left_out": expectation.left_out,
        **_movement(at_checkpoint, (helper, main), communication),
    }


def _movement(
    before: tuple[TokenLM, TokenLM] | None, after: tuple[TokenLM, TokenLM], communication: bool
) -> dict[str, Any]:
    if before is None:
        return {"change": None, "still_moving": None}
    change = _round(play_change(before, after, communication))
    return {"change": change, "still_moving": is_moving(change)}


def _optimum(params: LMParams) -> dict[str, Any]:
    h, m = tokenize("def area ( w , h ) : return w * h"), tokenize("return area ( w , h )")
    return {
        "reward": max(1.0, params.safe_reward),
        "tolerance": OPTIMUM_TOLERANCE,
        "code": joint_code(h, m),
        "text": "the helper defines the product under some name and main calls that name",
    }


_PROMPTED: dict[tuple[float, float], dict[str, Any]] = {}


def _prompted(params: LMParams) -> dict[str, Any]:
    """The pretrained pair; it does not depend on the seed, so it is computed once."""
    key = (params.safe_reward, params.temperature)
    if key not in _PROMPTED:
        pair = TokenLM(temperature=params.temperature), TokenLM(temperature=params.temperature)
        _PROMPTED[key] = outcome(*pair, params, False)
    return _PROMPTED[key]


@functools.cache
def pretrained_models(temperature: float = 1.0) -> dict[str, Any]:
    """The pretrained pair described, as it writes at ``temperature``; computed once each."""
    return describe_models(
        TokenLM(temperature=temperature), TokenLM(temperature=temperature), False
    )


#: The methods a run compares: (the training's random stream, who learns, main reads the helper).
METHODS: dict[str, tuple[int, tuple[str, ...], bool]] = {
    "learned": (0, (HELPER, MAIN), False),
    "trained_alone": (1, (HELPER,), False),  # and main alone on stream 2, then paired
    "communication": (3, (HELPER, MAIN), True),
}


def seed_outcome(params: LMParams, method: str) -> dict[str, Any]:
    """One method's outcome for ``params.seed``: what a seeds row of a run holds for it.

    ``run_language_models`` is made of these (and of :func:`tally_seeds`); a check over
    many seeds may call them directly, to share a method's runs between settings.
    """
    return _trained(params, method)[0]


def _trained(params: LMParams, method: str) -> tuple[dict[str, Any], list[float]]:
    """One method's outcome for ``params.seed`` and its reward curve (the pair's, or for
    agents trained alone, the helper's run)."""
    stream, learners, communication = METHODS[method]
    at = checkpoint(params.updates)
    if method == "trained_alone":
        alone = train(params, stream, learners=learners, keep_at=at)
        partner = train(params, 2, learners=(MAIN,), keep_at=at)
        helper, main, curve = alone.helper, partner.main, alone.curve
        assert alone.at_checkpoint and partner.at_checkpoint
        kept = (alone.at_checkpoint[0], partner.at_checkpoint[1])
    else:
        run = train(params, stream, learners, communication, keep_at=at)
        helper, main, kept, curve = run.helper, run.main, run.at_checkpoint, run.curve
    return outcome(helper, main, params, communication, kept), curve


#: The progress phase each comparison reports (the page's words for it).
_PHASES = {"trained_alone": "alone", "communication": "communication"}


def _methods(params: LMParams) -> tuple[str, ...]:
    return tuple(
        m
        for m, asked in (
            ("learned", True),
            ("trained_alone", params.compare_alone),
            ("communication", params.compare_communication),
        )
        if asked
    )


def _one_seed(params: LMParams, progress: Progress | None, detail: bool) -> dict[str, Any]:
    """Every method for one seed; ``detail`` adds the curves and the models."""
    if not detail:
        learned, curve = _trained(params, "learned")
        return {
            "seed": params.seed,
            "learned": learned,
            **{m: seed_outcome(params, m) for m in _methods(params)[1:]},
            "curve": [_round(x) for x in curve],
        }
    every = max(1, params.updates // 40)
    curve_points: list[float] = []  # rounded once each, not again in every report

    def on_update(u: int, mean: float) -> None:
        curve_points.append(_round(mean))
        if progress and (u % every == 0 or u == params.updates):
            progress(
                {
                    "phase": "learned",
                    "update": u,
                    "updates": params.updates,
                    "mean_reward": list(curve_points),
                }
            )

    run = train(params, 0, on_update=on_update, keep_at=checkpoint(params.updates))
    helper, main, curve = run.helper, run.main, run.curve
    result: dict[str, Any] = {
        "seed": params.seed,
        "learned": outcome(helper, main, params, False, run.at_checkpoint),
    }
    for method in _methods(params)[1:]:
        if progress:
            progress(
                {"phase": _PHASES[method], "update": params.updates, "updates": params.updates}
            )
        result[method] = seed_outcome(params, method)
    result["curve"] = [_round(x) for x in curve]
    result["before"] = pretrained_models(params.temperature)
    result["after"] = describe_models(helper, main, False)
    return result


def _expected(result: dict[str, Any], prompted: dict[str, Any]) -> dict[str, Any]:
    return {
        "prompted": prompted["expected_reward"],
        "learned": result["learned"]["expected_reward"],
        "trained_alone": result.get("trained_alone", {}).get("expected_reward"),
        "communication": result.get("communication", {}).get("expected_reward"),
    }


def _movement_json(params: LMParams, first: dict[str, Any]) -> dict[str, Any]:
    """How far the first seed's play moved over the last tenth of training, per method, in
    the simulation lab's form (:mod:`lab.core.movement`)."""
    methods = _methods(params)
    return {
        "from_update": checkpoint(params.updates),
        "to_update": params.updates,
        "threshold": MOVING_THRESHOLD,
        "change": {m: first[m]["change"] for m in methods},
        "still_moving": {m: first[m]["still_moving"] for m in methods},
    }


def _tally(runs: list[dict[str, Any]], method: str) -> dict[str, Any] | None:
    outcomes = [run[method] for run in runs if method in run]
    if not outcomes:
        return None
    n = len(outcomes)
    conventions: dict[str, int] = {}
    for o in outcomes:
        if o["convention"]:
            conventions[o["convention"]] = conventions.get(o["convention"], 0) + 1
    counts = {
        "optimal": sum(o["optimal"] for o in outcomes),
        "call": sum(o["verdict"] == CALL for o in outcomes),
        "inline": sum(o["verdict"] == INLINE for o in outcomes),
        "broken": sum(o["verdict"] == BROKEN for o in outcomes),
        # Seeds whose play moved by more than the threshold over the last tenth of training.
        "still_moving": sum(bool(o.get("still_moving")) for o in outcomes),
    }
    return {
        "seeds": n,
        **counts,
        "interval": [_round(x) for x in wilson_interval(counts["optimal"], n)],
        "conventions": dict(sorted(conventions.items(), key=lambda kv: (-kv[1], kv[0]))),
        "mean_expected_reward": _round(math.fsum(o["expected_reward"] for o in outcomes) / n),
        # Each count with its 95% interval, in the words of the page and the experiments' reports.
        "in_words": {name: describe_count(c, n) for name, c in counts.items()},
    }


def tally_seeds(params: LMParams, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A run's ``seeds``: per method, the counts over ``runs`` (each with its interval), and
    each seed's outcome."""
    return {
        "first": params.seed,
        "count": len(runs),
        **{m: _tally(runs, m) for m in METHODS},
        "runs": [
            {
                "seed": r["seed"],
                **{m: r[m]["convention"] or r[m]["verdict"] for m in METHODS if m in r},
            }
            for r in runs
        ],
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _closeness(expected: float, optimal: bool, best: float) -> str:
    """``0.97 (not within 2% of the best, 1)``: an expected reward and what the count says of it."""
    return f"{expected:.2f} ({'' if optimal else 'not '}within 2% of the best, {best:g})"


def summarize(result: dict[str, Any]) -> str:
    """The outcome in words, made from the numbers (the page never hand-types it)."""
    params = result["params"]
    safe, best = f"{params['safe_reward']:g}", result["optimum"]["reward"]
    after = f"After {_plural(params['updates'], 'update')}"
    since = params["updates"] - checkpoint(params["updates"])
    if result["seeds"]:
        tally = result["seeds"]["learned"]
        said = tally["in_words"]
        names = ", ".join(f"{name} {count}" for name, count in tally["conventions"].items())
        words_ = [
            f"{after}, MAGRPO's pair calls a shared name in {said['call']}"
            + (f" (conventions: {names})" if names else "")
            + f". Main writes w * h itself (safe reward {safe}) in {said['inline']}."
            + f" Within 2% of the best expected reward ({best:g}): {said['optimal']}."
            + f" Mean expected reward {tally['mean_expected_reward']:.2f}."
            + f" Still moving at the end (its play changed by more than {MOVING_THRESHOLD:g}"
            + f" over the last {since}): {said['still_moving']}."
        ]
        for method, label in (
            ("trained_alone", "Trained alone"),
            ("communication", "Reading the helper's code"),
        ):
            other = result["seeds"].get(method)
            if other:
                words_.append(
                    f"{label}: a shared name in {other['in_words']['call']}; "
                    f"within 2% of the best, {other['in_words']['optimal']}."
                )
        return " ".join(words_)
    learned = result["learned"]
    expected = result["expected_reward"]
    moving = describe_movement(
        learned["change"], checkpoint(params["updates"]), params["updates"], "the pair"
    )
    if learned["convention"]:
        what = (
            f"The two models share a convention: the helper names its function "
            f"{learned['convention']} and main calls it (reward {learned['reward']:g})."
        )
    elif learned["verdict"] == INLINE:
        what = (
            f"Main writes w * h itself, which is correct whatever the helper wrote (reward "
            f"{safe}), so the helper's name does not change the reward."
        )
    else:
        what = "The models' most likely program is broken."
    parts = [
        f"With seed {params['seed']}, {moving}.",
        what,
        f"Expected reward {expected['prompted']:.2f} before training; after it, "
        f"{_closeness(expected['learned'], learned['optimal'], best)}.",
    ]
    if expected["trained_alone"] is not None:
        alone = result["trained_alone"]
        parts.append(
            f"Each trained alone against the untrained partner, then paired: "
            f"{expected['trained_alone']:.2f}"
            + (" (main writes w * h itself)." if alone["verdict"] == INLINE else ".")
        )
    if expected["communication"] is not None:
        comm = result["communication"]
        parts.append(
            "With main reading the helper's code: "
            f"{_closeness(expected['communication'], comm['optimal'], best)}."
        )
    return " ".join(parts)


def run_language_models(
    data: dict[str, Any] | LMParams | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The whole experiment for the page; ``progress`` receives partial results."""
    params = data if isinstance(data, LMParams) else validate_lm_params(data)
    prompted = _prompted(params)
    first = _one_seed(params, progress, detail=True)
    runs = [first]
    for i in range(1, params.seeds):
        if progress:
            progress({"phase": "seeds", "seed_index": i, "seeds": params.seeds})
        seed = (params.seed + i) % (2**32)
        runs.append(_one_seed(dataclasses.replace(params, seed=seed), None, detail=False))
    result: dict[str, Any] = {
        "params": params.to_json(),
        "vocabulary": list(VOCAB),
        "optimum": _optimum(params),
        "prompted": prompted,
        **{k: v for k, v in first.items() if k != "seed"},
        "expected_reward": _expected(first, prompted),
        "movement": _movement_json(params, first),
        "seeds": None,
    }
    result["curve_band"] = None
    if params.seeds > 1:
        result["seeds"] = tally_seeds(params, runs)
        updates = band_updates(params.updates)
        curves = [r["curve"] for r in runs]
        result["curve_band"] = {"seeds": len(runs), "updates": updates, **band(curves, updates)}
    result["summary"] = summarize(result)
    return result


# ----------------------------------------------------------------- one step


def step_language_models(data: dict[str, Any] | None, update: int) -> dict[str, Any]:
    """Update number ``update`` of the default MAGRPO run, shown whole.

    Replays the run's first ``update - 1`` updates from the seed, then samples
    the group, computes each response's advantage and applies the update,
    reporting every token's probability before and after it.
    """
    params = validate_lm_params(data)
    update = max(1, min(int(update), params.updates))
    run = train(params, 0, updates=update - 1)
    helper, main, rng = run.helper, run.main, run.rng
    before_h, before_m = helper.copy(), main.copy()
    group, adv = magrpo_update(helper, main, params, rng, (HELPER, MAIN), False)
    shown = max(range(len(group)), key=lambda i: (abs(adv[i]), -i))
    s = group[shown]

    # What this response's own term of the update does, without the rest of the group:
    # the caption's A x (1 - p) describes this share; the group's other responses push
    # the same choices too, so "after" (the whole update) can even move the other way.
    alone_h, alone_m = before_h.copy(), before_m.copy()
    rate, weighting = params.learning_rate / len(group), params.token_weighting
    policy_step(alone_h, [(HELPER, s.helper)], [adv[shown]], rate, weighting)
    policy_step(alone_m, [(s.prompt, s.main)], [adv[shown]], rate, weighting)

    def tokens_of(
        old: TokenLM, new: TokenLM, alone: TokenLM, prompt: str, tokens: Tokens
    ) -> list[dict]:
        return [
            {"token": VOCAB[t], "before": _round(p), "after": _round(q), "alone": _round(r)}
            for (t, p), (_, q), (_, r) in zip(
                old.token_probs(prompt, tokens),
                new.token_probs(prompt, tokens),
                alone.token_probs(prompt, tokens),
                strict=True,
            )
        ]

    return {
        "params": params.to_json(),
        "update": update,
        "group": [
            {
                "helper": code_text(g.helper),
                "main": code_text(g.main),
                "code": joint_code(g.helper, g.main),
                "verdict": g.verdict,
                "reward": g.reward,
                "advantage": _round(a),
            }
            for g, a in zip(group, adv, strict=True)
        ],
        "mean_reward": _round(math.fsum(g.reward for g in group) / len(group)),
        "shown": shown,
        "sample": {
            "advantage": _round(adv[shown]),
            "reward": s.reward,
            "helper": tokens_of(before_h, helper, alone_h, HELPER, s.helper),
            "main": tokens_of(before_m, main, alone_m, s.prompt, s.main),
        },
    }
