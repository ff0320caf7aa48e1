"""The one declaration of the lab kinds: everything else that lists them is derived from here.

A kind's ``name`` is its block's fence (```` ```lab-<name> ````), its markup's
``data-lab``, its widget (``docs/assets/lab/widgets/<name>.js``) and its
stylesheet beside it (``<name>.css``). The rest of a kind is declared here
too: the calls its widget makes in the worker, the build's module for its
block, the teacher's page's word and minutes for it, where its ids must be
unique, and, for a lab a guided experiment can run, its :class:`Runner`.

The registry sits above the kinds it lists: it imports each kind's package by
name, and nothing in those packages imports it. The build
(``lesson_hooks/fences/sitewide.py``), the teacher's page, the benchmark and the
tests read :data:`KINDS`; ``mkdocs.yml`` holds the one copy a tool needs of its
own (``custom_fences``, which Zensical reads too), and the build refuses a copy
that differs. ``./dev new-lab NAME`` adds a kind: see
``contributing/adding-a-lab-kind.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from lab.core.record import Contribution, Source, checked
from lab.core.rpc import Call
from lab.core.runner import Runner
from lab.exercise import rpc as exercise_rpc
from lab.experiment import rpc as experiment_rpc
from lab.graded import rpc as graded_rpc
from lab.lm import rpc as lm_rpc
from lab.lm.runner import RUNNER as LM_RUNNER
from lab.sim import rpc as sim_rpc
from lab.sim.runner import RUNNER as SIM_RUNNER

__all__ = ["KINDS", "RUNNERS", "Kind", "Runner", "Scope", "kind_named"]

#: Where a kind's ``id`` must be unique: across the site, or on its page.
Scope = Literal["site", "page"]


@dataclass(frozen=True)
class Kind:
    name: str
    #: The teacher's page's word for one block of this kind ("quiz", "simulation lab").
    title: str
    #: A reader's minutes on one block, beyond its page's words (the pages' times).
    minutes: int
    #: The build's module for the block (``lesson_hooks/fences/``), holding its ``FENCE``.
    fence: str
    #: Where its ``id`` must be unique (``None``: it has none); what a repeated id calls it.
    ids: Scope | None = "page"
    noun: str = "lab"
    #: The calls its widget makes in the worker (its package's ``rpc.CALLS``).
    calls: Mapping[str, Call] = field(default_factory=dict)
    #: Whether the page gets ``widgets/<name>.js`` and ``widgets/<name>.css`` for it.
    widget: bool = True
    stylesheet: bool = True
    runner: Runner | None = None
    #: Whether its block shows answers, which a student's printed worksheet leaves out.
    answers: bool = False
    #: What its blocks add to a student's learner record (``None``: nothing), read from
    #: where its widget keeps it (``lab/core/record.py``).
    record: Contribution | None = None

    @property
    def fence_name(self) -> str:
        """The block's fence: ```` ```lab-<name> ````."""
        return f"lab-{self.name}"


KINDS: tuple[Kind, ...] = (
    Kind(
        "visual-lab",
        "Visual Lab",
        5,
        "lesson_hooks.fences.visual_lab",
        answers=True,
        ids="site",
        noun="Visual Lab",
        calls=graded_rpc.CALLS,
        record=checked("mapping", "placements", items="parts"),
    ),
    Kind(
        "quiz",
        "quiz",
        5,
        "lesson_hooks.fences.quiz",
        answers=True,
        ids="site",
        noun="quiz",
        calls=graded_rpc.CALLS,
        record=checked("quiz", "answers", items="questions"),
    ),
    Kind(
        "experiment",
        "guided experiment",
        3,
        "lesson_hooks.fences.experiment",
        answers=True,
        ids="site",
        noun="experiment",
        calls=experiment_rpc.CALLS,
        # A prediction, not a grade: it never counts in the score.
        record=Contribution(
            {
                "prediction": Source("task", version=None, plain=True),
                "outcome": Source("task-run", "outcome", version=None),
                "matched": Source("task-run", "matched", version=None),
            }
        ),
    ),
    Kind(
        "simulation",
        "simulation lab",
        10,
        "lesson_hooks.fences.simulation",
        calls=sim_rpc.CALLS,
        runner=SIM_RUNNER,
    ),
    Kind(
        "language-models",
        "language-model lab",
        10,
        "lesson_hooks.fences.language_models",
        calls=lm_rpc.CALLS,
        runner=LM_RUNNER,
    ),
    # One episode of the simulation, run and rendered at build time: no widget.
    Kind(
        "worked-example",
        "worked example",
        3,
        "lesson_hooks.fences.worked_example",
        ids=None,
        widget=False,
    ),
    Kind(
        "exercise",
        "coding exercise",
        8,
        "lesson_hooks.fences.exercise",
        answers=True,
        ids="site",
        noun="exercise",
        calls=exercise_rpc.CALLS,
        record=Contribution(
            {
                "attempts": Source("exercise", "progress.attempts"),
                "hints": Source("exercise", "progress.hints"),
                "solution": Source("exercise", "progress.solution"),
                "passed": Source("exercise", "progress.passed"),
                "tests": Source("exercise", "progress.tests"),
                "code": Source("code", "code", version="code"),
            },
            graded=True,
        ),
    ),
)

#: The labs a guided experiment can run, by kind.
RUNNERS: Mapping[str, Runner] = {kind.name: kind.runner for kind in KINDS if kind.runner}


def kind_named(name: str) -> Kind:
    """The kind called ``name`` (a ``KeyError`` names the kinds there are)."""
    for kind in KINDS:
        if kind.name == name:
            return kind
    raise KeyError(
        f"no lab kind {name!r} in KINDS (lab/kinds.py), whose kinds are "
        f"{', '.join(k.name for k in KINDS)}: declare it there, or remove what names it."
    )
