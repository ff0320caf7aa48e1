"""The graded blocks' calls, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`).

Each takes the spec the build wrote (``{"spec"}``) and the reader's answers.
"""

from __future__ import annotations

from typing import Any

from lab.core.rpc import Call, Progress
from lab.graded.mapping import check_mapping
from lab.graded.quiz import check_quiz

__all__ = ["CALLS"]


def _check_mapping(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return check_mapping(args["spec"], args["placements"])


def _check_quiz(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return check_quiz(args["spec"], args["answers"])


CALLS: dict[str, Call] = {"check_mapping": _check_mapping, "check_quiz": _check_quiz}
