"""What docs/simulation.md says about learning holds over seeds 0-999, not only 0-199.

A count of seeds on the page is a sample; a claim tuned on the seeds it was written on
may not hold on the next ones. So every guided experiment's keyed option must be the one
picked by every block of its seeds among 0-999, and by a block
starting at a random seed with probability at least 0.99 (estimated from the blocks
starting at each seed in 0-999, and stated when it fails); every count the page states
over seeds 0 to 199 is recomputed from those seeds, and every qualitative claim ("in
every seed", which side of a comparison wins) must hold on seeds 200-999 too. Each
seed's outcome at each settings is stored in the tree or trained once a session
(:mod:`tests.seeds.store`) and shared by every experiment and claim; training them all takes
a few minutes of CPU, spread over the cores, so the file lives outside ``tests/unit`` (the
default quick run) and runs in CI with the rest of ``./dev test``.
"""

# ruff: noqa: RUF001 (the quotes keep the page's typography: minus signs)
from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from lab import param_spec, run_experiment, validate_params
from lab.core.stats import describe_count
from lab.experiment.outcome import matching_options
from lesson_hooks.fences.experiment import FENCE_INFO, Experiment, parse_page
from lesson_hooks.support.paths import ROOT
from tests.seeds.outcomes import (
    ALL_SEEDS,
    PUBLISHABLE,
    block_odds,
    block_result,
    outcomes,
    unpublishable,
)
from tests.support.pages import SIMULATION_PAGES, simulation_pages_say

PAGE = ROOT / "docs" / "simulation.md"
SEEDS = 200  # the pages' counts are over seeds 0-199


def rows(**params: Any) -> tuple[dict[str, Any], ...]:
    """Seeds 0-199's outcomes: what the page's counts are over."""
    return outcomes(SEEDS, **params)


def every(**params: Any) -> tuple[dict[str, Any], ...]:
    """Seeds 0-999's outcomes: what a qualitative claim must hold on."""
    return outcomes(ALL_SEEDS, **params)


def reached(method: str, **params: Any) -> int:
    return sum(r["reached_optimum"][method] for r in rows(**params))


def reached_beyond(method: str, **params: Any) -> int:
    """How many of seeds 200-999 reach the optimum."""
    return sum(r["reached_optimum"][method] for r in every(**params)[SEEDS:])


def settled(method: str, seeds: tuple[dict[str, Any], ...]) -> list[str]:
    return [r["settled_on"][method][-1] for r in seeds]


def partners(seeds: tuple[dict[str, Any], ...]) -> list[dict[str, dict[str, Any]]]:
    """Each seed's trained ego with every partner, by partner name."""
    return [{s["name"]: s for s in r["partners"]} for r in seeds]


def rate(count: int, total: int = SEEDS) -> str:
    """A count as the page words it, from its interval."""
    return describe_count(count, total, aside=True).split(" (", 1)[1].rstrip(")")


# --- every guided experiment, on every block of its seeds ------------------------------------


def _tasks() -> list[Experiment]:
    text = PAGE.read_text(encoding="utf-8")
    assert FENCE_INFO in text
    return [t for t in parse_page(text, "docs/simulation.md") if t.lab == "simulation"]


EXPERIMENTS = _tasks()


def test_a_block_is_the_seeds_own_runs_side_by_side() -> None:
    """What makes assembling blocks from per-seed outcomes sound: a run over seeds 40-59
    returns, under ``seeds``, exactly what the 20 seeds' own outcomes make."""
    settings = {"table": "penalty", "penalty_k": 0, "group_size": 2}
    run = run_experiment({**settings, "seed": 40, "seeds": 20})
    assert run["seeds"] == block_result(every(**settings)[40:60])["seeds"]


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_every_block_of_seeds_0_to_999_picks_the_keyed_option(experiment: Experiment) -> None:
    size = experiment.params["seeds"]
    seeds = every(**experiment.params)
    where = f"{experiment.path}:{experiment.line}: {experiment.id}"
    keyed = experiment.options[experiment.answer].text
    for first in range(0, ALL_SEEDS - size + 1, size):
        matched = matching_options(experiment.spec, block_result(seeds[first : first + size]))
        assert matched == [experiment.answer], (
            f"{where} with seeds {first}-{first + size - 1}: the explanation calls {keyed!r} "
            f"right, but the result satisfies {[experiment.options[i].text for i in matched]}"
        )


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_a_random_block_picks_the_keyed_option_with_probability_099(
    experiment: Experiment,
) -> None:
    odds = block_odds(
        experiment.spec, every(**experiment.params), experiment.params["seeds"], block_result
    )
    assert odds[experiment.answer] >= PUBLISHABLE, unpublishable(
        experiment, odds, experiment.params["seeds"], "0-999"
    )


