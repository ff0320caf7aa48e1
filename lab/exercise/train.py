"""Train the simulation with a reader's advantage function, beside the built-in one.

An exercise with ``uses:`` a simulation lab asks the reader for MAGRPO's
group-relative advantage, ``fn(returns) -> advantages`` (one return per joint
response of a group, the same advantage for both agents). Once it passes,
:func:`train_with_advantage` trains the simulation twice with the same settings,
seed by seed over the lab's seeds: once with
:func:`lab.core.advantages.group_advantages` (baseline ``mean``, MAGRPO's Eq. 1)
and once with the reader's function in its place
(:data:`lab.sim.experiment.AdvantageFn`, the simulation's one injection point).
With ``lab_code``, the verifier and prior the reader edited in that lab
(:mod:`lab.sim.user_code`) are used in both runs, as the lab's Run uses them.

The two runs step in lockstep, so the report can say where they part: the first
group whose advantages differ (its returns, the built-in advantages and the
reader's), the first update where the learning curves differ, the largest gap
between them, and each run's expected reward at the end, the exact value the
lab reports (not the last sampled group's mean).

The reader's function runs as in :mod:`lab.exercise.grade`: watched, its
output kept, its errors on its own lines, the interpreter put back afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lab.core import reader_code
from lab.core.advantages import group_advantages
from lab.exercise.grade import shown, signature
from lab.sim.experiment import METHOD_LABELS, Experiment
from lab.sim.params import SimParams, validate_params
from lab.sim.user_code import load_user_code, original_source

__all__ = ["BASELINE", "METHOD", "train_with_advantage"]

#: The baseline the reader's function stands in for: MAGRPO's group mean.
BASELINE = "mean"
#: The method whose learning curves are compared: the two MAGRPO learners.
METHOD = "learned"
#: Two values closer than this (advantages, curve points) are the same.
MATCH_TOLERANCE = 1e-9
#: How many points of each curve the page lists (and the update where they part).
POINTS = 5

ProgressFn = Callable[[dict[str, Any]], object]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=MATCH_TOLERANCE, abs_tol=MATCH_TOLERANCE)


def _readers_advantages(fn: Callable[..., Any], name: str, watch: reader_code.Watch | None) -> Any:
    """The reader's ``fn(returns)`` as the simulation calls an advantage function."""

    def advantages(returns: Sequence[float], baseline: str) -> list[float]:
        given = list(returns)
        with reader_code.inside(watch):
            try:
                raw = fn(list(given))
            except Exception as err:
                raise reader_code.error_from(err, f"in {name}") from None
            values = list(raw) if isinstance(raw, list | tuple) else None
            numbers = [reader_code.finite(v) for v in values] if values is not None else []
            if values is None or len(numbers) != len(given) or None in numbers:
                raise reader_code.UserCodeError(
                    f"{name} must return one finite number per return; given {shown(given)} "
                    f"it returned {shown(raw)}."
                )
        return numbers  # type: ignore[return-value]

    return advantages


class _Comparison:
    """Where the reader's run first departs from the built-in one, and by how much."""

    def __init__(self) -> None:
        self.group: dict[str, Any] | None = None
        self.parted: dict[str, Any] | None = None
        self.gap: dict[str, Any] = {"gap": 0.0}

    def watching(self, readers: Any, seed: int, update: Callable[[], int]) -> Any:
        """The reader's advantage, each group checked against the built-in one; ``update()``
        is the update under way."""

        def advantages(returns: Sequence[float], baseline: str) -> list[float]:
            mine = readers(returns, baseline)
            if self.group is None:
                builtin = group_advantages(returns, baseline)
                if not all(_close(a, b) for a, b in zip(builtin, mine, strict=True)):
                    self.group = {
                        "seed": seed,
                        "update": update(),
                        "returns": list(returns),
                        "builtin": builtin,
                        "yours": mine,
                    }
            return mine

        return advantages

    def step(self, seed: int, update: int, a: float, b: float) -> None:
        if self.parted is None and not _close(a, b):
            self.parted = {"seed": seed, "update": update, "builtin": a, "yours": b}
        if abs(a - b) > self.gap["gap"]:
            self.gap = {"seed": seed, "update": update, "gap": abs(a - b)}


def _points(curve: Sequence[float], extra: int | None = None) -> list[int]:
    """A few updates (1-based) of a learning curve, first and last included, and ``extra``."""
    n = len(curve)
    picks = {round(i * (n - 1) / (POINTS - 1)) + 1 for i in range(POINTS)} if n else set()
    if extra is not None:
        picks.add(extra)
    return sorted(picks)


def _means(ends: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The built-in and the reader's expected rewards at the end, each the mean over the seeds."""
    return tuple(math.fsum(e[k] for e in ends) / len(ends) for k in (0, 1))  # type: ignore[return-value]


def _seeds_text(p: SimParams) -> str:
    if p.seeds == 1:
        return f"seed {p.seed}"
    return f"seeds {p.seed} to {p.seed + p.seeds - 1}"


def _number(x: float) -> str:
    """A value with enough digits to tell it from a near one."""
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.0f}"


