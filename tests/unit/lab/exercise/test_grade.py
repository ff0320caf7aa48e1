"""lab.exercise.grade: a reader's function against public and hidden tests, as in the worker."""

from __future__ import annotations

import builtins
import json
import sys
from typing import Any

import pytest

import lab.core.advantages
from lab.core.reader_code import FILENAME, MAX_OUTPUT
from lab.exercise.grade import check_exercise, same
from lab.rpc import dispatch

SPEC: dict[str, Any] = {
    "id": "mean-advantage",
    "function": "advantage",
    "parameters": ["returns"],
    "tests": [
        {"n": 1, "call": "advantage([1.0, 2.0, 3.0])", "expect": [-1.0, 0.0, 1.0],
         "shown": "[-1.0, 0.0, 1.0]", "message": "The mean is 2.", "hidden": False},
        {"n": 2, "call": "advantage([5.0, 5.0])", "expect": [0.0, 0.0],
         "message": "Equal returns, no advantage.", "hidden": True},
    ],
}  # fmt: skip
RIGHT = (
    "def advantage(returns):\n"
    "    m = sum(returns) / len(returns)\n"
    "    return [r - m for r in returns]\n"
)
WRONG = "def advantage(returns):\n    return list(returns)\n"


def test_a_right_function_passes_every_test() -> None:
    result = check_exercise(SPEC, RIGHT)
    assert (result["passed"], result["score"], result["total"]) == (True, 2, 2)
    assert result["summary"] == "All 2 tests pass. Well done."


def test_public_only_runs_the_public_tests_and_says_the_hidden_ones_remain() -> None:
    result = check_exercise(SPEC, RIGHT, public_only=True)
    assert [t["n"] for t in result["tests"]] == [1]
    assert "Press Check to run the hidden tests too." in result["summary"]


def test_a_public_failure_says_the_call_what_was_expected_and_what_came_back() -> None:
    (public, hidden) = check_exercise(SPEC, WRONG)["tests"]
    assert public == {
        "n": 1,
        "hidden": False,
        "message": "The mean is 2.",
        "call": "advantage([1.0, 2.0, 3.0])",
        "expected": "[-1.0, 0.0, 1.0]",
        "passed": False,
        "got": "[1.0, 2.0, 3.0]",
    }
    # A hidden test grades without showing its call or its values.
    assert hidden == {"n": 2, "hidden": True, "message": "Equal returns, no advantage.",
                      "passed": False}  # fmt: skip


def test_the_readers_exception_names_the_readers_line_in_its_traceback() -> None:
    source = "def advantage(returns):\n    total = 0\n    return [r / total for r in returns]\n"
    test = check_exercise(SPEC, source)["tests"][0]
    assert test["passed"] is False
    assert test["line"] == 3
    assert test["error"].startswith("Line 3, in advantage([1.0, 2.0, 3.0]): ZeroDivisionError")
    assert FILENAME in test["traceback"] and "grade.py" not in test["traceback"]


@pytest.mark.parametrize(
    ("source", "words", "line"),
    [
        ("def advantage(returns)\n    return returns\n", "Line 1: SyntaxError", 1),
        ("def advantages(returns):\n    return returns\n", "no function named advantage", None),
        ("def advantage():\n    return []\n", "must accept one argument: Check calls", 1),
        ("import nothing_here\n", "while running your code", 1),
    ],
)
def test_code_that_cannot_be_checked_says_why(source: str, words: str, line: int | None) -> None:
    result = check_exercise(SPEC, source)
    assert result["passed"] is False and "tests" not in result
    assert words in result["error"]["message"]
    assert result["error"].get("line") == line
    assert result["summary"].startswith("Your code could not be checked.")


