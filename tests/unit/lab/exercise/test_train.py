"""lab.exercise.train: a reader's advantage trains the simulation beside the built-in one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lab.core.reader_code import UserCodeError
from lab.exercise.train import train_with_advantage
from lab.rpc import dispatch
from lab.sim.experiment import run_experiment

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
    built_in = run_experiment({**PARAMS, "advantage": "mean"})["mean_reward"]["learned"]
    assert result["builtin"]["final"] == built_in[-1] == pytest.approx(result["yours"]["final"])
    assert [p["update"] for p in result["yours"]["points"]][::4] == [1, 30]


def test_another_advantage_trains_differently_and_the_page_says_so() -> None:
    result = train_with_advantage(SPEC, MAX, PARAMS)
    assert result["match"] is False
    assert result["summary"].startswith("The two runs differ")


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
    assert texts[-1] == "Your advantage: 30 of 30 updates."
    assert "Built-in advantage: 30 of 30 updates." in texts
