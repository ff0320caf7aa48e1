"""A worked example: one episode of the simulation, rendered from the model at build time.

A page asks for it with a block whose body is optional YAML parameters for the
simulation (checked by :func:`lab.validate_params`; a bad one fails the build at
the line)::

    ```lab-worked-example
    turns: 2
    ```

The build runs the experiment (:func:`lab.run_experiment`) and renders its
recorded episode with :func:`lab.sim.render.render_episode`, the same function the
simulation lab uses, so every prompt, response, score and next prompt on the
page is the model's and each step carries the Visual Lab's label. It is
never typed by hand, so a change to the model changes the example. A warm
build reads the rendered episode from the build memo (:mod:`lesson_hooks.support.memo`).
"""

from __future__ import annotations

from collections.abc import Mapping

from lab import run_experiment, validate_params
from lab.core.markup import Markup, el, trusted
from lab.sim.render import render_episode
from lesson_hooks.fences.base import Fence
from lesson_hooks.fences.custom import LabFence
from lesson_hooks.fences.settings import read_values
from lesson_hooks.support.memo import memoized

PREFIX = "worked-example"


def read_params(fence: Fence) -> dict[str, object]:
    """The block's parameters, checked by the simulation's own validator."""
    return read_values(
        fence,
        validate_params,
        "the worked example",
        "the worked example takes simulation parameters.",
    )


def episode_html(params: Mapping[str, object]) -> str:
    """The run's recorded episode as HTML (what the build memo keeps)."""
    # Folded: the repeated prompts and the later turns open on demand.
    return render_episode(run_experiment(params), PREFIX, fold=True)


def render_worked_example(params: dict[str, object]) -> Markup:
    episode = memoized(episode_html, params)
    # Rendered by lab.sim.render through the markup builder; the memo hands back text.
    box = {"class": "lab-worked-example", "data-lab-worked-example": True}
    return el("div", box, "\n", trusted(episode), "\n")


def _render(params: dict[str, object], fence: Fence) -> str:
    return render_worked_example(params)


FENCE = LabFence("worked-example", read_params, _render)
formatter = FENCE.format
parse_page = FENCE.read_page
