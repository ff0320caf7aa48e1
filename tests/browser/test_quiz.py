"""The check-your-understanding quiz, answered by mouse, keyboard and touch, graded by Python."""

from __future__ import annotations

import json
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lab import check_quiz
from lesson_hooks.fences.quiz import parse_page
from tests.browser.support import BOOT
from tests.conftest import ROOT

(QUIZ,) = parse_page((ROOT / "docs" / "lesson.md").read_text(encoding="utf-8"), "lesson")
SPEC: dict[str, Any] = QUIZ.spec
QUESTIONS = SPEC["questions"]
TOTAL = len(QUESTIONS)
STORAGE_KEY = f"lab-quiz:/lesson/:{SPEC['id']}"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def open_quiz(page: Page) -> Locator:
    page.goto("lesson/")
    quiz = page.locator('[data-lab="quiz"]')
    quiz.scroll_into_view_if_needed()
    expect(quiz).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    return quiz


def group(quiz: Locator, question: dict[str, Any]) -> Locator:
    """The question's fieldset, named by its legend: its number, then its text."""
    return quiz.get_by_role("group", name=f"{question['n']}. {question['text']}", exact=True)


def option(quiz: Locator, question: dict[str, Any], index: int) -> Locator:
    role = "checkbox" if question["multiple"] else "radio"
    text = question["options"][index]["text"]
    return group(quiz, question).get_by_role(role, name=text, exact=True)


def right(question: dict[str, Any]) -> list[int]:
    return [i for i, o in enumerate(question["options"]) if o["correct"]]


def press(quiz: Locator, name: str) -> None:
    quiz.get_by_role("button", name=name, exact=True).click()


def test_every_right_answer_by_mouse_and_keyboard_scores_full_marks(page: Page) -> None:
    quiz = open_quiz(page)
    # Enhanced, the quiz shows Python's verdicts instead of the collapsed answers.
    expect(quiz.locator("details[data-lab-answer]")).to_have_count(TOTAL)
    for details in quiz.locator("details[data-lab-answer]").all():
        expect(details).to_be_hidden()
    for question in QUESTIONS:
        for index in right(question):
            box = option(quiz, question, index)
            if question["n"] % 2:
                box.click()
            else:
                box.focus()
                page.keyboard.press("Space")
            expect(box).to_be_checked()
    press(quiz, "Check")
    expect(quiz.locator("[data-lab-summary]")).to_have_text(f"{TOTAL} of {TOTAL} correct.")
    expect(quiz.locator("[data-lab-announcer]")).to_have_text(f"{TOTAL} of {TOTAL} correct.")
    for question in QUESTIONS:
        verdict = group(quiz, question).locator("[data-lab-verdict]")
        expect(verdict).to_have_text(f"Correct. {question['explanation']}")

    # Saved: a reload brings the answers back; Clear empties them and the storage.
    page.reload()
    quiz = open_quiz(page)
    for question in QUESTIONS:
        for index in right(question):
            expect(option(quiz, question, index)).to_be_checked()
    press(quiz, "Clear")
    expect(quiz.locator("input:checked")).to_have_count(0)
    expect(quiz.locator("[data-lab-summary]")).to_be_empty()
    expect(quiz.locator("[data-lab-announcer]")).to_have_text(
        "Cleared. Every answer is unselected."
    )
    # The answers are forgotten; the Checks made stay, for the learner record's attempts.
    saved = json.loads(page.evaluate("(key) => localStorage.getItem(key)", STORAGE_KEY))
    assert saved["answers"] is None and saved["checks"] == 1 and "verdicts" not in saved


ROUNDS = max(len(q["options"]) for q in QUESTIONS)


