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

from lab.lm import lm_param_spec, run_language_models, validate_lm_params
from lab.sim import param_spec, run_experiment, validate_params

__all__ = ["KINDS", "RUNNERS", "Kind", "Runner"]


@dataclass(frozen=True)
class Runner:
    """How a run-style lab checks its settings, runs, and describes its settings."""

    validate: Callable[[Any], Any]
    run: Callable[..., dict[str, Any]]
    spec: Callable[[], dict[str, dict[str, Any]]]


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
        runner=Runner(validate_params, run_experiment, param_spec),
    ),
    Kind(
        "language-models",
        "lab.lm",
        runner=Runner(validate_lm_params, run_language_models, lm_param_spec),
    ),
    # One episode of the simulation, run and rendered at build time.
    Kind("episode", None, widget=False),
)

#: The labs a guided experiment can run, by kind.
RUNNERS: Mapping[str, Runner] = {kind.name: kind.runner for kind in KINDS if kind.runner}
