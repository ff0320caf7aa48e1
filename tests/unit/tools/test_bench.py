"""The benchmark always finishes its table: a measure that fails lists its rows as failed."""

from __future__ import annotations

from pathlib import Path

from lab.kinds import KINDS
from tools.bench import (
    MEASURES,
    STOP_ROWS,
    Bench,
    Measure,
    Missing,
    Row,
    no_lab,
    plain_configs,
    selected,
    table,
    take_all,
)


def bench(messages: list[str]) -> Bench:
    return Bench(None, None, "http://a/", "http://b/", 1, Path("."), messages.append)  # type: ignore[arg-type]


def test_a_failed_measure_is_listed_with_its_reason_and_the_rest_still_run() -> None:
    def timeout(b: Bench) -> list[Row]:
        raise TimeoutError("Page.goto: Timeout 60000ms exceeded.\nCall log: …")

    def later(b: Bench) -> list[Row]:
        return [Row("later", 1.0, 2.0, "ms", "≤ 1", True)]

    rows: list[Row] = []
    messages: list[str] = []
    take_all(bench(messages), [Measure(("a", "b"), timeout), Measure(("later",), later)], rows)
    assert [r.name for r in rows] == ["a", "b", "later"]
    assert rows[0].failed == rows[1].failed == "Page.goto: Timeout 60000ms exceeded."
    assert rows[2].failed is None
    printed = table(rows)
    assert (
        "| a | failed |" in printed
        and "**FAILED**: Page.goto: Timeout 60000ms exceeded." in printed
    )
    assert "| later | 1.0 ms | 2.0 ms | 0.50 | ≤ 1 | yes |" in printed


def test_a_measure_needing_a_missing_figure_fails_saying_which() -> None:
    def needs(b: Bench) -> list[Row]:
        return [Row("x", 1.0, b.need("first visit"), "ms", "≤ 1", True)]

    rows: list[Row] = []
    take_all(bench([]), [Measure(("x",), needs)], rows)
    assert rows[0].failed == "needs the first visit figure, which was not measured"
    assert issubclass(Missing, Exception)


def test_a_measure_must_report_the_rows_it_named() -> None:
    rows: list[Row] = []
    take_all(bench([]), [Measure(("x",), lambda b: [])], rows)
    assert rows[0].name == "x" and rows[0].failed and "reported [], not ('x',)" in rows[0].failed


def test_the_build_without_labs_swaps_every_lab_block_and_drops_the_labs_files() -> None:
    base, plain = plain_configs().values()
    assert ".formatter" not in base.split("markdown_extensions:")[1]
    assert base.count("!!python/name:tools.bench.no_lab") == len(KINDS)
    assert "fences/hook.py" not in plain and "assets/lab/" not in plain
    assert "lesson_hooks/build/katex.py" in plain  # the pages keep their math
    assert no_lab("id: x", "lab-quiz", "lab-quiz", {}, None) == ""


def test_only_selects_the_measures_naming_it_after_what_their_ratios_need() -> None:
    rows = [row for measure in selected("→ ready") for row in measure.rows]
    assert rows[0].startswith("bare Pyodide boot") and rows[1].startswith("first visit")
    assert rows[2:] == list(STOP_ROWS.values())
    assert selected(None) == MEASURES
    # Stop, interrupted and restarted, and the time limit the same way, each once.
    names = [row for measure in MEASURES for row in measure.rows]
    assert all(names.count(name) == 1 for name in STOP_ROWS.values())
