"""A simulation run's heatmaps and across-seeds strip as standalone SVG files.

On the page both are HTML (their text keeps the page's size on a phone); a
reader taking them into a report needs pictures that read without the page's
stylesheet, so these are drawn here, from the same result, with every colour
and size in the SVG's own attributes (black text on white, the page's light
scheme's method colours). Written with :mod:`lab.core.markup`, so the labels
are escaped like everything else the lab renders.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lab.core.markup import Markup, el, join
from lab.sim.render import (
    SEEDS_AXIS_TITLE,
    format_number,
    format_percent,
    format_reward,
    method_labels,
)

__all__ = ["heatmaps_svg", "seeds_svg"]

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
INK, MUTED, GRID = "#1f1f1f", "#595959", "#c8c8c8"

#: The page's light-scheme colour of each method (widgets/simulation.css).
METHOD_COLORS = {
    "prompted": "#5c6bc0",
    "learned": "#00796b",
    "centralized": "#c2185b",
    "centralized_sampled": "#a15c00",
}
#: The heatmap's shade at probability 1 (a cell's fill opacity is its probability).
HEAT = "#00796b"


def _svg(width: float, height: float, title: str, *children: object) -> str:
    return str(
        el(
            "svg",
            {
                "xmlns": SVG_NS,
                "width": f"{width:g}",
                "height": f"{height:g}",
                "viewBox": f"0 0 {width:g} {height:g}",
                "font-family": FONT,
                "font-size": "13",
                "fill": INK,
            },
            el("title", None, title),
            el("rect", {"width": "100%", "height": "100%", "fill": "#ffffff"}),
            *children,
        )
    )


def _text(x: float, y: float, text: object, **attributes: Any) -> Markup:
    return el("text", {"x": f"{x:.1f}", "y": f"{y:.1f}", **attributes}, text)


# ---------------------------------------------------------------- heatmaps

CELL_W, CELL_H, LABEL_W, HEAD_H, TITLE_H, GAP = 92, 46, 64, 24, 26, 18


def heatmaps_svg(result: Mapping[str, Any]) -> str | None:
    """Each method's joint play: a grid per method, each cell its reward and probability."""
    distributions = result.get("joint_distribution")
    if not distributions or "rewards" not in result:
        return None
    helpers = [r["id"] for r in result["responses"]["helper"]]
    mains = [r["id"] for r in result["responses"]["main"]]
    best = {tuple(cell) for cell in result.get("optimum", {}).get("cells", [])}
    panel_h = TITLE_H + HEAD_H + CELL_H * len(helpers)
    # Wide enough for the longest title and the note under the grids.
    width = max(LABEL_W + CELL_W * len(mains) + 2 * GAP, 720)
    panels = []
    y0 = GAP
    labels = {m: label for m, label in method_labels(result).items() if m in distributions}
    for method, label in labels.items():
        dist = distributions[method]
        expected = result.get("expected_reward", {}).get(method)
        title = label if expected is None else f"{label}: expected reward {format_reward(expected)}"
        parts = [_text(GAP, y0 + 16, title, **{"font-weight": "600"})]
        top = y0 + TITLE_H + HEAD_H
        for j, main in enumerate(mains):
            x = GAP + LABEL_W + CELL_W * (j + 0.5)
            parts.append(_text(x, top - 8, main, **{"text-anchor": "middle", "fill": MUTED}))
        for i, helper in enumerate(helpers):
            y = top + CELL_H * i
            parts.append(
                _text(
                    GAP + LABEL_W - 8,
                    y + CELL_H / 2 + 4,
                    helper,
                    **{
                        "text-anchor": "end",
                        "fill": MUTED,
                    },
                )
            )
            for j, reward in enumerate(result["rewards"][i]):
                x = GAP + LABEL_W + CELL_W * j
                p = dist[i][j]
                star = " \u2605" if (i, j) in best else ""
                dark = p > 0.55  # white text on a dark cell, for contrast
                parts += [
                    el(
                        "rect",
                        {
                            "x": f"{x:.1f}",
                            "y": f"{y:.1f}",
                            "width": CELL_W,
                            "height": CELL_H,
                            "fill": HEAT,
                            "fill-opacity": f"{p:.3f}",
                            "stroke": GRID,
                        },
                    ),
                    _text(
                        x + CELL_W / 2,
                        y + 19,
                        f"{format_number(reward)}{star}",
                        **{
                            "text-anchor": "middle",
                            "font-weight": "600",
                            "fill": "#ffffff" if dark else INK,
                        },
                    ),
                    _text(
                        x + CELL_W / 2,
                        y + 36,
                        format_percent(p),
                        **{
                            "text-anchor": "middle",
                            "font-size": "12",
                            "fill": "#ffffff" if dark else MUTED,
                        },
                    ),
                ]
        panels.append(el("g", {"data-method": method}, *parts))
        y0 += panel_h + GAP
    note = _text(
        GAP,
        y0 + 4,
        "Rows: the helper's response; columns: the main agent's. Each cell: the shared reward "
        "(\u2605 the best) and how often the pair plays it.",
        **{"font-size": "12", "fill": MUTED},
    )
    return _svg(width, y0 + GAP, "Each method's joint play after training", *panels, note)


