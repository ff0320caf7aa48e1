"""The calls the browser may make into ``lab``, by name, JSON in and JSON out.

The worker calls :func:`dispatch`; CPython tests call it too, so both runtimes
exercise the same path. Replies are ``{"result": ...}`` or ``{"error": ...}``.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from typing import Any

from lab.errors import LabError
from lab.lm_rpc import LM_CALLS
from lab.mapping import check_mapping
from lab.quiz import check_quiz
from lab.render import render_output, render_results
from lab.sim import run_experiment
from lab.sim_params import ParamError, validate_params
from lab.tasks import task_outcome
from lab.user_code import last_output, run_with_code

Progress = Callable[[dict[str, Any]], None]
Call = Callable[[dict[str, Any], Progress], Any]


def _ping(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return {"pong": args.get("value")}


def _check_mapping(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return check_mapping(args["spec"], args["placements"])


def _refused_cells(data: Any) -> list[list[int]]:
    """The custom table's cells the validator refuses, each checked on its own."""
    table = data.get("custom_table") if isinstance(data, dict) else None
    if not isinstance(table, list) or any(not isinstance(row, list) for row in table):
        return []
    refused = []
    for r, row in enumerate(table):
        for c, cell in enumerate(row):
            probe: list[list[Any]] = [[0] * len(row) for row in table]
            probe[r][c] = cell
            try:
                validate_params({"table": "custom", "custom_table": probe})
            except ParamError as err:
                if "custom_table" in err.fields:
                    refused.append([r, c])
    return refused


def _check_params(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"params"}`` as the form holds them: Python's verdict, before anything runs.

    ``{"params", "best"}`` (the checked values and the reward table's best cell)
    or ``{"errors": {field: reason}, "cells": [[row, column], ...]}``, the
    custom table's refused cells.
    """
    data = args.get("params")
    try:
        params = validate_params(data)
    except ParamError as err:
        return {"errors": err.fields, "cells": _refused_cells(data)}
    return {"params": params.to_json(), "best": max(max(row) for row in params.reward_table)}


def _check_quiz(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return check_quiz(args["spec"], args["answers"])


def _run_simulation(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"params"}``, and optionally ``{"code"}``: the reader's verifier and prior.

    With code, progress also reports ``{"in_user_code": true}`` and ``false``
    around every stretch Python spends in the reader's code (the page's time limit).
    With ``{"render": "lab-<id>"}`` the result also carries its parts as the page
    shows them, ``"html"`` (:func:`lab.render.render_results`; ids start with that prefix).
    """

    def report(update: int, partial: dict[str, Any]) -> None:
        progress(partial)

    def watch(inside: bool) -> None:
        progress({"in_user_code": inside})

    code = args.get("code")
    if code is None:
        result = run_experiment(args.get("params"), report)
    else:
        result = run_with_code(args.get("params"), code, report, watch=watch)
    prefix = args.get("render")
    if isinstance(prefix, str):
        result["html"] = render_results(result, prefix)
    return result


def _task_outcome(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"task", "choice", "result"}``: the reader's prediction against their run (lab.tasks)."""
    return task_outcome(args["task"], args["choice"], args["result"])


def _code_output(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """What the reader's code printed in its latest run (one that failed too), as HTML."""
    return {"html": render_output(last_output())}


CALLS: dict[str, Call] = {
    "ping": _ping,
    "check_mapping": _check_mapping,
    "check_quiz": _check_quiz,
    "run_simulation": _run_simulation,
    "check_params": _check_params,
    "code_output": _code_output,
    "task_outcome": _task_outcome,
    **LM_CALLS,
}


def _ignore_progress(data: dict[str, Any]) -> None:
    pass


def dispatch(name: str, args_json: str, progress: Progress | None = None) -> str:
    """Run ``CALLS[name]`` on the decoded arguments and encode its reply."""
    try:
        call = CALLS.get(name)
        if call is None:
            raise LabError(f"Unknown lab call {name!r}.")
        result = call(json.loads(args_json), progress or _ignore_progress)
        return json.dumps({"result": result}, allow_nan=False)
    except LabError as err:
        return json.dumps({"error": err.to_json()})
    except Exception as err:
        return json.dumps(
            {
                "error": {
                    "kind": type(err).__name__,
                    "message": str(err) or type(err).__name__,
                    "traceback": traceback.format_exc(),
                }
            }
        )
