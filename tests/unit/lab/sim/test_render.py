"""lab.sim.render: transcript, summary and result tables, rendered once for build and worker."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from lab import rpc, run_experiment, validate_params
from lab.sim.figures import seeds_svg
from lab.sim.render import (
    SEEDS_AXIS_TITLE,
    SLOTS,
    STEP_LABELS,
    format_reward,
    method_labels,
    render_episode,
    render_output,
    render_results,
    render_seeds,
    render_summary,
)
from tests.support import html as page_html
from tests.unit.lesson_hooks.fences.test_simulation import parse_html

PREFIX = "lab-simulation"


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    return run_experiment({"turns": 2, "updates": 30})


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return json.loads(rpc.dispatch(name, json.dumps(args)))


def test_every_slot_is_rendered(result: dict[str, Any]) -> None:
    html = render_results(result, PREFIX)
    assert list(html) == list(SLOTS)
    assert html["output"] == ""  # the original code prints nothing


def test_the_transcript_keeps_its_ids_and_the_exercises_labels(result: dict[str, Any]) -> None:
    episode = parse_html(render_episode(result, PREFIX))
    for turn in (1, 2):
        for step in (
            "helper-observation",
            "helper-policy",
            "helper-action",
            "main-observation",
            "joint-output",
            "reward",
            "transition",
        ):
            assert episode.all(id=f"{PREFIX}-t{turn}-{step}"), (turn, step)
    assert set(STEP_LABELS) <= {dt.text for dt in episode.tags("dt")}
    ids = [n.attrs["id"] for n in episode.iter() if "id" in n.attrs]
    assert len(ids) == len(set(ids))


def test_text_from_the_result_is_escaped(result: dict[str, Any]) -> None:
    hostile = copy.deepcopy(result)
    hostile["summary"] = ["<script>alert(1)</script> & more"]
    hostile["episode"]["turns"][0]["agents"][0]["observation"]["text"] = "<img src=x onerror=1>"
    hostile["partners"]["training"][0]["name"] = '"><b>bold</b>'
    html = render_results(hostile, PREFIX)
    joined = "".join(html.values())
    assert "<script>" not in joined and "<img" not in joined and "<b>" not in joined
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in html["summary"]
    assert "&lt;img src=x onerror=1&gt;" in html["episode"]


def test_the_summary_is_the_models_sentences(result: dict[str, Any]) -> None:
    one = parse_html(render_summary({**result, "summary": ["Only this."]}))
    assert [p.text for p in one.tags("p")] == ["Only this."]
    many = parse_html(render_summary({**result, "summary": ["First.", "Second."]}))
    assert [li.text for li in many.tags("li")] == ["First.", "Second."]


def test_a_result_without_a_summary_still_says_where_learning_settled(
    result: dict[str, Any],
) -> None:
    bare = {k: v for k, v in result.items() if k != "summary"}
    text = parse_html(render_summary(bare)).text
    assert text.startswith(f"After {result['updates_done']} updates, learned collaboration ")
    assert render_summary({}) == ""


def test_tables_take_response_ids_and_method_names_from_the_result(
    result: dict[str, Any],
) -> None:
    renamed = copy.deepcopy(result)
    for role in ("helper", "main"):
        for k, response in enumerate(renamed["responses"][role]):
            response["id"] = f"{role}-{k}"
    renamed["methods"] = [{"id": m, "label": f"Method {m}"} for m in method_labels(result)]
    heatmaps = parse_html(render_results(renamed, PREFIX)["heatmaps"])
    assert heatmaps.tags("caption")[0].text.startswith("Method prompted")
    assert "helper-2" in heatmaps.text and "main-1" in heatmaps.text
    curve = parse_html(render_results(renamed, PREFIX)["curve-table"])
    assert [th.text for th in curve.tags("thead")[0].tags("th")][1:] == [
        f"Method {m}" for m in method_labels(result)
    ]


def test_missing_parts_are_left_out_rather_than_failing() -> None:
    html = render_results({}, PREFIX)
    assert set(html) == set(SLOTS)
    assert html["episode"] == html["heatmaps"] == html["partners"] == ""


def test_printed_output_is_escaped_and_says_what_was_cut() -> None:
    assert render_output(None) == render_output({"text": "", "omitted": 0}) == ""
    html = render_output({"text": "<b>hi</b>\n", "omitted": 1234})
    node = parse_html(html)
    assert node.tags("pre")[0].text == "<b>hi</b>"
    assert "1,234 more not shown" in node.tags("p")[0].text


# ------------------------------------------------------------- through rpc


def test_a_run_with_render_carries_the_same_html_the_build_makes() -> None:
    params = {"updates": 20, "seed": 3}
    reply = call("run_simulation", {"params": params, "render": PREFIX})
    html = reply["result"].pop("html")
    assert html == render_results(run_experiment(params), PREFIX)
    # Without "render", the result is the model's alone (the contract other checks use).
    assert "html" not in call("run_simulation", {"params": params})["result"]


def test_check_params_returns_pythons_reasons_and_the_refused_cells() -> None:
    table = [["11", "abc", "0"], ["-30", "7", "6"], ["0", "0", "2000"]]
    reply = call(
        "check_params", {"params": {"table": "custom", "custom_table": table, "updates": "0"}}
    )["result"]
    with pytest.raises(Exception) as refused:
        validate_params({"table": "custom", "custom_table": table, "updates": "0"})
    assert reply["errors"] == refused.value.fields  # type: ignore[attr-defined]
    assert reply["cells"] == [[0, 1], [2, 2]]


def test_check_params_returns_the_checked_values_and_the_tables_best_cell() -> None:
    reply = call("check_params", {"params": {"updates": " 30 ", "table": "penalty"}})["result"]
    assert reply["params"] == validate_params({"updates": 30, "table": "penalty"}).to_json()
    assert reply["best"] == 10
    assert format_reward(reply["best"]) == "10"


def test_the_band_across_seeds_has_a_table_and_a_caption() -> None:
    from lab import run_experiment
    from lab.sim.render import render_results

    run = run_experiment({"seeds": 3, "updates": 30})
    slots = render_results(run, "lab-simulation")
    table = str(slots["curve-table"])
    assert "data-lab-curve-band" in table
    assert "Across seeds 0 to 2: the median of each update" in table
    band = run["curve_band"]["methods"]["learned"]
    assert '<th scope="row">30</th>' in table
    assert "interquartile range" in str(slots["curve-caption"])
    # Every count of seeds has its interval in the seeds table.
    low, high = run["seeds"]["methods"]["learned"]["interval"]
    assert f"{low:.0%} to {high:.0%}" in str(slots["seeds"])
    assert band["median"]


def test_the_partner_bars_have_a_key_and_mark_before_training_and_the_best(
    result: dict[str, Any],
) -> None:
    """Hatching, and where each score stood before training and could be at best, are
    drawn on the bars, so the table's caption keys each of them (issue 23 item 5)."""
    html = render_results(result, PREFIX)["partners"]
    table = page_html.parse_html(html).find("table", "lab-sim__partners")
    key = table.find("caption", "lab-sim__bar-key")
    assert key is not None
    words = key.text()
    for word in ("training partner", "held-out partner (hatched)", "before training"):
        assert word in words
    partners = [*result["partners"]["training"], *result["partners"]["held_out"]]
    assert html.count("lab-sim__bar-mark--before") == len(partners)
    best = sum(s.get("best_response") is not None for s in partners)
    assert html.count("lab-sim__bar-mark--best") == best
    assert ("best possible" in words) == (best > 0)


