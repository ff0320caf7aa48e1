"""The ```lab-quiz fence (lesson_hooks/fences/quiz.py): errors at file:line, ids, markup.

The grader it feeds is tested in tests/unit/lab/graded/test_quiz.py.
"""

from __future__ import annotations

import pytest

from lesson_hooks.fences.base import FenceError
from lesson_hooks.fences.custom import check_unique
from lesson_hooks.fences.quiz import FENCE, answer_first, parse_page, render_quiz, sentence
from lesson_hooks.support.paths import ROOT
from tests.support.html import Node, normalise, parse_html

PATH = "docs/page.md"
MARK = "# <-"  # marks the line a validation error must point at

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
        "invalid YAML: a colon and a space (`: `) where YAML expects none; ",
    ),
    "empty": ("", "the quiz is empty."),
}


@pytest.mark.parametrize(("body", "problem"), ERRORS.values(), ids=ERRORS.keys())
def test_validation_errors_name_the_file_and_line(body: str, problem: str) -> None:
    markdown = page(body)
    line = marked_line(markdown) if MARK in markdown else fence_line(markdown)
    with pytest.raises(FenceError) as caught:
        parse_page(markdown, PATH)
    message = str(caught.value)
    assert message.startswith(f"{PATH}:{line}: "), message
    assert problem in message


def test_ids_are_unique_across_the_site() -> None:
    first = parse_page(page(VALID), "docs/a.md")
    second = parse_page("Intro.\n\n" + page(VALID), "docs/b.md")
    with pytest.raises(
        FenceError, match=r"^docs/b\.md:7: quiz id 'tiny' is already used at docs/a\.md:5\."
    ):
        check_unique(first + second, FENCE.repeated)


def test_rendering_is_a_form_that_reads_without_javascript() -> None:
    (quiz,) = parse_page(page(VALID.replace("Is a debate", "Is a <debate>")), PATH)
    html = render_quiz(quiz, "../assets/lab/quizzes/tiny.json")
    assert 'data-lab="quiz"' in html and 'data-lab-id="tiny"' in html
    assert f'data-lab-version="{quiz.spec["version"]}"' in html
    legend = (
        '<legend class="lab-quiz__text"><span class="lab-quiz__number">1.</span>'
        " Is a &lt;debate&gt; cooperative?</legend>"
    )
    assert legend in html
    assert html.count('type="radio"') == 2
    assert "<summary>Answer and explanation</summary>" in html
    assert "Opposed rewards." in html and "Cooperation needs a shared reward." in html
    assert "data-lab-controls hidden" in html  # Check and Clear only with JavaScript


def test_each_questions_number_sits_in_its_legend_before_the_hint() -> None:
    # Issue 39: the list's own numbers sat beside "Choose one answer.", not the question.
    second = (
        VALID.split("questions:\n")[1]
        .replace("Is a debate", "Is a vote")
        .replace("correct: true", "correct: false")
        .replace("feedback: Talking", "correct: true\n        feedback: Talking")
    )
    (quiz,) = parse_page(page(VALID + second), PATH)
    tree = parse_html(render_quiz(quiz, "../assets/lab/quizzes/tiny.json"))
    fieldsets = tree.find_all("fieldset")
    assert [normalise(f.find("legend").text()) for f in fieldsets] == [
        "1. Is a debate cooperative?",
        "2. Is a vote cooperative?",
    ]
    for fieldset in fieldsets:
        legend, hint = [child for child in fieldset.children if isinstance(child, Node)][:2]
        assert legend.tag == "legend"  # the hint follows the numbered question
        assert hint.classes == {"lab-quiz__hint"}


def test_an_answer_line_never_doubles_the_options_full_stop() -> None:
    ended = VALID.replace('- text: "No"', "- text: No, the rewards are opposed.")
    (quiz,) = parse_page(page(ended), PATH)
    html = render_quiz(quiz, "../assets/lab/quizzes/tiny.json")
    assert "No, the rewards are opposed. Opposed rewards." in html
    assert ".." not in html.replace("../", "")
    assert "Yes. Talking is not sharing." in html  # a full stop added where there is none


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("Yes", "Yes."),
        ("Yes.", "Yes."),
        ("Really?", "Really?"),
        ("Stop!", "Stop!"),
        ('He said "no."', 'He said "no."'),
        ("A (partly)", "A (partly)."),
    ],
)
def test_sentence_adds_a_full_stop_only_where_none_ends_it(text: str, ended: str) -> None:
    assert sentence(text) == ended


SECOND = """\
  - text: Which share one reward?
    explanation: Both are scored on the joint output.
    options:
{options}"""
_PLANNER, _WRITERS, _NEGOTIATORS = (
    "      - text: The planner and the coder\n        correct: true\n"
    "        feedback: One score for both.\n",
    "      - text: The writers of one report\n        correct: true\n"
    "        feedback: One score for the report.\n",
    "      - text: Two negotiators\n        feedback: Opposed rewards.\n",
)
RIGHT_FIRST = _PLANNER + _WRITERS + _NEGOTIATORS
RIGHT_LATER = _NEGOTIATORS + _PLANNER + _WRITERS


def test_a_quiz_whose_every_right_answer_comes_first_fails_at_its_line() -> None:
    markdown = page(VALID + SECOND.format(options=RIGHT_FIRST))
    with pytest.raises(FenceError) as caught:
        parse_page(markdown, PATH)
    message = str(caught.value)
    assert message.startswith(f"{PATH}:{fence_line(markdown)}: "), message
    assert "every one of the quiz's 2 questions puts its right answer(s) first" in message


@pytest.mark.parametrize(
    "body",
    [
        VALID,  # one question: nothing to vary
        VALID + SECOND.format(options=RIGHT_LATER),  # the second's answers come later
        VALID.replace(  # the first's answer comes second
            '      - text: "No"\n        correct: true\n        feedback: Opposed rewards.\n',
            "",
        ).replace(
            "        feedback: Talking is not sharing.\n",
            '        feedback: Talking is not sharing.\n      - text: "No"\n'
            "        correct: true\n        feedback: Opposed rewards.\n",
        )
        + SECOND.format(options=RIGHT_FIRST),
    ],
    ids=["one question", "a later right answer", "a right answer second"],
)
def test_a_quiz_with_its_right_answers_at_varied_positions_passes(body: str) -> None:
    (quiz,) = parse_page(page(body), PATH)
    assert quiz.questions


def test_answer_first_means_every_right_option_before_any_wrong_one() -> None:
    (quiz,) = parse_page(page(VALID + SECOND.format(options=RIGHT_LATER)), PATH)
    first, second = quiz.questions
    assert answer_first(first) and not answer_first(second)


def test_the_lessons_quiz_puts_its_right_answers_at_varied_positions() -> None:
    (quiz,) = parse_page((ROOT / "docs" / "lesson.md").read_text(encoding="utf-8"), "lesson")
    positions = [
        tuple(i for i, option in enumerate(q.options) if option.correct) for q in quiz.questions
    ]
    assert len(set(positions)) > 2, positions
    assert sum(not answer_first(q) for q in quiz.questions) >= len(quiz.questions) // 2
