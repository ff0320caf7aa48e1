"""The build checks each coding exercise, its solution against its own tests, and ships
its spec; the teacher's page lists the exercises and prints their solutions."""

from __future__ import annotations

import json
from pathlib import Path

from lesson_hooks.fences.exercise import parse_page
from lesson_hooks.fences.experiment import inline
from tests.conftest import ROOT, BuiltSite
from tests.support.html import normalise, parse, parse_html
from tests.support.located import edit_fails_at

PAGE = "docs/simulation.md"
EXERCISES = parse_page((ROOT / PAGE).read_text(encoding="utf-8"), PAGE)


def test_a_broken_exercise_fails_the_build_at_its_line(project: Path) -> None:
    edit_fails_at(
        project,
        PAGE,
        "    message: Row is the helper's response, column the main agent's.\n",
        "    mesage: Row is the helper's response, column the main agent's.\n",
        "mesage: Row",
        "unknown key 'mesage' in test 3",
    )


def test_an_exercise_whose_solution_fails_stops_the_build_at_the_failing_test(
    project: Path,
) -> None:
    edit_fails_at(
        project,
        PAGE,
        "group_advantage([5.0, 5.0, 5.0])\n    expect: [0.0, 0.0, 0.0]\n",
        "group_advantage([5.0, 5.0, 5.0])\n    expect: [0.0, 0.0, 1.0]\n",
        "call: group_advantage([5.0, 5.0, 5.0])",
        "the `solution` fails test 3: group_advantage([5.0, 5.0, 5.0]) should return "
        "[0.0, 0.0, 1.0]; it returned [0.0, 0.0, 0.0].",
    )


def test_the_built_site_ships_each_exercise_and_its_spec(site: BuiltSite) -> None:
    assert len(EXERCISES) >= 3
    html = (site.dir / "simulation" / "index.html").read_text(encoding="utf-8")
    for block in EXERCISES:
        spec_file = site.dir / "assets" / "lab" / "exercises" / f"{block.id}.json"
        assert json.loads(spec_file.read_text(encoding="utf-8")) == block.spec
        assert f'data-lab-spec="../assets/lab/exercises/{block.id}.json"' in html
    assert html.count('data-lab="exercise"') == len(EXERCISES)
    assert 'data-lab-uses="simulation"' in html
    assert "```lab-exercise" not in html


def test_the_teachers_page_lists_the_exercises_and_prints_their_solutions(
    site: BuiltSite,
) -> None:
    article = parse(site.dir / "teachers" / "index.html").find("article", "md-content__inner")
    listed = normalise(article.find("ol", "lesson-teachers__exercises").text())
    key = normalise(article.find("div", "lesson-teachers__answers").text())
    for block in EXERCISES:
        assert f"{block.function}({', '.join(block.parameters)}) on Simulation Lab:" in listed
        assert normalise(block.solution) in key
        assert normalise(parse_html(inline(block.remarks)).text()) in key
