"""Every claim docs/language-models.md makes about learning, checked over seeds 0-199.

The page states these in words ("most seeds", "no seed", "every seed") and as counts with
their intervals; the numbers behind them come from lab.lm.model. A claim must hold beyond the
seeds it was written on, so each is checked over seeds 0-199; each of the page's guided experiments
must pick its keyed option in every block of 20 seeds among them.

Each method's outcome for each seed is stored or computed once (:mod:`tests.seeds.store`)
and shared by every claim and experiment that needs it, and a run's tally is assembled from
them by the lab's own :func:`lab.lm.model.tally_seeds`, so the whole check costs a few
trainings per seed: about a minute of CPU, which is why it lives here, outside
``tests/unit`` (the default quick run), and runs in CI with the rest of ``./dev test``. The
page's claims that need no such run are in ``tests/unit/lab/lm/test_claims.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import pytest

from lab.core.stats import describe_count
from lab.experiment.outcome import experiment_outcome, matching_options
from lab.lm.model import METHODS, step_language_models, tally_seeds
from lab.lm.params import LMParams, validate_lm_params
from lab.lm.tokens import NAMES
from lesson_hooks.fences.experiment import parse_page
from lesson_hooks.support.paths import ROOT
from tests.seeds.outcomes import PUBLISHABLE, block_odds, lm_outcomes, unpublishable
from tests.seeds.store import Outcomes

SEEDS = 200  # seeds 0-199
BLOCK = 20  # a guided experiment's 20 seeds
PAGE = "docs/language-models.md"


def outcomes(params: LMParams | dict, method: str = "learned") -> Outcomes:
    """``method``'s outcome for each of seeds 0-199 at these settings (stored, or computed once)."""
    return lm_outcomes(params, method, SEEDS)


def count(params: dict, verdict: str, method: str = "learned") -> int:
    return sum(o["verdict"] == verdict for o in outcomes(params, method))


# ----------------------------------------------------------------- the claims


def test_most_seeds_find_a_convention_at_the_defaults() -> None:
    assert count({}, "call") > 0.8 * SEEDS


def test_a_convention_emerges_and_every_name_wins_somewhere() -> None:
    assert {o["convention"] for o in outcomes({})} >= set(NAMES)


def test_after_200_updates_no_pair_is_yet_within_two_percent_of_the_best() -> None:
    assert max(o["expected_reward"] for o in outcomes({})) < 0.98
    called = [o["expected_reward"] for o in outcomes({}) if o["verdict"] == "call"]
    assert round(sum(called) / len(called), 2) == 0.97  # "about 0.97": a little doubt left
    page = (ROOT / PAGE).read_text(encoding="utf-8")
    assert '"18 of 20 seeds" says the share over all seeds is somewhere between 70% and 97%' in page
    assert describe_count(18, 20).endswith("between 70% and 97% of all seeds")


def test_trained_alone_no_seed_calls_and_main_always_inlines() -> None:
    assert count({}, "inline", "trained_alone") == SEEDS


def test_reading_the_helpers_code_every_seed_calls_the_name_it_read() -> None:
    assert count({}, "call", "communication") == SEEDS


def test_a_higher_safe_reward_traps_more_seeds() -> None:
    assert count({"safe_reward": 0.9}, "inline") > max(SEEDS / 2, count({}, "inline"))


def test_at_safe_reward_0_9_every_pair_that_does_not_call_inlines() -> None:
    """The experiments' options say "in the rest main writes `w * h` itself": no pair is broken."""
    for settings in ({"safe_reward": 0.9}, {"safe_reward": 0.9, "temperature": 0.6}):
        assert count(settings, "call") + count(settings, "inline") == SEEDS


def test_sampling_colder_frees_some_seeds_and_makes_the_calling_pairs_surer() -> None:
    cold, plain = {"safe_reward": 0.9, "temperature": 0.6}, {"safe_reward": 0.9}
    assert count(plain, "call") < count(cold, "call") < SEEDS / 2
    assert all(o["optimal"] == (o["verdict"] == "call") for o in outcomes(cold))
    assert not any(o["optimal"] for o in outcomes(plain))


