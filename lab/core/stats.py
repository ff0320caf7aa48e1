"""Results over seeds with their uncertainty: the 95% Wilson score interval of a
count and its words, and the spread of learning curves (quartiles, a band).

A count of seeds is a sample: 10 of 20 seeds says the rate over *all* seeds is
somewhere around a half, not that it is a half. Wilson's interval (Wilson,
1927) stays inside [0, 1] and behaves at 0 and n, where the normal
approximation does not; it is what every count on the pages comes with.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

__all__ = [
    "BAND_POINTS",
    "Z_95",
    "band",
    "band_updates",
    "describe_count",
    "quartiles",
    "wilson_interval",
]

#: The standard normal quantile for a two-sided 95% interval.
Z_95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` of ``trials``, as fractions ``(low, high)``."""
    if trials <= 0:
        raise ValueError("a count needs at least one trial")
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes of {trials} trials")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # At 0 and n the exact bound is 0 or 1; rounding must not leave it a hair off.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def describe_count(successes: int, trials: int, unit: str = "seeds", *, aside: bool = False) -> str:
    """``"10 of 20 seeds; somewhere between 30% and 70% of all seeds"``: a count in words.

    With ``aside`` the interval is in brackets, for a count inside a longer sentence:
    ``"10 of 20 seeds (somewhere between 30% and 70% of all seeds)"``.
    """
    low, high = wilson_interval(successes, trials)
    interval = f"somewhere between {low:.0%} and {high:.0%} of all {unit}"
    if aside:
        return f"{successes} of {trials} {unit} ({interval})"
    return f"{successes} of {trials} {unit}; {interval}"


def describe_exact_count(successes: int, trials: int, unit: str = "seeds") -> str:
    """``"20 of 20 seeds (exact: one result, repeated)"``: a count of an exact method's seeds.

    An exact method samples nothing, so every seed gives it the same result: its count is
    no sample, and an interval around it would claim an uncertainty it does not have."""
    return f"{successes} of {trials} {unit} (exact: one result, repeated)"


def quartiles(values: Sequence[float]) -> dict[str, float]:
    """The spread of ``values``: min, q1, median, q3, max (inclusive quartiles)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        q1 = median = q3 = ordered[0]
    else:
        q1, median, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return {"min": ordered[0], "q1": q1, "median": median, "q3": q3, "max": ordered[-1]}


#: A band of learning curves across seeds has at most this many points.
BAND_POINTS = 100


def band_updates(length: int, points: int = BAND_POINTS) -> list[int]:
    """The updates (1-based) a band of curves ``length`` long is drawn at: every k-th, the last."""
    every = max(1, math.ceil(length / points))
    updates = list(range(every, length + 1, every))
    if updates[-1] != length:
        updates.append(length)
    return updates


def band(curves: Sequence[Sequence[float]], updates: Sequence[int]) -> dict[str, Any]:
    """Learning curves across seeds at ``updates`` (1-based): their median and quartiles."""
    q1, median, q3 = [], [], []
    for u in updates:
        spread = quartiles([c[u - 1] for c in curves])
        q1.append(spread["q1"])
        median.append(spread["median"])
        q3.append(spread["q3"])
    return {"q1": q1, "median": median, "q3": q3}
