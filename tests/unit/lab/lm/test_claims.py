"""Every claim docs/language-models.md makes about the models, checked over seeds 0-19.

The page states these in words ("most seeds", "no seed", "every seed"); the
numbers behind them come from lab.lm.model, run here at the lab's defaults.
"""

from __future__ import annotations

import pytest

from lab.lm.model import run_language_models, step_language_models
from lab.lm.tokens import HELPER, MAIN, NAMES, VOCAB, TokenLM, corpus_examples, tokenize

SEEDS = 20


@pytest.fixture(scope="module")
def defaults() -> dict:
    """Seeds 0-19 at the defaults, with both comparisons."""
    return run_language_models(
        {"seed": 0, "seeds": SEEDS, "compare_alone": True, "compare_communication": True}
    )["seeds"]


def reached(safe_reward: float) -> int:
    seeds = run_language_models(
        {"seed": 0, "seeds": SEEDS, "safe_reward": safe_reward, "compare_alone": False}
    )["seeds"]
    return seeds["learned"]["optimal"]


def test_most_seeds_escape_the_trap_at_the_defaults(defaults: dict) -> None:
    assert defaults["learned"]["optimal"] > SEEDS / 2


def test_a_convention_emerges_and_every_name_wins_somewhere(defaults: dict) -> None:
    assert set(defaults["learned"]["conventions"]) == set(NAMES)


def test_trained_alone_no_seed_reaches_the_optimum_and_main_always_inlines(defaults: dict) -> None:
    alone = defaults["trained_alone"]
    assert alone["optimal"] == 0
    assert alone["inline"] == SEEDS


def test_reading_the_helpers_code_every_seed_reaches_the_optimum(defaults: dict) -> None:
    assert defaults["communication"]["optimal"] == SEEDS


def test_a_higher_safe_reward_traps_more_seeds_and_a_low_one_none(defaults: dict) -> None:
    at_default = defaults["learned"]["optimal"]
    assert reached(0.3) == SEEDS
    higher = reached(0.75)
    highest = reached(0.9)
    assert SEEDS > at_default > higher > highest
    assert highest < SEEDS / 2  # at 0.9, most get stuck


def test_a_call_matches_the_helpers_name_about_a_third_of_the_time_at_first() -> None:
    model = TokenLM()
    start = (MAIN, -1, tokenize("return")[0])
    helper_name = {n: model.probs((HELPER, -1, tokenize("def")[0]))[tokenize(n)[0]] for n in NAMES}
    calls = {n: model.probs(start)[tokenize(n)[0]] for n in NAMES}
    match = sum(helper_name[n] * calls[n] for n in NAMES) / sum(helper_name.values())
    assert 0.25 < match / sum(calls.values()) < 0.4


def test_one_advantage_a_shared_token_does_not_move_and_the_name_moves_most() -> None:
    for seed, update in [(seed, update) for seed in range(SEEDS) for update in (1, 2, 3)]:
        step = step_language_models({"seed": seed}, update)
        mains = [g["main"] for g in step["group"]]
        first = step["sample"]["main"][0]
        if all(m.startswith("return") for m in mains):
            assert first["after"] == pytest.approx(first["before"], abs=1e-6)
        moves = [abs(t["after"] - t["before"]) for t in step["sample"]["main"]]
        assert moves.index(max(moves)) == 1, (seed, update)


def test_the_honesty_section_sizes() -> None:
    assert len(VOCAB) == 14
    assert len(corpus_examples()) == 26
