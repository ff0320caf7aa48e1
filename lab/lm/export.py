"""The language-model lab's results as files (offered by :func:`lab.core.export.exports`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lab.core.tables import csv_text

__all__ = ["curve_csv", "rows_csv"]


def rows_csv(result: Mapping[str, Any]) -> str:
    """One row per seed and method: the convention its most likely program follows."""
    seeds = result.get("seeds")
    expected = result["expected_reward"]
    if not seeds:
        rows = [
            [result["params"]["seed"], method, value, ""]
            for method, value in expected.items()
            if value is not None
        ]
    else:
        rows = [
            [run["seed"], method, "", outcome]
            for run in seeds["runs"]
            for method, outcome in run.items()
            if method != "seed"
        ]
    return csv_text(["seed", "method", "expected_reward", "outcome"], rows)


def curve_csv(result: Mapping[str, Any]) -> str:
    """Each update's mean group reward."""
    return csv_text(
        ["update", "mean_reward"], [[i + 1, reward] for i, reward in enumerate(result["curve"])]
    )
