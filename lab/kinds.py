"""The one registry of lab kinds: everything else that lists them is derived from here.

A kind's ``name`` is its block's fence (```` ```lab-<name> ````), its markup's
``data-lab`` and its widget's file (``docs/assets/lab/widgets/<name>.js``);
``package`` is the subpackage of ``lab`` whose ``rpc`` module holds the calls
its widget makes (:mod:`lab.rpc` merges them); a kind with a ``runner`` is a
lab a guided experiment can run (:mod:`lab.guided`, ``lesson_hooks`` tasks).
Adding a kind is one package here, one fence module and one widget file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lab.core.tables import Figure
from lab.lm import export as lm_export
from lab.lm import lm_param_spec, run_language_models, validate_lm_params
from lab.sim import export as sim_export
from lab.sim import param_spec, run_experiment, validate_params

__all__ = ["KINDS", "RUNNERS", "Kind", "Runner"]


@dataclass(frozen=True)
class Runner:
    """How a run-style lab checks its settings, runs, describes its settings, and
    writes its results as files (:mod:`lab.export`)."""

    validate: Callable[[Any], Any]
    run: Callable[..., dict[str, Any]]
    spec: Callable[[], dict[str, dict[str, Any]]]
    #: One CSV row per seed and method; the learning curve as CSV.
    rows: Callable[[Mapping[str, Any]], str]
    curve: Callable[[Mapping[str, Any]], str]
    #: The charts Python draws as files.
    figures: tuple[Figure, ...] = ()


@dataclass(frozen=True)
class Kind:
    name: str
    #: The subpackage whose ``rpc.CALLS`` the widget calls; ``None`` for a kind
    #: rendered wholly at build time.
    package: str | None
    #: Whether the page gets a widget (``widgets/<name>.js``) for it.
    widget: bool = True
    runner: Runner | None = None


KINDS: tuple[Kind, ...] = (
    Kind("mapping", "lab.graded"),
    Kind("quiz", "lab.graded"),
    Kind("task", "lab.guided"),
    Kind(
        "simulation",
        "lab.sim",
        runner=Runner(
            validate_params,
            run_experiment,
            param_spec,
            sim_export.rows_csv,
            sim_export.curve_csv,
            sim_export.FIGURES,
        ),
    ),
    Kind(
        "language-models",
        "lab.lm",
        runner=Runner(
            validate_lm_params,
            run_language_models,
            lm_param_spec,
            lm_export.rows_csv,
            lm_export.curve_csv,
        ),
    ),
    # One episode of the simulation, run and rendered at build time.
    Kind("episode", None, widget=False),
)

#: The labs a guided experiment can run, by kind.
RUNNERS: Mapping[str, Runner] = {kind.name: kind.runner for kind in KINDS if kind.runner}
