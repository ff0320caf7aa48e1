"""Every claim the simulation page makes about the model, checked against the model.

Each entry quotes the page (``docs/simulation.md``) and says how the claim is
checked, over seeds 0-19 where it is about learning. A claim edited on the page
without its check here fails (the quote is no longer found), and a model change
that makes a claim false fails its check.
"""

# ruff: noqa: RUF001 (the quotes keep the page's typography: multiplication and minus signs)
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from lab import prompted_prior, run_experiment
from lab.sim.task import CLIMBING, DEFAULT_HELD_OUT_PARTNERS, Observation, Partner, penalty_table
from lesson_hooks.support.paths import ROOT

PAGE = ROOT / "docs" / "simulation.md"
SEEDS = 20  # seeds 0-19


@cache
def runs(**params: Any) -> dict[str, Any]:
    """One run over seeds 0-19 with ``params`` (cached: several claims read the same run)."""
    return run_experiment({"seeds": SEEDS, "seed": 0, **params})


def rows(**params: Any) -> list[dict[str, Any]]:
    return runs(**params)["seeds"]["rows"]


def reached(method: str, **params: Any) -> int:
    return runs(**params)["seeds"]["methods"][method]["reached_optimum"]


def settled(method: str, **params: Any) -> list[str]:
    """Where ``method`` most likely plays in the last turn, per seed."""
    return [r["settled_on"][method][-1] for r in rows(**params)]


def helper_view(table: Any) -> list[float]:
    """What each helper response earns against the main agent's prompted prior."""
    main = prompted_prior(Observation("main"))
    return [math.fsum(main[j] * table[i][j] for j in range(3)) for i in range(3)]


def partners(**params: Any) -> list[dict[str, dict[str, Any]]]:
    """Each seed's partner scores, by partner name."""
    out = []
    for seed in range(SEEDS):
        p = run_experiment({**params, "seed": seed})["partners"]
        out.append({s["name"]: s for s in p["training"] + p["held_out"]})
    return out


_partners = cache(partners)


def _noisy() -> Partner:
    return next(p for p in DEFAULT_HELD_OUT_PARTNERS if p.name == "Noisy helper")


@dataclass(frozen=True)
class Claim:
    quote: str
    check: Callable[[], bool]