def test_what_the_code_prints_is_kept_up_to_the_limit() -> None:
    source = RIGHT.replace("    m =", "    print('group', returns)\n    m =")
    assert check_exercise(SPEC, source)["output"] == {
        "text": "group [1.0, 2.0, 3.0]\ngroup [5.0, 5.0]\n",
        "omitted": 0,
    }
    flood = "print('x' * 20000)\n" + RIGHT
    output = check_exercise(SPEC, flood)["output"]
    assert (len(output["text"]), output["omitted"]) == (MAX_OUTPUT, 20001 - MAX_OUTPUT)
    # A failed load keeps what was printed before it, too.
    assert check_exercise(SPEC, "print('hi')\n1 / 0\n")["output"]["text"] == "hi\n"


def test_one_attempt_cannot_change_what_the_next_sees() -> None:
    meddling = (
        "import builtins, lab.core.advantages\n"
        "builtins.sum = lambda xs: 0\n"
        "lab.core.advantages.BASELINES = ()\n" + RIGHT
    )
    check_exercise(SPEC, meddling)
    assert builtins.sum([1, 2]) == 3
    assert lab.core.advantages.BASELINES[0] == "mean"
    # Tests are isolated from each other too: each call gets its own namespace copy.
    leaky = (
        "seen = []\ndef advantage(returns):\n    seen.append(1)\n    return [0.0] * len(returns)\n"
    )
    spec = {**SPEC, "tests": [{**SPEC["tests"][0], "call": "len(seen) and advantage([1.0])"}]}
    assert check_exercise(spec, leaky)["tests"][0]["got"] == "0"
    assert check_exercise(spec, leaky)["tests"][0]["got"] == "0"


def test_every_stretch_in_the_readers_code_is_watched() -> None:
    events: list[bool] = []
    check_exercise(SPEC, RIGHT, watch=events.append)
    # Loading the code; then for each test, a fresh run of it, the call, and (public only)
    # the value shown.
    assert events == [True, False] * 6


def test_a_runaway_loop_is_ended_by_the_time_limits_interrupt_and_python_put_back() -> None:
    """The page's time limit stops Python as Stop does: a KeyboardInterrupt inside the
    reader's code. Here a trace function raises it in the reader's endless loop once
    the loop has run a thousand lines, as the page's interrupt would after 5 s."""
    source = (
        "import builtins\n"
        "builtins.sum = None\n"
        "def advantage(returns):\n"
        "    while True:\n"
        "        pass\n"
    )
    lines = [0]

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename == FILENAME and event == "line":
            lines[0] += 1
            if lines[0] > 1000:
                raise KeyboardInterrupt
        return trace

    def watch(inside: bool) -> None:
        if inside:
            sys.settrace(trace)

    with pytest.raises(KeyboardInterrupt):
        check_exercise(SPEC, source, watch=watch)
    # Python is put back: the reader's builtins.sum and the trace function are gone.
    assert builtins.sum([1]) == 1
    assert sys.gettrace() is None or sys.gettrace() is not trace


@pytest.mark.parametrize(
    ("expected", "got", "result"),
    [
        ([1.0, 2.0], [1, 2.0000000000001], True),
        ([1.0, 2.0], (1.0, 2.0), True),
        ([1.0], [1.1], False),
        (1.0, True, False),
        (True, 1, False),
        ({"a": 1}, {"a": 1.0}, True),
        ("x", "x", True),
        ([0.0], [float("nan")], False),
        (None, None, True),
    ],
)
def test_same_compares_numbers_within_a_tolerance_and_plain_data_only(
    expected: Any, got: Any, result: bool
) -> None:
    assert same(expected, got) is result


def test_the_worker_calls_it_and_reports_entering_the_readers_code() -> None:
    seen: list[dict[str, Any]] = []
    args = json.dumps({"spec": SPEC, "code": RIGHT, "public_only": True})
    reply = json.loads(dispatch("check_exercise", args, seen.append))
    assert reply["result"]["passed"] is True
    assert {"in_user_code": True} in seen and seen[-1] == {"in_user_code": False}
