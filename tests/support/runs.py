"""Runs that more than one layer checks: the CLI (tests/unit/lab/test_main.py) and the page."""

from __future__ import annotations

from typing import Any

#: Per lab kind, the page's run call and its settings. The simulation's is the
#: teacher's example: the penalty game at k = -100, over several seeds.
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "simulation": ("run_simulation", {"table": "penalty", "penalty_k": -100, "seeds": 3}),
    "language-models": ("run_language_models", {"updates": 20, "seed": 3}),
}


def run_guided_experiment(spec: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """Run a guided experiment's lab at its settings (``changes`` override some, e.g. the seed)."""
    from lab.kinds import RUNNERS

    return RUNNERS[spec["lab"]].run({**spec["params"], **changes})
