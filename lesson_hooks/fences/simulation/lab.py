"""The simulation lab's markup: the form, the code, the result regions and the transcript.

Every part a finished run fills has an element named by ``data-lab-html``
(:data:`lab.sim.render.SLOTS`); ``assets/lab/widgets/simulation.js`` puts there the HTML
the worker's Python rendered with :func:`lab.sim.render.render_results`. The build
renders the default run's transcript with the same function, so readers without
JavaScript see a real episode and the page can link to its steps
(``lab-<id>-t1-helper-observation``, ...). A warm build reads that run's
rendered parts from the build memo (:mod:`lesson_hooks.support.memo`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from lab import run_experiment
from lab.sim.render import SLOTS, method_labels, render_episode
from lesson_hooks.fences.base import Fence
from lesson_hooks.fences.custom import LabFence
from lesson_hooks.fences.settings import lab_archive, render_share
from lesson_hooks.fences.simulation.code_panel import render_code
from lesson_hooks.fences.simulation.fence import SimulationLab, read_simulation
from lesson_hooks.fences.simulation.form import render_actions, render_form, render_key
from lesson_hooks.support.memo import memoized
from lesson_hooks.support.paths import SIMULATION_STYLESHEET


def render_legend(labels: Mapping[str, str]) -> str:
    """The curve's legend, ``labels`` naming each method; the page reads the names from it."""
    items = "".join(
        f'<li data-lab-series="{escape(m)}"><svg class="lab-sim__swatch" viewBox="0 0 32 8" '
        f'aria-hidden="true"><line x1="2" y1="4" x2="30" y2="4"/></svg>'
        f"<span>{escape(label)}</span></li>"
        for m, label in labels.items()
    )
    return f'<ul class="lab-sim__legend" data-lab-legend>{items}</ul>'


def _check_slots(html: str) -> str:
    """Every part :func:`lab.sim.render.render_results` fills has exactly one place in ``html``."""
    for slot in SLOTS:
        count = len(re.findall(rf'data-lab-html="{re.escape(slot)}"', html))
        if count != 1:
            raise PluginError(
                f"{__name__}: the lab has {count} places for lab.sim.render's {slot!r} (needs one)."
            )
    return html


def default_run(args: Mapping[str, Any]) -> dict[str, Any]:
    """What the page shows of the lab's default run: its methods' names and its episode."""
    results = run_experiment(args["params"])
    return {"labels": method_labels(results), "episode": render_episode(results, args["prefix"])}


def render_lab(
    lab: SimulationLab, stylesheet: str = SIMULATION_STYLESHEET, archive: str | None = None
) -> str:
    """The whole lab: fallback note, form, status, results regions and the transcript.

    ``stylesheet`` is the lab's CSS as the page reaches it. It is linked from
    the lab itself, so only pages with a simulation lab download it.
    """
    p = lab.prefix
    shown = memoized(default_run, {"params": lab.params.to_json(), "prefix": p})
    return _check_slots(f"""<div class="lab lab-sim" id="{p}" data-lab="simulation" \
data-lab-id="{lab.id}" data-lab-run="idle">
<link rel="stylesheet" href="{escape(stylesheet)}">
<div class="lab-sim__fallback" data-lab-fallback>
<p><strong>This lab needs JavaScript.</strong> It trains the agents in Python, inside your \
browser. Without JavaScript the controls and charts cannot appear; the explanations on this page \
describe what they show, and the episode below was recorded with the lab's default settings when \
the page was built.</p>
</div>
{render_form(lab)}
{render_code(p)}
{render_actions(lab)}
{render_share(p, archive or lab_archive())}
<p class="lab-status" data-lab-status role="status"></p>
<div class="lab-sim__summary" data-lab-summary data-lab-html="summary" aria-live="polite"></div>
<div class="lab-sim__printed-box" data-lab-html="output"></div>
<div class="lab-sim__results" data-lab-results hidden>
<div class="lab-sim__block" data-lab-chart="curve">
<h3 id="{p}-curve-title">Learning curve</h3>
<p class="lab-sim__caption" data-lab-curve-caption data-lab-html="curve-caption"></p>
{render_legend(shown["labels"])}
<div class="lab-sim__plot" data-lab-plot></div>
<details class="lab-sim__data"><summary>The learning curve as a table</summary>
<div class="lab-sim__scroll" data-lab-curve-table data-lab-html="curve-table" tabindex="0" \
role="region" aria-label="Learning curve data"></div></details>
</div>
<div class="lab-sim__block" data-lab-chart="seeds">
<h3 id="{p}-seeds-title">Across seeds</h3>
<p class="lab-sim__caption" data-lab-html="seeds-caption"></p>
<div class="lab-sim__seeds" data-lab-seeds data-lab-html="seeds"></div>
</div>
<div class="lab-sim__block" data-lab-chart="heatmap">
<h3 id="{p}-heatmap-title">Where each method settled</h3>
<p class="lab-sim__caption" data-lab-heatmap-caption data-lab-html="heatmap-caption"></p>
<div class="lab-sim__heatmaps" data-lab-heatmaps data-lab-html="heatmaps"></div>
{render_key()}
</div>
<div class="lab-sim__block" data-lab-chart="partners">
<h3 id="{p}-partners-title">Partner generalization</h3>
<p class="lab-sim__caption" data-lab-partners-caption data-lab-html="partners-caption"></p>
<div class="lab-sim__scroll" data-lab-partners data-lab-html="partners" tabindex="0" \
role="region" aria-label="Partner scores"></div>
</div>
</div>
<div class="lab-sim__block lab-sim__episode" data-lab-transcript>
<h3 id="{p}-episode-title">One episode, step by step</h3>
<div data-lab-episode data-lab-html="episode">{shown["episode"]}</div>
</div>
</div>""")


def _render(lab: SimulationLab, fence: Fence) -> str:
    return render_lab(
        lab, get_relative_url(SIMULATION_STYLESHEET, fence.page.url), lab_archive(fence.page.url)
    )


FENCE = LabFence("simulation", read_simulation, _render, unique="page")
formatter = FENCE.format
parse_page = FENCE.read_page
