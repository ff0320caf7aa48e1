"""lab.core.stats: the interval every count of seeds comes with."""

from __future__ import annotations

import pytest

from lab.core.stats import describe_count, wilson_interval


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Reference values of the 95% Wilson score interval.
        (10, 20, 0.2993, 0.7007),
        (0, 20, 0.0, 0.1611),
        (20, 20, 0.8389, 1.0),
        (15, 20, 0.5313, 0.8881),
        (1, 10, 0.0179, 0.4042),
    ],
)
def test_wilson_interval_matches_reference_values(k: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_the_interval_is_exact_at_the_ends_and_holds_the_rate() -> None:
    for n in (1, 7, 20, 200):
        for k in range(n + 1):
            low, high = wilson_interval(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0


def test_a_count_in_words() -> None:
    assert describe_count(10, 20) == "10 of 20 seeds; somewhere between 30% and 70% of all seeds"


@pytest.mark.parametrize(("k", "n"), [(1, 0), (-1, 5), (6, 5)])
def test_impossible_counts_are_refused(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n)