def _summary(
    name: str, p: SimParams, compared: _Comparison, ends: Sequence[tuple[float, float]], code: str
) -> tuple[bool, str]:
    label = METHOD_LABELS[METHOD]
    setting = f"({p.updates} updates, {_seeds_text(p)}; {code})"
    a, b = _means(ends)
    over = "" if len(ends) == 1 else f", the mean over {len(ends)} seeds"
    match = (
        compared.group is None and compared.parted is None and all(_close(x, y) for x, y in ends)
    )
    if match:
        return True, (
            f"The two runs match: with your {name}, {label} learned exactly as with the "
            f"built-in advantage {setting}: every group's advantages agree, and so do the "
            f"learning curves. Expected reward at the end{over}: {a:.2f}."
        )
    parts = [f"The two runs differ {setting}."]
    group = compared.group
    if group is not None:
        parts.append(
            f"Your advantages first differ from the built-in ones at update {group['update']} "
            f"of seed {group['seed']}: for the returns {shown(group['returns'])}, the built-in "
            f"advantage gives {shown(group['builtin'])} and yours {shown(group['yours'])}."
        )
    parted = compared.parted
    if parted is not None:
        gap = compared.gap
        parts.append(
            f"The learning curves (the mean reward of each update's group) first part at update "
            f"{parted['update']} of seed {parted['seed']}: {_number(parted['builtin'])} "
            f"built-in, {_number(parted['yours'])} yours; the largest gap is "
            f"{_number(gap['gap'])}, at update {gap['update']} of seed {gap['seed']}."
        )
    else:
        parts.append(
            "The learning curves never part: every update sampled the same rewards in both runs."
        )
    difference = b - a
    parts.append(
        f"Expected reward at the end{over}, as the lab reports it: {_number(a)} with the "
        f"built-in advantage, {_number(b)} with yours"
        + (f" ({difference:+.3g})." if not _close(a, b) else ", the same.")
    )
    return False, " ".join(parts)


def train_with_advantage(
    spec: Mapping[str, Any],
    source: str,
    params: Mapping[str, Any] | None = None,
    progress: ProgressFn | None = None,
    *,
    lab_code: str | None = None,
    watch: reader_code.Watch | None = None,
) -> dict[str, Any]:
    """Run the simulation with the built-in advantage and with the reader's; compare.

    ``params`` are the simulation's settings as its form holds them (its defaults
    when None), over its seeds; the baseline is always MAGRPO's mean, the one the
    reader's function replaces. ``lab_code``, the verifier and prior the reader edited
    in that lab, is used in both runs. Returns ``{"builtin", "yours"}`` (each the
    first seed's curve points and its expected reward at the end, the mean over the
    seeds), ``"match"``, ``"first_group"``, ``"parted"``, ``"summary"`` and ``"output"``.
    """
    checked = validate_params({**(params or {}), "advantage": BASELINE})
    name = spec["function"]
    call = signature(name, spec["parameters"])
    compared = _Comparison()
    every = max(1, checked.updates // 20)
    ends: list[tuple[float, float]] = []
    curves: tuple[list[float], list[float]] = ([], [])
    edited = lab_code is not None and lab_code != original_source()
    printed = reader_code.Printed()
    with reader_code.captured(printed):
        namespace = reader_code.execute(source, watch)
        fn = reader_code.load_function(namespace, name, call, "as the advantage", 1, "Train")
        readers = _readers_advantages(fn, name, watch)
        functions: dict[str, Any] = {}
        if edited:
            user = load_user_code(lab_code, watch)  # type: ignore[arg-type]
            functions = {
                "reward_fn": user.reward_fn(checked.reward_table),
                "prior_fn": user.prior_fn(),
            }
        for index in range(checked.seeds):
            seed = checked.seed + index
            builtin = Experiment(checked, seed=seed, advantages=group_advantages, **functions)
            # In lockstep: while the reader's run takes update u, the built-in one has taken it.
            advantages = compared.watching(readers, seed, lambda b=builtin: b.updates_done)
            yours = Experiment(checked, seed=seed, advantages=advantages, **functions)
            while not builtin.done:
                builtin.step()
                yours.step()
                done = builtin.updates_done
                compared.step(
                    seed, done, builtin.mean_reward[METHOD][-1], yours.mean_reward[METHOD][-1]
                )
                if progress is not None and (done % every == 0 or done == checked.updates):
                    what = f"seed {index + 1} of {checked.seeds}: " if checked.seeds > 1 else ""
                    progress({"text": f"Training both, {what}{done} of {checked.updates} updates."})
            if index == 0:
                curves = (builtin.mean_reward[METHOD], yours.mean_reward[METHOD])
            ends.append((builtin.expected()[METHOD][0], yours.expected()[METHOD][0]))
    match, summary = _summary(
        name,
        checked,
        compared,
        ends,
        "your edited verifier and prior" if edited else "the lab's verifier and prior",
    )
    parted = compared.parted
    extra = parted["update"] if parted is not None and parted["seed"] == checked.seed else None
    updates = _points(curves[0], extra)
    a, b = _means(ends)
    return {
        "builtin": {
            "points": [{"update": u, "reward": round(curves[0][u - 1], 4)} for u in updates],
            "final": a,
        },
        "yours": {
            "points": [{"update": u, "reward": round(curves[1][u - 1], 4)} for u in updates],
            "final": b,
        },
        "match": match,
        "first_group": compared.group,
        "parted": parted,
        "edited_code": edited,
        "updates": checked.updates,
        "seed": checked.seed,
        "seeds": checked.seeds,
        "summary": summary,
        "output": printed.to_json(),
    }
