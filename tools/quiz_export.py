"""The site's quizzes for an LMS's own question bank: Moodle XML and QTI 1.2 (Canvas).

``./dev quiz-export`` (``python -m tools.quiz_export [DIR]``) reads every
```` ```lab-quiz ```` block of ``docs/`` with the build's own reader
(:mod:`lesson_hooks.fences.quiz`, so a broken block fails here at its line as
in the build) and writes into ``DIR`` (``dist/`` by default):

- ``llm-cooperative-agents-moodle.xml``: Moodle's XML question format, one
  category per quiz and one multiple-choice question per question, every
  option with its own feedback, the explanation as the general feedback, and
  the answers shuffled by Moodle. A question with several right options takes
  several answers in Moodle: each right option is worth an equal share and a
  wrong one takes the whole mark away (Moodle adds the shares, floored at 0),
  so only exactly the right options earn the full mark, as on the site; a
  partial choice earns its share there, where the site counts it wrong.
- ``llm-cooperative-agents-qti12.zip``: one QTI 1.2 assessment per quiz with
  an IMS content package manifest, as Canvas's "QTI .zip file" import reads it
  (``multiple_choice_question`` / ``multiple_answers_question``, each option's
  feedback, the explanation as the general feedback).
"""

from __future__ import annotations

import sys
import zipfile
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from xml.etree import ElementTree as ET

import yaml

from lab.core.record import SITE
from lesson_hooks.fences.custom import check_unique
from lesson_hooks.fences.quiz import FENCE, Question, Quiz
from lesson_hooks.support.content_package import Resource, manifest
from lesson_hooks.support.paths import ROOT
from tools.lighthouse import IgnoreTags

__all__ = [
    "MOODLE_NAME",
    "QTI_NAME",
    "moodle_fractions",
    "moodle_xml",
    "qti_item_ident",
    "qti_xml",
    "site_quizzes",
    "write",
]

NAME = SITE  # the site's name in file names, as the learner record's
MOODLE_NAME = f"{NAME}-moodle.xml"
QTI_NAME = f"{NAME}-qti12.zip"


def course() -> str:
    """The site's name (``site_name`` in ``mkdocs.yml``): the question bank's top category."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=IgnoreTags)
    return str(config["site_name"])


def site_quizzes(docs: Path = ROOT / "docs") -> list[Quiz]:
    """Every quiz of the site's pages, page by page in file order; ids unique across the site."""
    quizzes: list[Quiz] = []
    for page in sorted(docs.rglob("*.md")):
        path = page.relative_to(docs.parent).as_posix()
        quizzes += FENCE.read_page(page.read_text(encoding="utf-8"), path)
    check_unique(quizzes, FENCE.repeated)
    return quizzes


def _html(text: str) -> str:
    """A plain-text field of the quiz as the HTML an LMS shows (it is text, never markup)."""
    return escape(text, quote=False)


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    ET.SubElement(element, "text").text = text
    return element


# ------------------------------------------------------------------ Moodle XML


def _percent(value: float) -> str:
    """A Moodle fraction: a percentage with at most 5 decimals (its grade list's own precision)."""
    return f"{value:.5f}".rstrip("0").rstrip(".")


def moodle_fractions(question: Question) -> list[str]:
    """Each option's ``fraction``: 100 for the right one; with several, an equal share each
    and -100 for a wrong one, so only exactly the right options earn the whole mark."""
    right = sum(option.correct for option in question.options)
    if not question.multiple:
        return ["100" if option.correct else "0" for option in question.options]
    return [_percent(100 / right) if option.correct else "-100" for option in question.options]


def _moodle_question(quiz: Quiz, question: Question) -> ET.Element:
    element = ET.Element("question", {"type": "multichoice"})
    _text(element, "name", f"{quiz.id} {question.n}: {question.text}"[:255])
    _text(element, "questiontext", _html(question.text), format="html")
    _text(element, "generalfeedback", _html(question.explanation), format="html")
    ET.SubElement(element, "defaultgrade").text = "1"
    ET.SubElement(element, "penalty").text = "0"
    ET.SubElement(element, "hidden").text = "0"
    ET.SubElement(element, "idnumber").text = f"{quiz.id}-q{question.n}"
    ET.SubElement(element, "single").text = "false" if question.multiple else "true"
    ET.SubElement(element, "shuffleanswers").text = "true"
    ET.SubElement(element, "answernumbering").text = "abc"
    ET.SubElement(element, "showstandardinstruction").text = "1"
    for option, fraction in zip(question.options, moodle_fractions(question), strict=True):
        answer = _text(element, "answer", _html(option.text), fraction=fraction, format="html")
        _text(answer, "feedback", _html(option.feedback), format="html")
    return element


def moodle_xml(quizzes: Iterable[Quiz]) -> bytes:
    """Moodle's XML question format: a category per quiz, then its questions."""
    root = ET.Element("quiz")
    for quiz in quizzes:
        category = ET.SubElement(root, "question", {"type": "category"})
        _text(category, "category", f"$course$/top/{course()}/{quiz.id}")
        _text(category, "info", _html(quiz.prompt), format="html")
        root.extend(_moodle_question(quiz, question) for question in quiz.questions)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


# ------------------------------------------------------------------ QTI 1.2


def qti_item_ident(quiz: Quiz, question: Question) -> str:
    return f"{quiz.id}-q{question.n}"


def _field(parent: ET.Element, label: str, entry: str) -> None:
    field = ET.SubElement(parent, "qtimetadatafield")
    ET.SubElement(field, "fieldlabel").text = label
    ET.SubElement(field, "fieldentry").text = entry


