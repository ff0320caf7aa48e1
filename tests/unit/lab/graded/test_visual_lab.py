"""The Visual Lab's checker (lab.graded.visual_lab.check_visual_lab) on the lesson's own."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lab import check_visual_lab
from lab.rpc import dispatch
from lesson_hooks.fences.visual_lab import parse_page
from lesson_hooks.support.paths import ROOT

LESSON = ROOT / "docs" / "lesson.md"


def lesson_spec() -> dict[str, Any]:
    (visual_lab,) = parse_page(LESSON.read_text(encoding="utf-8"), "docs/lesson.md")
    return visual_lab.spec


SPEC = lesson_spec()
CONCEPTS: list[str] = SPEC["concepts"]
PARTS: list[dict[str, Any]] = SPEC["parts"]
NUMBERS = [part["n"] for part in PARTS]


def expected_message(part: dict[str, Any], placed: str | None) -> str:
    if placed is None:
        return f"Part {part['n']} is empty."
    if placed == part["answer"]:
        return part["explanation"]
    return part["feedback"].get(placed) or f"{placed} does not fit this part. Try another concept."


def assert_consistent(placements: dict[str, str | None], result: dict[str, Any]) -> None:
    """Every promise the widget relies on, for any placements."""
    by_part = {part["n"]: part for part in PARTS}
    assert [r["n"] for r in result["parts"]] == NUMBERS
    for r in result["parts"]:
        part = by_part[r["n"]]
        placed = placements.get(str(r["n"]))
        assert r["placed"] == placed
        assert r["correct"] == (None if placed is None else placed == part["answer"])
        assert r["message"] == expected_message(part, placed)
        assert r["message"].strip()
    correct = sum(1 for n in NUMBERS if placements.get(str(n)) == by_part[n]["answer"])
    missing = [n for n in NUMBERS if placements.get(str(n)) is None]
    assert result["score"] == correct
    assert result["total"] == len(PARTS) == 5
    assert result["missing"] == missing
    assert result["summary"].startswith(f"{correct} of 5 correct.")
    for n in missing:
        assert str(n) in result["summary"].split("correct.", 1)[1]
    assert json.loads(json.dumps(result)) == result  # JSON-ready, as the worker sends it


def test_lesson_visual_lab_is_the_sources_five_by_five() -> None:
    assert CONCEPTS == ["Observation", "Policy", "Action", "Reward", "Environment transition"]
    assert [part["answer"] for part in PARTS] == CONCEPTS


@pytest.mark.parametrize("order", list(itertools.permutations(CONCEPTS)), ids=str)
def test_every_complete_assignment(order: tuple[str, ...]) -> None:
    placements = {str(n): concept for n, concept in zip(NUMBERS, order, strict=True)}
    result = check_visual_lab(SPEC, placements)
    assert_consistent(placements, result)
    assert result["missing"] == []
    assert result["summary"] == f"{result['score']} of 5 correct."


def test_all_permutations_cover_every_score_but_four() -> None:
    scores = {
        check_visual_lab(SPEC, dict(zip(map(str, NUMBERS), order, strict=True)))["score"]
        for order in itertools.permutations(CONCEPTS)
    }
    # Four right forces the fifth: a permutation can't score exactly 4.
    assert scores == {0, 1, 2, 3, 5}


@st.composite
def partial_placements(draw: st.DrawFn) -> dict[str, str | None]:
    order = draw(st.permutations(CONCEPTS))
    keep = draw(st.lists(st.booleans(), min_size=len(PARTS), max_size=len(PARTS)))
    explicit_empty = draw(st.booleans())
    placements: dict[str, str | None] = {}
    for n, concept, kept in zip(NUMBERS, order, keep, strict=True):
        if kept:
            placements[str(n)] = concept
        elif explicit_empty:
            placements[str(n)] = None  # the widget sends null for an empty zone
    return placements


@given(partial_placements())
def test_partial_assignments(placements: dict[str, str | None]) -> None:
    assert_consistent(placements, check_visual_lab(SPEC, placements))


@given(partial_placements())
def test_integer_part_keys_mean_the_same(placements: dict[str, str | None]) -> None:
    as_ints = {int(n): concept for n, concept in placements.items()}
    assert check_visual_lab(SPEC, as_ints) == check_visual_lab(SPEC, placements)


def test_empty_parts_are_named_not_counted_wrong() -> None:
    result = check_visual_lab(SPEC, {"1": "Observation", "2": "Action"})
    assert result["score"] == 1
    assert [r["correct"] for r in result["parts"]] == [True, False, None, None, None]
    assert result["missing"] == [3, 4, 5]
    assert result["summary"] == "1 of 5 correct. 3 parts are still empty: 3, 4 and 5."
    assert result["parts"][2]["message"] == "Part 3 is empty."


def test_summary_for_one_empty_part_and_for_none_placed() -> None:
    four = dict(zip(map(str, NUMBERS[:4]), CONCEPTS[:4], strict=True))
    assert check_visual_lab(SPEC, four)["summary"] == "4 of 5 correct. Part 5 is still empty."
    assert check_visual_lab(SPEC, {})["summary"] == (
        "0 of 5 correct. 5 parts are still empty: 1, 2, 3, 4 and 5."
    )


def test_targeted_feedback_for_a_known_wrong_choice() -> None:
    result = check_visual_lab(SPEC, {"2": "Action"})
    assert result["parts"][1]["correct"] is False
    assert result["parts"][1]["message"] == PARTS[1]["feedback"]["Action"]
    assert "the policy" in result["parts"][1]["message"]


def test_generic_hint_for_a_wrong_choice_without_feedback() -> None:
    # The lesson's Visual Lab has a line for every pair; a Visual Lab without one still answers.
    spec = {**SPEC, "parts": [{**part, "feedback": {}} for part in PARTS]}
    wrong = next(c for c in CONCEPTS if c != PARTS[0]["answer"])
    result = check_visual_lab(spec, {"1": wrong})
    assert result["parts"][0]["message"] == f"{wrong} does not fit this part. Try another concept."


@pytest.mark.parametrize(
    ("placements", "error"),
    [
        ({"6": "Policy"}, r"Unknown part '6': this Visual Lab has parts 1, 2, 3, 4 and 5\."),
        ({"0": "Policy"}, r"Unknown part '0'"),
        ({"one": "Policy"}, r"Unknown part 'one'"),
        ({"1": "Token"}, r"Unknown concept 'Token' on part 1: the concepts are 'Observation', "),
        ({"1": "observation"}, r"Unknown concept 'observation'"),
        ({"1": 3}, r"Unknown concept 3 on part 1"),
        ({"1": "Action", "3": "Action"}, r"'Action' is placed on parts 1 and 3"),
        (["Observation"], r"placements must be an object"),
    ],
)
def test_invalid_placements(placements: Any, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        check_visual_lab(SPEC, placements)


def test_the_worker_path_reaches_the_checker() -> None:
    """lab.rpc.dispatch is what the browser's worker calls, JSON in and out."""
    placements = {"1": "Observation", "2": "Action"}
    reply = json.loads(
        dispatch("check_visual_lab", json.dumps({"spec": SPEC, "placements": placements}))
    )
    assert reply == {"result": check_visual_lab(SPEC, placements)}
    error = json.loads(
        dispatch("check_visual_lab", json.dumps({"spec": SPEC, "placements": {"9": "Policy"}}))
    )["error"]
    # A refusal the reader reads, not a bug: no traceback, not unexpected.
    assert error["kind"] == "LabError" and "traceback" not in error
    assert error["message"].startswith("Unknown part '9'")
