"""What a run-style lab's run offers to take away: its results as files, and how to reproduce it.

:func:`exports` is called by the run calls when the page asks for its parts
(``render``), so the files are made by the same Python that made the result,
and the page only turns each into a download link. Every file's name says
what it holds: the lab, a digest of the settings (the first 8 hex digits of
the SHA-256 of their link query, :func:`lab.share.settings_query`, so equal
settings give equal names), and the date.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import json
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from lab.kinds import RUNNERS
from lab.share import settings_query
from lab.sim.figures import heatmaps_svg, seeds_svg

__all__ = ["exports", "file_stem", "result_json"]

#: Keys of a result that are the page's rendering of it, not data.
PAGE_ONLY = ("html", "exports")


def file_stem(kind: str, params: Mapping[str, Any], day: datetime.date | None = None) -> str:
    """``<kind>-<settings digest>-<YYYY-MM-DD>``."""
    query = settings_query(RUNNERS[kind].spec(), params)
    digest = hashlib.sha256(query.encode()).hexdigest()[:8]
    return f"{kind}-{digest}-{(day or datetime.date.today()).isoformat()}"


def result_json(result: Mapping[str, Any]) -> str:
    """The result as ``python -m lab run`` prints it (the page's parts left out)."""
    data = {key: value for key, value in result.items() if key not in PAGE_ONLY}
    return json.dumps(data, allow_nan=False)


def _cell(value: Any) -> Any:
    # JSON's words for truth values, as the JSON download has them.
    return ("true" if value else "false") if isinstance(value, bool) else value


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return out.getvalue()


def _turns(settled: Any) -> str:
    return " then ".join(settled) if isinstance(settled, list) else str(settled)


def _simulation_rows(result: Mapping[str, Any]) -> str:
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
    return _csv(header, rows)


def _simulation_curve(result: Mapping[str, Any]) -> str:
    """The first seed's learning curve: each update's mean group reward, by method."""
    methods = list(result["mean_reward"])
    length = max((len(result["mean_reward"][m]) for m in methods), default=0)
    rows = [
        [update + 1, *(_at(result["mean_reward"][m], update) for m in methods)]
        for update in range(length)
    ]
    return _csv(["update", *methods], rows)


def _at(values: list[Any], index: int) -> Any:
    return values[index] if index < len(values) else ""


def _lm_rows(result: Mapping[str, Any]) -> str:
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
    return _csv(["seed", "method", "expected_reward", "outcome"], rows)


def _lm_curve(result: Mapping[str, Any]) -> str:
    return _csv(
        ["update", "mean_reward"], [[i + 1, reward] for i, reward in enumerate(result["curve"])]
    )


_TABLES = {
    "simulation": (_simulation_rows, _simulation_curve),
    "language-models": (_lm_rows, _lm_curve),
}

#: The charts Python draws as files (label, name suffix, drawing), by lab; a drawing
#: that has nothing to draw (one seed: no strip) offers no file. The page adds the
#: curves it draws itself.
_FIGURES: dict[str, tuple[tuple[str, str, Callable[[Mapping[str, Any]], str | None]], ...]] = {
    "simulation": (
        ("Download the heatmaps (SVG)", "heatmaps.svg", heatmaps_svg),
        ("Download the across-seeds strip (SVG)", "seeds.svg", seeds_svg),
    ),
    "language-models": (),
}


def exports(kind: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """The run's files and the command that reproduces it, for the page.

    ``{"stem", "files": [{"label", "name", "type", "text"}], "settings", "command"}``:
    the files in the order the page offers them (the JSON, then one row per
    seed and method, then the learning curve, then the charts Python draws),
    the settings file to save, and
    the command that prints the same result from it.
    """
    stem = file_stem(kind, result["params"])
    rows, curve = _TABLES[kind]
    settings_name = f"{stem}-settings.json"
    files = [
        ("Download results (JSON)", f"{stem}.json", "application/json", result_json(result)),
        ("Download results (CSV)", f"{stem}.csv", "text/csv", rows(result)),
        ("Download the learning curve (CSV)", f"{stem}-curve.csv", "text/csv", curve(result)),
    ]
    for label, suffix, drawing in _FIGURES[kind]:
        picture = drawing(result)
        if picture is not None:
            files.append((label, f"{stem}-{suffix}", "image/svg+xml", picture))
    settings = json.dumps(result["params"], allow_nan=False)
    return {
        "stem": stem,
        "files": [
            {"label": label, "name": name, "type": kind_, "text": text}
            for label, name, kind_, text in files
        ],
        "settings": {"name": settings_name, "text": settings},
        "command": f"python3 -m lab run {kind} {shlex.quote(settings_name)}",
    }
