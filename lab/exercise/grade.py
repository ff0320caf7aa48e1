"""Grade a reader's function against an exercise's tests, in the worker and under CPython.

An exercise's spec (written by the build, ``lesson_hooks/fences/exercise.py``)
names the reader's ``function`` and its ``tests``: each a Python ``call`` of
that function, the value it should ``expect``, a ``message`` for the reader and
whether it is ``hidden``. :func:`check_exercise` runs the reader's source as the
simulation lab runs a reader's verifier (:mod:`lab.core.reader_code`): the
reader's own lines in tracebacks, what it prints kept, every stretch in the
reader's code reported to ``watch`` (the page's time limit and Stop), and the
interpreter put back afterwards (:func:`lab.core.isolation.checkpoint`), so one
attempt cannot change what the next one sees.

Each test is reported in a learner's words: the call, what was expected, what
came back (or the exception), and the author's message. A hidden test reports
only whether it passed and its message.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

from lab.core.reader_code import (
    Printed,
    UserCodeError,
    Watch,
    captured,
    check_signature,
    error_from,
    execute,
    find_function,
    inside,
)

__all__ = ["TEST_FILENAME", "check_exercise", "same", "shown", "signature"]

#: The file name a test's call is compiled under (error_from drops its frame: a traceback
#: keeps only the reader's lines).
TEST_FILENAME = "<test>"
#: How close a number must be to the expected one (both relative and absolute).
TOLERANCE = 1e-9

_short = reprlib.Repr()
_short.maxstring = 80
_short.maxother = 80
_short.maxlist = 12


def shown(value: Any) -> str:
    """A value as the reader reads it in feedback: Python's repr, cut short."""
    return _short.repr(value)


def same(expected: Any, got: Any) -> bool:
    """Whether ``got`` is ``expected`` (JSON data): numbers within :data:`TOLERANCE`.

    Only plain values count: a list or tuple for a list, an int or float for a
    number (a bool only for a bool), so nothing the reader defined is asked to compare.
    """
    if isinstance(expected, bool) or expected is None:
        return type(got) is type(expected) and got == expected
    if isinstance(expected, int | float):
        if type(got) not in (int, float):
            return False
        return math.isclose(got, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
    if isinstance(expected, str):
        return type(got) is str and got == expected
    if isinstance(expected, list):
        return (
            type(got) in (list, tuple)
            and len(got) == len(expected)
            and all(same(e, g) for e, g in zip(expected, got, strict=True))
        )
    if isinstance(expected, dict):
        return (
            type(got) is dict
            and set(map(str, got)) == set(expected)
            and all(same(expected[str(k)], v) for k, v in got.items())
        )
    return False


def _call_test(namespace: dict[str, Any], test: Mapping[str, Any], watch: Watch | None) -> Any:
    """The value of the test's call in a copy of the reader's namespace."""
    code = compile(test["call"], TEST_FILENAME, "eval")
    with inside(watch):
        return eval(code, dict(namespace))


def _run_test(
    namespace: dict[str, Any], test: Mapping[str, Any], watch: Watch | None
) -> dict[str, Any]:
    hidden = bool(test.get("hidden"))
    result: dict[str, Any] = {"n": test["n"], "hidden": hidden, "message": test["message"]}
    if not hidden:
        result["call"] = test["call"]
        # As the author wrote it (JSON would have turned 1.0 into 1 on its way here).
        result["expected"] = test.get("shown") or shown(test["expect"])
    try:
        got = _call_test(namespace, test, watch)
    except Exception as err:
        error = error_from(err, f"in {test['call']}" if not hidden else "in a hidden test")
        result.update(passed=False, error=error.message)
        if not hidden:
            result["traceback"] = error.traceback
            if error.line is not None:
                result["line"] = error.line
        return result
    result["passed"] = same(test["expect"], got)
    if not hidden:
        # A repr of the reader's own object runs the reader's code: watched too.
        with inside(watch):
            try:
                result["got"] = shown(got)
            except Exception:
                result["got"] = f"a {type(got).__name__} that cannot be shown"
    return result


def _summary(results: Sequence[Mapping[str, Any]], public_only: bool) -> str:
    passed = sum(1 for r in results if r["passed"])
    total = len(results)
    which = "public tests" if public_only else "tests"
    if passed == total:
        if public_only:
            return f"All {total} public tests pass. Press Check to run the hidden tests too."
        return f"All {total} tests pass. Well done."
    return f"{passed} of {total} {which} pass."


def signature(function: str, parameters: Sequence[str]) -> str:
    """The function as the exercise names it to the reader: ``group_advantage(returns)``."""
    return f"{function}({', '.join(parameters)})"


def check_exercise(
    spec: Mapping[str, Any],
    source: str,
    *,
    public_only: bool = False,
    watch: Watch | None = None,
) -> dict[str, Any]:
    """Run ``source`` and the exercise's tests (only the public ones with ``public_only``).

    Returns ``{"tests": [...], "passed", "score", "total", "summary", "output"}``;
    ``passed`` is whether every test run passed. A source that does not run, or
    lacks the function, returns ``{"error": {message, traceback?, line?}, "passed":
    false, "summary", "output"}`` instead (:class:`lab.core.reader_code.UserCodeError`).
    """
    name = spec["function"]
    call = signature(name, spec["parameters"])
    tests = [t for t in spec["tests"] if not (public_only and t.get("hidden"))]
    count = len(spec["parameters"])
    printed = Printed()
    try:
        with captured(printed):
            namespace = execute(source, watch)
            fn = find_function(namespace, name, call, "in every test", by="Check")
            check_signature(fn, name, call, count, by="Check")
            results = [_run_test(namespace, test, watch) for test in tests]
    except UserCodeError as err:
        return {
            "error": err.to_json(),
            "passed": False,
            "public_only": public_only,
            "summary": f"Your code could not be checked. {err.message}",
            "output": printed.to_json(),
        }
    score = sum(1 for r in results if r["passed"])
    return {
        "tests": results,
        "passed": score == len(results),
        "score": score,
        "total": len(results),
        "public_only": public_only,
        "summary": _summary(results, public_only),
        "output": printed.to_json(),
    }
