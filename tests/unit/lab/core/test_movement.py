"""The one "still moving" criterion both labs measure and word (lab.core.movement)."""

from __future__ import annotations

import pytest

from lab import run_experiment
from lab.core.movement import (
    MOVING_THRESHOLD,
    MOVING_WINDOW,
    checkpoint,
    describe_movement,
    is_moving,
    total_variation,
)
from lab.lm.model import run_language_models


def test_the_window_is_the_last_tenth_of_the_updates_and_at_least_one() -> None:
    assert (MOVING_WINDOW, MOVING_THRESHOLD) == (0.1, 0.01)
    assert [checkpoint(n) for n in (1, 5, 10, 200, 1000)] == [0, 4, 9, 180, 900]


def test_total_variation_is_half_the_summed_change_with_missing_outcomes_at_zero() -> None:
    assert total_variation({"a": 0.5, "b": 0.5}, {"a": 0.5, "b": 0.5}) == 0.0
    assert total_variation({"a": 1.0}, {"b": 1.0}) == 1.0
    assert total_variation({"a": 0.7, "b": 0.3}, {"a": 0.6, "c": 0.4}) == pytest.approx(0.4)


def test_the_words_say_after_how_many_updates_and_by_how_much() -> None:
    assert is_moving(0.0101) and not is_moving(0.01)
    assert describe_movement(0.034, 180, 200) == (
        "after 200 updates, still moving (its play changed by 0.03 over the last 20)"
    )
    assert describe_movement(0.004, 900, 1000, "the pair") == (
        "after 1000 updates, the pair is no longer moving "
        "(its play changed by less than 0.01 over the last 100)"
    )


@pytest.mark.parametrize(
    "run",
    [
        lambda: run_experiment({"updates": 20}),
        lambda: run_language_models({"updates": 20, "compare_communication": True}),
    ],
    ids=["simulation", "language models"],
)
def test_both_labs_report_their_movement_in_one_form(run) -> None:
    movement = run()["movement"]
    assert (movement["from_update"], movement["to_update"]) == (checkpoint(20), 20)
    assert movement["threshold"] == MOVING_THRESHOLD
    for method, change in movement["change"].items():
        assert 0.0 <= change <= 1.0
        assert movement["still_moving"][method] == is_moving(change)
