"""A run's downloads (lab.core.export): they parse, and hold the result's numbers."""

from __future__ import annotations

import csv
import datetime
import io
import json

from lab import run_experiment, run_language_models
from lab.core.export import exports, file_stem
from lab.kinds import RUNNERS


def files(kind: str, result: dict) -> dict[str, tuple[str, str]]:
    return {f["label"]: (f["name"], f["text"]) for f in exports(RUNNERS[kind], result)["files"]}


def test_names_say_the_lab_the_settings_and_the_date() -> None:
    day = datetime.date(2026, 12, 2)
    stem = file_stem(RUNNERS["simulation"], {"seeds": 20}, day)
    assert stem.startswith("simulation-") and stem.endswith("-2026-12-02")
    assert stem == file_stem(
        RUNNERS["simulation"], {"seeds": 20, "updates": 200}, day
    )  # defaults unsaid
    assert stem != file_stem(RUNNERS["simulation"], {"seeds": 19}, day)


def test_the_language_models_downloads_hold_its_expected_rewards_and_curve() -> None:
    result = run_language_models({"updates": 12})
    got = files("language-models", result)
    assert json.loads(got["Download results (JSON)"][1]) == result
    rows = list(csv.DictReader(io.StringIO(got["Download results (CSV)"][1])))
    assert {r["method"]: float(r["expected_reward"]) for r in rows} == {
        m: v for m, v in result["expected_reward"].items() if v is not None
    }
    curve = list(csv.DictReader(io.StringIO(got["Download the learning curve (CSV)"][1])))
    assert [float(r["mean_reward"]) for r in curve] == result["curve"]
    assert exports(RUNNERS["language-models"], result)["command"].startswith(
        "python3 -m lab run language-models language-models-"
    )


def test_many_language_model_seeds_give_a_row_per_seed_and_method() -> None:
    result = run_language_models({"updates": 5, "seeds": 2, "compare_alone": False})
    rows = list(
        csv.DictReader(io.StringIO(files("language-models", result)["Download results (CSV)"][1]))
    )
    assert [(r["seed"], r["method"]) for r in rows] == [("0", "learned"), ("1", "learned")]


def test_the_simulations_csv_words_truth_as_json_does() -> None:
    result = run_experiment({"updates": 5})
    rows = list(
        csv.DictReader(io.StringIO(files("simulation", result)["Download results (CSV)"][1]))
    )
    assert {r["reached_optimum"] for r in rows} <= {"true", "false"}