# --- every claim the pages make about learning -----------------------------------------------
#
# The registry: each sentence (or the part of one that makes the claim) as the page words it,
# with its check. Counts are over seeds 0-199, as the page states them; what a count is
# read as ("in every one of them", "in none", which side wins) is checked over 0-999 too.


@dataclass(frozen=True)
class Claim:
    quote: str
    check: Callable[[], bool]


CLIMBING_T3 = {"temperature": 3}
ON_POLICY_T3 = {"temperature": 3, "gradient": "tempered"}
PENALTY_0 = {"table": "penalty", "penalty_k": 0}
PENALTY_100 = {"table": "penalty", "penalty_k": -100}
TWO_TURNS = {"turns": 2, "group_size": 8}
#: Cross mode with groups of 8: 64 joint responses an update, as many as align with 64.
CROSS_8 = {"joint_mode": "cross", "group_size": 8}
#: CoMLRL's optimizer, with each baseline of the baseline experiment.
ADAMW = {"optimizer": "adamw"}
ADAMW_NORMALIZED = {**ADAMW, "advantage": "normalized"}
#: Where the normalized baseline's climb goes: `filter` + `alone` (6), then `filter` + `combine`.
CLIMBED = {"filter + alone", "filter + combine"}
#: Groups of 2 for 16 times the updates: as many episodes as groups of 32 for 200.
SMALL_GROUPS_SAME_EPISODES = {**PENALTY_0, "group_size": 2, "updates": 3200}


def _blocks_of_50(**params: Any) -> tuple[int, int]:
    """The fewest and most seeds of a run of 50 (from 0, 50, ..., 950) that find the best."""
    seeds = every(**params)
    counts = [
        sum(r["reached_optimum"]["learned"] for r in seeds[first : first + 50])
        for first in range(0, ALL_SEEDS, 50)
    ]
    return min(counts), max(counts)


def _below(name: str, seeds: tuple[dict[str, Any], ...]) -> int:
    """In how many of ``seeds`` the trained ego scores below its untrained self with ``name``."""
    return sum(s[name]["score"] < s[name]["score_before_training"] for s in partners(seeds))


@functools.cache
def _seed_0(**params: Any) -> dict[str, Any]:
    return run_experiment({"seed": 0, **params})


def _turn_2(seeds: tuple[dict[str, Any], ...]) -> int:
    """In how many of ``seeds`` the learned agents' turn 2 ends most likely on 11."""
    return sum(r["settled_on"]["learned"][1] == "core + delegate" for r in seeds)


SAFE = {"stub + alone", "filter + alone"}


def _on(cells: set[str], seeds: tuple[dict[str, Any], ...]) -> int:
    """In how many of ``seeds`` learned collaboration ends most likely on one of ``cells``."""
    return sum(c in cells for c in settled("learned", seeds))


def _gap(**normalized: Any) -> int:
    """On seeds 200-999, how many more seeds the normalized baseline (at ``normalized``)
    leaves on `filter` + `alone` or beyond than the mean baseline, with the same optimizer,
    leaves on `filter` + `alone`."""
    mean = {k: v for k, v in normalized.items() if k != "advantage"}
    return _on(CLIMBED, every(**normalized)[SEEDS:]) - _on(
        {"filter + alone"}, every(**mean)[SEEDS:]
    )


