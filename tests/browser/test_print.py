"""What a teacher prints: the Visual Lab's concepts and parts, the quiz's answers
and every guided experiment's explanation, with print media emulated; and the
two prints a page offers (issue 39), each printed to a real PDF whose text is read:
a student's worksheet without an answer, the teacher's answer key with them all.

A real print also fires `beforeprint`, on which Material opens every collapsed
block; `print_view` does both, as the browser would.
"""

from __future__ import annotations

import io
import re

import pytest
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from lesson_hooks.fences.quiz import parse_page as parse_quizzes
from lesson_hooks.fences.visual_lab import parse_page as parse_visual_labs
from tests.browser.support import BOOT, wait_for_editor
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


# ------------------------------------------------- the worksheet and the answer key

#: Stands in for the browser's print dialog, which headless Chromium does not show:
#: the page is left as the button set it up to print, and page.pdf() prints it.
NO_DIALOG = "window.print = () => { document.documentElement.dataset.printAsked = ''; };"


@pytest.fixture
def printer(page: Page) -> Page:
    """A page whose Print asks no dialog (set before the test's first ``goto``)."""
    page.add_init_script(NO_DIALOG)
    return page


def words(text: str) -> str:
    """Text with its line breaks and runs of spaces as single spaces, as a PDF's lines join,
    and none before punctuation (a PDF's text puts one after code: "`core` ,")."""
    return re.sub(r" ([,.;:?!)])", r"\1", re.sub(r"\s+", " ", text)).strip()


def printed(page: Page, label: str | None) -> str:
    """The text of the PDF the page prints after its ``label`` button (None: the browser's
    own Print, with no button)."""
    if label is not None:
        button = page.get_by_role("button", name=label)
        expect(button).to_be_visible()
        button.click()
        expect(page.locator("html")).to_have_attribute("data-print-asked", "")
    print_view(page)
    pdf = PdfReader(io.BytesIO(page.pdf()))
    text = "\n".join(sheet.extract_text() for sheet in pdf.pages)
    # A line may break after a word's own hyphen ("critique-and-" / "revise").
    return words(text.replace("-\n", "-"))


def quiz_answers() -> list[str]:
    return [words(question["explanation"]) for question in QUIZ.spec["questions"]]


def mapping_answers() -> list[str]:
    return [words(part["explanation"]) for part in MAPPING.spec["parts"]]


def test_the_lesson_offers_a_worksheet_that_prints_no_answer(printer: Page) -> None:
    page = printer
    page.goto("lesson/")
    text = printed(page, "Print worksheet")
    for question in QUIZ.spec["questions"]:
        assert words(question["text"]) in text
        for option in question["options"]:
            assert words(option["text"]) in text
    for concept in MAPPING.spec["concepts"]:
        assert concept in text
    for part in MAPPING.spec["parts"]:
        assert words(part["text"]) in text
    for answer in quiz_answers() + mapping_answers():
        assert answer not in text
    assert "Answer and explanation" not in text
    # The button itself is not on paper.
    assert "Print worksheet" not in text


def test_the_lessons_own_print_is_the_teachers_copy(page: Page) -> None:
    page.goto("lesson/")
    text = printed(page, None)
    for answer in quiz_answers() + mapping_answers():
        assert answer in text


def test_a_worksheet_leaves_out_what_this_reader_has_answered(printer: Page) -> None:
    """A teacher who tried the quiz first still prints a blank worksheet."""
    page = printer
    page.goto("lesson/")
    quiz = page.locator('[data-lab="quiz"]')
    expect(quiz).to_have_attribute("data-lab-enhanced", "")
    quiz.locator("input").first.check()
    expect(quiz).to_have_attribute("data-lab-state", "ready", timeout=BOOT)
    quiz.get_by_role("button", name="Check").click()
    verdict = quiz.locator("[data-lab-verdict]").first
    expect(verdict).to_be_visible(timeout=BOOT)
    said = words(verdict.inner_text())
    text = printed(page, "Print worksheet")
    assert said not in text


def test_the_simulation_worksheet_leaves_out_every_experiments_explanation(printer: Page) -> None:
    page = printer
    page.goto("simulation/")
    experiments = page.locator('[data-lab="experiment"]')
    expect(experiments.first).to_be_attached()
    # As the page words them (their Markdown rendered), read before printing.
    questions = [words(q) for q in experiments.locator("legend").all_text_contents()]
    explanations = [
        words(p)
        for p in experiments.locator("[data-lab-experiment-explanation] p").all_text_contents()
    ]
    assert questions and explanations
    text = printed(page, "Print worksheet")
    for question in questions:
        assert question in text
    for explanation in explanations:
        assert explanation not in text


def test_the_teachers_page_prints_its_answer_key(printer: Page) -> None:
    page = printer
    page.goto("teachers/")
    text = printed(page, "Print answer key")
    for answer in mapping_answers() + quiz_answers():
        assert answer in text


def test_a_worksheet_prints_an_exercises_starter_not_what_this_reader_wrote(
    printer: Page,
) -> None:
    """A teacher who solved an exercise first still prints its starter code for students."""
    page = printer
    page.goto("simulation/")
    lab = page.locator("#lab-group-advantage")
    wait_for_editor(lab)
    editor = lab.locator("[data-lab-code-editor]")
    starter = words(editor.locator("[data-lab-code-printed]").text_content() or "")
    assert "def group_advantage" in starter
    lab.get_by_role("textbox", name="Your code: group_advantage(returns) (Python editor)").fill(
        "def group_advantage(returns):\n    return ['a teacher solved this']\n"
    )
    text = printed(page, "Print worksheet")
    assert "a teacher solved this" not in text
    assert "def group_advantage(returns):" in text


def test_the_teachers_table_of_pages_prints_every_page_name_whole(page: Page) -> None:
    """On paper no page name in the table breaks mid-word ("Langua ge-Model Lab",
    "Summa ry"). A PDF's text runs a table's cells line by line across the row, so
    each word of a name is looked for as a whole word of the table's text."""
    page.goto("teachers/")
    names = page.locator(".lesson-teachers__pages tbody tr > :first-child").all_inner_texts()
    assert "Language-Model Lab" in [words(name) for name in names]
    text = printed(page, None)
    table = text[text.index("The pages and their times") :]
    said = set(table.split())
    for name in names:
        for word in words(name).split():
            assert word in said, f"{word!r} of {name!r} is broken on paper"
