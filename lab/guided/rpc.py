"""The guided experiments' call, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`)."""

from __future__ import annotations

from typing import Any

from lab.core.rpc import Call, Progress
from lab.guided.tasks import task_outcome

__all__ = ["CALLS"]


def _task_outcome(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"task", "choice", "result"}``: the reader's prediction against their run."""
    return task_outcome(args["task"], args["choice"], args["result"])


CALLS: dict[str, Call] = {"task_outcome": _task_outcome}
