"""Grade a Visual Lab: which concept the reader placed on each numbered part.

The spec is the JSON the build writes for each Visual Lab (see
``lesson_hooks/fences/visual_lab.py``); placements come from the widget. Both runtimes
(CPython in the tests, Pyodide in the reader's browser) run this same code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lab.core.text import number_list
from lab.graded.score import scored

__all__ = ["check_visual_lab"]


def _normalise(spec: Mapping[str, Any], placements: Mapping[Any, Any]) -> dict[int, str]:
    """Placements keyed by part number; ValueError on anything the Visual Lab cannot hold."""
    if not isinstance(placements, Mapping):
        raise ValueError("placements must be an object mapping part numbers to concepts.")
    numbers = [part["n"] for part in spec["parts"]]
    concepts = list(spec["concepts"])
    placed: dict[int, str] = {}
    where: dict[str, int] = {}
    for key, concept in placements.items():
        n = next((n for n in numbers if str(n) == str(key)), None)
        if n is None:
            raise ValueError(
                f"Unknown part {key!r}: this Visual Lab has parts {number_list(numbers)}."
            )
        if concept is None:
            continue
        if not isinstance(concept, str) or concept not in concepts:
            raise ValueError(
                f"Unknown concept {concept!r} on part {n}: "
                f"the concepts are {', '.join(map(repr, concepts))}."
            )
        if concept in where:
            raise ValueError(
                f"{concept!r} is placed on parts {where[concept]} and {n}; "
                "each concept goes in one place."
            )
        placed[n] = concept
        where[concept] = n
    return placed


def check_visual_lab(spec: Mapping[str, Any], placements: Mapping[Any, Any]) -> dict[str, Any]:
    """Grade ``placements`` ({part number: concept or None}) against ``spec``.

    Returns JSON-ready data: per part the placed concept, ``correct`` (True,
    False, or None when the part is empty) and a message for the reader; then
    the score, the total, the empty part numbers and a one-line summary.
    Raises ValueError for a part or concept the Visual Lab does not have.
    """
    placed = _normalise(spec, placements)
    results: list[dict[str, Any]] = []
    for part in spec["parts"]:
        n = part["n"]
        concept = placed.get(n)
        if concept is None:
            correct, message = None, f"Part {n} is empty."
        elif concept == part["answer"]:
            correct, message = True, part["explanation"]
        else:
            feedback = part.get("feedback") or {}
            correct = False
            message = (
                feedback.get(concept) or f"{concept} does not fit this part. Try another concept."
            )
        results.append({"n": n, "placed": concept, "correct": correct, "message": message})
    return scored(results, items="parts", left="missing", noun="part", state="still empty")
