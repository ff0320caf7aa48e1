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
#: Each page with exercises, by its built folder and title.
PAGES = {
    ("simulation", "Simulation Lab"): EXERCISES,
    ("language-models", "Language-Model Lab"): parse_page(
        (ROOT / "docs/language-models.md").read_text(encoding="utf-8"), "docs/language-models.md"
    ),
}


def test_a_broken_exercise_fails_the_build_at_its_line(project: Path) -> None:
    edit_fails_at(
        project,
        PAGE,
        "    message: A group of one is its own mean.\n",
        "    mesage: A group of one is its own mean.\n",
        "mesage: A group of one",
        "unknown key 'mesage' in test 5",
    )


def test_a_wrong_solution_the_tests_do_not_catch_stops_the_build_at_it(project: Path) -> None:
    edit_fails_at(
        project,
        PAGE,
        "  - code: |\n      def group_advantage(returns):\n          best = max(returns)\n",
        # The chomping indicator only marks the line.
        "  - code: |-\n      def group_advantage(returns):\n"
        "          best = sum(returns) / len(returns)\n",
        "  - code: |-",
        "wrong solution 3 passes every test (the group's best return as the baseline): add a "
        "test it fails.",
    )


def test_an_expected_value_the_labs_function_disagrees_with_stops_the_build_at_it(
    project: Path,
) -> None:
    edit_fails_at(
        project,
        PAGE,
        "group_advantage([5.0, 5.0, 5.0])\n    expect: [0.0, 0.0, 0.0]\n",
        "group_advantage([5.0, 5.0, 5.0])\n    expect: [0.0, 0.0, 1.0]\n",
        "call: group_advantage([5.0, 5.0, 5.0])",
        "the `expect` of test 3 is [0.0, 0.0, 1.0], but the lab's own function "
        "('group-advantage') returns [0.0, 0.0, 0.0] for group_advantage([5.0, 5.0, 5.0]).",
    )


def test_an_exercise_whose_solution_fails_stops_the_build_at_the_failing_test(
    project: Path,
) -> None:
    edit_fails_at(
        project,
        PAGE,
        "solution: |\n  def group_advantage(returns):\n      mean = sum(returns) / len(returns)\n",
        "solution: |\n  def group_advantage(returns):\n      mean = max(returns)\n",
        "call: group_advantage([1.0, 2.0, 3.0])",
        "the `solution` fails test 1: group_advantage([1.0, 2.0, 3.0]) should return "
        "[-1.0, 0.0, 1.0]; it returned [-2.0, -1.0, 0.0].",
    )


def test_the_built_site_ships_each_exercise_and_its_spec(site: BuiltSite) -> None:
    assert len(EXERCISES) >= 5
    for (folder, _), blocks in PAGES.items():
        html = (site.dir / folder / "index.html").read_text(encoding="utf-8")
        for block in blocks:
            spec_file = site.dir / "assets" / "lab" / "exercises" / f"{block.id}.json"
            shipped = json.loads(spec_file.read_text(encoding="utf-8"))
            assert shipped == block.spec
            # Hidden answers and wrong solutions stay out of what the page ships.
            assert all("expect" not in t for t in shipped["tests"] if t["hidden"])
            assert "wrong" not in shipped
            assert f'data-lab-spec="../assets/lab/exercises/{block.id}.json"' in html
        assert html.count('data-lab="exercise"') == len(blocks)
        assert "```lab-exercise" not in html
    simulation = (site.dir / "simulation" / "index.html").read_text(encoding="utf-8")
    assert 'data-lab-uses="simulation"' in simulation


def test_the_teachers_page_lists_the_exercises_and_prints_their_solutions(
    site: BuiltSite,
) -> None:
    article = parse(site.dir / "teachers" / "index.html").find("article", "md-content__inner")
    listed = normalise(article.find("ol", "lesson-teachers__exercises").text())
    key = normalise(article.find("section", "lesson-teachers__answers").text())
    for (_, title), blocks in PAGES.items():
        for block in blocks:
            assert f"{block.function}({', '.join(block.parameters)}) on {title}:" in listed
            assert normalise(block.solution) in key
            assert normalise(parse_html(inline(block.remarks)).text()) in key
