"""The print a page offers (issue 39): a worksheet where a block shows answers, the
answer key on the teacher's page, nothing elsewhere."""

from __future__ import annotations

from lesson_hooks.build.printing import ANSWER_KEY, WORKSHEET, offer
from tests.conftest import ROOT


def page(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def test_the_pages_with_questions_offer_a_worksheet() -> None:
    assert offer(page("lesson.md"), "lesson.md") == WORKSHEET
    assert offer(page("simulation.md"), "simulation.md") == WORKSHEET
    assert offer(page("language-models.md"), "language-models.md") == WORKSHEET


def test_the_teachers_page_offers_its_answer_key() -> None:
    assert offer(page("teachers.md"), "teachers.md") == ANSWER_KEY


def test_a_page_without_answers_offers_nothing() -> None:
    assert offer(page("summary.md"), "summary.md") is None
    assert offer(page("glossary.md"), "glossary.md") is None
    # A lab that runs but asks nothing.
    assert offer("```lab-simulation\n```\n", "x.md") is None
    assert offer("```lab-quiz\nid: q\n```\n", "x.md") == WORKSHEET
