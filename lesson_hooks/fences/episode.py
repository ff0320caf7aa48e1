"""A worked example: one episode of the simulation, rendered from the model at build time.

A page asks for it with a fence whose body is optional YAML parameters for the
simulation (checked by :func:`lab.validate_params`; a bad one fails the build at
the fence's line)::

    ```lab-episode
    turns: 2
    ```

The hook runs the experiment (:func:`lab.run_experiment`) and renders its
recorded episode with :func:`lab.sim.render.render_episode`, the same function the
simulation lab uses, so every prompt, response, score and next prompt on the
page is the model's and each step carries the mapping exercise's label. It is
never typed by hand, so a change to the model changes the example. A warm
build reads the rendered episode from the build memo (:mod:`lesson_hooks.support.memo`).
"""

from __future__ import annotations

from collections.abc import Mapping

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lab import ParamError, run_experiment, validate_params
from lab.sim.render import render_episode
from lesson_hooks.fences import base as fence_blocks
from lesson_hooks.fences.base import Fence, FenceError
from lesson_hooks.fences.base import file_lines as fence_lines
from lesson_hooks.support.memo import memoized

FENCE_INFO = "lab-episode"
PREFIX = "worked-example"


def read_params(fence: Fence, path: str) -> dict[str, object]:
    """The fence's parameters, checked by the simulation's own validator."""
    try:
        data = yaml.safe_load(fence.body) if fence.body.strip() else {}
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        line = fence.line + 1 + mark.line if mark else fence.line
        raise FenceError(path, line, f"invalid YAML: {err.problem}.") from err
    if not isinstance(data, dict):
        raise FenceError(path, fence.line, "the worked example takes simulation parameters.")
    try:
        validate_params(data)
    except ParamError as err:
        field, reason = next(iter(err.fields.items()))
        lines = fence.body.split("\n")
        offset = next((i for i, text in enumerate(lines) if text.startswith(f"{field}:")), -1)
        raise FenceError(path, fence.line + 1 + offset, f"`{field}`: {reason}") from err
    return data


def episode_html(params: Mapping[str, object]) -> str:
    """The run's recorded episode as HTML (what the build memo keeps)."""
    return render_episode(run_experiment(params), PREFIX)


def render_worked_example(params: dict[str, object]) -> str:
    episode = memoized(episode_html, params)
    return f'<div class="lesson-episode" data-lesson-episode>\n{episode}\n</div>'


@fence_lines
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    path = fence_blocks.display_path(page.file, config)
    found = fence_blocks.find_fences(markdown, path, FENCE_INFO)
    if not found:
        return markdown
    blocks = [render_worked_example(read_params(fence, path)) for fence in found]
    return fence_blocks.replace_fences(markdown, found, blocks)