def _said(n: int, total: int, unit: str = "seeds") -> str:
    """A count as the page gives it: "14 of 200 seeds; somewhere between 4% and 11% of all …"."""
    return describe_count(n, total, unit)


def _between(n: int) -> str:
    """A second count's interval, shorter: "somewhere between 82% and 91%"."""
    return _said(n, SEEDS).split("; ")[1].removesuffix(" of all seeds")


def _main_name_moves_most() -> int:
    """Of the first three updates of seeds 0-199, how many push main's second token most."""
    moved = 0
    for seed, update in [(seed, update) for seed in range(SEEDS) for update in (1, 2, 3)]:
        moves = [abs(t["after"] - t["before"]) for t in step(seed, update)["sample"]["main"]]
        moved += moves.index(max(moves)) == 1
    return moved


def _optimal(params: dict, method: str = "learned") -> int:
    return sum(o["optimal"] for o in outcomes(params, method))


def _moving(params: dict, verdict: str | None = None) -> int:
    """Pairs still moving at the end (lab.core.movement), of those with this verdict if given."""
    return sum(
        bool(o["still_moving"])
        for o in outcomes(params)
        if verdict is None or o["verdict"] == verdict
    )


COLD = {"safe_reward": 0.9, "temperature": 0.6}

#: Each count the page states, made from the model in the page's words (whitespace aside).
PAGE_COUNTS = {
    "defaults, calls": lambda: (
        f"the pair calls a shared name in {_said(count({}, 'call'), SEEDS).replace('; ', ' (')}) "
        f"and main writes `w * h` itself in the other {count({}, 'inline')} "
        f"({_said(count({}, 'inline'), SEEDS).split('; ')[1]})."
    ),
    "defaults, within 2%": lambda: f"({_said(_optimal({}), SEEDS)}): a pair",
    "trained alone, inline": lambda: (
        f"every time ({_said(count({}, 'inline', 'trained_alone'), SEEDS)})"
    ),
    "trained alone, calls": lambda: f"calls ({_said(count({}, 'call', 'trained_alone'), SEEDS)})",
    "reading, calls": lambda: f"has to guess ({_said(count({}, 'call', 'communication'), SEEDS)})",
    "reading, calls, task": lambda: (
        f"seeds 0 to 199 ({_said(count({}, 'call', 'communication'), SEEDS)})"
    ),
    "reading, within 2%": lambda: (
        f"{_optimal({}, 'communication')} of 200 seeds is within 2% of the best (somewhere "
        f"between {_said(_optimal({}, 'communication'), SEEDS).split('between ')[1]})"
    ),
    "safe 0.9, calls": lambda: (
        f"{_said(count({'safe_reward': 0.9}, 'call'), SEEDS).replace('; ', ' call (')}), "
        f"against {count({}, 'call')} of 200 at 0.6 ({_between(count({}, 'call'))})."
    ),
    "cold, calls": lambda: (
        f"{_said(count(COLD, 'call'), SEEDS).replace('; ', ' (')}), against "
        f"{count({'safe_reward': 0.9}, 'call')} of 200 at temperature 1 "
        f"({_between(count({'safe_reward': 0.9}, 'call'))})."
    ),
    "the helper's name or operator moves most": lambda: (
        f"at update 1, in {_said(_helper_pushes_name_or_operator(), SEEDS).replace('; ', ' (')})."
    ),
    "defaults, still moving": lambda: (
        f"{_moving({})} of the 200 pairs are still moving after 200 updates "
        f"({_said(_moving({}), SEEDS).split('; ')[1]}), {_moving({}, 'inline')} of them among "
        f"the {count({}, 'inline')} that inline."
    ),
    "main's name moves most": lambda: (
        f"in {_main_name_moves_most()} of the first three updates of seeds 0 to 199 "
        f"({_said(_main_name_moves_most(), 3 * SEEDS, 'updates')})"
    ),
}


