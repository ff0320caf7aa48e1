"""The language-model lab's calls, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`).

``run_language_models``: ``{"params", "render"?}``; ``step_language_models``:
``{"params", "update", "render"?}``. With ``render`` (the lab's id prefix,
``lab-<id>``) the result also carries ``html``: its parts as the page shows them, and
``exports``, its downloads (:func:`lab.core.export.exports`).
"""

from __future__ import annotations

from typing import Any

from lab.core.export import exports
from lab.core.params import ParamError
from lab.core.rpc import Call, Progress
from lab.lm.model import run_language_models, step_language_models
from lab.lm.render import render_models, render_seeds, render_step
from lab.lm.runner import RUNNER

__all__ = ["CALLS"]


def _prefix(args: dict[str, Any]) -> str | None:
    prefix = args.get("render")
    return prefix if isinstance(prefix, str) else None


def _run(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    result = run_language_models(args.get("params"), progress)
    prefix = _prefix(args)
    if prefix:
        result["exports"] = exports(RUNNER, result)
        models = {"before": result["before"], "after": result["after"]}
        result["html"] = {
            "models": render_models(models, prefix),
            "seeds": (
                render_seeds(result["seeds"], prefix, result["curve_band"])
                if result["seeds"]
                else ""
            ),
        }
    return result


def _step(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    update = args.get("update", 1)
    if isinstance(update, bool) or not isinstance(update, int) or update < 1:
        raise ParamError(
            {"update": f"The update to show must be a whole number from 1; got {update!r}."}
        )
    step = step_language_models(args.get("params"), update)
    prefix = _prefix(args)
    if prefix:
        step["html"] = render_step(step, prefix)
    return step


CALLS: dict[str, Call] = {
    "run_language_models": _run,
    "step_language_models": _step,
}
