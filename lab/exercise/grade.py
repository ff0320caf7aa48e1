"""Grade a reader's function against an exercise's tests, in the worker and under CPython.

An exercise's spec (written by the build, ``lesson_hooks/fences/exercise.py``)
names the reader's ``function`` and its ``tests``: each a Python ``call`` of
that function, the value it should ``expect``, a ``message`` for the reader and
whether it is ``hidden``; and, with ``reference``, one of
:data:`lab.exercise.references.REFERENCES`: the lab's own function under the
exercise's names. A hidden test then ships without its ``expect`` (the value
is the reference's value of the call, computed here), and Check adds a
property test: the reader's function against the reference on random inputs
drawn from a seed the page shows when it fails.

:func:`check_exercise` runs the reader's source as the simulation lab runs a
reader's verifier (:mod:`lab.core.reader_code`): the reader's own lines in
tracebacks, what it prints kept, every stretch in the reader's code reported to
``watch`` (the page's time limit and Stop), and the interpreter put back
afterwards (:func:`lab.core.isolation.checkpoint`). Each test (the property
test's calls together) runs the source again in fresh globals, with the
interpreter put back after it, so no test can depend on what an earlier one
did. Every expected value is computed before the reader's code first runs, so
that code cannot change the reference.

Each test is reported in a learner's words: the call, what was expected, what
came back (or the exception), and the author's message. A hidden test reports
only whether it passed and its message; the property test, the random call it
failed on.
"""

from __future__ import annotations

import builtins
import math
import random
import reprlib
from collections.abc import Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from lab.core import reader_code
from lab.core.errors import LabError
from lab.core.isolation import checkpoint
from lab.exercise.references import REFERENCES, Reference

__all__ = [
    "TEST_FILENAME",
    "check_exercise",
    "draw_seed",
    "property_cases",
    "reference_value",
    "same",
    "shown",
    "signature",
]

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


def _value(call: str, names: Mapping[str, Any]) -> Any:
    """``call`` evaluated with ``names`` (the reader's namespace, or the reference's)."""
    code = compile(call, TEST_FILENAME, "eval")
    return eval(code, {"__builtins__": builtins, **names})


def reference_value(call: str, reference: Reference) -> Any:
    """What ``call`` returns with the lab's own functions under the exercise's names."""
    return _value(call, reference.functions)


def _expected(test: Mapping[str, Any], reference: Reference | None) -> Any:
    """What the test's call should return: as the author wrote it, or the reference's value."""
    if "expect" in test:
        return test["expect"]
    if reference is None:
        raise LabError(f"Test {test['n']} has neither an expected value nor a reference.")
    return reference_value(test["call"], reference)


def _fresh(source: str, watch: reader_code.Watch | None) -> dict[str, Any]:
    """The reader's source run again in fresh globals; what it prints at the top level was
    kept on the first run, so it is not kept once per test."""
    with redirect_stdout(reader_code.Printed()), redirect_stderr(reader_code.Printed()):
        return reader_code.execute(source, watch)


def _outcome(
    source: str,
    calls: Sequence[tuple[str, Any]],
    watch: reader_code.Watch | None,
    where: str | None = None,
) -> tuple[int, bool, Any, reader_code.UserCodeError | None]:
    """Run ``calls`` in order in one fresh run of ``source``, until one fails.

    Returns (the index of the last call run, whether it passed, what it returned,
    its error); ``where`` names the call in an error's message (default: the call).
    """
    restore = checkpoint()
    index, call = 0, calls[0][0]
    try:
        namespace = _fresh(source, watch)
        for index, (call, expected) in enumerate(calls):
            with reader_code.inside(watch):
                got = _value(call, namespace)
            if not same(expected, got):
                return index, False, got, None
    except reader_code.UserCodeError as err:
        return index, False, None, err
    except Exception as err:
        return index, False, None, reader_code.error_from(err, where or f"in {call}")
    finally:
        restore()
    return index, True, got, None


def _shown_got(got: Any, watch: reader_code.Watch | None) -> str:
    # A repr of the reader's own object runs the reader's code: watched too.
    with reader_code.inside(watch):
        try:
            return shown(got)
        except Exception:
            return f"a {type(got).__name__} that cannot be shown"


