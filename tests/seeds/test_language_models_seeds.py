"""Every claim docs/language-models.md makes about learning holds over seeds 0-999.

The page states these in words ("most seeds", "no seed", "every seed") and as counts with
their intervals over seeds 0 to 199; the numbers behind them come from lab.lm.model. A claim
must hold beyond the seeds it was written on, so every count the page states is recomputed
from seeds 0-199, and every qualitative claim ("no seed", "every seed", "most", which side of
a comparison wins) must hold on seeds 200-999 too; each of the page's guided experiments must
pick its keyed option in every block of its seeds among 0-999, and a block starting at a random
seed must pick it with probability at least 0.99.

Each method's outcome for each seed comes from :mod:`tests.seeds.store` (stored, or trained
once a session) and is shared by every claim and experiment that needs it, and a run's tally
is assembled from them by the lab's own :func:`lab.lm.model.tally_seeds`. The page's claims
that need no such run are in ``tests/unit/lab/lm/test_claims.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable

import pytest

from lab.core.stats import describe_count as said  # a count as the page gives it
from lab.experiment.outcome import experiment_outcome, matching_options
from lab.lm.model import METHODS, step_language_models, tally_seeds
from lab.lm.params import LMParams, validate_lm_params
from lab.lm.tokens import NAMES
from lesson_hooks.fences.experiment import parse_page
from lesson_hooks.support.paths import ROOT
from tests.seeds.outcomes import ALL_SEEDS, PUBLISHABLE, block_odds, lm_outcomes, unpublishable
from tests.seeds.store import Outcomes

SEEDS = 200  # the page's counts are over seeds 0-199
PAGE = "docs/language-models.md"


def outcomes(params: LMParams | dict, method: str = "learned") -> Outcomes:
    """``method``'s outcome for each of seeds 0-199 at these settings: what the page counts."""
    return lm_outcomes(params, method, SEEDS)


def every(params: LMParams | dict, method: str = "learned") -> Outcomes:
    """Seeds 0-999's outcomes: what a claim that no seed or every seed does must hold on."""
    return lm_outcomes(params, method, ALL_SEEDS)


def beyond(params: dict, method: str = "learned") -> Outcomes:
    """Seeds 200-999's outcomes: where a claim written on seeds 0-199 must hold too."""
    return every(params, method)[SEEDS:]


#: Seeds 0-199, then 200-999: a claim of "most" or of a comparison holds in each.
RANGES: dict[str, Callable[..., Outcomes]] = {"0-199": outcomes, "200-999": beyond}


def verdicts(seeds: Outcomes, verdict: str) -> int:
    return sum(o["verdict"] == verdict for o in seeds)


def count(params: dict, verdict: str, method: str = "learned") -> int:
    """How many of seeds 0-199 end with this verdict: a count as the page states it."""
    return verdicts(outcomes(params, method), verdict)


# ----------------------------------------------------------------- the claims
#
# Each check names the page's line that makes the claim, and the seeds that break it.

COLD = {"safe_reward": 0.9, "temperature": 0.6}


def at(quote: str) -> str:
    """``docs/language-models.md:LINE``: where the page says ``quote`` (line breaks aside)."""
    text = (ROOT / PAGE).read_text(encoding="utf-8")
    found = re.search(r"\s+".join(map(re.escape, quote.split())), text)
    assert found, f"{PAGE}: the page no longer says {quote!r}"
    return f"{PAGE}:{text.count(chr(10), 0, found.start()) + 1}"


def seeds_where(found: Outcomes, broken: Callable[[dict], bool], first: int = 0) -> list[int]:
    """The seeds among ``found`` (seed ``first`` on) whose outcome breaks a claim."""
    return [first + i for i, o in enumerate(found) if broken(o)]


