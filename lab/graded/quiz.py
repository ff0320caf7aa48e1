"""Grade a check-your-understanding quiz: which options the reader chose per question.

The spec is the JSON the build writes for each quiz (``lesson_hooks/fences/quiz.py``);
answers come from the widget as ``{question number: [option indices]}``. Both
runtimes (CPython in the tests, Pyodide in the reader's browser) run this code.
A question with several right options is answered right only when exactly those
are chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lab.core.text import number_list
from lab.graded.score import scored

__all__ = ["check_quiz"]


def _chosen(spec: Mapping[str, Any], answers: Mapping[Any, Any]) -> dict[int, set[int]]:
    """Answers keyed by question number; ValueError on anything the quiz cannot hold."""
    if not isinstance(answers, Mapping):
        raise ValueError("answers must be an object mapping question numbers to option lists.")
    questions = {question["n"]: question for question in spec["questions"]}
    chosen: dict[int, set[int]] = {}
    for key, options in answers.items():
        n = next((n for n in questions if str(n) == str(key)), None)
        if n is None:
            numbers = number_list(list(questions))
            raise ValueError(f"Unknown question {key!r}: this quiz has questions {numbers}.")
        if options is None:
            continue
        count = len(questions[n]["options"])
        if not isinstance(options, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count for i in options
        ):
            raise ValueError(
                f"Question {n} takes a list of option indices from 0 to {count - 1}, "
                f"not {options!r}."
            )
        if len(set(options)) != len(options):
            raise ValueError(f"Question {n} names an option twice: {options!r}.")
        if not questions[n]["multiple"] and len(options) > 1:
            raise ValueError(f"Question {n} takes one answer, not {len(options)}.")
        chosen[n] = set(options)
    return chosen


def check_quiz(spec: Mapping[str, Any], answers: Mapping[Any, Any]) -> dict[str, Any]:
    """Grade ``answers`` ({question number: [option index, ...]}) against ``spec``.

    Returns JSON-ready data: per question the chosen indices, ``correct`` (True,
    False, or None when unanswered), a message, and the feedback of each chosen
    option; then the score, the total, the unanswered numbers and a summary line.
    Raises ValueError for a question or option the quiz does not have.
    """
    chosen = _chosen(spec, answers)
    results: list[dict[str, Any]] = []
    for question in spec["questions"]:
        n = question["n"]
        picked = sorted(chosen.get(n, ()))
        right = {i for i, option in enumerate(question["options"]) if option["correct"]}
        feedback = [
            {
                "index": i,
                "correct": question["options"][i]["correct"],
                "message": question["options"][i]["feedback"],
            }
            for i in picked
        ]
        if not picked:
            correct, message = None, f"Question {n} is unanswered."
        elif set(picked) == right:
            correct, message = True, question["explanation"]
        elif question["multiple"] and set(picked) < right:
            correct, message = False, "Every choice you made is right, but at least one is missing."
        elif question["multiple"]:
            correct, message = False, "At least one of your choices is not right."
        else:
            correct, message = False, "That is not the best answer."
        results.append(
            {"n": n, "chosen": picked, "correct": correct, "message": message, "options": feedback}
        )
    return scored(
        results, items="questions", left="unanswered", noun="question", state="unanswered"
    )
