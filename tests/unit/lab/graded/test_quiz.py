"""The quiz: its grader (lab.graded.quiz) and its Markdown fence (lesson_hooks/fences/quiz.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lab import check_quiz
from lab.rpc import dispatch
from lesson_hooks.fences.quiz import QuizError, check_unique, parse_page, render_quiz
from lesson_hooks.support.paths import ROOT

LESSON = ROOT / "docs" / "lesson.md"
PATH = "docs/page.md"
MARK = "# <-"


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


# ---------------------------------------------------------------- the fence

VALID = """\
id: tiny
prompt: Try it.
questions:
  - text: Is a debate cooperative?
    explanation: Cooperation needs a shared reward.
    options:
      - text: "No"
        correct: true
        feedback: Opposed rewards.
      - text: "Yes"
        feedback: Talking is not sharing.
"""


def page(body: str) -> str:
    return f"# Title\n\nText.\n\n```lab-quiz\n{body}```\n\nMore.\n"


def marked_line(markdown: str) -> int:
    (line,) = [i for i, text in enumerate(markdown.split("\n"), 1) if MARK in text]
    return line


def fence_line(markdown: str) -> int:
    return markdown.split("\n").index("```lab-quiz") + 1


ERRORS = {
    "no id": (VALID.replace("id: tiny\n", ""), "the quiz has no `id`."),
    "bad id": (VALID.replace("id: tiny", f"id: Tiny Quiz  {MARK}"), "`id` 'Tiny Quiz' must be"),
    "unknown key": (
        VALID.replace("prompt:", f"promt:  {MARK}\nprompt:"),
        "unknown key 'promt' in the quiz (expected `id`, `prompt`, `questions`). "
        "Did you mean `prompt`?",
    ),
    "no questions": (
        VALID.split("questions:")[0] + f"questions: []  {MARK}\n",
        "`questions` needs at least one question.",
    ),
    "no explanation": (
        VALID.replace("    explanation: Cooperation needs a shared reward.\n", "").replace(
            "  - text: Is a debate", f"  - text: Is a debate  {MARK}"
        ),
        "question 1 has no `explanation`.",
    ),
    "one option": (
        VALID.replace(
            '      - text: "Yes"\n        feedback: Talking is not sharing.\n', ""
        ).replace("    options:", f"    options:  {MARK}"),
        "question 1 needs at least 2 options.",
    ),
    "no correct option": (
        VALID.replace("        correct: true\n", "").replace(
            "    options:", f"    options:  {MARK}"
        ),
        "question 1 has no option with `correct: true`.",
    ),
    "option without feedback": (
        VALID.replace("        feedback: Talking is not sharing.\n", "").replace(
            '      - text: "Yes"', f'      - text: "Yes"  {MARK}'
        ),
        "option 2 of question 1 has no `feedback` (every option explains itself).",
    ),
    "correct not a flag": (
        VALID.replace("correct: true", f"correct: sure  {MARK}"),
        "`correct` in option 1 of question 1 must be true or false.",
    ),
    "repeated option": (
        VALID.replace('      - text: "Yes"', f'      - text: "No"  {MARK}'),
        "option 2 of question 1 repeats option 1 ('No').",
    ),
    "invalid yaml": (
        VALID.replace("prompt: Try it.", f"prompt: Try: it: now  {MARK}"),
        "invalid YAML: mapping values are not allowed here.",
    ),
    "empty": ("", "the quiz is empty."),
}


@pytest.mark.parametrize(("body", "problem"), ERRORS.values(), ids=ERRORS.keys())
def test_validation_errors_name_the_file_and_line(body: str, problem: str) -> None:
    markdown = page(body)
    line = marked_line(markdown) if MARK in markdown else fence_line(markdown)
    with pytest.raises(QuizError) as caught:
        parse_page(markdown, PATH)
    message = str(caught.value)
    assert message.startswith(f"{PATH}:{line}: "), message
    assert problem in message


def test_ids_are_unique_across_the_site() -> None:
    first = parse_page(page(VALID), "docs/a.md")
    second = parse_page("Intro.\n\n" + page(VALID), "docs/b.md")
    with pytest.raises(
        QuizError, match=r"^docs/b\.md:7: quiz id 'tiny' is already used at docs/a\.md:5\."
    ):
        check_unique(first + second)


def test_rendering_is_a_form_that_reads_without_javascript() -> None:
    (quiz,) = parse_page(page(VALID.replace("Is a debate", "Is a <debate>")), PATH)
    html = render_quiz(quiz, "../assets/lab/quizzes/tiny.json")
    assert 'data-lab="quiz"' in html and 'data-lab-id="tiny"' in html
    assert f'data-lab-version="{quiz.spec["version"]}"' in html
    assert '<legend class="lab-quiz__text">Is a &lt;debate&gt; cooperative?</legend>' in html
    assert html.count('type="radio"') == 2
    assert "<summary>Answer and explanation</summary>" in html
    assert "Opposed rewards." in html and "Cooperation needs a shared reward." in html
    assert "data-lab-controls hidden" in html  # Check and Clear only with JavaScript
