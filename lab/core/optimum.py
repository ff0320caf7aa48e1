"""What "reached the optimum" means, in both labs: expected reward within 2% of the best.

A seed reached the optimum when the *expected* reward of its trained policies
(every joint response weighted by how likely they now are, computed exactly)
is within :data:`OPTIMUM_TOLERANCE` of the best reward any joint response
earns. Not "the most likely joint response is optimal": a policy that writes
the best program 51% of the time and a disaster the rest has a most likely
response that is optimal and an expected reward far from it.
"""

from __future__ import annotations

__all__ = ["OPTIMUM_TOLERANCE", "reaches_optimum"]

#: A method reached the optimum when its expected reward is this close to it (2%).
OPTIMUM_TOLERANCE = 0.02


def reaches_optimum(expected: float, optimum: float) -> bool:
    """Within :data:`OPTIMUM_TOLERANCE` of the optimum: what "found the best" means."""
    return expected >= optimum - OPTIMUM_TOLERANCE * abs(optimum) - 1e-9
