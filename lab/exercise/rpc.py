"""The exercise lab's calls, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`).

``check_exercise``: ``{"spec", "code", "public_only"?}``; ``train_with_exercise``:
``{"spec", "code", "params"?, "lab_code"?}`` (``lab_code``: the verifier and prior the
reader edited in the simulation lab). Both report ``{"in_user_code": bool}`` progress
around every stretch Python spends in the reader's code (the page's time limit).
"""

from __future__ import annotations

from typing import Any

from lab.core.rpc import Call, Progress
from lab.exercise.grade import check_exercise
from lab.exercise.train import train_with_advantage

__all__ = ["CALLS"]


def _watch(progress: Progress) -> Any:
    def watch(inside: bool) -> None:
        progress({"in_user_code": inside})

    return watch


def _check(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return check_exercise(
        args["spec"],
        args["code"],
        public_only=bool(args.get("public_only")),
        watch=_watch(progress),
    )


def _train(args: dict[str, Any], progress: Progress) -> dict[str, Any]:
    return train_with_advantage(
        args["spec"],
        args["code"],
        args.get("params"),
        progress,
        lab_code=args.get("lab_code"),
        watch=_watch(progress),
    )


CALLS: dict[str, Call] = {"check_exercise": _check, "train_with_exercise": _train}
