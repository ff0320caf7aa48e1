"""What a teacher prints: the Visual Lab's concepts and parts, the quiz's answers
and every guided experiment's explanation, with print media emulated.

A real print also fires `beforeprint`, on which Material opens every collapsed
block; `print_view` does both, as the browser would.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from lesson_hooks.fences.quiz import parse_page as parse_quizzes
from lesson_hooks.fences.visual_lab import parse_page as parse_visual_labs
from tests.conftest import ROOT

LESSON = (ROOT / "docs" / "lesson.md").read_text(encoding="utf-8")
(MAPPING,) = parse_visual_labs(LESSON, "lesson")
(QUIZ,) = parse_quizzes(LESSON, "lesson")


def print_view(page: Page) -> None:
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")


def test_the_visual_lab_prints_its_concepts_parts_and_answers(page: Page) -> None:
    page.goto("lesson/")
    lab = page.locator('[data-lab="visual-lab"]')
    lab.scroll_into_view_if_needed()
    # Enhanced: the concepts are buttons and the answers are hidden on screen.
    expect(lab).to_have_attribute("data-lab-enhanced", "")
    expect(lab.locator("[data-lab-answers]")).to_be_hidden()
    # The site's how-to shows on screen; on paper there is nothing to tap.
    instruction = lab.locator(".lab-visual-lab__instructions")
    expect(instruction).to_be_visible()
    print_view(page)
    expect(instruction).to_be_hidden()
    for concept in MAPPING.spec["concepts"]:
        expect(lab.locator(".lab-chip", has_text=concept)).to_be_visible()
    for part in MAPPING.spec["parts"]:
        expect(lab.get_by_text(part["text"], exact=True)).to_be_visible()
    expect(lab.locator(".lab-zone")).to_have_count(len(MAPPING.spec["parts"]))
    for zone in lab.locator(".lab-zone").all():
        expect(zone).to_be_visible()
    answers = lab.locator("[data-lab-answers]")
    for part in MAPPING.spec["parts"]:
        expect(answers).to_contain_text(part["explanation"])
    expect(lab.locator("[data-lab-controls]")).to_be_hidden()


def test_the_quiz_prints_every_answer_and_explanation(page: Page) -> None:
    page.goto("lesson/")
    quiz = page.locator('[data-lab="quiz"]')
    quiz.scroll_into_view_if_needed()
    answers = quiz.locator("details[data-lab-answer]")
    questions = QUIZ.spec["questions"]
    expect(answers).to_have_count(len(questions))
    # quiz.js hides the collapsed answers on screen, for its own verdicts.
    expect(answers.first).to_be_hidden()
    print_view(page)
    for answer, question in zip(answers.all(), questions, strict=True):
        expect(answer).to_be_visible()
        expect(answer.get_by_text(question["explanation"], exact=True)).to_be_visible()


def test_every_guided_experiment_prints_its_explanation(page: Page) -> None:
    page.goto("simulation/")
    experiments = page.locator('[data-lab="experiment"]')
    expect(experiments.first).to_be_attached()
    print_view(page)
    assert experiments.count() > 0
    for experiment in experiments.all():
        explanation = experiment.locator("[data-lab-experiment-explanation]")
        expect(explanation).to_be_visible()
        # Its text, not only its summary line.
        expect(explanation.locator("p").first).to_be_visible()
        expect(experiment.locator("[data-lab-experiment-run]")).to_be_hidden()


def test_the_teachers_page_prints_as_a_handout(page: Page) -> None:
    page.goto("teachers/")
    print_view(page)
    # The page's content alone: no header, navigation or footer on paper.
    for chrome in (".md-header", ".md-sidebar--primary", ".md-footer"):
        expect(page.locator(chrome)).to_be_hidden()
    for part in (".lesson-teachers__pages", ".lesson-teachers__experiments"):
        expect(page.locator(part)).to_be_visible()
    answers = page.locator(".lesson-teachers__answers")
    expect(answers).to_be_visible()
    for part in MAPPING.spec["parts"]:
        expect(answers.get_by_text(part["answer"], exact=True).first).to_be_visible()