@pytest.mark.parametrize("index", range(ROUNDS))
def test_each_option_shows_the_same_feedback_as_cpython(page: Page, index: int) -> None:
    """Round k chooses option k of every question, so every distractor is shown once."""
    quiz = open_quiz(page)
    answers: dict[str, list[int]] = {}
    for question in QUESTIONS:
        if index < len(question["options"]):
            option(quiz, question, index).click()
            answers[str(question["n"])] = [index]
    press(quiz, "Check")
    expected = check_quiz(SPEC, answers)
    expect(quiz.locator("[data-lab-summary]")).to_have_text(expected["summary"])
    for question, graded in zip(QUESTIONS, expected["questions"], strict=True):
        box = group(quiz, question)
        for shown in graded["options"]:
            line = box.locator(f'[data-lab-option="{shown["index"]}"] [data-lab-option-feedback]')
            word = "Right choice" if shown["correct"] else "Wrong choice"
            expect(line).to_have_text(f"{word}: {shown['message']}")
        verdict = box.locator("[data-lab-verdict]")
        if graded["correct"] is None:
            expect(verdict).to_have_text(graded["message"])
        else:
            word = "Correct." if graded["correct"] else "Incorrect."
            expect(verdict).to_have_text(f"{word} {graded['message']}")


def test_a_finger_answers_and_checks(phone: Page) -> None:
    quiz = open_quiz(phone)
    first = QUESTIONS[0]
    option(quiz, first, right(first)[0]).tap()
    quiz.get_by_role("button", name="Check", exact=True).tap()
    expect(quiz.locator("[data-lab-summary]")).to_have_text(
        check_quiz(SPEC, {"1": right(first)})["summary"]
    )
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_before_and_after_check(page: Page, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    quiz = open_quiz(page)
    axe = Axe.from_file(AXE)
    context = {"include": [".lab-quiz"]}
    before = axe.run(page, context=context)
    assert before.violations_count == 0, before.generate_report()
    first, second = QUESTIONS[:2]
    # A wrong answer and a right one, wherever the quiz puts them: both states are checked.
    wrong = next(i for i in range(len(first["options"])) if i not in right(first))
    option(quiz, first, wrong).click()
    option(quiz, second, right(second)[0]).click()
    press(quiz, "Check")
    expect(quiz.locator("[data-lab-summary]")).to_contain_text("correct")
    after = axe.run(page, context=context)
    assert after.violations_count == 0, after.generate_report()


def test_without_javascript_the_quiz_reads_with_its_answers_collapsed(no_script_page: Page) -> None:
    no_script_page.goto("lesson/")
    quiz = no_script_page.locator('[data-lab="quiz"]')
    for question in QUESTIONS:
        expect(group(quiz, question)).to_be_visible()
    answers = quiz.locator("details[data-lab-answer]")
    expect(answers).to_have_count(TOTAL)
    for details in answers.all():
        expect(details).not_to_have_attribute("open", "")
    expect(quiz.get_by_role("button", name="Check")).to_be_hidden()


NUMBERED = """fieldset => {
  const legend = fieldset.querySelector("legend");
  const span = legend.querySelector(".lab-quiz__number");
  const number = span.getBoundingClientRect();
  const question = document.createRange();  // the question's words after the number
  question.setStartAfter(span);
  question.setEnd(legend, legend.childNodes.length);
  const words = [...question.getClientRects()].find((rect) => rect.width > 4);
  const hint = fieldset.querySelector(".lab-quiz__hint").getBoundingClientRect();
  const marker = getComputedStyle(fieldset.closest("li")).listStyleType;
  const sameLine = Math.abs(number.top - words.top) < 1 && number.right <= words.left;
  return { marker, sameLine, aboveHint: number.bottom <= hint.top };
}"""


def test_each_questions_number_sits_with_its_question_not_its_hint(no_script_page: Page) -> None:
    # Issue 39: the list's numbers sat beside "Choose one answer." instead of the question.
    no_script_page.goto("lesson/")
    quiz = no_script_page.locator('[data-lab="quiz"]')
    for question in QUESTIONS:
        fieldset = group(quiz, question)
        expect(fieldset.locator("legend")).to_have_text(f"{question['n']}. {question['text']}")
        look = fieldset.evaluate(NUMBERED)
        assert look == {"marker": "none", "sameLine": True, "aboveHint": True}, question["n"]