def _run_test(
    source: str, test: Mapping[str, Any], expected: Any, watch: reader_code.Watch | None
) -> dict[str, Any]:
    hidden = bool(test.get("hidden"))
    result: dict[str, Any] = {"n": test["n"], "hidden": hidden, "message": test["message"]}
    if not hidden:
        result["call"] = test["call"]
        # As the author wrote it (JSON would have turned 1.0 into 1 on its way here).
        result["expected"] = test.get("shown") or shown(expected)
    # A hidden call stays hidden: its error names the reader's line only.
    where = "in a hidden test" if hidden else f"in {test['call']}"
    _, passed, got, error = _outcome(source, [(test["call"], expected)], watch, where)
    result["passed"] = passed
    if error is not None:
        result["error"] = error.message
        if not hidden:
            result["traceback"] = error.traceback
            if error.line is not None:
                result["line"] = error.line
    elif not hidden:
        result["got"] = _shown_got(got, watch)
    return result


def draw_seed() -> int:
    """A seed for the property test, drawn at check time (no earlier code can set it)."""
    return random.SystemRandom().randrange(1, 1_000_000)


def property_cases(reference: Reference, seed: int) -> list[tuple[str, Any]]:
    """The property test's calls, drawn from ``seed``, each with the reference's value."""
    rng = random.Random(seed)
    cases = []
    for _ in range(reference.cases):
        name, args = reference.draw(rng)
        call = f"{name}({', '.join(map(repr, args))})"
        cases.append((call, reference_value(call, reference)))
    return cases


def _run_property(
    source: str,
    n: int,
    reference: Reference,
    seed: int,
    cases: Sequence[tuple[str, Any]],
    watch: reader_code.Watch | None,
) -> dict[str, Any]:
    """The reader's function on every random case, in one fresh run of its code; the first
    failure is reported."""
    result: dict[str, Any] = {
        "n": n,
        "hidden": True,
        "random": True,
        "seed": seed,
        "message": f"{len(cases)} random calls: {reference.about}.",
        "passed": True,
    }
    # One run of the code for all of them, as one test: a function that keeps state between
    # calls is caught here.
    index, passed, got, error = _outcome(source, cases, watch)
    if not passed:
        call, expected = cases[index]
        result["passed"] = False
        came = error.message if error else f"it returned {_shown_got(got, watch)}."
        result["detail"] = f"With seed {seed}, {call} should return {shown(expected)}; {came}"
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
    watch: reader_code.Watch | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """Run ``source`` and the exercise's tests (only the public ones with ``public_only``).

    With a ``reference``, Check (not ``public_only``) adds the property test, drawn
    from ``seed`` (:func:`draw_seed` when None). Returns ``{"tests": [...], "passed",
    "score", "total", "summary", "output"}``; ``passed`` is whether every test run
    passed. A source that does not run, or lacks the function, returns ``{"error":
    {message, traceback?, line?}, "passed": false, "summary", "output"}`` instead
    (:class:`lab.core.reader_code.UserCodeError`).
    """
    name = spec["function"]
    call = signature(name, spec["parameters"])
    tests = [t for t in spec["tests"] if not (public_only and t.get("hidden"))]
    reference = REFERENCES[spec["reference"]] if spec.get("reference") else None
    # Before the reader's code runs, which could otherwise rebind what the reference calls.
    expectations = [_expected(t, reference) for t in tests]
    cases: list[tuple[str, Any]] = []
    if reference is not None and not public_only:
        seed = draw_seed() if seed is None else seed
        cases = property_cases(reference, seed)
    printed = reader_code.Printed()
    try:
        with reader_code.captured(printed):
            reader_code.load_function(
                reader_code.execute(source, watch),
                name,
                call,
                "in every test",
                len(spec["parameters"]),
                "Check",
            )
            results = [
                _run_test(source, test, expected, watch)
                for test, expected in zip(tests, expectations, strict=True)
            ]
            if cases:
                assert reference is not None and seed is not None
                results.append(_run_property(source, len(tests) + 1, reference, seed, cases, watch))
    except reader_code.UserCodeError as err:
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
