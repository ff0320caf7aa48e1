"""Train the simulation with a reader's advantage function, beside the built-in one.

An exercise with ``uses:`` a simulation lab asks the reader for MAGRPO's
group-relative advantage, ``fn(returns) -> advantages`` (one return per joint
response of a group, the same advantage for both agents). Once it passes,
:func:`train_with_advantage` runs the simulation twice with the same settings
and seed: once with :func:`lab.core.advantages.group_advantages` (baseline
``mean``, MAGRPO's Eq. 1) and once with the reader's function in its place
(:data:`lab.sim.experiment.AdvantageFn`, the simulation's one injection point),
and says whether the two learning curves match.

The reader's function runs as in :mod:`lab.exercise.grade`: watched, its
output kept, its errors on its own lines, the interpreter put back afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lab.core.advantages import group_advantages
from lab.core.errors import LabError
from lab.core.reader_code import (
    Printed,
    UserCodeError,
    Watch,
    captured,
    error_from,
    execute,
    find_function,
    finite,
    inside,
)
from lab.exercise.grade import shown, signature
from lab.sim.experiment import METHOD_LABELS, run_experiment
from lab.sim.params import validate_params

__all__ = ["BASELINE", "METHOD", "train_with_advantage"]

#: The baseline the reader's function stands in for: MAGRPO's group mean.
BASELINE = "mean"
#: The method whose learning curves are compared: the two MAGRPO learners.
METHOD = "learned"
#: Two curves closer than this at every update are the same run.
MATCH_TOLERANCE = 1e-9
#: How many points of each curve the page lists.
POINTS = 5

ProgressFn = Callable[[dict[str, Any]], object]


def _readers_advantages(fn: Callable[..., Any], name: str, watch: Watch | None) -> Any:
    """The reader's ``fn(returns)`` as the simulation calls an advantage function."""

    def advantages(returns: Sequence[float], baseline: str) -> list[float]:
        given = list(returns)
        with inside(watch):
            try:
                raw = fn(list(given))
            except Exception as err:
                raise error_from(err, f"in {name}") from None
            values = list(raw) if isinstance(raw, list | tuple) else None
            numbers = [finite(v) for v in values] if values is not None else []
            if values is None or len(numbers) != len(given) or None in numbers:
                raise UserCodeError(
                    f"{name} must return one finite number per return; given {shown(given)} "
                    f"it returned {shown(raw)}."
                )
        return numbers  # type: ignore[return-value]

    return advantages


def _points(curve: Sequence[float]) -> list[dict[str, float]]:
    """A few points of a learning curve, first and last included."""
    n = len(curve)
    picks = sorted({round(i * (n - 1) / (POINTS - 1)) for i in range(POINTS)}) if n else []
    return [{"update": i + 1, "reward": round(curve[i], 4)} for i in picks]


def train_with_advantage(
    spec: Mapping[str, Any],
    source: str,
    params: Mapping[str, Any] | None = None,
    progress: ProgressFn | None = None,
    *,
    watch: Watch | None = None,
) -> dict[str, Any]:
    """Run the simulation with the built-in advantage, then with the reader's; compare.

    ``params`` are the simulation's settings as its form holds them (its defaults
    when None), run with one seed; the baseline is always MAGRPO's mean, the one
    the reader's function replaces.
    Returns ``{"builtin", "yours"}`` (each the ``METHOD``'s curve points and its
    final mean reward), ``"match"``, ``"summary"`` and ``"output"``.
    """
    checked = validate_params({**(params or {}), "advantage": BASELINE, "seeds": 1})
    name = spec["function"]
    call = signature(name, spec["parameters"])

    def report(label: str) -> Callable[[int, dict[str, Any]], None]:
        def on_progress(update: int, partial: dict[str, Any]) -> None:
            if progress is not None:
                progress({"text": f"{label}: {update} of {checked.updates} updates."})

        return on_progress

    builtin = run_experiment(checked, report("Built-in advantage"), advantages=group_advantages)
    printed = Printed()
    with captured(printed):
        fn = find_function(execute(source, watch), name, call, "as the advantage", by="Train")
        yours = run_experiment(
            checked,
            report("Your advantage"),
            advantages=_readers_advantages(fn, name, watch),
        )
    a, b = builtin["mean_reward"][METHOD], yours["mean_reward"][METHOD]
    if not a:
        raise LabError("The simulation ran no update.")
    match = len(a) == len(b) and all(
        math.isclose(x, y, rel_tol=MATCH_TOLERANCE, abs_tol=MATCH_TOLERANCE)
        for x, y in zip(a, b, strict=True)
    )
    label = METHOD_LABELS[METHOD]
    summary = (
        f"The two runs match: with your {name}, {label} learned exactly as with the built-in "
        f"advantage ({checked.updates} updates, seed {checked.seed}; final mean reward "
        f"{b[-1]:.2f})."
        if match
        else f"The two runs differ: with your {name}, {label} ends at a mean reward of "
        f"{b[-1]:.2f}; with the built-in advantage, at {a[-1]:.2f} ({checked.updates} "
        f"updates, seed {checked.seed})."
    )
    return {
        "builtin": {"points": _points(a), "final": a[-1]},
        "yours": {"points": _points(b), "final": b[-1]},
        "match": match,
        "updates": checked.updates,
        "seed": checked.seed,
        "summary": summary,
        "output": printed.to_json(),
    }
