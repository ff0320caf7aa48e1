"""The benchmark always finishes its table: a measure that fails lists its rows as failed."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from lab.kinds import KINDS
from tests.conftest import ROOT
from tools import bench as bench_module
from tools.bench import (
    MEASURES,
    PARTIAL_RESULTS,
    RESULTS,
    STOP_ROWS,
    Bench,
    Machine,
    Measure,
    Missing,
    Row,
    machine,
    no_lab,
    plain_configs,
    results_markdown,
    results_path,
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


def test_a_kind_removed_from_kinds_but_not_mkdocs_yml_is_named_with_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bench_module, "KINDS", KINDS[:-1])
    with pytest.raises(RuntimeError) as caught:
        plain_configs()
    # Among them: a kind a contributor removed meanwhile is listed beside it.
    listed = str(caught.value).split("in mkdocs.yml only: [", 1)[1].split("]", 1)[0]
    assert f"'{KINDS[-1].fence}'" in listed.split(", ")
    assert "declare the kind in lab/kinds.py again" in str(caught.value)


def test_only_selects_the_measures_naming_it_after_what_their_ratios_need() -> None:
    rows = [row for measure in selected("→ ready") for row in measure.rows]
    assert rows[0].startswith("bare Pyodide boot") and rows[1].startswith("first visit")
    assert rows[2:] == list(STOP_ROWS.values())
    assert selected(None) == MEASURES
    # Stop, interrupted and restarted, and the time limit the same way, each once.
    names = [row for measure in MEASURES for row in measure.rows]
    assert all(names.count(name) == 1 for name in STOP_ROWS.values())


def test_the_results_page_names_its_date_command_machine_and_holds_the_table() -> None:
    rows = [
        Row("fast", 1.0, 2.0, "ms", "≤ 1", True),
        Row("slow", None, None, "", "", False, "Timeout"),
    ]
    this = Machine(2, "3.8 GiB", "Example CPU @ 2.00GHz", "131.0.6778.85")
    when = datetime.datetime(2026, 12, 4, 9, 30)
    page = results_markdown(rows, when, "./dev bench --runs 1", this, "a bare boot takes 2500 ms")
    lines = page.splitlines()
    assert lines[0] == "# Benchmark results"
    assert "- **Date**: 2026-12-04 09:30" in lines
    assert "- **Command**: `./dev bench --runs 1`" in lines
    assert "- **Machine**: 2 cores, 3.8 GiB of memory, Example CPU @ 2.00GHz" in lines
    assert "- **Browser**: headless Chromium 131.0.6778.85" in lines
    assert "- **Rows**: 2, goal met in 1, failed 1" in lines
    assert table(rows) in page and page.endswith("\n")
    assert "[benchmark.md](benchmark.md)" in page
    assert RESULTS.parent.name == "contributing" and (RESULTS.parent / "benchmark.md").exists()


def test_the_machine_is_read_from_proc_and_unknown_where_it_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "meminfo").write_text("MemTotal:        4194304 kB\nMemFree: 1 kB\n")
    (tmp_path / "cpuinfo").write_text("processor\t: 0\nmodel name\t: Example CPU\n")
    found = machine("120.0", proc=tmp_path)
    assert (found.memory, found.cpu, found.chromium) == ("4.0 GiB", "Example CPU", "120.0")
    assert found.cores >= 1
    empty = machine(proc=tmp_path / "missing")
    assert (empty.memory, empty.cpu, empty.chromium) == ("unknown", "unknown", None)
    page = results_markdown([], datetime.datetime(2026, 1, 1), "./dev bench", empty, "")
    assert "headless Chromium (version not read)" in page


def test_a_run_of_some_measures_leaves_the_guides_full_results_page_alone() -> None:
    """``--only`` writes its part of the table to a scratch file, linked to the guide."""
    assert results_path(None) == RESULTS
    assert results_path("lab cost") == PARTIAL_RESULTS != RESULTS
    # In a folder git ignores: a part of the table is never committed by mistake.
    assert PARTIAL_RESULTS.parent == ROOT / "build"
    assert "/build/" in (ROOT / ".gitignore").read_text("utf-8").splitlines()
    this = Machine(2, "3.8 GiB", "Example CPU", None)
    when = datetime.datetime(2026, 12, 7, 14, 30)
    page = results_markdown([], when, "./dev bench --only x", this, "", None, PARTIAL_RESULTS)
    assert "[benchmark.md](../contributing/benchmark.md)" in page
