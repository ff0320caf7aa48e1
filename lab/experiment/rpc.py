"""The guided experiments' call, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`)."""

from __future__ import annotations

from typing import Any

from lab.core.rpc import Call, Progress
from lab.experiment.outcome import experiment_outcome

__all__ = ["CALLS"]


def _experiment_outcome(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``{"experiment", "choice", "result"}``: the reader's prediction against their run."""
    return experiment_outcome(args["experiment"], args["choice"], args["result"])


CALLS: dict[str, Call] = {"experiment_outcome": _experiment_outcome}