def _same_sampled_curves(seeds: range, temperature: float, advantage: str) -> bool:
    """Whether the on-policy gradient at the learning rate and the default one at the
    learning rate / T give every sampled method the same curve in each of ``seeds``."""
    lr = validate_params({}).learning_rate
    for seed in seeds:
        settings = {"seed": seed, "temperature": temperature, "advantage": advantage}
        a = run_experiment({**settings, "gradient": "tempered"})["mean_reward"]
        b = run_experiment({**settings, "learning_rate": lr / temperature})["mean_reward"]
        if any(a[m] != b[m] for m in ("prompted", "learned", "centralized_sampled")):
            return False
    return True


def _combine(updates: int) -> float:
    """Seed 0's main agent's probability of `combine` after ``updates`` updates."""
    joint = _seed_0(updates=updates)["joint_distribution"]["learned"]
    return math.fsum(row[1] for row in joint)


def _both_turns_safe(seeds: tuple[dict[str, Any], ...]) -> int:
    return sum(all(c in SAFE for c in r["settled_on"]["learned"]) for r in seeds)


CLAIMS = [
    Claim(
        "Both turns end most likely on a safe answer in 200 of seeds 0 to 199 (somewhere between "
        "98% and 100% of all seeds), and in all but 3 of seeds 200 to 999; one of those 3 reaches "
        "`core` + `delegate` in turn 2",
        lambda: (
            _both_turns_safe(rows(**TWO_TURNS)) == 200
            and "98% and 100%" in rate(200)
            and _both_turns_safe(every(**TWO_TURNS)[SEEDS:]) == 800 - 3
            and _turn_2(every(**TWO_TURNS)[SEEDS:]) == 1
        ),
    ),
    Claim(
        "learned collaboration reaches 11 in 0 of seeds 0 to 199 (somewhere between 0% and 2% "
        "of all seeds)",
        lambda: (
            reached("learned") == 0
            and reached_beyond("learned") == 0
            and rate(0) == "somewhere between 0% and 2% of all seeds"
        ),
    ),
    Claim(
        "After 200 updates its most likely joint response is `stub` + `alone` (5) or `filter` + "
        "`alone` (6) in every one of them, and in 106 of the 200 its play is still moving "
        "(somewhere between 46% and 60% of all seeds).",
        lambda: (
            set(settled("learned", every())) == SAFE
            and sum(r["still_moving"]["learned"] for r in rows()) == 106
            and "46% and 60%" in rate(106)
        ),
    ),
    Claim(
        "reaches 11 in 150 of seeds 0 to 199 after 200 updates (somewhere between 69% and 80% of "
        "all seeds)",
        lambda: reached("centralized_sampled") == 150 and "69% and 80%" in rate(150),
    ),
    Claim(
        "it does so in every seed, with one turn or two, as one result repeated",
        lambda: (
            all(r["reached_optimum"]["centralized"] for r in every())
            and len({r["expected_reward"]["centralized"] for r in every()}) == 1
            and all(r["reached_optimum"]["centralized"] for r in every(**TWO_TURNS))
        ),
    ),
    Claim(
        "lenient learners reach 11 in 180 of seeds 0 to 199 (somewhere between 85% and 93% of all "
        "seeds)",
        lambda: reached("learned", learner="lenient") == 180 and "85% and 93%" in rate(180),
    ),
    Claim(
        "A joint learner has no partner to average over: at *T* = 3 learned collaboration reaches "
        "11 in 0 of seeds 0 to 199 (somewhere between 0% and 2% of all seeds) and the sampled "
        "centralized learner in 200 of 200 (somewhere between 98% and 100% of all seeds), so "
        "exploration rescues the joint learner and not the independent ones",
        lambda: (
            reached("learned", **CLIMBING_T3) == 0
            and reached_beyond("learned", **CLIMBING_T3) == 0
            and all(r["reached_optimum"]["centralized_sampled"] for r in every(**CLIMBING_T3))
            and "98% and 100%" in rate(200)
        ),
    ),
    Claim(
        "set *Policy gradient* to the on-policy one, which divides by T, and each step at T = 3 "
        "moves the sampling policy by a ninth of the learning rate instead of a third: after 200 "
        "updates the sampled centralized learner is then short of 11 in every seed, though "
        "`core` + `delegate` is already its most likely joint response.",
        lambda: (
            not any(r["reached_optimum"]["centralized_sampled"] for r in every(**ON_POLICY_T3))
            and set(settled("centralized_sampled", every(**ON_POLICY_T3))) == {"core + delegate"}
        ),
    ),
    Claim(
        "end most likely on `stub` + `alone`, reward 2, in every one of seeds 0 to 199 (200 of "
        "200; somewhere between 98% and 100% of all seeds)",
        lambda: (
            set(settled("learned", every(**PENALTY_100))) == {"stub + alone"}
            and "98% and 100%" in rate(SEEDS)
        ),
    ),
    Claim(
        "the sampled centralized learner reaches 10 in 172 of them (somewhere between 81% and 90% "
        "of all seeds)",
        lambda: reached("centralized_sampled", **PENALTY_100) == 172 and "81% and 90%" in rate(172),
    ),
    Claim(
        "learned collaboration finds 10 in 187 of seeds 0 to 199 (somewhere between 89% and 96% "
        "of all seeds)",
        lambda: reached("learned", **PENALTY_0) == 187 and "89% and 96%" in rate(187),
    ),
    Claim(
        "At *k* = 0 with groups of 2, 132 of seeds 0 to 199 find 10 (somewhere between 59% and "
        "72% of all seeds); with the default 32, 187 do.",
        lambda: (
            reached("learned", **PENALTY_0, group_size=2) == 132
            and "59% and 72%" in rate(132)
            and reached("learned", **PENALTY_0) == 187
        ),
    ),
    Claim(
        "trained for 3,200 updates, as many episodes as groups of 32 get in 200, groups of 2 "
        "still find 10 in 132 of seeds 0 to 199 (somewhere between 59% and 72% of all seeds), "
        "since a seed that has drifted to a safe joint response stays there.",
        # A count over 0-199 only (3,200 updates a seed); its interval lies wholly below
        # that of groups of 32 for 200 updates (89% to 96%), so the side it is on is no luck.
        lambda: (
            reached("learned", **SMALL_GROUPS_SAME_EPISODES) == 132
            and "59% and 72%" in rate(132)
            and set(settled("learned", rows(**SMALL_GROUPS_SAME_EPISODES))) >= {"stub + alone"}
        ),
    ),
    Claim(
        "Over seeds 0 to 199, groups of 2 find 10 in 132 of 200 (somewhere between 59% and 72% of "
        "all seeds) and groups of 32 in 187 of 200 (somewhere between 89% and 96%).",
        lambda: (
            reached("learned", **PENALTY_0, group_size=2) == 132
            and reached("learned", **PENALTY_0) == 187
            and "89% and 96%" in rate(187)
        ),
    ),
    Claim(
        "Over seeds 0 to 999, the runs of 50 seeds starting at 0, 50, …, 950 give 25 to 39 with "
        "groups of 2 and 43 to 49 with groups of 32",
        lambda: (
            _blocks_of_50(**PENALTY_0, group_size=2) == (25, 39)
            and _blocks_of_50(**PENALTY_0) == (43, 49)
        ),
    ),
    Claim(
        "crossing helps: in the penalty game with *k* = 0 and groups of 8, over seeds 0 to 199, "
        "align finds 10 in 158 of 200 seeds (somewhere between 73% and 84% of all seeds) and "
        "cross in 189 of 200 (somewhere between 90% and 97%).",
        lambda: (
            "73% and 84%" in rate(158)
            and "90% and 97%" in rate(189)
            and reached("learned", **PENALTY_0, group_size=8) == 158
            and reached("learned", **PENALTY_0, **CROSS_8) == 189
            and reached_beyond("learned", **PENALTY_0, group_size=8)
            < reached_beyond("learned", **PENALTY_0, **CROSS_8)
        ),
    ),
    Claim(
        "At the same 64 verifier calls an update, align with groups of 64 finds 10 in 197 of 200 "
        "(somewhere between 96% and 99% of all seeds), more than cross",
        lambda: (
            reached("learned", **PENALTY_0, group_size=64) == 197
            and "96% and 99%" in rate(197)
            and reached_beyond("learned", **PENALTY_0, group_size=64)
            > reached_beyond("learned", **PENALTY_0, **CROSS_8)
        ),
    ),
    Claim(
        "In 198 of seeds 0 to 199 it then scores within 2% of the best possible with both "
        "(somewhere between 96% and 100% of all seeds); in the other two it solves the task alone "
        "after either note, and scores about 0 with the committed helper.",
        lambda: (
            sum(
                all(
                    s[name]["score"] >= s[name]["best_response"] * 0.98
                    for name in ("Committed helper", "Cautious helper")
                )
                for s in partners(rows())
            )
            == 198
            and "96% and 100%" in rate(198)
            # The other two: solving it alone is 0 with the committed helper, 5 with the cautious.
            and [
                (round(s["Committed helper"]["score"], 1), round(s["Cautious helper"]["score"], 1))
                for s in partners(rows())
                if s["Committed helper"]["score"] < s["Committed helper"]["best_response"] * 0.98
            ]
            == [(0.0, 5.0), (0.0, 5.0)]
        ),
    ),
    Claim(
        "it scores at least 8.5 of the best possible 11 in 196 of seeds 0 to 199 (somewhere "
        "between 95% and 99% of all seeds)",
        lambda: (
            "95% and 99%" in rate(196)
            and sum(
                s["Rephrasing helper"]["best_response"] == 11
                and s["Rephrasing helper"]["score"] >= 8.5
                for s in partners(rows())
            )
            == 196
        ),
    ),
    Claim(
        "With one turn the ego reads nothing it learned from, and scores exactly what it scored "
        "before training, in every one of seeds 0 to 199; with two, the verifier's feedback on "
        "the first program is text it did learn from, and its score moves (in seed 0 at the "
        "defaults, from −0.8 before training to 4.68).",
        lambda: (
            all(
                s["Terse helper"]["score"]
                == pytest.approx(s["Terse helper"]["score_before_training"])
                for s in partners(every())
            )
            and [
                (round(s["score_before_training"], 2), round(s["score"], 2))
                for s in _seed_0(turns=2)["partners"]["held_out"]
                if s["name"] == "Terse helper"
            ]
            == [(-0.8, 4.68)]
        ),
    ),
    Claim(
        "in 198 of seeds 0 to 199 the ego scores below what it scored before training (somewhere "
        "between 96% and 100% of all seeds), while the best reply, solving it alone, earns 2.75",
        lambda: (
            "96% and 100%" in rate(198)
            and _below("Noisy helper", rows()) == 198
            and all(
                s["Noisy helper"]["best_response"] == pytest.approx(2.75) for s in partners(rows())
            )
            and [
                s["best_reply"]
                for s in _seed_0()["partners"]["held_out"]
                if s["name"] == "Noisy helper"
            ]
            == ["alone"]
        ),
    ),
    Claim(
        "in 198 of seeds 0 to 199 the ego scores below what it scored before training (somewhere "
        "between 96% and 100% of all seeds), far from the best possible 7",
        lambda: (
            _below("Helper with another convention", rows()) == 198
            and all(
                s["Helper with another convention"]["best_response"] == 7 for s in partners(rows())
            )
        ),
    ),
    Claim(
        "In the rare seed where the ego never learns to trust the committed helper (2 of seeds 0 "
        "to 199; somewhere between 0% and 4% of all seeds), it is not fooled either.",
        lambda: (
            all(
                s["Noisy helper"]["score"] >= s["Noisy helper"]["score_before_training"]
                for s in partners(rows())
                if s["Committed helper"]["score"] < 1
            )
            and sum(s["Committed helper"]["score"] < 1 for s in partners(rows())) == 2
        ),
    ),
    Claim(
        "In seed 0, after 200 updates the most likely joint response is `stub` + `alone`; after "
        "1000 it is `filter` + `alone` and, by the lab's measure, no longer moving; after 5000 it "
        "is still `filter` + `alone`.",
        lambda: (
            _seed_0()["settled_on"]["learned"]["name"] == "stub + alone"
            and (r := _seed_0(updates=1000))["settled_on"]["learned"]["name"] == "filter + alone"
            and not r["movement"]["still_moving"]["learned"]
            and _seed_0(updates=5000)["settled_on"]["learned"]["name"] == "filter + alone"
        ),
    ),
    Claim(
        "Meanwhile the main agent's probability of `combine` falls, from 0.00106 after 200 "
        "updates to 0.000049 after 5000: within the lab's limit of 5,000 updates seed 0 is not "
        "getting closer to `filter` + `combine`.",
        lambda: (
            round(_combine(200), 5) == 0.00106
            and round(_combine(5000), 6) == 0.000049
            and _combine(200) > _combine(1000) > _combine(5000)
            and param_spec()["updates"]["max"] == 5000
        ),
    ),
    Claim(
        "With AdamW, over seeds 0 to 199, `mean` ends most likely on `filter` + `alone` in 105 of "
        "200 (somewhere between 46% and 59% of all seeds), where plain steps do in 70, and "
        "`normalized` on `filter` + `alone` or `filter` + `combine` in 198 of 200 (somewhere "
        "between 96% and 100%).",
        lambda: (
            _on({"filter + alone"}, rows(**ADAMW)) == 105
            and "46% and 59%" in rate(105)
            and _on({"filter + alone"}, rows()) == 70
            and _on(CLIMBED, rows(**ADAMW_NORMALIZED)) == 198
            and "96% and 100%" in rate(198)
            # What the counts are read as ("narrows the difference without closing it"),
            # on seeds 200-999 too.
            and _gap(advantage="normalized") > _gap(**ADAMW_NORMALIZED) > 0
        ),
    ),
    Claim(
        "With a baseline whose advantages sum to zero over a group (`mean`, `normalized`, "
        "`leave_one_out`) the on-policy gradient is the default one divided by *T*, so it is the "
        "default with the learning rate divided by *T*: in seeds 0 to 19 at *T* = 3 their "
        "sampled learners' curves are the same, update for update.",
        lambda: all(
            _same_sampled_curves(range(20), 3, advantage)
            for advantage in ("mean", "normalized", "leave_one_out")
        ),
    ),
    Claim(
        "seed 0 reaches `filter` + `combine` (7) within 2000 updates",
        lambda: (
            _seed_0(advantage="normalized", updates=2000)["settled_on"]["learned"]["name"]
            == "filter + combine"
        ),
    ),
]


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.quote[:48] for c in CLAIMS])
def test_the_page_makes_this_claim_and_the_seeds_bear_it_out(claim: Claim) -> None:
    assert simulation_pages_say(claim.quote), f"the page no longer says this: {claim.quote}"
    assert claim.check(), f"the seeds no longer bear this out: {claim.quote}"


