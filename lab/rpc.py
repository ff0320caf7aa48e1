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
from lab.sim import run_experiment
from lab.user_code import run_with_code

Progress = Callable[[dict[str, Any]], None]
Call = Callable[[dict[str, Any], Progress], Any]


def _ping(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return {"pong": args.get("value")}


def _check_mapping(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return check_mapping(args["spec"], args["placements"])


def _check_quiz(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return check_quiz(args["spec"], args["answers"])


def _run_simulation(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"params"}``, and optionally ``{"code"}``: the reader's verifier and prior.

    With code, progress also reports ``{"in_user_code": true}`` and ``false``
    around every stretch Python spends in the reader's code (the page's time limit).
    """

    def report(update: int, partial: dict[str, Any]) -> None:
        progress(partial)

    code = args.get("code")
    if code is None:
        return run_experiment(args.get("params"), report)

    def watch(inside: bool) -> None:
        progress({"in_user_code": inside})

    return run_with_code(args.get("params"), code, report, watch=watch)


CALLS: dict[str, Call] = {
    "ping": _ping,
    "check_mapping": _check_mapping,
    "check_quiz": _check_quiz,
    "run_simulation": _run_simulation,
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
