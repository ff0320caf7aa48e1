"""The simulation lab's calls, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`).

``run_simulation``: ``{"params", "code"?, "render"?}``; ``check_params``:
``{"params"}``; ``code_output``: ``{}``.

The settings are validated once per run, by the run itself: refused, it
raises a ``ParamError`` whose ``fields`` the page shows next to its fields
(with ``cells``, the custom table's refused cells); accepted, it reports them
before it trains. ``check_params`` is the same verdict without a run, for the
page to clear a refused field's reason as soon as its new value is right.
"""

from __future__ import annotations

from typing import Any

from lab.core.export import exports
from lab.core.rpc import Call, Progress
from lab.sim.experiment import run_experiment
from lab.sim.params import ParamError, SimParams, validate_params
from lab.sim.render import render_output, render_results
from lab.sim.runner import RUNNER
from lab.sim.user_code import last_output, run_with_code

__all__ = ["CALLS"]


class _Refused(ParamError):
    """A refusal as the page shows it: the fields' reasons and the table's refused cells."""

    def __init__(self, refused: ParamError, cells: list[list[int]]) -> None:
        super().__init__(refused.fields)
        self.cells = cells

    def to_json(self) -> dict[str, Any]:
        # Still a ParamError to the page, which only gains the cells to mark.
        reply = {**super().to_json(), "kind": ParamError.__name__}
        if self.cells:
            reply["cells"] = self.cells
        return reply


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


def _checked(data: Any) -> SimParams:
    """``data`` as the form holds it, validated; refused, a :class:`_Refused`."""
    try:
        return validate_params(data)
    except ParamError as err:
        cells = _refused_cells(data) if "custom_table" in err.fields else []
        raise _Refused(err, cells) from None


def _accepted(params: SimParams) -> dict[str, Any]:
    """The checked values and the reward table's best cell (the curve's reference line)."""
    return {"params": params.to_json(), "best": max(max(row) for row in params.reward_table)}


def _check_params(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"params"}`` as the form holds them: Python's verdict, and nothing run.

    ``{"params", "best"}`` (:func:`_accepted`) or ``{"errors": {field: reason},
    "cells": [[row, column], ...]}``, the custom table's refused cells.
    """
    try:
        params = _checked(args.get("params"))
    except _Refused as err:
        return {"errors": err.fields, "cells": err.cells}
    return _accepted(params)


def _run_simulation(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"params"}``, and optionally ``{"code"}``: the reader's verifier and prior.

    The first progress is ``{"params", "best"}`` (:func:`_accepted`), before any
    training; then :func:`lab.sim.experiment.run_experiment`'s. With code,
    progress also reports ``{"in_user_code": true}`` and ``false`` around every
    stretch Python spends in the reader's code (the page's time limit). With
    ``{"render": "lab-<id>"}`` the result also carries its parts as the page
    shows them, ``"html"`` (:func:`lab.sim.render.render_results`; ids start
    with that prefix), and its downloads, ``"exports"`` (:func:`lab.core.export.exports`).
    """

    def report(update: int, partial: dict[str, Any]) -> None:
        progress(partial)

    def watch(inside: bool) -> None:
        progress({"in_user_code": inside})

    params = _checked(args.get("params"))
    progress(_accepted(params))
    code = args.get("code")
    if code is None:
        result = run_experiment(params, report)
    else:
        result = run_with_code(params, code, report, watch=watch)
    prefix = args.get("render")
    if isinstance(prefix, str):
        result["exports"] = exports(RUNNER, result)
        result["html"] = render_results(result, prefix)
    return result


def _code_output(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """What the reader's code printed in its latest run (one that failed too), as HTML."""
    return {"html": render_output(last_output())}


CALLS: dict[str, Call] = {
    "run_simulation": _run_simulation,
    "check_params": _check_params,
    "code_output": _code_output,
}
