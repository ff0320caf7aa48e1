"""The calls the browser may make into ``lab``, by name, JSON in and JSON out.

Each lab kind's package lists its own calls (``lab/<package>/rpc.py``, named in
:data:`lab.kinds.KINDS`); they are merged here. The worker calls
:func:`dispatch`; CPython tests call it too, so both runtimes exercise the same
path. Replies are ``{"result": ...}`` or ``{"error": ...}``.
"""

from __future__ import annotations

import importlib
import json
import traceback
from typing import Any

from lab import share
from lab.core.errors import LabError
from lab.core.rpc import Call, Progress
from lab.kinds import KINDS

__all__ = ["CALLS", "dispatch"]


def _ping(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return {"pong": args.get("value")}


def _calls() -> dict[str, Call]:
    # The settings links serve every run-style lab, so they belong to no one kind.
    calls: dict[str, Call] = {"ping": _ping, **share.CALLS}
    packages = dict.fromkeys(kind.package for kind in KINDS if kind.package)
    for package in packages:
        for name, call in importlib.import_module(f"{package}.rpc").CALLS.items():
            if name in calls:
                raise RuntimeError(f"{package}.rpc: the call {name!r} is defined twice.")
            calls[name] = call
    return calls


CALLS: dict[str, Call] = _calls()


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
    except KeyboardInterrupt:
        # Stop, through the page's interrupt buffer: answered here like any other
        # reply, so Pyodide never turns the abandoned run into a JavaScript error
        # with its formatted traceback (the first Stop on a page spent 14 to 35 ms
        # there, measured in Chromium; the kind is the page's INTERRUPTED).
        return json.dumps({"error": {"kind": KeyboardInterrupt.__name__, "message": "Stopped."}})
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