@pytest.mark.parametrize("name", PAGE_COUNTS)
def test_every_count_the_page_states_is_the_models_with_its_interval(name: str) -> None:
    page = " ".join((ROOT / PAGE).read_text(encoding="utf-8").split())
    assert PAGE_COUNTS[name]() in page


@functools.cache
def step(seed: int, update: int) -> dict:
    return step_language_models({"seed": seed}, update)


def test_one_advantage_a_token_every_body_shares_does_not_move() -> None:
    for seed, update in [(seed, update) for seed in range(SEEDS) for update in (1, 2, 3)]:
        shown = step(seed, update)
        first = shown["sample"]["main"][0]
        if all(g["main"].startswith("return") for g in shown["group"]):
            assert first["after"] == pytest.approx(first["before"], abs=1e-6)


def _helper_pushes_name_or_operator() -> int:
    """Of seeds 0-199, how many push the helper's name or its operator most at update 1."""
    pushed = 0
    for seed in range(SEEDS):
        helper = step(seed, 1)["sample"]["helper"]
        moves = [abs(t["after"] - t["before"]) for t in helper]
        pushed += helper[moves.index(max(moves))]["token"] in (*NAMES, "*", "+")
    return pushed


# ------------------------------------------------------------------ the experiments

EXPERIMENTS = parse_page((ROOT / PAGE).read_text(encoding="utf-8"), PAGE)


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_every_block_of_20_seeds_picks_the_tasks_keyed_option(experiment) -> None:
    params = validate_lm_params({**experiment.params, "seeds": BLOCK})
    asked = {"trained_alone": params.compare_alone, "communication": params.compare_communication}
    per_method = {m: outcomes(params, m) for m in METHODS if asked.get(m, True)}
    for first in range(0, SEEDS, BLOCK):
        runs = [
            {"seed": s, **{m: per_method[m][s] for m in per_method}}
            for s in range(first, first + BLOCK)
        ]
        result = {"seeds": tally_seeds(dataclasses.replace(params, seed=first), runs)}
        matched = matching_options(experiment.spec, result)
        assert matched == [experiment.answer], (
            f"{experiment.path}:{experiment.line}: {experiment.id}, "
            f"seeds {first}-{first + BLOCK - 1}: the explanation calls "
            f"{experiment.options[experiment.answer].text!r} right, but the result "
            f"satisfies {[experiment.options[i].text for i in matched]}"
        )
    # The report says each count once, bare; the table under it gives each its interval.
    outcome = experiment_outcome(experiment.spec, experiment.answer, result)
    assert " of 20 seeds" in outcome["text"], outcome["text"]
    table = re.sub(r"<[^>]+>", "", outcome["counts"] or "")  # the table's text, as read
    assert re.search(r"\d+ of 20 \(\d+% to \d+%\)", table), outcome


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_a_random_block_picks_the_keyed_option_with_probability_099(experiment) -> None:
    """Estimated from the blocks in seeds 0-199, not 0-999 as for the simulation: a
    language-model seed costs a few trainings of about a second each, and 1,000 of them per
    method would take the seed layer past its budget."""
    params = validate_lm_params({**experiment.params, "seeds": BLOCK})
    asked = {"trained_alone": params.compare_alone, "communication": params.compare_communication}
    per_method = {m: outcomes(params, m) for m in METHODS if asked.get(m, True)}
    runs = [{"seed": s, **{m: per_method[m][s] for m in per_method}} for s in range(SEEDS)]
    odds = block_odds(
        experiment.spec, runs, BLOCK, lambda block: {"seeds": tally_seeds(params, list(block))}
    )
    assert odds[experiment.answer] >= PUBLISHABLE, unpublishable(
        experiment, odds, BLOCK, f"0-{SEEDS - 1}"
    )