def _strip(values: list[float]) -> dict[str, Any]:
    """A result of ``len(values)`` seeds whose learned agents end on ``values``."""
    rows = [
        {"seed": seed, "expected_reward": {"learned": v, "centralized": 11.0}}
        for seed, v in enumerate(values)
    ]
    method = {"reached_optimum": 0, "interval": [0, 1], "min": 0, "median": 0, "max": 0}
    return {
        "methods": [
            {"id": "learned", "label": "Learned collaboration (MAGRPO)"},
            {"id": "centralized", "label": "Centralized control"},
        ],
        "optimum": {"reward": 11.0},
        "seeds": {
            "count": len(values),
            "methods": {"learned": method, "centralized": {**method, "reached_optimum": 1}},
            "rows": rows,
        },
    }


def test_across_seeds_merges_only_equal_values_and_stacks_close_ones() -> None:
    """Issue 39: seeds at 5.94 and 5.95 shared one dot; values equal as the page writes
    them (two decimals) share one, labelled with how many, and close ones stack in lanes."""
    html = render_seeds(_strip([5.94, 5.95, 5.9501, 5.9499, -3.0]))
    row = page_html.parse_html(html).one(**{"data-lab-method": "learned", "class": None})
    learned = row.find_all(cls="lab-sim__dot")
    titles = sorted(dot.attrs["title"] for dot in learned)
    assert titles == [
        "Learned collaboration (MAGRPO): -3 (seed 4)",
        "Learned collaboration (MAGRPO): 5.94 (seed 0)",
        "Learned collaboration (MAGRPO): 5.95 (seeds 1, 2, 3)",
    ]
    lanes = sorted(dot.attrs["style"].rsplit("--lab-sim-lane: ", 1)[1] for dot in learned)
    assert lanes == ["0", "0", "1"]  # 5.94 and 5.95 one above the other
    merged = next(dot for dot in learned if "seeds 1, 2, 3" in dot.attrs["title"])
    assert merged.text() == "\u00d73"


