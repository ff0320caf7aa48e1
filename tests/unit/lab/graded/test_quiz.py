"""The quiz grader (lab.graded.quiz) on the lesson's own quiz; the fence is tested beside it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lab import check_quiz
from lab.rpc import dispatch
from lesson_hooks.fences.quiz import parse_page
from lesson_hooks.support.paths import ROOT

LESSON = ROOT / "docs" / "lesson.md"


def lesson_spec() -> dict[str, Any]:
    (quiz,) = parse_page(LESSON.read_text(encoding="utf-8"), "docs/lesson.md")
    return quiz.spec


SPEC = lesson_spec()
QUESTIONS = SPEC["questions"]
OPTIONS = [(q["n"], i) for q in QUESTIONS for i in range(len(q["options"]))]


def right(question: dict[str, Any]) -> list[int]:
    return [i for i, option in enumerate(question["options"]) if option["correct"]]


# ------------------------------------------------------------ the lesson's quiz


def test_the_lessons_quiz_covers_the_objectives() -> None:
    assert SPEC["id"] == "check-understanding"
    assert len(QUESTIONS) >= 6
    multiple = [q for q in QUESTIONS if q["multiple"]]
    assert multiple and len(multiple) < len(QUESTIONS), "single- and multiple-answer questions"
    texts = " ".join(q["text"] for q in QUESTIONS)
    for topic in ("debate", "collaboration", "open research question", "MAGRPO", "partners"):
        assert topic in texts


def test_the_accepted_answers_score_full_marks() -> None:
    answers = {str(q["n"]): right(q) for q in QUESTIONS}
    result = check_quiz(SPEC, answers)
    total = len(QUESTIONS)
    assert result["summary"] == f"{total} of {total} correct."
    for question, graded in zip(QUESTIONS, result["questions"], strict=True):
        assert graded["correct"] is True
        assert graded["message"] == question["explanation"]
        assert [o["message"] for o in graded["options"]] == [
            question["options"][i]["feedback"] for i in right(question)
        ]


@pytest.mark.parametrize(("n", "index"), OPTIONS, ids=[f"q{n}-option{i}" for n, i in OPTIONS])
def test_every_option_alone_gets_its_own_feedback(n: int, index: int) -> None:
    question = QUESTIONS[n - 1]
    result = check_quiz(SPEC, {str(n): [index]})
    graded = result["questions"][n - 1]
    option = question["options"][index]
    assert graded["options"] == [
        {"index": index, "correct": option["correct"], "message": option["feedback"]}
    ]
    # Alone, an option answers a question only if it is its one right answer.
    assert graded["correct"] is (right(question) == [index])
    assert result["score"] == (1 if graded["correct"] else 0)


def test_a_multiple_answer_question_wants_exactly_the_right_set() -> None:
    question = next(q for q in QUESTIONS if q["multiple"])
    n, good = question["n"], right(question)
    wrong = next(i for i in range(len(question["options"])) if i not in good)
    partial = check_quiz(SPEC, {str(n): good[:1]})["questions"][n - 1]
    assert partial["correct"] is False and "missing" in partial["message"]
    extra = check_quiz(SPEC, {str(n): [*good, wrong]})["questions"][n - 1]
    assert extra["correct"] is False and "not right" in extra["message"]


def test_the_summary_counts_unanswered_questions() -> None:
    total = len(QUESTIONS)
    first = QUESTIONS[0]
    result = check_quiz(SPEC, {"1": right(first)})
    rest = ", ".join(str(n) for n in range(2, total)) + f" and {total}"
    assert result["summary"] == (
        f"1 of {total} correct. {total - 1} questions are unanswered: {rest}."
    )
    assert result["questions"][1]["message"] == "Question 2 is unanswered."


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        ({"99": [0]}, "Unknown question '99'"),
        ({"1": [7]}, "Question 1 takes a list of option indices from 0 to 2"),
        ({"1": [True]}, "Question 1 takes a list of option indices"),
        ({"1": [0, 1]}, "Question 1 takes one answer, not 2."),
        ({"2": [0, 0]}, "Question 2 names an option twice"),
        ([], "answers must be an object"),
    ],
)
def test_answers_the_quiz_cannot_hold_are_refused(answers: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(")):
        check_quiz(SPEC, answers)


def test_the_worker_path_grades_the_same() -> None:
    answers = {"1": [1], "2": right(QUESTIONS[1])}
    reply = json.loads(dispatch("check_quiz", json.dumps({"spec": SPEC, "answers": answers})))
    assert reply == {"result": check_quiz(SPEC, answers)}
