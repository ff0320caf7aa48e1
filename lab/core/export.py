"""What a run-style lab's run offers to take away: its results as files, and how to reproduce it.

:func:`exports` is called by the run calls when the page asks for its parts
(``render``), so the files are made by the same Python that made the result,
and the page only turns each into a download link. Every file's name says
what it holds: the lab, a digest of the settings (the first 8 hex digits of
the SHA-256 of their link query, :func:`lab.core.links.settings_query`, so equal
settings give equal names), and the date.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import shlex
from collections.abc import Mapping
from typing import Any

from lab.core.links import settings_query
from lab.core.runner import Runner

__all__ = ["exports", "file_stem", "result_json"]

#: Keys of a result that are the page's rendering of it, not data.
PAGE_ONLY = ("html", "exports")


def file_stem(runner: Runner, params: Mapping[str, Any], day: datetime.date | None = None) -> str:
    """``<kind>-<settings digest>-<YYYY-MM-DD>``."""
    query = settings_query(runner.spec(), params)
    digest = hashlib.sha256(query.encode()).hexdigest()[:8]
    return f"{runner.kind}-{digest}-{(day or datetime.date.today()).isoformat()}"


def result_json(result: Mapping[str, Any]) -> str:
    """The result as ``python -m lab run`` prints it (the page's parts left out)."""
    data = {key: value for key, value in result.items() if key not in PAGE_ONLY}
    return json.dumps(data, allow_nan=False)


def exports(runner: Runner, result: Mapping[str, Any]) -> dict[str, Any]:
    """The run's files and the command that reproduces it, for the page.

    ``{"stem", "files": [{"label", "name", "type", "text"}], "settings", "command"}``:
    the files in the order the page offers them (the JSON, then one row per
    seed and method, then the learning curve, then the charts Python draws),
    the settings file to save, and
    the command that prints the same result from it.
    """
    stem = file_stem(runner, result["params"])
    settings_name = f"{stem}-settings.json"
    files = [
        ("Download results (JSON)", f"{stem}.json", "application/json", result_json(result)),
        ("Download results (CSV)", f"{stem}.csv", "text/csv", runner.rows(result)),
        (
            "Download the learning curve (CSV)",
            f"{stem}-curve.csv",
            "text/csv",
            runner.curve(result),
        ),
    ]
    for figure in runner.figures:
        picture = figure.draw(result)
        if picture is not None:
            files.append((figure.label, f"{stem}-{figure.suffix}", "image/svg+xml", picture))
    settings = json.dumps(result["params"], allow_nan=False)
    return {
        "stem": stem,
        "files": [
            {"label": label, "name": name, "type": kind_, "text": text}
            for label, name, kind_, text in files
        ],
        "settings": {"name": settings_name, "text": settings},
        "command": f"python3 -m lab run {runner.kind} {shlex.quote(settings_name)}",
    }