@pytest.mark.parametrize("seeds", RANGES)
def test_most_seeds_find_a_convention_at_the_defaults(seeds: str) -> None:
    found = RANGES[seeds]({})
    assert verdicts(found, "call") > 0.8 * len(found), (
        f"{at('With the defaults, most seeds escape it')}: seeds {seeds}: "
        f"{verdicts(found, 'call')} of {len(found)} call"
    )


@pytest.mark.parametrize("seeds", RANGES)
def test_a_convention_emerges_and_every_name_wins_somewhere(seeds: str) -> None:
    won = {o["convention"] for o in RANGES[seeds]({})}
    assert won >= set(NAMES), f"{at('see every name win somewhere')}: seeds {seeds}: {won}"


def test_after_200_updates_no_pair_of_seeds_0_to_199_is_within_two_percent_of_the_best() -> None:
    """The page says none of seeds 0-199 is, and how many of 200-999 are (``PAGE_COUNTS``)."""
    best = seeds_where(outcomes({}), lambda o: o["optimal"] or o["expected_reward"] >= 0.98)
    assert not best, (
        f"{at('none of these pairs is yet at the optimum')}: at the defaults, seeds {best} are "
        f"within 2% of the best after 200 updates"
    )
    for seeds, found in RANGES.items():  # "about 0.97": a little doubt left
        called = [o["expected_reward"] for o in found({}) if o["verdict"] == "call"]
        mean = sum(called) / len(called)
        assert round(mean, 2) == 0.97, f"{at('about 0.97')}: seeds {seeds}: {mean}"
    page = (ROOT / PAGE).read_text(encoding="utf-8")
    assert '"18 of 20 seeds" says the share over all seeds is somewhere between 70% and 97%' in page
    assert said(18, 20).endswith("between 70% and 97% of all seeds")


def test_trained_alone_no_seed_calls_and_main_always_inlines() -> None:
    calling = seeds_where(every({}, "trained_alone"), lambda o: o["verdict"] != "inline")
    assert not calling, f"{at('learns to inline every time')}: seeds {calling} do not inline"


def test_reading_the_helpers_code_every_seed_calls_the_name_it_read() -> None:
    apart = seeds_where(every({}, "communication"), lambda o: o["verdict"] != "call")
    assert not apart, f"{at('every pair calls the name it read')}: seeds {apart} do not call"


@pytest.mark.parametrize("seeds", RANGES)
def test_a_higher_safe_reward_traps_more_seeds(seeds: str) -> None:
    safer, plain = RANGES[seeds]({"safe_reward": 0.9}), RANGES[seeds]({})
    inline = verdicts(safer, "inline"), verdicts(plain, "inline")
    assert inline[0] > max(len(safer) / 2, inline[1]), (
        f"{at('The better the safe answer pays, the stronger the trap')}: seeds {seeds}: "
        f"{inline[0]} inline at safe reward 0.9, {inline[1]} at 0.6, of {len(safer)}"
    )


def test_at_safe_reward_0_9_every_pair_that_does_not_call_inlines() -> None:
    """The experiments' options say "in the rest main writes `w * h` itself": no pair is broken."""
    for settings in ({"safe_reward": 0.9}, COLD):
        broken = seeds_where(every(settings), lambda o: o["verdict"] not in ("call", "inline"))
        assert not broken, f"{at('in the rest main writes `w * h` itself')}: {settings}: {broken}"


@pytest.mark.parametrize("seeds", RANGES)
def test_sampling_colder_frees_some_seeds(seeds: str) -> None:
    cold, plain = RANGES[seeds](COLD), RANGES[seeds]({"safe_reward": 0.9})
    calls = verdicts(cold, "call"), verdicts(plain, "call")
    assert calls[1] < calls[0] < len(cold) / 2, (
        f"{at('a few more pairs find a name before inlining takes over')}: seeds {seeds}: "
        f"{calls[0]} call at temperature 0.6, {calls[1]} at 1, of {len(cold)}"
    )