def _material(parent: ET.Element, text: str) -> None:
    material = ET.SubElement(parent, "material")
    ET.SubElement(material, "mattext", {"texttype": "text/html"}).text = _html(text)


def _feedback(item: ET.Element, ident: str, text: str) -> None:
    flow = ET.SubElement(ET.SubElement(item, "itemfeedback", {"ident": ident}), "flow_mat")
    _material(flow, text)


def _condition(parent: ET.Element, then: str) -> tuple[ET.Element, ET.Element]:
    """A ``respcondition`` and its ``conditionvar``; ``then`` ("Yes"/"No"): go on to the next."""
    condition = ET.SubElement(parent, "respcondition", {"continue": then})
    return condition, ET.SubElement(condition, "conditionvar")


def _qti_item(quiz: Quiz, question: Question) -> ET.Element:
    ident = qti_item_ident(quiz, question)
    options = [f"{ident}-{i}" for i in range(len(question.options))]
    item = ET.Element("item", {"ident": ident, "title": f"Question {question.n}"})
    metadata = ET.SubElement(ET.SubElement(item, "itemmetadata"), "qtimetadata")
    kind = "multiple_answers_question" if question.multiple else "multiple_choice_question"
    _field(metadata, "question_type", kind)
    _field(metadata, "points_possible", "1")
    _field(metadata, "original_answer_ids", ",".join(options))
    presentation = ET.SubElement(item, "presentation")
    _material(presentation, question.text)
    response = ET.SubElement(
        presentation,
        "response_lid",
        {"ident": "response1", "rcardinality": "Multiple" if question.multiple else "Single"},
    )
    choices = ET.SubElement(response, "render_choice", {"shuffle": "Yes"})
    for option_ident, option in zip(options, question.options, strict=True):
        label = ET.SubElement(choices, "response_label", {"ident": option_ident})
        _material(label, option.text)
    processing = ET.SubElement(item, "resprocessing")
    outcomes = ET.SubElement(processing, "outcomes")
    ET.SubElement(
        outcomes,
        "decvar",
        {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"},
    )
    # The explanation always shows; each chosen option shows its own feedback.
    condition, var = _condition(processing, "Yes")
    ET.SubElement(var, "other")
    ET.SubElement(
        condition, "displayfeedback", {"feedbacktype": "Response", "linkrefid": "general_fb"}
    )
    for option_ident in options:
        condition, var = _condition(processing, "Yes")
        ET.SubElement(var, "varequal", {"respident": "response1"}).text = option_ident
        ET.SubElement(
            condition,
            "displayfeedback",
            {"feedbacktype": "Response", "linkrefid": f"{option_ident}_fb"},
        )
    # The whole mark for exactly the right options.
    condition, var = _condition(processing, "No")
    test = ET.SubElement(var, "and") if question.multiple else var
    for option_ident, option in zip(options, question.options, strict=True):
        if option.correct:
            ET.SubElement(test, "varequal", {"respident": "response1"}).text = option_ident
        elif question.multiple:
            wrong = ET.SubElement(test, "not")
            ET.SubElement(wrong, "varequal", {"respident": "response1"}).text = option_ident
    ET.SubElement(condition, "setvar", {"action": "Set", "varname": "SCORE"}).text = "100"
    _feedback(item, "general_fb", question.explanation)
    for option_ident, option in zip(options, question.options, strict=True):
        _feedback(item, f"{option_ident}_fb", option.feedback)
    return item


def qti_xml(quiz: Quiz) -> bytes:
    """One quiz as a QTI 1.2 assessment (``questestinterop``, ims_qtiasiv1p2p1.dtd)."""
    root = ET.Element("questestinterop")
    assessment = ET.SubElement(root, "assessment", {"ident": quiz.id, "title": quiz.id})
    _field(ET.SubElement(assessment, "qtimetadata"), "cc_maxattempts", "unlimited")
    section = ET.SubElement(assessment, "section", {"ident": "root_section"})
    section.extend(_qti_item(quiz, question) for question in quiz.questions)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def qti_package(quizzes: Sequence[Quiz], path: Path) -> None:
    """The zip Canvas imports: each quiz's assessment and a manifest naming them."""
    # Each resource names its assessment both as its start (href) and as its file, so an
    # importer that reads either finds it.
    resources = [
        Resource(
            quiz.id, "imsqti_xmlv1p2", [f"{quiz.id}/{quiz.id}.xml"], href=f"{quiz.id}/{quiz.id}.xml"
        )
        for quiz in quizzes
    ]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("imsmanifest.xml", manifest(f"{NAME}-qti", course(), resources))
        for quiz in quizzes:
            archive.writestr(f"{quiz.id}/{quiz.id}.xml", qti_xml(quiz))


def write(out: Path, quizzes: Sequence[Quiz] | None = None) -> list[Path]:
    """Both files into ``out``; their paths."""
    quizzes = site_quizzes() if quizzes is None else quizzes
    out.mkdir(parents=True, exist_ok=True)
    moodle, qti = out / MOODLE_NAME, out / QTI_NAME
    moodle.write_bytes(moodle_xml(quizzes))
    qti_package(quizzes, qti)
    return [moodle, qti]


def main(argv: Sequence[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "dist"
    quizzes = site_quizzes()
    count = f"{len(quizzes)} quiz" + ("zes" if len(quizzes) != 1 else "")
    for path in write(out, quizzes):
        print(f"==> {path} ({count})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
