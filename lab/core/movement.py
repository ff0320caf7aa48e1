"""Whether a run's policies were still changing when it ended: one criterion, both labs.

A method's *play* is the distribution of its joint responses (in the simulation, per turn; in
the language-model lab, over the joint programs). A run keeps it at :func:`checkpoint`, the
start of the last :data:`MOVING_WINDOW` of its updates, and compares it with the end: the
total-variation distance between the two (half the summed absolute differences of the
probabilities; the largest over the turns). Above :data:`MOVING_THRESHOLD` the method is
*still moving* and the summary says "after N updates, still moving".

Below it the summary says "no longer moving", which is a measurement over that window, not a
proof of convergence or of an equilibrium: softmax policy gradient barely moves a response whose
probability is near 0 (or near 1), so play can creep for thousands of updates at a rate this
window does not see.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

__all__ = [
    "MOVING_THRESHOLD",
    "MOVING_WINDOW",
    "checkpoint",
    "describe_movement",
    "is_moving",
    "total_variation",
]

#: The share of a run's updates, at its end, over which its play's change is measured.
MOVING_WINDOW = 0.1
#: Play that moved by more than this (total variation) over the window is still moving.
MOVING_THRESHOLD = 0.01


def checkpoint(updates: int) -> int:
    """The update after which the window starts: the last tenth, at least one update."""
    return updates - max(1, math.ceil(updates * MOVING_WINDOW))


def total_variation(p: Mapping[Hashable, float], q: Mapping[Hashable, float]) -> float:
    """Half the summed absolute difference of two distributions over the same outcomes.

    An outcome missing from one of them has probability 0 there.
    """
    return 0.5 * math.fsum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in p.keys() | q.keys())


def is_moving(change: float) -> bool:
    """Whether a change over the window means the play is still moving."""
    return change > MOVING_THRESHOLD


def describe_movement(
    change: float, from_update: int, to_update: int, subject: str | None = None
) -> str:
    """``"after 200 updates, still moving (its play changed by 0.03 over the last 20)"``;
    with a ``subject``, ``"after 200 updates, the pair is still moving (…)"``."""
    since = to_update - from_update
    if is_moving(change):
        state = f"still moving (its play changed by {change:.2f} over the last {since})"
    else:
        state = (
            f"no longer moving (its play changed by less than {MOVING_THRESHOLD:g} "
            f"over the last {since})"
        )
    return f"after {to_update} updates, {f'{subject} is ' if subject else ''}{state}"
