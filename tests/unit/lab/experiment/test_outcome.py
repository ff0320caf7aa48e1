"""lab.experiment.outcome: the conditions a prediction carries, and a run's outcome sentence."""

from __future__ import annotations

import json

import pytest

from lab.experiment.outcome import (
    ExperimentError,
    check_condition,
    check_report,
    counts_table,
    evaluate,
    experiment_outcome,
    fill_report,
)
from lab.rpc import dispatch
from tests.support.html import parse_html

RESULT = {
    "params": {"group_size": 2},
    "optimum": {"reward": 11.0},
    "seeds": {
        "count": 3,
        "methods": {"learned": {"reached_optimum": 1}, "centralized": {"reached_optimum": 3}},
        "rows": [
            {"seed": 0, "settled_on": {"learned": ["stub + alone", "filter + alone"]}},
            {"seed": 1, "settled_on": {"learned": ["core + delegate", "core + delegate"]}},
            {"seed": 2, "settled_on": {"learned": ["stub + alone", "stub + alone"]}},
        ],
    },
    "partners": {
        "held_out": [
            {"name": "Terse helper", "score": 1.0, "score_before_training": 1.0},
            {"name": "Noisy helper", "score": -1.9994, "score_before_training": 0.2},
        ]
    },
}

SPEC = {
    "id": "t",
    "lab": "simulation",
    "params": {},
    "options": [
        {
            "text": "In most of them.",
            "when": "seeds.methods.learned.reached_optimum > seeds.count / 2",
        },
        {
            "text": "In *some*.",
            "when": "0 < seeds.methods.learned.reached_optimum <= seeds.count / 2",
        },
        {"text": "In `none`.", "when": "seeds.methods.learned.reached_optimum == 0"},
    ],
    "report": "the learned agents reached {optimum.reward} in "
    "{seeds.methods.learned.reached_optimum} of {seeds.count} seeds",
}


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("seeds.count", 3),
        ("seeds.methods['learned'].reached_optimum", 1),
        ("seeds.rows[-1].settled_on.learned[0]", "stub + alone"),
        ("0 < seeds.methods.learned.reached_optimum <= seeds.count / 2", True),
        ("not seeds.count == 3 or optimum.reward - 1 == 10", True),
        ("count(r.settled_on.learned[-1] == 'stub + alone' for r in seeds.rows)", 1),
        (
            "distinct(r.settled_on.learned[0] for r in seeds.rows)",
            ["core + delegate", "stub + alone"],
        ),
        (
            "all(all(c in ['stub + alone', 'filter + alone'] for c in r.settled_on.learned) "
            "for r in seeds.rows if r.seed != 1)",
            True,
        ),
        ("[r.seed for r in seeds.rows if r.seed > 0]", [1, 2]),
        ("named(partners.held_out, 'Noisy helper').score < 0", True),
        ("round(-named(partners.held_out, 'Noisy helper').score * 2, 1)", 4.0),
        ("max(len(seeds.rows), 7)", 7),
    ],
)
def test_a_condition_reads_the_result_as_plain_data(expression: str, value: object) -> None:
    assert evaluate(expression, RESULT) == value


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("", "empty"),
        ("seeds.count >", "invalid syntax"),
        ("__import__('os')", "__import__() is not allowed"),
        ("open('x')", "open() is not allowed"),
        ("seeds.rows.pop()", "is not allowed"),
        ("(lambda: 1)()", "is not allowed"),
        ("seeds.rows[0:2]", "Slices are not allowed"),
        ("[x for x in seeds.rows for y in x]", "only one `for`"),
        ("seeds.count if True else 0", "is not allowed"),
        ("x := 1", "invalid syntax"),
        ("sorted(seeds.rows, key=len)", "no keyword arguments"),
    ],
)
def test_anything_outside_the_small_language_is_refused_before_it_runs(
    expression: str, reason: str
) -> None:
    with pytest.raises(ExperimentError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        check_condition(expression)


def test_a_missing_field_is_named() -> None:
    with pytest.raises(ExperimentError, match=r"The result has no `seeds.method`"):
        evaluate("seeds.method.learned", RESULT)
    with pytest.raises(ExperimentError, match="Nothing named 'Nobody'"):
        evaluate("named(partners.held_out, 'Nobody')", RESULT)
    with pytest.raises(ExperimentError, match="could not be evaluated"):
        evaluate("seeds.count / 0", RESULT)


def test_a_report_needs_a_value_from_the_run_and_balanced_braces() -> None:
    check_report("found {seeds.count}")
    with pytest.raises(ExperimentError, match="must come from the run"):
        check_report("the agents found it")
    with pytest.raises(ExperimentError, match="unmatched"):
        check_report("found {seeds.count} {")
    with pytest.raises(ExperimentError, match="is not allowed"):
        check_report("found {open('x')}")


def test_a_report_shows_numbers_briefly_signs_as_minus_and_lists_as_alternatives() -> None:
    assert fill_report("{optimum.reward}", RESULT) == "11"
    assert fill_report("{named(partners.held_out, 'Noisy helper').score}", RESULT) == "\u22122"
    assert fill_report("{2.754}, {0.5}, {-0.001}", RESULT) == "2.75, 0.5, 0"
    assert (
        fill_report("on {distinct(r.settled_on.learned[-1] for r in seeds.rows)}", RESULT)
        == "on core + delegate, filter + alone or stub + alone"
    )


def test_the_outcome_says_the_prediction_holds_when_the_run_bears_it_out() -> None:
    outcome = experiment_outcome(SPEC, 1, RESULT)
    assert outcome == {
        "text": "You predicted \u201cIn some\u201d; the learned agents reached 11 in 1 of 3 "
        "seeds. Your prediction holds.",
        "report": "the learned agents reached 11 in 1 of 3 seeds",
        "matched": [1],
        "right": True,
        "counts": counts_table(RESULT),
    }


LABELLED = {
    **RESULT,
    "methods": [
        {"id": "learned", "label": "Learned collaboration (MAGRPO)", "exact": False},
        {"id": "centralized", "label": "Centralized control", "exact": True},
    ],
}


def cells(table: str) -> list[list[str]]:
    """A table's rows as a reader reads them, one list of cells per row."""
    rows = parse_html(table).find_all("tr")
    return [[cell.text() for cell in row.children if not isinstance(cell, str)] for row in rows]


def test_the_counts_are_a_table_with_intervals_and_none_for_an_exact_method() -> None:
    """Issue 37: each count once, with its interval; "Centralized control" samples nothing."""
    table = counts_table(LABELLED)
    assert table is not None
    assert cells(table) == [
        ["Method", "Reached the optimum"],
        ["Learned collaboration (MAGRPO)", "1 of 3 (6% to 79%)"],
        ["Centralized control", "every seed (exact)"],
    ]
    assert "somewhere between" not in table
    assert "<caption>Over 3 seeds; under each count, the 95% interval" in table


def test_a_report_says_a_count_the_table_shows_bare_and_keeps_the_interval_of_others() -> None:
    report = (
        "{describe_count(seeds.methods.learned.reached_optimum, seeds.count)}; "
        "{describe_count(count(r.seed > 0 for r in seeds.rows), seeds.count)}"
    )
    assert fill_report(report, LABELLED) == ("1 of 3 seeds; 2 of 3 seeds (21% to 94% of all seeds)")


def test_the_language_models_counts_name_their_methods_and_read_bare_in_the_report() -> None:
    tally = {"seeds": 20, "call": 14, "inline": 6, "optimal": 12, "in_words": {"call": "x"}}
    result = {"seeds": {"count": 20, "learned": tally, "trained_alone": None}}
    table = counts_table(result)
    assert table is not None
    assert cells(table)[1] == [
        "MAGRPO",
        "14 of 20 (48% to 85%)",
        "6 of 20 (15% to 52%)",
        "12 of 20 (39% to 78%)",
    ]
    assert fill_report("{seeds.learned.in_words.call}", result) == "14 of 20 seeds"


@pytest.mark.parametrize(
    "seeds",
    [
        None,  # a single-seed run
        {"count": 1, "methods": {"learned": {"reached_optimum": 1}}},
        {"count": 3, "learned": {"in_words": {}}},  # a tally without counts
    ],
)
def test_a_run_without_a_count_of_seeds_has_no_table(seeds: object) -> None:
    assert counts_table({**RESULT, "seeds": seeds}) is None


def test_the_outcome_names_what_happened_when_the_prediction_was_wrong() -> None:
    outcome = experiment_outcome(SPEC, 2, RESULT)
    assert outcome["text"] == (
        "You predicted \u201cIn none\u201d; the learned agents reached 11 in 1 of 3 seeds. "
        "What happened is \u201cIn some\u201d."
    )
    assert not outcome["right"]


def test_the_outcome_says_so_when_no_prediction_describes_the_run() -> None:
    result = json.loads(json.dumps(RESULT))
    result["seeds"]["methods"]["learned"]["reached_optimum"] = -1
    outcome = experiment_outcome(SPEC, 0, result)
    assert outcome["matched"] == []
    assert outcome["text"].endswith("None of the predictions describes this run.")


@pytest.mark.parametrize("choice", [-1, 3, True, "1", None])
def test_a_prediction_must_be_one_of_the_options(choice: object) -> None:
    with pytest.raises(ExperimentError, match="from 1 to 3"):
        experiment_outcome(SPEC, choice, RESULT)  # type: ignore[arg-type]


def test_the_page_reaches_experiment_outcome_through_the_rpc_layer() -> None:
    reply = json.loads(
        dispatch(
            "experiment_outcome", json.dumps({"experiment": SPEC, "choice": 0, "result": RESULT})
        )
    )
    assert reply["result"]["matched"] == [1]
    assert reply["result"]["text"].endswith("What happened is \u201cIn some\u201d.")
    refused = json.loads(
        dispatch(
            "experiment_outcome", json.dumps({"experiment": SPEC, "choice": 9, "result": RESULT})
        )
    )
    assert refused["error"]["kind"] == "ExperimentError"