def test_across_seeds_has_its_axis_title_as_the_svg_does() -> None:
    html = render_seeds(_strip([5.0, 6.0]))
    chart = page_html.parse_html(html).find(cls="lab-sim__seeds-chart")
    assert chart.find(cls="lab-sim__seeds-axis").text() == SEEDS_AXIS_TITLE
    assert SEEDS_AXIS_TITLE in seeds_svg(_strip([5.0, 6.0]))


@pytest.fixture(scope="module")
def three_seeds() -> dict[str, Any]:
    return run_experiment({"updates": 20, "seeds": 3})


def test_partner_generalization_has_a_scale_with_its_zero(result: dict[str, Any]) -> None:
    """Issue 39: the bars had no scale and no zero."""
    table = page_html.parse_html(render_results(result, PREFIX)["partners"])
    scale = table.one(**{"data-lab-partners-scale": None})
    ticks = [tick.text() for tick in scale.find_all(cls="lab-sim__bar-tick")]
    assert "0" in ticks and len(ticks) == 3, ticks
    assert "median" not in table.text()  # one seed: its own scores


def test_partner_generalization_over_seeds_gives_the_count_and_the_spread(
    three_seeds: dict[str, Any],
) -> None:
    """Issue 39: with several seeds the bars showed the first seed only, with no count."""
    html = render_results(three_seeds, PREFIX)
    table = page_html.parse_html(html["partners"])
    noisy = next(r for r in table.find_all("tr") if "Noisy helper" in r.text())
    scores = sorted(
        s["score"]
        for r in three_seeds["seeds"]["rows"]
        for s in r["partners"]
        if s["name"] == "Noisy helper"
    )
    assert noisy.find(cls="lab-sim__score-value").text() == format_reward(scores[1])
    assert "median of 3 seeds, middle half" in noisy.text()
    assert noisy.find_all(cls="lab-sim__bar-spread")
    assert "Over seeds 0 to 2, each bar is the median of the 3 seeds" in (html["partners-caption"])
