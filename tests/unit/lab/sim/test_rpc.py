"""lab.sim.rpc: a run validates its settings once, and its refusal is what the page shows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lab import ParamError, rpc, validate_params

TABLE = [["11", "abc", "0"], ["-30", "7", "6"], ["0", "0", "2000"]]
REFUSED = {"table": "custom", "custom_table": TABLE, "updates": "0"}


def call(name: str, args: dict[str, Any], progress: Any = None) -> dict[str, Any]:
    return json.loads(rpc.dispatch(name, json.dumps(args), progress))


def test_a_refused_run_names_each_fields_reason_and_the_tables_refused_cells() -> None:
    seen: list[dict[str, Any]] = []
    reply = call("run_simulation", {"params": REFUSED}, seen.append)
    with pytest.raises(ParamError) as refused:
        validate_params(REFUSED)
    assert reply["error"] == {
        "kind": "ParamError",
        "message": refused.value.message,
        "fields": refused.value.fields,
        "cells": [[0, 1], [2, 2]],
    }
    assert seen == [], "a refused run reports nothing: nothing ran"


def test_a_refusal_without_the_custom_table_names_no_cells() -> None:
    error = call("run_simulation", {"params": {"updates": "0"}})["error"]
    assert set(error) == {"kind", "message", "fields"}


def test_check_params_gives_the_runs_verdict_without_running() -> None:
    checked = call("check_params", {"params": REFUSED})["result"]
    error = call("run_simulation", {"params": REFUSED})["error"]
    assert (checked["errors"], checked["cells"]) == (error["fields"], error["cells"])


def test_an_accepted_run_first_reports_its_checked_settings_and_best_cell(monkeypatch) -> None:
    checks: list[Any] = []
    original = validate_params

    def counted(data: Any) -> Any:
        checks.append(data)
        return original(data)

    monkeypatch.setattr("lab.sim.rpc.validate_params", counted)
    monkeypatch.setattr("lab.sim.experiment.validate_params", counted)
    seen: list[dict[str, Any]] = []
    params = {"updates": " 20 ", "table": "penalty"}
    result = call("run_simulation", {"params": params}, seen.append)["result"]
    assert seen[0] == {"params": result["params"], "best": 10}
    assert "update" in seen[1]
    assert len(checks) == 1, "the settings are validated once per run"
