"""The browser's entry into ``lab``: JSON in, ``{result}`` or ``{error}`` out."""

from __future__ import annotations

import json
import re

from lab import rpc
from lab.core.errors import LabError
from lab.core.rules import INTERRUPTED
from lesson_hooks.support.paths import ROOT


def call(name: str, args: object, progress=None) -> dict:
    return json.loads(rpc.dispatch(name, json.dumps(args), progress))


def test_a_call_returns_its_result() -> None:
    assert call("ping", {"value": 0.5}) == {"result": {"pong": 0.5}}


def test_an_unknown_call_is_named() -> None:
    reply = call("nope", {})
    assert reply["error"]["message"] == "Unknown lab call 'nope'."


def test_a_lab_error_keeps_its_fields(monkeypatch) -> None:
    def refuse(args, progress):
        raise LabError("Invalid parameters.", {"seed": "Must be a whole number."})

    monkeypatch.setitem(rpc.CALLS, "refuse", refuse)
    assert call("refuse", {}) == {
        "error": {
            "kind": "LabError",
            "message": "Invalid parameters.",
            "fields": {"seed": "Must be a whole number."},
        }
    }


def test_an_unexpected_error_carries_a_traceback_and_says_it_is_unexpected(monkeypatch) -> None:
    def crash(args, progress):
        return 1 / 0

    monkeypatch.setitem(rpc.CALLS, "crash", crash)
    error = call("crash", {})["error"]
    assert error["kind"] == "ZeroDivisionError"
    assert "Traceback" in error["traceback"]
    assert error["unexpected"] is True


def test_a_stopped_call_answers_as_interrupted_without_a_traceback(monkeypatch) -> None:
    """Stop raises KeyboardInterrupt in Python (the page's interrupt buffer); the reply
    is the one the page waits for (INTERRUPTED, which the page imports from the build's
    rules.js), with nothing to format."""

    def loop(args, progress):
        raise KeyboardInterrupt

    monkeypatch.setitem(rpc.CALLS, "loop", loop)
    assert call("loop", {}) == {"error": {"kind": INTERRUPTED, "message": "Stopped."}}


def test_progress_reaches_the_caller(monkeypatch) -> None:
    def count(args, progress):
        for i in range(args["n"]):
            progress({"i": i})
        return args["n"]

    monkeypatch.setitem(rpc.CALLS, "count", count)
    seen: list[dict] = []
    assert call("count", {"n": 3}, seen.append) == {"result": 3}
    assert seen == [{"i": 0}, {"i": 1}, {"i": 2}]


def test_a_simulation_run_streams_its_learning_curve() -> None:
    seen: list[dict] = []
    reply = call("run_simulation", {"params": {"updates": 40, "seed": 3}}, seen.append)
    result = reply["result"]
    assert result["updates_done"] == 40
    assert seen, "no progress was reported"
    assert seen[-1]["mean_reward"]["learned"] == result["mean_reward"]["learned"]


def test_invalid_simulation_parameters_are_refused_field_by_field() -> None:
    reply = call("run_simulation", {"params": {"updates": 0, "turns": 3}}, None)
    assert reply["error"]["kind"] == "ParamError"
    assert set(reply["error"]["fields"]) == {"updates", "turns"}


# What a script asks the worker for: `runtime.call("name", …)`, `this.call("name", …)`,
# or a base's `{ call: "name" }` option (graded.js, run-lab.js).
_CALLED = re.compile(r'(?:\.call\(\s*|\bcall:\s*)"([A-Za-z_]\w*)"')


def test_every_call_the_page_makes_is_one_python_answers() -> None:
    scripts = (ROOT / "docs" / "assets" / "lab").rglob("*.js")
    called = {
        (path.relative_to(ROOT).as_posix(), name)
        for path in scripts
        for name in _CALLED.findall(path.read_text(encoding="utf-8"))
    }
    assert {name for _, name in called} >= {"run_simulation", "check_quiz", "experiment_outcome"}
    unknown = sorted((path, name) for path, name in called if name not in rpc.CALLS)
    assert unknown == [], (
        f"calls lab.rpc.CALLS does not answer: {unknown}. A kind's calls reach it through "
        "its Kind(..., calls=<package>_rpc.CALLS) in KINDS (lab/kinds.py): declare the kind "
        "whose widget makes them, or remove the widget."
    )
