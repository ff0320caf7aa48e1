"""The claims of docs/language-models.md that need no training over many seeds.

Everything the page says about learning over seeds 0-199 (each count it states, each guided
experiment's keyed option in every block of 20 seeds) is checked in
``tests/seeds/test_language_models_seeds.py``, outside this quick run.
"""

from __future__ import annotations

import functools

from lab.core.advantages import BASELINES
from lab.lm.model import step_language_models
from lab.lm.tokens import (
    HELPER,
    MAIN,
    NAMES,
    VOCAB,
    TokenLM,
    corpus_examples,
    response_steps,
    tokenize,
)
from lab.lm.training import policy_step
from lesson_hooks.fences.experiment import parse_page
from lesson_hooks.support.paths import ROOT

PAGE = "docs/language-models.md"
EXPERIMENTS = parse_page((ROOT / PAGE).read_text(encoding="utf-8"), PAGE)


@functools.cache
def step(seed: int, update: int) -> dict:
    return step_language_models({"seed": seed}, update)


def test_a_call_matches_the_helpers_name_about_a_third_of_the_time_at_first() -> None:
    for temperature in (0.6, 1.0, 1.5):  # the helper's names are equally likely at any T
        model = TokenLM(temperature=temperature)
        start = (MAIN, -1, tokenize("return")[0])
        helper = {n: model.probs((HELPER, -1, tokenize("def")[0]))[tokenize(n)[0]] for n in NAMES}
        calls = {n: model.probs(start)[tokenize(n)[0]] for n in NAMES}
        match = sum(helper[n] * calls[n] for n in NAMES) / sum(helper.values())
        assert 0.32 < match / sum(calls.values()) < 0.34


def test_colder_sampling_makes_main_inline_less_often_at_first() -> None:
    start = (MAIN, -1, tokenize("return")[0])
    plain = TokenLM().probs(start)
    assert min(plain[tokenize(n)[0]] for n in NAMES) > plain[tokenize("w")[0]]
    inline = [TokenLM(temperature=t).probs(start)[tokenize("w")[0]] for t in (0.6, 1.0, 1.5)]
    assert inline == sorted(inline)


def test_with_seed_0_the_helpers_operator_moves_more_than_mains_name() -> None:
    helper, main = step(0, 1)["sample"]["helper"], step(0, 1)["sample"]["main"]
    star = next(t for t in helper if t["token"] == "*")
    assert (round(star["before"], 3), round(star["after"], 3)) == (0.793, 0.870)
    assert star["after"] - star["before"] > max(t["after"] - t["before"] for t in main)


def test_the_honesty_section_sizes() -> None:
    assert len(VOCAB) == 14
    assert len(corpus_examples()) == 26


def test_the_page_has_its_tasks() -> None:
    assert len(EXPERIMENTS) >= 4 and all(
        experiment.lab == "language-models" for experiment in EXPERIMENTS
    )


def _page() -> str:
    return " ".join((ROOT / PAGE).read_text(encoding="utf-8").split())


def test_the_update_is_magrpo_as_comlrl_implements_it_unclipped_and_without_kl() -> None:
    """The page: "MAGRPO as its authors' CoMLRL library implements it clips no ratio, and its KL
    term to a reference model is optional and off by default"; the lab's update has neither, so
    twice the advantage moves every logit twice as far, however far that is."""
    assert (
        "MAGRPO as its authors' CoMLRL library implements it clips no ratio, and its KL term to a "
        "reference model is optional and off by default" in _page()
    )
    tokens = tokenize("def area ( w , h ) : return w * h")
    moved, ratios = [], []
    for advantage in (5.0, 10.0):
        model = TokenLM()
        before = [list(model.logits(key)) for key, _ in response_steps(HELPER, tokens)]
        old = model.probability(HELPER, tokens)
        policy_step(model, [(HELPER, tokens)], [advantage], rate=4.0)
        after = [list(model.logits(key)) for key, _ in response_steps(HELPER, tokens)]
        moved.append(
            [
                a - b
                for row, was in zip(after, before, strict=True)
                for a, b in zip(row, was, strict=True)
            ]
        )
        ratios.append(model.probability(HELPER, tokens) / old)
    assert all(abs(2 * x - y) < 1e-9 for x, y in zip(*moved, strict=True))
    # One step multiplies the response's probability far past PPO's 1 + 0.2: nothing clips it.
    assert ratios[1] > ratios[0] > 1.2


def test_the_page_names_comlrls_advantage_modes_and_the_lab_offers_them() -> None:
    assert (
        "CoMLRL's current advantage modes are `mean`, `raw`, `max` and `rloo`, none of which "
        "divides by it" in _page()
    )
    assert {"mean", "raw", "max", "leave_one_out", "normalized"} == set(BASELINES)


def test_the_objectives_count_each_experiments_seeds_as_its_block_says() -> None:
    lab = [t for t in EXPERIMENTS if t.lab == "language-models"]
    assert sorted(t.params["seeds"] for t in lab) == [20, 20, 20, 50]
    assert (
        "Predict, run and explain four experiments on the lab, three over 20 seeds and one over 50"
        in _page()
    )