def test_sampling_colder_makes_the_calling_pairs_surer() -> None:
    """At 0.6 only a calling pair is within 2% (how many of them are: ``PAGE_COUNTS``); at 1
    none is."""
    where = at("the pairs that do call are within 2% of the")
    sure = seeds_where(every(COLD), lambda o: o["verdict"] != "call" and o["optimal"])
    assert not sure, f"{where}: at temperature 0.6, seeds {sure} are within 2% but do not call"
    sure = seeds_where(every({"safe_reward": 0.9}), lambda o: o["optimal"])
    assert not sure, f"{where}: at temperature 1, seeds {sure} are within 2%"


def _between(n: int) -> str:
    """A second count's interval, shorter: "somewhere between 82% and 91%"."""
    return said(n, SEEDS).split("; ")[1].removesuffix(" of all seeds")


def _main_name_moves_most(seeds: range = range(SEEDS)) -> int:
    """Of the first three updates of these seeds, how many push main's second token most."""
    moved = 0
    for seed, update in [(seed, update) for seed in seeds for update in (1, 2, 3)]:
        moves = [abs(t["after"] - t["before"]) for t in step(seed, update)["sample"]["main"]]
        moved += moves.index(max(moves)) == 1
    return moved


def _optimal(
    params: dict, method: str = "learned", among: Callable[..., Outcomes] = outcomes
) -> int:
    """How many pairs are within 2% of the best: of seeds 0-199 unless ``among`` says."""
    return sum(o["optimal"] for o in among(params, method))


def _moving(params: dict, verdict: str | None = None) -> int:
    """Pairs still moving at the end (lab.core.movement), of those with this verdict if given."""
    return sum(
        bool(o["still_moving"])
        for o in outcomes(params)
        if verdict is None or o["verdict"] == verdict
    )


