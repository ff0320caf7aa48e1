"""The graded blocks' calls, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`).

Each takes the spec the build wrote (``{"spec"}``) and the reader's answers.
"""

from __future__ import annotations

from typing import Any

from lab.core.errors import LabError
from lab.core.rpc import Call, Progress
from lab.graded.quiz import check_quiz
from lab.graded.visual_lab import check_visual_lab

__all__ = ["CALLS"]


# The graders refuse answers their spec cannot hold with ValueError: a refusal the
# reader reads, not a bug in the lab (which the page shows with its traceback).


def _check_visual_lab(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    try:
        return check_visual_lab(args["spec"], args["placements"])
    except ValueError as err:
        raise LabError(str(err)) from err


def _check_quiz(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    try:
        return check_quiz(args["spec"], args["answers"])
    except ValueError as err:
        raise LabError(str(err)) from err


CALLS: dict[str, Call] = {"check_visual_lab": _check_visual_lab, "check_quiz": _check_quiz}
