"""The advantage both labs' MAGRPO updates use: each sampled return against its group.

The simulation credits a group of joint responses at one joint history
(:func:`lab.sim.experiment._grow`); the language-model lab a group of joint
programs from the same prompts (:func:`lab.lm.training.magrpo_update`). Both take
their baseline from a setting whose choices are :data:`BASELINES`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["BASELINES", "group_advantages"]

#: What each return can be compared with; the settings' choices, in the form's order.
BASELINES = ("mean", "normalized", "leave_one_out", "max", "raw")


# --8<-- [start:advantages]
def group_advantages(returns: Sequence[float], baseline: str = "mean") -> list[float]:
    """Each sampled return minus a baseline computed from its group (its siblings).

    - ``mean`` (MAGRPO, Liu et al. Eq. 1): R - mean(R).
    - ``normalized`` (GRPO's form): (R - mean(R)) / std(R); all zero when the group agrees.
    - ``leave_one_out`` (RLOO): R - the mean of the *other* returns in the group.
    - ``max``: R - max(R); the best response gets 0 and every other one less.
    - ``raw``: R itself, no baseline (REINFORCE; MAREINFORCE with a shared reward).
    """
    n = len(returns)
    mean = math.fsum(returns) / n
    if baseline == "mean":
        return [r - mean for r in returns]
    if baseline == "normalized":
        centred = [r - mean for r in returns]
        std = math.sqrt(math.fsum(c * c for c in centred) / n)
        # A spread this small is rounding, not a difference between responses.
        if std <= 1e-9 * (1.0 + abs(mean)):
            return [0.0] * n
        return [c / std for c in centred]
    if baseline == "leave_one_out":
        return [(r - mean) * n / (n - 1) for r in returns]
    if baseline == "max":
        best = max(returns)
        return [r - best for r in returns]
    if baseline == "raw":
        return [float(r) for r in returns]
    raise ValueError(f"Unknown baseline {baseline!r}; expected one of {', '.join(BASELINES)}.")
    # --8<-- [end:advantages]