#: Each count the page states, made from the model in the page's words (whitespace aside).
PAGE_COUNTS = {
    "defaults, calls": lambda: (
        f"the pair calls a shared name in {said(count({}, 'call'), SEEDS).replace('; ', ' (')}) "
        f"and main writes `w * h` itself in the other {count({}, 'inline')} "
        f"({said(count({}, 'inline'), SEEDS).split('; ')[1]})."
    ),
    "defaults, within 2%": lambda: (
        f"({said(_optimal({}), SEEDS)}), and only {_optimal({}, among=beyond)} of seeds 200 "
        f"to 999 are: a pair"
    ),
    "cold, calling pairs within 2%": lambda: (
        f"(all but {verdicts(every(COLD), 'call') - _optimal(COLD, among=every)} of the "
        f"{verdicts(every(COLD), 'call')} that call over seeds 0 to 999)"
    ),
    "trained alone, inline": lambda: (
        f"every time ({said(count({}, 'inline', 'trained_alone'), SEEDS)})"
    ),
    "trained alone, calls": lambda: f"calls ({said(count({}, 'call', 'trained_alone'), SEEDS)})",
    "reading, calls": lambda: f"has to guess ({said(count({}, 'call', 'communication'), SEEDS)})",
    "reading, calls, task": lambda: (
        f"seeds 0 to 199 ({said(count({}, 'call', 'communication'), SEEDS)})"
    ),
    "reading, within 2%": lambda: (
        f"{_optimal({}, 'communication')} of 200 seeds is within 2% of the best (somewhere "
        f"between {said(_optimal({}, 'communication'), SEEDS).split('between ')[1]})"
    ),
    "safe 0.9, calls": lambda: (
        f"{said(count({'safe_reward': 0.9}, 'call'), SEEDS).replace('; ', ' call (')}), "
        f"against {count({}, 'call')} of 200 at 0.6 ({_between(count({}, 'call'))})."
    ),
    "cold, calls": lambda: (
        f"{said(count(COLD, 'call'), SEEDS).replace('; ', ' (')}), against "
        f"{count({'safe_reward': 0.9}, 'call')} of 200 at temperature 1 "
        f"({_between(count({'safe_reward': 0.9}, 'call'))})."
    ),
    "the helper's name or operator moves most": lambda: (
        f"at update 1, in {said(_helper_pushes_name_or_operator(), SEEDS).replace('; ', ' (')})."
    ),
    "defaults, still moving": lambda: (
        f"{_moving({})} of the 200 pairs are still moving after 200 updates "
        f"({said(_moving({}), SEEDS).split('; ')[1]}), {_moving({}, 'inline')} of them among "
        f"the {count({}, 'inline')} that inline."
    ),
    "main's name moves most": lambda: (
        f"in {_main_name_moves_most()} of the first three updates of seeds 0 to 199 "
        f"({said(_main_name_moves_most(), 3 * SEEDS, 'updates')})"
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
    moved = []
    for seed, update in [(seed, update) for seed in range(ALL_SEEDS) for update in (1, 2, 3)]:
        shown = step(seed, update)
        first = shown["sample"]["main"][0]
        shared = all(g["main"].startswith("return") for g in shown["group"])
        if shared and first["after"] != pytest.approx(first["before"], abs=1e-6):
            moved.append((seed, update))
    assert not moved, f"{at('`return` does not move at all')}: (seed, update) {moved}"


def test_mains_name_takes_the_biggest_push_in_nearly_every_update_beyond_seed_199() -> None:
    """The page's "nearly every update" (590 of 600 over seeds 0-199): 95% or more of the
    first three updates of seeds 200-999 too."""
    moved, updates = _main_name_moves_most(range(SEEDS, ALL_SEEDS)), 3 * (ALL_SEEDS - SEEDS)
    assert moved >= 0.95 * updates, (
        f"{at('takes the biggest push in nearly every update')}: {moved} of {updates} updates "
        f"of seeds 200-999"
    )


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


def _runs(params: LMParams) -> list[dict]:
    """Seeds 0-999 as a run's tally reads them: each seed's outcome for every method it compares."""
    asked = {"trained_alone": params.compare_alone, "communication": params.compare_communication}
    per_method = {m: every(params, m) for m in METHODS if asked.get(m, True)}
    return [{"seed": s, **{m: per_method[m][s] for m in per_method}} for s in range(ALL_SEEDS)]


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_every_block_of_its_seeds_picks_the_tasks_keyed_option(experiment) -> None:
    size = experiment.params["seeds"]  # a task's block: the seeds its run trains
    params = validate_lm_params(experiment.params)
    runs = _runs(params)
    for first in range(0, ALL_SEEDS - size + 1, size):
        block = runs[first : first + size]
        result = {"seeds": tally_seeds(dataclasses.replace(params, seed=first), block)}
        matched = matching_options(experiment.spec, result)
        assert matched == [experiment.answer], (
            f"{experiment.path}:{experiment.line}: {experiment.id}, "
            f"seeds {first}-{first + size - 1}: the explanation calls "
            f"{experiment.options[experiment.answer].text!r} right, but the result "
            f"satisfies {[experiment.options[i].text for i in matched]}"
        )
    # The report says each count once, bare; the table under it gives each its interval.
    outcome = experiment_outcome(experiment.spec, experiment.answer, result)
    assert f" of {size} seeds" in outcome["text"], outcome["text"]
    table = re.sub(r"<[^>]+>", "", outcome["counts"] or "")  # the table's text, as read
    assert re.search(rf"\d+ of {size} \(\d+% to \d+%\)", table), outcome


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_a_random_block_picks_the_keyed_option_with_probability_099(experiment) -> None:
    size = experiment.params["seeds"]
    params = validate_lm_params(experiment.params)
    odds = block_odds(
        experiment.spec, _runs(params), size, lambda b: {"seeds": tally_seeds(params, list(b))}
    )
    assert odds[experiment.answer] >= PUBLISHABLE, unpublishable(
        experiment, odds, size, f"0-{ALL_SEEDS - 1}"
    )