#: What marks a sentence as a claim about learning over seeds: a count of them, a rate, or
#: a property of every seed.
_ABOUT_SEEDS = re.compile(
    r"seeds \d+ to \d+|of all seeds|in every seed|every one of (?:seeds|them)"
)
_SENTENCE = re.compile(r"(?<=[.:;!?])\s+(?=[A-Z*`])")


def _claim_sentences() -> list[str]:
    """Every sentence of the simulation pages' prose and explanations that claims something
    over seeds (an option's text, a prediction, is no claim)."""
    found = []
    for page in SIMULATION_PAGES:
        text = page.read_text(encoding="utf-8")
        text = re.sub(r"^  - text: .*$", "", text, flags=re.MULTILINE)
        prose = re.sub(r"\s+", " ", text)
        found += [s for s in _SENTENCE.split(prose) if _ABOUT_SEEDS.search(s)]
    return found


def test_every_sentence_about_learning_over_seeds_is_in_the_registry() -> None:
    """A claim sentence with no check fails here; a check whose sentence is gone fails above."""
    unlisted = [
        sentence
        for sentence in _claim_sentences()
        if not any(re.sub(r"\s+", " ", c.quote) in sentence for c in CLAIMS)
    ]
    assert not unlisted, f"claims with no check in {__name__}: {unlisted}"