CLAIMS = [
    Claim(
        "`core` earns 0.2 × 11 + 0.1 × (−30) = −0.8, `filter` earns −1.1, and `stub` earns 3.5",
        lambda: [round(v, 2) for v in helper_view(CLIMBING)] == [-0.8, -1.1, 3.5],
    ),
    Claim(
        "learned collaboration never reaches 11 in seeds 0 to 19",
        lambda: reached("learned") == 0,
    ),
    Claim(
        "it ends on `stub` + `alone` (5) or `filter` + `alone` (6) in every one of them",
        lambda: set(settled("learned")) <= {"stub + alone", "filter + alone"},
    ),
    Claim(
        "goes there, in every seed, with one turn or two",
        lambda: reached("centralized") == SEEDS and reached("centralized", turns=2) == SEEDS,
    ),
    Claim(
        "`core` earns 0.2 × 10 + 0.1 × (−100) = −8, `filter` −19, `stub` 1.4",
        lambda: [round(v, 2) for v in helper_view(penalty_table(-100))] == [-8, -19, 1.4],
    ),
    Claim(
        "settle on `stub` + `alone`, reward 2, in every one of seeds 0 to 19",
        lambda: settled("learned", table="penalty", penalty_k=-100) == ["stub + alone"] * SEEDS,
    ),
    Claim(
        "while centralized control reaches 10 in all of them",
        lambda: reached("centralized", table="penalty", penalty_k=-100) == SEEDS,
    ),
    Claim(
        "`core` earns 2 against `stub`'s 1.4 from the start",
        lambda: [round(v, 2) for v in helper_view(penalty_table(0))] == [2, 1, 1.4],
    ),
    Claim(
        "learned collaboration finds 10 in 19 of the 20 seeds",
        lambda: reached("learned", table="penalty", penalty_k=0) == 19,
    ),
    Claim(
        "with groups of 2, only 10 of the 20 seeds find 10; with the default 32, 19 do",
        lambda: (
            reached("learned", table="penalty", penalty_k=0, group_size=2) == 10
            and reached("learned", table="penalty", penalty_k=0) == 19
        ),
    ),
    Claim(
        "In every one of seeds 0 to 19 it then scores within 2% of the best possible with both",
        lambda: all(
            s[name]["score"] >= s[name]["best_response"] * 0.98
            for s in _partners()
            for name in ("Committed helper", "Cautious helper")
        ),
    ),
    Claim(
        "it scores at least 8.5 of the best possible 11 in every one of seeds 0 to 19",
        lambda: all(
            s["Rephrasing helper"]["best_response"] == 11
            and s["Rephrasing helper"]["score"] >= 8.5
            and s["Rephrasing helper"]["score"] > s["Rephrasing helper"]["score_before_training"]
            for s in _partners()
        ),
    ),
    Claim(
        "With one turn the ego reads nothing it learned from, and scores exactly what it scored "
        "before training; with two, the verifier's feedback on the first program is text it did "
        "learn from, and its score moves.",
        lambda: (
            all(
                s["Terse helper"]["score"]
                == pytest.approx(s["Terse helper"]["score_before_training"])
                for s in _partners()
            )
            and all(
                s["Terse helper"]["score"]
                != pytest.approx(s["Terse helper"]["score_before_training"])
                for s in _partners(turns=2)
            )
        ),
    ),
    Claim(
        "sits next to a −30, where it meets the other agent's *other* commitment",
        lambda: (
            CLIMBING[0][1] == CLIMBING[1][0] == -30 and CLIMBING[0][0] == max(map(max, CLIMBING))
        ),
    ),
    Claim(
        "a quarter of the time `aux` only filters, and delegating to a filter scores −30 (a "
        "quarter of the time `aux` is a stub, which scores 0)",
        lambda: (
            _noisy().probabilities == (0.5, 0.25, 0.25)
            and CLIMBING[1][0] == -30
            and CLIMBING[2][0] == 0
            # ... which is where the noisy helper's expected score of a delegating ego comes from.
            and math.fsum(p * CLIMBING[i][0] for i, p in enumerate(_noisy().probabilities)) == -2
        ),
    ),
    Claim(
        "A commitment beside a safe response, `core` + `alone` or `stub` + `delegate`, scores 0.",
        lambda: CLIMBING[0][2] == CLIMBING[2][0] == 0,
    ),
    Claim(
        "the ego scores below what it scored before training, while the best reply, "
        "solving it alone, earns 2.75",
        lambda: all(
            s["Noisy helper"]["score"] < s["Noisy helper"]["score_before_training"]
            and s["Noisy helper"]["best_reply"] == "alone"
            and s["Noisy helper"]["best_response"] == pytest.approx(2.75)
            for s in _partners()
        ),
    ),
    Claim(
        "the ego scores below what it scored before training, far from the best possible 7",
        lambda: all(
            s["Helper with another convention"]["score"]
            < s["Helper with another convention"]["score_before_training"]
            and s["Helper with another convention"]["best_response"] == 7
            for s in _partners()
        ),
    ),
    Claim(
        "each agent gives its safe response 70% of the time",
        lambda: (
            prompted_prior(Observation("helper"))[2] == 0.7
            and prompted_prior(Observation("main"))[2] == 0.7
        ),
    ),
]


def _page_text() -> str:
    return re.sub(r"\s+", " ", PAGE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.quote[:48] for c in CLAIMS])
def test_the_page_makes_this_claim_and_the_model_bears_it_out(claim: Claim) -> None:
    assert re.sub(r"\s+", " ", claim.quote) in _page_text(), "the page no longer says this"
    assert claim.check(), f"the model no longer bears this out: {claim.quote}"
