"""What every graded block reports: the score, the total, what is left, one summary line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lab.core.text import number_list

__all__ = ["scored"]


def _summary(score: int, total: int, left: Sequence[int], noun: str, state: str) -> str:
    text = f"{score} of {total} correct."
    if len(left) == 1:
        text += f" {noun.capitalize()} {left[0]} is {state}."
    elif left:
        text += f" {len(left)} {noun}s are {state}: {number_list(list(left))}."
    return text


def scored(
    results: list[dict[str, Any]], *, items: str, left: str, noun: str, state: str
) -> dict[str, Any]:
    """The graded block's reply: ``results`` under ``items``, then the score and the rest.

    A result's ``correct`` is True, False, or None when the reader left it
    (``left`` lists their numbers ``n``); the summary names them as ``noun``
    ("part") in ``state`` ("still empty").
    """
    score = sum(1 for result in results if result["correct"])
    remaining = [result["n"] for result in results if result["correct"] is None]
    return {
        items: results,
        "score": score,
        "total": len(results),
        left: remaining,
        "summary": _summary(score, len(results), remaining, noun, state),
    }