# ------------------------------------------------------------ across seeds

ROW_H, INDENT, TRACK_W, AXIS_H = 46, 12, 560, 44


def seeds_svg(result: Mapping[str, Any]) -> str | None:
    """Every seed's expected episode reward per method, a dot each, against the optimum."""
    seeds = result.get("seeds")
    if not seeds or not seeds.get("rows"):
        return None
    labels = {m: label for m, label in method_labels(result).items() if m in seeds["methods"]}
    rows = seeds["rows"]
    best = result.get("optimum", {}).get("reward", 0.0)
    values = [r["expected_reward"][m] for r in rows for m in labels]
    lo, hi = min([*values, 0.0, best]), max([*values, best])
    hi = hi if hi > lo else lo + 1
    left = GAP + INDENT

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * TRACK_W

    top = GAP + 8
    height = top + ROW_H * len(labels) + AXIS_H
    parts = []
    for k, (method, label) in enumerate(labels.items()):
        y = top + ROW_H * k + ROW_H * 0.7  # the track; its name on a line above it
        count = seeds["methods"][method]["reached_optimum"]
        parts += [
            _text(GAP, y - 12, f"{label} ({count} of {seeds['count']} at the optimum)"),
            el(
                "line",
                {
                    "x1": left,
                    "x2": left + TRACK_W,
                    "y1": f"{y:.1f}",
                    "y2": f"{y:.1f}",
                    "stroke": GRID,
                },
            ),
            *(
                el(
                    "circle",
                    {
                        "cx": f"{x(r['expected_reward'][method]):.1f}",
                        "cy": f"{y:.1f}",
                        "r": "4.5",
                        "fill": METHOD_COLORS.get(method, INK),
                        "fill-opacity": "0.6",
                        "data-seed": r["seed"],
                    },
                    el(
                        "title",
                        None,
                        f"seed {r['seed']}: {format_reward(r['expected_reward'][method])}",
                    ),
                )
                for r in rows
            ),
        ]
    bottom = top + ROW_H * len(labels)
    ticks = sorted({lo, 0.0, best, hi}) if lo < 0 < hi else sorted({lo, best, hi})
    axis = [
        el(
            "line",
            {
                "x1": f"{x(best):.1f}",
                "x2": f"{x(best):.1f}",
                "y1": top,
                "y2": bottom,
                "stroke": INK,
                "stroke-dasharray": "5 4",
            },
        ),
        el("line", {"x1": left, "x2": left + TRACK_W, "y1": bottom, "y2": bottom, "stroke": MUTED}),
        *(
            _text(
                x(v),
                bottom + 16,
                format_number(round(v, 2)),
                **{
                    "text-anchor": "middle",
                    "font-size": "12",
                    "fill": MUTED,
                },
            )
            for v in ticks
        ),
        _text(
            left + TRACK_W / 2,
            bottom + 34,
            SEEDS_AXIS_TITLE,
            **{
                "text-anchor": "middle",
                "font-size": "12",
                "fill": MUTED,
            },
        ),
    ]
    first = rows[0]["seed"]
    title = f"Across seeds {first} to {first + len(rows) - 1}: each seed's expected episode reward"
    return _svg(left + TRACK_W + GAP, height, title, *parts, join(axis))
