"""The build validates quizzes, naming file and line, and ships their specs."""

from __future__ import annotations

import json
from pathlib import Path

from lesson_hooks.fences.quiz import parse_page
from tests.build.test_visual_lab_build import LESSON
from tests.conftest import ROOT, BuiltSite
from tests.support.located import edit_fails_at


def test_a_quiz_option_without_feedback_fails_the_build_at_its_line(project: Path) -> None:
    edit_fails_at(
        project,
        LESSON,
        "        feedback: Communication alone does not make a problem cooperative. "
        "What matters is whether the agents share one reward.\n",
        "        feedbak: x\n",
        "feedbak: x",
        "unknown key 'feedbak' in option 3 of question 1",
    )


def test_the_built_site_ships_the_quiz_and_its_spec(site: BuiltSite) -> None:
    (quiz,) = parse_page((ROOT / LESSON).read_text(encoding="utf-8"), LESSON)
    spec_file = site.dir / "assets" / "lab" / "quizzes" / f"{quiz.id}.json"
    assert json.loads(spec_file.read_text(encoding="utf-8")) == quiz.spec
    html = (site.dir / "lesson" / "index.html").read_text(encoding="utf-8")
    assert html.count('data-lab="quiz"') == 1
    assert f'data-lab-spec="../assets/lab/quizzes/{quiz.id}.json"' in html
    assert html.count("<fieldset") == len(quiz.questions)
    assert "```lab-quiz" not in html
