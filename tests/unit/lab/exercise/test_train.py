"""lab.exercise.train: a reader's advantage trains the simulation beside the built-in one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lab.core.reader_code import UserCodeError
from lab.exercise.train import train_with_advantage
from lab.rpc import dispatch
from lab.sim.experiment import run_experiment
from lab.sim.user_code import original_source, run_with_code

SPEC: dict[str, Any] = {"function": "advantage", "parameters": ["returns"]}
PARAMS = {"updates": 30, "seed": 2}
MEAN = (
    "def advantage(returns):\n"
    "    m = sum(returns) / len(returns)\n"
    "    return [r - m for r in returns]\n"
)
MAX = "def advantage(returns):\n    m = max(returns)\n    return [r - m for r in returns]\n"


def test_the_mean_advantage_matches_the_built_in_run() -> None:
    result = train_with_advantage(SPEC, MEAN, PARAMS)
    assert result["match"] is True
    assert result["summary"].startswith("The two runs match")
    # The final value is the expected reward the lab reports, not the last group's mean.
    lab = run_experiment({**PARAMS, "advantage": "mean"})
    assert result["builtin"]["final"] == lab["expected_reward"]["learned"]
    assert result["yours"]["final"] == pytest.approx(result["builtin"]["final"])
    assert (
        f"Expected reward at the end: {lab['expected_reward']['learned']:.2f}." in result["summary"]
    )
    assert [p["update"] for p in result["yours"]["points"]][::4] == [1, 30]
    assert (result["first_group"], result["parted"]) == (None, None)


def test_another_advantage_trains_differently_and_the_page_says_where() -> None:
    result = train_with_advantage(SPEC, MAX, PARAMS)
    assert result["match"] is False
    assert result["summary"].startswith("The two runs differ (30 updates, seed 2;")
    group = result["first_group"]
    assert (group["seed"], group["update"]) == (2, 1)
    m = max(group["returns"])
    assert group["yours"] == [r - m for r in group["returns"]]
    assert (
        "Your advantages first differ from the built-in ones at update 1 of seed 2"
        in result["summary"]
    )
    parted = result["parted"]
    assert parted["builtin"] != parted["yours"]
    assert f"first part at update {parted['update']} of seed 2" in result["summary"]
    # The table lists the update where the curves part.
    assert parted["update"] in [p["update"] for p in result["yours"]["points"]]


def test_leave_one_out_is_told_apart_even_when_the_points_read_the_same() -> None:
    """The review's case: the mean times n / (n - 1) ends where the mean does, to two decimals,
    yet the runs differ; the page says where and by how much."""
    loo = (
        "def advantage(returns):\n"
        "    n = len(returns)\n"
        "    m = sum(returns) / n\n"
        "    return [(r - m) * n / (n - 1) for r in returns]\n"
    )
    result = train_with_advantage(SPEC, loo, {"updates": 60, "seed": 0})
    assert result["match"] is False
    summary = result["summary"]
    assert "for the returns [" in summary and "the largest gap is" in summary
    assert "as the lab reports it:" in summary


def test_the_pages_seeds_are_all_run() -> None:
    result = train_with_advantage(SPEC, MEAN, {**PARAMS, "seeds": 3})
    assert result["match"] is True and result["seeds"] == 3
    assert "seeds 2 to 4" in result["summary"]
    lab = run_experiment({**PARAMS, "advantage": "mean", "seeds": 3})
    assert result["builtin"]["final"] == pytest.approx(lab["seeds"]["methods"]["learned"]["mean"])
    assert "the mean over 3 seeds" in result["summary"]


def test_the_readers_edited_verifier_and_prior_are_used() -> None:
    # A verifier that pays for the stub alone: the reader's lab, not the built-in one.
    edited = original_source().replace("return table[row][col]", "return float(row == 2)")
    assert edited != original_source()
    result = train_with_advantage(SPEC, MEAN, PARAMS, lab_code=edited)
    assert result["edited_code"] is True and result["match"] is True
    assert "your edited verifier and prior" in result["summary"]
    lab = run_with_code({**PARAMS, "advantage": "mean"}, edited)
    assert result["builtin"]["final"] == lab["expected_reward"]["learned"]
    # The lab's own code, sent unedited, is the lab's verifier and prior.
    same = train_with_advantage(SPEC, MEAN, PARAMS, lab_code=original_source())
    assert same["edited_code"] is False and "the lab's verifier and prior" in same["summary"]


def test_the_readers_error_while_training_names_its_line() -> None:
    source = "def advantage(returns):\n    return [r / 0 for r in returns]\n"
    with pytest.raises(UserCodeError) as caught:
        train_with_advantage(SPEC, source, PARAMS)
    assert caught.value.line == 2


def test_an_advantage_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(UserCodeError, match="one finite number per return"):
        train_with_advantage(SPEC, "def advantage(returns):\n    return [0.0]\n", PARAMS)


def test_the_worker_reports_both_runs_progress() -> None:
    seen: list[dict[str, Any]] = []
    args = json.dumps({"spec": SPEC, "code": MEAN, "params": PARAMS})
    reply = json.loads(dispatch("train_with_exercise", args, seen.append))
    assert reply["result"]["match"] is True
    texts = [p["text"] for p in seen if "text" in p]
    assert texts[-1] == "Training both, 30 of 30 updates."
