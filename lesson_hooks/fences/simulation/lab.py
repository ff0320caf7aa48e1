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
from typing import Any

from mkdocs.exceptions import PluginError

from lab import run_experiment
from lab.core.markup import Markup, el, join, trusted
from lab.sim.render import SLOTS, method_labels, render_episode
from lesson_hooks.fences.settings import (
    lab_archive,
    render_fallback,
    render_share,
    render_shell,
    run_lab_fence,
)
from lesson_hooks.fences.simulation.code_panel import render_code
from lesson_hooks.fences.simulation.fence import SimulationLab, read_simulation
from lesson_hooks.fences.simulation.form import render_actions, render_form, render_key
from lesson_hooks.support.memo import memoized


def render_legend(labels: Mapping[str, str]) -> Markup:
    """The curve's legend, ``labels`` naming each method; the page reads the names from it."""
    swatch = el(
        "svg",
        {"class": "lab-sim__swatch", "viewBox": "0 0 32 8", "aria-hidden": "true"},
        el("line", {"x1": 2, "y1": 4, "x2": 30, "y2": 4}),
    )
    items = join(
        el("li", {"data-lab-series": m}, swatch, el("span", None, label))
        for m, label in labels.items()
    )
    return el("ul", {"class": "lab-sim__legend", "data-lab-legend": True}, items)


def _check_slots(html: Markup) -> Markup:
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


def _block(p: str, chart: str, title: str, *children: object) -> Markup:
    """One chart's block in the results: its heading, then its parts, a line each."""
    lines = [el("h3", {"id": f"{p}-{chart}-title"}, title), *children]
    return el(
        "div",
        {"class": "lab-sim__block", "data-lab-chart": chart},
        "\n",
        join(lines, "\n"),
        "\n",
    )


def _slot(tag: str, name: str, attributes: Mapping[str, Any], *children: object) -> Markup:
    """An element Python's rendered part ``name`` fills (``data-lab-html``)."""
    return el(tag, {**attributes, "data-lab-html": name}, *children)


def _scroll(name: str, label: str, marker: str) -> Markup:
    """A slot whose content may be wider than the page: it scrolls, by keyboard too."""
    return el(
        "div",
        {
            "class": "lab-sim__scroll",
            marker: True,
            "data-lab-html": name,
            "tabindex": "0",
            "role": "region",
            "aria-label": label,
        },
    )


def render_lab(lab: SimulationLab, archive: str | None = None) -> Markup:
    """The whole lab: fallback note, form, status, results regions and the transcript."""
    p = lab.prefix
    shown = memoized(default_run, {"params": lab.params.to_json(), "prefix": p})
    fallback = render_fallback(
        "lab-sim__fallback",
        "It trains the agents in Python, inside your browser. Without JavaScript the "
        "controls and charts cannot appear; the explanations on this page describe what "
        "they show, and the episode below was recorded with the lab's default settings "
        "when the page was built.",
    )
    curve = _block(
        p,
        "curve",
        "Learning curve",
        _slot(
            "p",
            "curve-caption",
            {"class": "lab-sim__caption", "data-lab-curve-caption": True},
        ),
        render_legend(shown["labels"]),
        el("div", {"class": "lab-sim__plot", "data-lab-plot": True}),
        el(
            "details",
            {"class": "lab-sim__data"},
            el("summary", None, "The learning curve as a table"),
            "\n",
            _scroll("curve-table", "Learning curve data", "data-lab-curve-table"),
        ),
    )
    seeds = _block(
        p,
        "seeds",
        "Across seeds",
        _slot("p", "seeds-caption", {"class": "lab-sim__caption"}),
        _slot("div", "seeds", {"class": "lab-sim__seeds", "data-lab-seeds": True}),
    )
    heatmap = _block(
        p,
        "heatmap",
        "Each method's joint play after training",
        _slot(
            "p",
            "heatmap-caption",
            {"class": "lab-sim__caption", "data-lab-heatmap-caption": True},
        ),
        _slot("div", "heatmaps", {"class": "lab-sim__heatmaps", "data-lab-heatmaps": True}),
        render_key(),
    )
    partners = _block(
        p,
        "partners",
        "Partner generalization",
        _slot(
            "p",
            "partners-caption",
            {"class": "lab-sim__caption", "data-lab-partners-caption": True},
        ),
        _scroll("partners", "Partner scores", "data-lab-partners"),
    )
    # The id is where a guided experiment's "See the full charts in the lab" leads.
    results = el(
        "div",
        {
            "class": "lab-sim__results",
            "id": f"{p}-results",
            "data-lab-results": True,
            "hidden": True,
        },
        "\n",
        join([curve, seeds, heatmap, partners], "\n"),
        "\n",
    )
    episode = el(
        "div",
        {"class": "lab-sim__block lab-sim__episode", "data-lab-transcript": True},
        "\n",
        el("h3", {"id": f"{p}-episode-title"}, "One episode, step by step"),
        "\n",
        # lab.sim.render built the episode with el; the build memo keeps it as a string.
        _slot("div", "episode", {"data-lab-episode": True}, trusted(shown["episode"])),
        "\n",
    )
    parts = [
        fallback,
        render_form(lab),
        render_code(p),
        render_actions(lab),
        render_share(p, archive or lab_archive()),
        el("p", {"class": "lab-status", "data-lab-status": True, "role": "status"}),
        el(
            "div",
            {
                "class": "lab-sim__summary",
                "data-lab-summary": True,
                "data-lab-html": "summary",
                "aria-live": "polite",
            },
        ),
        _slot("div", "output", {"class": "lab-sim__printed-box"}),
        results,
        episode,
    ]
    return _check_slots(render_shell(lab, "simulation", "lab-sim", parts))


FENCE = run_lab_fence("simulation", read_simulation, render_lab)
formatter = FENCE.format
parse_page = FENCE.read_page
