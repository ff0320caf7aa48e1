"""The calls the browser may make into ``lab``, by name, JSON in and JSON out.

Each lab kind's package lists its own calls (``lab/<package>/rpc.py``, named in
:data:`lab.kinds.KINDS`); they are merged here, with the settings links' two
calls, which serve every run-style lab by its kind. The worker calls
:func:`dispatch`; CPython tests call it too, so both runtimes exercise the same
path. Replies are ``{"result": ...}`` or ``{"error": ...}``.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping
from typing import Any

from lab.core.errors import LabError
from lab.core.links import link_fragment, read_link
from lab.core.rpc import Call, Progress
from lab.core.rules import INTERRUPTED
from lab.core.runner import Runner
from lab.kinds import KINDS, RUNNERS

__all__ = ["CALLS", "dispatch"]


def _ping(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return {"pong": args.get("value")}


def _runner(args: Mapping[str, Any]) -> Runner:
    kind = args.get("kind")
    if not isinstance(kind, str) or kind not in RUNNERS:
        raise LabError(f"No run-style lab of kind {kind!r}.")
    return RUNNERS[kind]


def _link(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"kind", "target", "params"}``: ``{"fragment"}``, or the form's refusals."""
    return {"fragment": link_fragment(_runner(args), str(args.get("target")), args.get("params"))}


def _read(args: dict[str, Any], progress: Progress) -> dict[str, Any] | None:
    """``{"kind", "fragment"}``: :func:`lab.core.links.read_link`'s answer."""
    return read_link(_runner(args), str(args.get("fragment", "")))


def _calls() -> dict[str, Call]:
    # The settings links serve every run-style lab, so they belong to no one kind.
    calls: dict[str, Call] = {"ping": _ping, "link_fragment": _link, "read_link": _read}
    for kind in KINDS:
        for name, call in kind.calls.items():
            if calls.get(name, call) is not call:
                raise RuntimeError(f"lab.kinds: {kind.name}'s call {name!r} is defined twice.")
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
        return json.dumps({"error": {"kind": INTERRUPTED, "message": "Stopped."}})
    except Exception as err:
        # A bug, not a refusal: the page shows the traceback under "Details" and
        # logs it to the console (protocol.js, `unexpected`).
        return json.dumps(
            {
                "error": {
                    "kind": type(err).__name__,
                    "message": str(err) or type(err).__name__,
                    "traceback": traceback.format_exc(),
                    "unexpected": True,
                }
            }
        )
