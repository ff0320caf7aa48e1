"""The simulation's results as files (offered by :func:`lab.core.export.exports`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lab.core.tables import Figure, csv_text
from lab.sim.figures import heatmaps_svg, seeds_svg

__all__ = ["FIGURES", "curve_csv", "rows_csv"]


def _at(values: list[Any], index: int) -> Any:
    """``values[index]``, or an empty cell past its end (a method that stopped early)."""
    return values[index] if index < len(values) else ""


def _turns(settled: Any) -> str:
    return " then ".join(settled) if isinstance(settled, list) else str(settled)


def rows_csv(result: Mapping[str, Any]) -> str:
    """One row per seed and method: its exact expected reward, optimum, play and movement."""
    rows = []
    for row in result["seeds"]["rows"]:
        for method in (m["id"] for m in result["methods"]):
            rows.append(
                [
                    row["seed"],
                    method,
                    row["expected_reward"][method],
                    row["reached_optimum"][method],
                    _turns(row["settled_on"][method]),
                    row["still_moving"][method],
                ]
            )
    header = ["seed", "method", "expected_reward", "reached_optimum", "settled_on", "still_moving"]
    return csv_text(header, rows)


def curve_csv(result: Mapping[str, Any]) -> str:
    """The first seed's learning curve: each update's mean group reward, by method."""
    methods = list(result["mean_reward"])
    length = max((len(result["mean_reward"][m]) for m in methods), default=0)
    rows = [
        [update + 1, *(_at(result["mean_reward"][m], update) for m in methods)]
        for update in range(length)
    ]
    return csv_text(["update", *methods], rows)


#: The charts Python draws as files; the page adds the curve it draws itself.
FIGURES = (
    Figure("Download the heatmaps (SVG)", "heatmaps.svg", heatmaps_svg),
    Figure("Download the across-seeds strip (SVG)", "seeds.svg", seeds_svg),
)
