"""The one advantage function (lab.core.advantages), the same for both labs."""

from __future__ import annotations

import math

import pytest

import lab
from lab.core.advantages import BASELINES, group_advantages
from lab.lm.params import LM_PARAM_SPEC
from lab.sim.params import PARAM_SPEC

RETURNS = [11.0, -30.0, 7.0, 5.0]


def test_the_default_is_magrpos_group_mean_baseline() -> None:
    mean = (11 - 30 + 7 + 5) / 4
    assert group_advantages(RETURNS) == pytest.approx([r - mean for r in RETURNS])
    assert group_advantages(RETURNS) == group_advantages(RETURNS, "mean")
    assert group_advantages([5.0, 5.0, 5.0]) == [0.0, 0.0, 0.0]


def test_the_other_baselines() -> None:
    mean = math.fsum(RETURNS) / 4
    std = math.sqrt(math.fsum((r - mean) ** 2 for r in RETURNS) / 4)
    assert group_advantages(RETURNS, "normalized") == pytest.approx(
        [(r - mean) / std for r in RETURNS]
    )
    loo = group_advantages(RETURNS, "leave_one_out")
    for i, r in enumerate(RETURNS):
        others = RETURNS[:i] + RETURNS[i + 1 :]
        assert loo[i] == pytest.approx(r - sum(others) / 3)
    assert group_advantages(RETURNS, "max") == pytest.approx([r - 11 for r in RETURNS])
    rewards = [1.0, 0.6, 0.0, 0.6]  # the language-model lab's rewards
    normalized = group_advantages(rewards, "normalized")
    assert math.sqrt(sum(a * a for a in normalized) / 4) == pytest.approx(1)


def test_a_group_that_agrees_up_to_rounding_has_no_advantage_at_any_scale() -> None:
    assert group_advantages([0.1] * 7, "normalized") == [0.0] * 7
    assert group_advantages([0.6] * 4, "normalized") == [0.0] * 4
    # One threshold, relative to the rewards' size: rounding at 1000 is not a difference.
    assert group_advantages([1000.0, 1000.0 + 1e-7], "normalized") == [0.0, 0.0]
    assert group_advantages([1.0, 1.0 + 1e-6], "normalized") == pytest.approx([-1.0, 1.0])


def test_an_unknown_baseline_is_refused_in_both_labs() -> None:
    with pytest.raises(ValueError, match="Unknown baseline 'median'; expected one of mean, "):
        group_advantages(RETURNS, "median")


def test_both_labs_offer_exactly_its_baselines() -> None:
    assert PARAM_SPEC["advantage"]["choices"] == list(BASELINES)
    assert LM_PARAM_SPEC["baseline"]["choices"] == list(BASELINES)
    assert lab.group_advantages is group_advantages
