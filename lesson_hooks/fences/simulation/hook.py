"""MkDocs hook: each ```` ```lab-simulation ```` fence becomes the simulation lab.

The work is split by concern:

- :mod:`lesson_hooks.fences.simulation.fence` reads and checks the fence (``path:line:`` errors);
- :mod:`lesson_hooks.fences.simulation.form` draws the form from :func:`lab.param_spec`;
- :mod:`lesson_hooks.fences.simulation.code` shows the reader's editable code;
- :mod:`lesson_hooks.fences.simulation.lab` assembles the lab and places the transcript,
  rendered by :mod:`lab.sim.render` (as the worker renders every later run).
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from lesson_hooks.fences import base as fence_blocks
from lesson_hooks.fences.base import file_lines as fence_lines
from lesson_hooks.fences.simulation.fence import FENCE_INFO, find_fences, parse_page
from lesson_hooks.fences.simulation.lab import render_lab
from lesson_hooks.support.paths import SIMULATION_STYLESHEET


def replace_fences(markdown: str, path: str, blocks: list[str]) -> str:
    """Swap each fence on the page for its block of markup, in order."""
    return fence_blocks.replace_fences(markdown, find_fences(markdown, path), blocks)


@fence_lines
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if FENCE_INFO not in markdown:
        return markdown
    path = fence_blocks.display_path(page.file, config)
    labs = parse_page(markdown, path)
    stylesheet = get_relative_url(SIMULATION_STYLESHEET, page.url)
    return replace_fences(markdown, path, [render_lab(lab, stylesheet) for lab in labs])
