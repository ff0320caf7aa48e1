"""The worker's entry point: the only module written for Pyodide's side.

CPython never imports this module; tests drive :func:`lab.rpc.dispatch`, the
same path this wraps.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lab import rpc


def dispatch(name: str, args_json: str, progress: Callable[[str], object]) -> str:
    """Run a lab call; ``progress`` is the worker's JS function taking a JSON string."""

    def report(data: dict[str, Any]) -> None:
        # JSON made here keeps floats floats on the JS side.
        progress(json.dumps(data, allow_nan=False))

    return rpc.dispatch(name, args_json, report)
