"""`./dev quiz-export`: every quiz of the site as Moodle XML and as QTI 1.2, read back
and compared with the quiz's source, question by question and option by option."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from dataclasses import replace
from html import unescape
from pathlib import Path

import pytest
from lxml import etree

from lesson_hooks.fences.base import FenceError
from lesson_hooks.fences.quiz import Quiz
from tests.conftest import ROOT
from tests.support.schemas import manifest_errors, qti_errors
from tools import quiz_export
from tools.quiz_export import MOODLE_NAME, QTI_NAME, site_quizzes


@pytest.fixture(scope="module")
def quizzes() -> list[Quiz]:
    found = site_quizzes()
    assert found, "the site has no quiz to export"
    return found


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What `./dev quiz-export` writes, run as a contributor runs it."""
    out = tmp_path_factory.mktemp("quiz-export")
    subprocess.run(
        [sys.executable, "-m", "tools.quiz_export", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return out


def _text(element: etree._Element, path: str) -> str:
    """The text an LMS shows for ``path``'s field (HTML-escaped plain text)."""
    return unescape(element.findtext(path, default=""))


def test_moodle_xml_holds_every_question_option_feedback_and_right_answer(
    exported: Path, quizzes: list[Quiz]
) -> None:
    root = etree.parse(str(exported / MOODLE_NAME)).getroot()
    assert root.tag == "quiz"
    entries = root.findall("question")
    expected_types = []
    for quiz in quizzes:
        expected_types += ["category"] + ["multichoice"] * len(quiz.questions)
    assert [entry.get("type") for entry in entries] == expected_types
    entries = iter(entries)
    for quiz in quizzes:
        category = next(entries)
        assert _text(category, "category/text").endswith(f"/{quiz.id}")
        for question in quiz.questions:
            entry = next(entries)
            where = f"{quiz.id} question {question.n}"
            assert _text(entry, "questiontext/text") == question.text, where
            assert entry.find("questiontext").get("format") == "html"
            assert _text(entry, "generalfeedback/text") == question.explanation, where
            assert entry.findtext("idnumber") == f"{quiz.id}-q{question.n}"
            assert entry.findtext("single") == ("false" if question.multiple else "true"), where
            assert entry.findtext("shuffleanswers") == "true", where
            answers = entry.findall("answer")
            assert [_text(a, "text") for a in answers] == [o.text for o in question.options]
            assert [_text(a, "feedback/text") for a in answers] == [
                o.feedback for o in question.options
            ], where
            fractions = [float(a.get("fraction")) for a in answers]
            assert [f > 0 for f in fractions] == [o.correct for o in question.options], where
            # Moodle adds the chosen options' fractions, floored at 0: exactly the right
            # options earn the whole mark, and any wrong choice loses it.
            assert sum(f for f in fractions if f > 0) == pytest.approx(100, abs=0.001), where
            if question.multiple:
                assert all(f == -100 for f in fractions if f <= 0), where


def _qti_assessments(package: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(package) as archive:
        manifest = archive.read("imsmanifest.xml")
        assert manifest_errors(manifest) == []
        hrefs = etree.fromstring(manifest).xpath(
            "//cp:resource[@type='imsqti_xmlv1p2']/cp:file/@href",
            namespaces={"cp": "http://www.imsproject.org/xsd/imscp_rootv1p1p2"},
        )
        return {href: archive.read(href) for href in hrefs}


def test_qti_validates_against_its_dtd_and_holds_every_quiz(
    exported: Path, quizzes: list[Quiz]
) -> None:
    assessments = _qti_assessments(exported / QTI_NAME)
    assert len(assessments) == len(quizzes)
    for quiz, document in zip(quizzes, assessments.values(), strict=True):
        assert qti_errors(document) == [], quiz.id
        root = etree.fromstring(document)
        assert root.find("assessment").get("ident") == quiz.id
        items = root.findall("assessment/section/item")
        assert len(items) == len(quiz.questions)
        for item, question in zip(items, quiz.questions, strict=True):
            where = f"{quiz.id} question {question.n}"
            fields = {
                f.findtext("fieldlabel"): f.findtext("fieldentry")
                for f in item.iterfind("itemmetadata/qtimetadata/qtimetadatafield")
            }
            kind = "multiple_answers_question" if question.multiple else "multiple_choice_question"
            assert fields["question_type"] == kind, where
            assert _text(item, "presentation/material/mattext") == question.text, where
            labels = item.findall("presentation/response_lid/render_choice/response_label")
            assert [_text(label, "material/mattext") for label in labels] == [
                o.text for o in question.options
            ], where
            feedback = {
                f.get("ident"): _text(f, "flow_mat/material/mattext")
                for f in item.iterfind("itemfeedback")
            }
            assert feedback.pop("general_fb") == question.explanation, where
            idents = [label.get("ident") for label in labels]
            assert feedback == {
                f"{ident}_fb": o.feedback for ident, o in zip(idents, question.options, strict=True)
            }, where
            # The one condition that sets the score names exactly the right options.
            (scoring,) = [
                c
                for c in item.iterfind("resprocessing/respcondition")
                if c.find("setvar") is not None
            ]
            assert scoring.findtext("setvar") == "100"
            chosen = {v.text for v in scoring.iterfind(".//varequal") if v.getparent().tag != "not"}
            refused = {v.text for v in scoring.iterfind(".//not/varequal")}
            right = {i for i, o in zip(idents, question.options, strict=True) if o.correct}
            assert chosen == right, where
            assert refused == (set(idents) - right if question.multiple else set()), where


def test_a_broken_quiz_fails_the_export_at_its_line(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.md").write_text(
        "# Page\n\n```lab-quiz\nid: q\nprompt: P\nquestions: []\n```\n", encoding="utf-8"
    )
    with pytest.raises(FenceError, match=r"docs/page\.md:6:"):
        quiz_export.site_quizzes(docs)


def test_what_an_lms_shows_is_text_never_markup(quizzes: list[Quiz]) -> None:
    quiz = quizzes[0]
    question = quiz.questions[0]
    tricky = replace(question.options[0], text="<b>bold</b> & <script>x</script>")
    question = replace(question, options=(tricky, *question.options[1:]))
    quiz = replace(quiz, questions=(question,))
    moodle = etree.fromstring(quiz_export.moodle_xml([quiz]))
    answer = moodle.find("question[@type='multichoice']/answer")
    assert answer.findtext("text") == "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;x&lt;/script&gt;"
