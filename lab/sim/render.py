"""The simulation's results as the page shows them: escaped HTML strings, made once.

The build renders the default run's transcript with these functions (readers
without JavaScript see it), and the worker renders every run the reader starts
with the very same functions (:func:`render_results`, returned with the run by
``lab.rpc``), so the page never re-implements a transcript, a caption or a
number format in JavaScript. Element ids inside the transcript are
``{prefix}-t{turn}-...`` (e.g. ``lab-simulation-t1-helper-observation``); the
lesson links to them.

Everything read from a result is looked up defensively: keys the model does
not produce (yet) leave their part out rather than fail.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lab.core.markup import Markup, el, escape, join
from lab.core.params import field_used
from lab.core.stats import quartiles
from lab.sim.experiment import METHOD_LABELS
from lab.sim.params import param_spec

__all__ = [
    "METHOD_LABELS",
    "SEEDS_AXIS_TITLE",
    "SLOTS",
    "STEP_LABELS",
    "describe_params",
    "field_used",
    "format_number",
    "format_percent",
    "format_reward",
    "method_labels",
    "render_band_table",
    "render_episode",
    "render_output",
    "render_results",
    "render_seeds",
    "render_summary",
]

#: The five labels the Visual Lab uses; the transcript uses them verbatim.
STEP_LABELS = ("Observation", "Policy", "Action", "Reward", "Environment transition")
#: The parts of the lab :func:`render_results` fills, by their ``data-lab-html`` name.
SLOTS = (
    "summary",
    "output",
    "curve-caption",
    "curve-table",
    "heatmap-caption",
    "heatmaps",
    "partners-caption",
    "partners",
    "seeds-caption",
    "seeds",
    "episode",
)
#: At most this many rows in the learning curve's table (plus the last update).
CURVE_TABLE_ROWS = 25


# ------------------------------------------------------------------ numbers


def format_number(value: float) -> str:
    """A number as the page writes it: 11, -30, 7.5, 0.25 (Python's ``g``)."""
    return f"{value:g}"


def format_reward(value: float | None) -> str:
    """A mean reward: at most two decimals, no trailing zeros."""
    if value is None or not math.isfinite(value):
        return "n/a"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def format_percent(p: float) -> str:
    """A probability as a percentage, never rounding a tiny one to 0 or a near-certain to 100."""
    v = p * 100
    if 0 < v < 0.05:
        return "<0.1%"
    if 99.95 <= v < 100:
        return ">99.9%"
    return f"{v:.1f}%"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# ---------------------------------------------------------------- settings


def describe_params(params: Mapping[str, Any]) -> str:
    """The settings of a run in one phrase, every field the run used, in the form's order."""
    parts = []
    for name, spec in param_spec().items():
        if name not in params or spec["kind"] == "table" or not field_used(spec, params):
            continue  # a custom table is named by the table choice; its cells are in the heatmaps
        value = params[name]
        if spec["kind"] == "choice":
            text = str(spec.get("choice_labels", {}).get(value, value))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            text = format_number(value)
        else:
            text = str(value)
        parts.append(f"{spec['label'].lower()}: {text}")
    return "; ".join(parts)


# ------------------------------------------------------------------- markup


def _pre(text: str, cls: str, of: str) -> Markup:
    """A transcript block with the id ``{of}-text``, ``of`` naming the step it shows."""
    # Material renames each block "__code_" + the closest id (its own first) and
    # copies a block by that name, so each needs an id of its own. It only adds
    # copy buttons to blocks there when a page loads, never to the transcript
    # drawn after a run, so no transcript block has one (no-copy).
    return el(
        "pre", {"id": f"{of}-text", "class": f"{cls} no-copy"}, el("code", None, text.rstrip())
    )


def method_labels(result: Mapping[str, Any]) -> dict[str, str]:
    """Each method the result reports on, in order, with its name on the page.

    The model names its methods (``result["methods"]``); older results are named
    by :data:`METHOD_LABELS`.
    """
    listed = result.get("methods")
    if isinstance(listed, list) and listed:
        return {str(m["id"]): str(m.get("label", m["id"])) for m in listed}
    found = result.get("expected_reward") or result.get("mean_reward") or {}
    ordered = [m for m in METHOD_LABELS if m in found] + [
        m for m in found if m not in METHOD_LABELS
    ]
    return {m: METHOD_LABELS.get(m, m) for m in ordered}


# --------------------------------------------------------------- transcript


def _step(label: str, step_id: str, *shown: object) -> Markup:
    """One step of the transcript: its label (the lesson links to ``step_id``) and what it shows."""
    return join([el("dt", {"id": step_id}, label), el("dd", None, *shown)])


def _agent(agent: Mapping[str, Any], tid: str, fold: bool = False) -> Markup:
    role = str(agent["agent"])
    aid = f"{tid}-{role}"
    observation, policy, action = agent["observation"], agent["policy"], agent["action"]
    chosen = action["response"]
    probs = join(
        el(
            "li",
            {"class": "is-chosen" if rid == chosen else None},
            el("code", None, rid),
            f" {format_percent(p)}",
        )
        for rid, p in zip(policy["responses"], policy["probabilities"], strict=True)
    )
    return el(
        "div",
        {"class": "lab-sim__agent"},
        el("h5", None, f"{role.capitalize()} agent", id=aid),
        el(
            "dl",
            {"class": "lab-sim__steps"},
            _step(
                observation["label"],
                f"{aid}-observation",
                _fold(
                    "The prompt",
                    _pre(observation["text"], "lab-sim__prompt", f"{aid}-observation"),
                    fold,
                ),
            ),
            _step(
                policy["label"],
                f"{aid}-policy",
                el("p", None, policy["text"]),
                el("ul", {"class": "lab-sim__probs"}, probs),
            ),
            _step(
                action["label"],
                f"{aid}-action",
                el("p", None, el("code", None, chosen), f": {action['summary']}"),
                _pre(action["text"], "lab-sim__code", f"{aid}-action"),
            ),
        ),
    )


def _fold(summary: str, content: Markup, fold: bool) -> Markup:
    """``content``, or, with ``fold``, the same in a block the reader opens on demand."""
    if not fold:
        return content
    return el("details", {"class": "lab-sim__fold"}, el("summary", None, summary), content)


def _turn(step: Mapping[str, Any], prefix: str, count: int, fold: bool = False) -> Markup:
    t = step["turn"]
    tid = f"{prefix}-t{t}"
    transition, reward, joint = step["transition"], step["reward"], step["joint_output"]
    following = join(
        el(
            "details",
            {"class": "lab-sim__next"},
            el("summary", None, f"Next prompt of the {nxt['agent']} agent"),
            _pre(nxt["text"], "lab-sim__prompt", f"{tid}-next-{nxt['agent']}"),
        )
        for nxt in transition.get("next_observations", [])
    )
    return el(
        "div",
        {"class": "lab-sim__turn"},
        el("h4", None, f"Turn {t} of {count}", id=tid),
        el("div", {"class": "lab-sim__agents"}, *(_agent(a, tid, fold) for a in step["agents"])),
        el(
            "dl",
            {"class": "lab-sim__steps lab-sim__steps--joint"},
            _step(
                joint["label"],
                f"{tid}-joint-output",
                _pre(joint["text"], "lab-sim__code", f"{tid}-joint-output"),
            ),
            _step(
                reward["label"],
                f"{tid}-reward",
                el(
                    "p",
                    None,
                    el("strong", None, format_number(reward["value"]), class_="lab-sim__reward"),
                    f" {reward['text']}",
                ),
            ),
            _step(
                transition["label"],
                f"{tid}-transition",
                el("p", None, transition["text"]),
                following,
            ),
        ),
    )


def render_episode(result: Mapping[str, Any], prefix: str, *, fold: bool = False) -> Markup:
    """The recorded episode (``result["episode"]``), each step under the Visual Lab's label.

    With ``fold`` (the lesson's worked example) what repeats opens on demand: each
    agent's prompt, and every turn after the first.
    """
    episode = result.get("episode")
    if not episode:
        return Markup()
    turns = episode["turns"]
    caption = "Recorded from the learned agents after training"
    if "params" in result:
        caption += f" ({describe_params(result['params'])})"
    caption += f". Episode reward: {format_reward(episode.get('episode_reward'))}."
    caption_p = el("p", None, caption, class_="lab-sim__caption", data_lab_episode_caption=True)
    shown = [_turn(step, prefix, len(turns), fold) for step in turns]
    if fold and len(shown) > 1:
        later = f"Turn 2 of {len(turns)}" if len(turns) == 2 else f"Turns 2 to {len(turns)}"
        summary = f"{later}: the same steps, with the verifier's feedback in each prompt"
        shown = [shown[0], _fold(summary, join(shown[1:]), fold)]
    return join([caption_p, *shown])


# ------------------------------------------------------------------ summary


def _cell_name(result: Mapping[str, Any], cell: Sequence[int]) -> str:
    i, j = cell
    responses = result["responses"]
    return f"{responses['helper'][i]['id']} + {responses['main'][j]['id']}"


def _fallback_summary(result: Mapping[str, Any]) -> list[str]:
    """What learned and centralized play most likely do, for results without their own summary
    (which say nothing of whether the play was still moving, so neither does this)."""
    settled, best = result.get("settled_on", {}), result.get("optimum", {})
    learned, centralized = settled.get("learned"), settled.get("centralized")
    if not learned or not centralized or "cells" not in best:
        return []

    def where(s: Mapping[str, Any]) -> str:
        name, reward = _cell_name(result, s["cell"]), format_reward(s["reward"])
        share = format_percent(s["probability"])
        return f"most likely plays {name} (reward {reward}, {share} of the time)"

    best_name = " or ".join(_cell_name(result, cell) for cell in best["cells"])
    first = (
        f"learned collaboration {where(learned)}, the best joint response"
        if learned.get("optimal")
        else f"learned collaboration {where(learned)} and missed the best joint response, "
        f"{best_name} (reward {format_reward(best['reward'])})"
    )
    second = f"centralized control {where(centralized)}"
    sentences = [f"After {result.get('updates_done', 0)} updates, {first}; {second}."]
    partners = result.get("partners", {})
    if partners.get("held_out_mean") is not None:
        sentences.append(
            f"With held-out partners the trained agent scored "
            f"{format_reward(partners['held_out_mean'])}, against "
            f"{format_reward(partners['training_mean'])} with its training partners."
        )
    return sentences


def render_summary(result: Mapping[str, Any]) -> Markup:
    """``result["summary"]`` (sentences made by the model): a paragraph, or a list of several."""
    summary = result.get("summary")
    if isinstance(summary, str):
        sentences = [summary]
    elif isinstance(summary, Iterable) and summary:
        sentences = [str(s) for s in summary]
    else:
        sentences = _fallback_summary(result)
    if len(sentences) <= 1:
        return join(el("p", None, s) for s in sentences)
    return el("ul", {"class": "lab-sim__summary-list"}, *(el("li", None, s) for s in sentences))


def render_output(output: Mapping[str, Any] | None) -> Markup:
    """What the reader's code printed (see :mod:`lab.sim.user_code`), or nothing."""
    if not output or not (output.get("text") or output.get("omitted")):
        return Markup()
    omitted = int(output.get("omitted") or 0)
    note = (
        f" (the first {len(str(output.get('text', ''))):,} characters; {omitted:,} more not shown)"
        if omitted
        else ""
    )
    return el(
        "div",
        {"class": "lab-sim__output", "data-lab-output": True},
        el("p", None, f"Your code printed{note}:"),
        el(
            "pre",
            {"class": "lab-sim__printed no-copy"},
            el("code", None, str(output.get("text", "")).rstrip()),
        ),
    )


# ----------------------------------------------------------------- heatmaps


def _header_row(result: Mapping[str, Any]) -> Markup:
    heads = join(
        el("th", {"scope": "col"}, el("code", None, r["id"])) for r in result["responses"]["main"]
    )
    return el("tr", None, el("td", None, "helper \\ main", class_="lab-sim__corner"), heads)


def render_heatmaps(result: Mapping[str, Any]) -> Markup:
    """One table per method: each joint response's shared reward and how often it is played."""
    distributions = result.get("joint_distribution")
    if not distributions or "rewards" not in result:
        return Markup()
    best = {tuple(cell) for cell in result.get("optimum", {}).get("cells", [])}
    tables = []
    for method, label in method_labels(result).items():
        dist = distributions.get(method)
        if dist is None:
            continue
        rows = []
        for i, helper in enumerate(result["responses"]["helper"]):
            cells = []
            for j, reward in enumerate(result["rewards"][i]):
                is_best = (i, j) in best
                mark = (
                    el("span", None, "★", class_="lab-sim__best", aria_hidden="true")
                    + el("span", None, " (best joint response)", class_="lab-visually-hidden")
                    if is_best
                    else ""
                )
                cells.append(
                    el(
                        "td",
                        {
                            "class": "is-best" if is_best else None,
                            "style": f"--lab-sim-p: {dist[i][j]:.4f}",
                        },
                        el("span", None, format_number(reward), class_="lab-sim__cell-reward"),
                        mark,
                        el("span", None, format_percent(dist[i][j]), class_="lab-sim__cell-p"),
                    )
                )
            rows.append(
                el("tr", None, el("th", {"scope": "row"}, el("code", None, helper["id"])), *cells)
            )
        expected = result.get("expected_reward", {}).get(method)
        meta = (
            el(
                "span",
                None,
                f"expected reward {format_reward(expected)}",
                class_="lab-sim__heatmap-meta",
            )
            if expected is not None
            else ""
        )
        tables.append(
            el(
                "div",
                {"class": "lab-sim__scroll lab-sim__heatmap", "data-lab-heatmap": method},
                el(
                    "table",
                    {"class": "lab-sim__heat-table"},
                    el(
                        "caption",
                        None,
                        el("span", None, label, class_="lab-sim__heatmap-title"),
                        meta,
                    ),
                    el("thead", None, _header_row(result)),
                    el("tbody", None, *rows),
                ),
            )
        )
    return join(tables)


def _heatmap_caption(result: Mapping[str, Any]) -> str:
    turns = result.get("params", {}).get("turns", 1)
    last = " (in the last turn)" if turns > 1 else ""
    return (
        "Each cell is one joint response: the shared reward the verifier gives it, and how often "
        f"each method writes it after training{last}. ★ marks the best joint response."
    )


# ----------------------------------------------------------------- partners


def _partner_scores(result: Mapping[str, Any]) -> dict[str, list[float]] | None:
    """Over a run of several seeds, each partner's scores with the trained agent, one per
    seed (the rows of ``result["seeds"]``); None for one seed."""
    rows = (result.get("seeds") or {}).get("rows") or []
    if len(rows) < 2 or not all(r.get("partners") for r in rows):
        return None
    scores: dict[str, list[float]] = {}
    for r in rows:
        for s in r["partners"]:
            if s.get("score") is not None:
                scores.setdefault(s["name"], []).append(s["score"])
    return scores


def render_partners(result: Mapping[str, Any]) -> Markup:
    """Training and held-out partners: the trained agent's score with each, as bars from
    zero on a labelled scale. Over several seeds each bar is the median score and a
    whisker spans the interquartile range, as the learning curves' band does."""
    p = result.get("partners")
    if not p:
        return Markup()
    everyone = [*p.get("training", []), *p.get("held_out", [])]
    per_seed = _partner_scores(result)
    spread = {name: quartiles(v) for name, v in (per_seed or {}).items() if v}
    values = [
        v
        for s in everyone
        for v in (s.get("score"), s.get("score_before_training"), s.get("best_response"))
        if v is not None
    ] + [v for scores in (per_seed or {}).values() for v in scores]
    lo = min([0.0, *values])
    hi = max([result.get("optimum", {}).get("reward", 0.0), *values, lo + 1])

    def at(v: float) -> float:
        return (v - lo) / (hi - lo) * 100

    def mark(kind: str, value: float | None) -> Markup:
        """Where the partner's score stood before training, or the best it could be."""
        if value is None:
            return Markup()
        return el(
            "span",
            {
                "class": f"lab-sim__bar-mark lab-sim__bar-mark--{kind}",
                "style": f"left: {at(value):.2f}%",
            },
        )

    def score(s: Mapping[str, Any]) -> float:
        """The bar's score: the median over the seeds, or the one seed's."""
        return spread[s["name"]]["median"] if s["name"] in spread else s.get("score") or 0.0

    def whisker(s: Mapping[str, Any]) -> Markup:
        """The interquartile range of the partner's scores over the seeds."""
        q = spread.get(s["name"])
        if q is None:
            return Markup()
        return el(
            "span",
            {
                "class": "lab-sim__bar-spread",
                "style": f"left: {at(q['q1']):.2f}%; width: {at(q['q3']) - at(q['q1']):.2f}%",
            },
        )

    def bar(s: Mapping[str, Any], group: str) -> Markup:
        value = score(s)
        style = (
            f"--lab-sim-from: {min(at(0), at(value)):.2f}%; "
            f"--lab-sim-width: {abs(at(value) - at(0)):.2f}%; --lab-sim-zero: {at(0):.2f}%"
        )
        return el(
            "span",
            {"class": f"lab-sim__bar lab-sim__bar--{group}", "aria-hidden": "true", "style": style},
            el("span", {"class": "lab-sim__bar-fill"}),
            el("span", {"class": "lab-sim__bar-zero"}),
            whisker(s),
            mark("before", s.get("score_before_training")),
            mark("best", s.get("best_response")),
        )

    def row(s: Mapping[str, Any], group: str) -> Markup:
        notes = []
        if q := spread.get(s["name"]):
            n = len(per_seed[s["name"]]) if per_seed else 0
            notes.append(
                f"median of {n} seeds, middle half {format_reward(q['q1'])} to "
                f"{format_reward(q['q3'])}"
            )
        notes.append(f"before training: {format_reward(s.get('score_before_training'))}")
        if s.get("best_response") is not None:
            notes.append(f"best possible: {format_reward(s['best_response'])}")
        return el(
            "tr",
            None,
            el(
                "th",
                {"scope": "row"},
                el("span", None, s["name"], class_="lab-sim__partner"),
                el("span", None, s.get("description", ""), class_="lab-sim__partner-desc"),
            ),
            el(
                "td",
                {"class": "lab-sim__score"},
                el("span", None, format_reward(score(s)), class_="lab-sim__score-value"),
                bar(s, group),
                el("span", None, "; ".join(notes), class_="lab-sim__before"),
            ),
        )

    def group(
        name: str, title: str, partners: list[Mapping[str, Any]], mean: float | None
    ) -> Markup:
        if spread and partners:
            scores = [v for s in partners for v in (per_seed or {}).get(s["name"], [])]
            mean = math.fsum(scores) / len(scores) if scores else mean
        heading = title if mean is None else f"{title}: mean {format_reward(mean)}"
        return el(
            "tbody",
            {"data-lab-group": name},
            el(
                "tr",
                {"class": "lab-sim__group"},
                el("th", None, heading, scope="rowgroup", colspan="2"),
            ),
            *(row(s, name) for s in partners),
        )

    # The bars' scale, under them: its ends and its zero (issue 39: it had neither).
    scale = el(
        "tfoot",
        None,
        el(
            "tr",
            None,
            el("th", {"scope": "row"}, "Scale: expected episode reward"),
            el(
                "td",
                {"class": "lab-sim__score"},
                el(
                    "span",
                    {"class": "lab-sim__bar-scale", "data-lab-partners-scale": True},
                    *(
                        el(
                            "span",
                            {"class": "lab-sim__bar-tick", "style": f"left: {at(v):.2f}%"},
                            format_reward(v),
                        )
                        for v in sorted({lo, 0.0, hi})
                    ),
                ),
            ),
        ),
    )

    head = el(
        "thead",
        None,
        el(
            "tr",
            None,
            el("th", None, "Helper", scope="col"),
            el("th", None, "Score with the trained agent", scope="col"),
        ),
    )

    # The bars' key: every encoding a bar uses, in words beside a sample of it.
    def key_item(sample: Markup, text: str) -> Markup:
        return el("span", {"class": "lab-sim__bar-key-item"}, sample, text)

    swatch = "lab-sim__bar-key-swatch"
    key = el(
        "caption",
        {"class": "lab-sim__bar-key"},
        key_item(
            el("span", {"class": f"{swatch} lab-sim__bar-key-swatch--training"}), "training partner"
        ),
        key_item(
            el("span", {"class": f"{swatch} lab-sim__bar-key-swatch--held-out"}),
            "held-out partner (hatched)",
        ),
        key_item(
            el("span", {"class": f"{swatch} lab-sim__bar-key-mark--before"}), "before training"
        ),
        *(
            [
                key_item(
                    el("span", {"class": f"{swatch} lab-sim__bar-key-mark--best"}), "best possible"
                )
            ]
            if any(s.get("best_response") is not None for s in everyone)
            else []
        ),
        *(
            [
                key_item(
                    el("span", {"class": f"{swatch} lab-sim__bar-key-spread"}),
                    "middle half of the seeds",
                )
            ]
            if spread
            else []
        ),
    )
    return el(
        "table",
        {"class": "lab-sim__partners"},
        key,
        head,
        group("training", "Training partners", p.get("training", []), p.get("training_mean")),
        group("held-out", "Held-out partners", p.get("held_out", []), p.get("held_out_mean")),
        scale,
    )


def _partners_caption(result: Mapping[str, Any]) -> str:
    text = (
        "The main agent trained with the training partners only; the held-out partners were "
        "fixed before training and never trained with. "
    )
    per_seed = _partner_scores(result)
    if per_seed:
        n = max(len(v) for v in per_seed.values())
        first = result.get("params", {}).get("seed", 0)
        text += (
            f"Over seeds {first} to {first + n - 1}, each bar is the median of the {n} seeds' "
            "scores, and the thin line over it spans their interquartile range (half the seeds "
            "lie in it). "
        )
    text += "Each score is an expected episode reward"
    partners = result.get("partners", {})
    if any("best_response" in s for s in partners.get("training", [])):
        return text + ", beside the best any main agent could score with that partner."
    best = result.get("optimum", {}).get("reward")
    return text + (f" (the best possible is {format_reward(best)})." if best is not None else ".")


# ------------------------------------------------------------ learning curve


def render_curve_table(result: Mapping[str, Any]) -> Markup:
    """The learning curve as a table: every nth update (at most about 25 rows) and the last."""
    series = result.get("mean_reward") or {}
    labels = {m: label for m, label in method_labels(result).items() if m in series}
    methods = list(labels)
    n = max((len(series[m]) for m in methods), default=0)
    every = max(1, math.ceil(n / CURVE_TABLE_ROWS))
    updates = list(range(every, n + 1, every))
    if n and (not updates or updates[-1] != n):
        updates.append(n)
    caption = (
        "Mean shared reward of each update's group of episodes."
        if every == 1
        else f"Mean shared reward of every {every}th update's group of episodes."
    )

    def value(m: str, u: int) -> str:
        values = series[m]
        return format_reward(values[u - 1]) if u <= len(values) else "n/a"

    rows = [(u, [value(m, u) for m in methods]) for u in updates]
    return _update_table(caption, [labels[m] for m in methods], rows) + render_band_table(result)


def _update_table(
    caption: str,
    heads: Sequence[str],
    rows: Iterable[tuple[int, Sequence[str]]],
    attributes: Mapping[str, Any] | None = None,
) -> Markup:
    """A table with one row per update: its number, then one cell per method."""
    head = el(
        "tr",
        None,
        el("th", None, "Update", scope="col"),
        *(el("th", None, h, scope="col") for h in heads),
    )
    body = join(
        el("tr", None, el("th", None, u, scope="row"), *(el("td", None, c) for c in cells))
        for u, cells in rows
    )
    return el(
        "table",
        {"class": "lab-sim__curve-table", **(attributes or {})},
        el("caption", None, caption),
        el("thead", None, head),
        el("tbody", None, body),
    )


def render_band_table(result: Mapping[str, Any]) -> Markup:
    """The learning curves across seeds (``result["curve_band"]``) as a table: at every nth
    point (at most about 25 rows and the last), each method's median and interquartile range."""
    band = result.get("curve_band")
    if not band:
        return Markup()
    labels = {m: label for m, label in method_labels(result).items() if m in band["methods"]}
    updates = band["updates"]
    every = max(1, math.ceil(len(updates) / CURVE_TABLE_ROWS))
    picks = list(range(every - 1, len(updates), every))
    if picks[-1] != len(updates) - 1:
        picks.append(len(updates) - 1)

    def cell(m: str, k: int) -> str:
        b = band["methods"][m]
        return (
            f"{format_reward(b['median'][k])} "
            f"({format_reward(b['q1'][k])} to {format_reward(b['q3'][k])})"
        )

    rows = [(updates[k], [cell(m, k) for m in labels]) for k in picks]
    return _update_table(
        _band_caption(result),
        list(labels.values()),
        rows,
        {"data-lab-curve-band": True},
    )


def _band_caption(result: Mapping[str, Any]) -> str:
    band = result.get("curve_band")
    if not band:
        return ""
    first = result.get("params", {}).get("seed", 0)
    return (
        f"Across seeds {first} to {first + band['seeds'] - 1}: the median of each update's mean "
        "shared reward, and in brackets its interquartile range (half the seeds lie in it)."
    )


def _curve_caption(result: Mapping[str, Any]) -> str:
    params = result.get("params", {})
    size = params.get("group_size")
    group = f"group of {size} episodes" if size is not None else "group of episodes"
    text = (
        f"Mean shared reward of each update's {group} ({describe_params(params)}). Centralized "
        "control samples nothing: its line is its exact expected episode reward at each update."
    )
    band = result.get("curve_band")
    if band:
        text += (
            f" Beside seed {params.get('seed', 0)}'s curve, the band across all "
            f"{band['seeds']} seeds: their median and interquartile range."
        )
    return text


# --------------------------------------------------------------- many seeds

#: The strip's axis, on the page and in its SVG (lab.sim.figures).
SEEDS_AXIS_TITLE = "Expected episode reward (dashed: the optimum)"
#: Dots closer than this (in percent of the strip's width) are drawn one above the other.
_SEEDS_GAP = 3.0


def _lanes(xs: Sequence[float]) -> list[int]:
    """For dots at ``xs`` (in percent), the lane each is drawn in, 0 on the track and each
    lane above it, so that no two dots closer than :data:`_SEEDS_GAP` overlap."""
    ends: list[float] = []  # the rightmost dot of each lane so far
    lanes = [0] * len(xs)
    for i in sorted(range(len(xs)), key=xs.__getitem__):
        lane = next((k for k, end in enumerate(ends) if xs[i] - end >= _SEEDS_GAP), len(ends))
        if lane == len(ends):
            ends.append(xs[i])
        ends[lane] = xs[i]
        lanes[i] = lane
    return lanes


def render_seeds(result: Mapping[str, Any]) -> Markup:
    """Every seed's expected episode reward per method: a strip chart, and the same as a table.

    Each dot is one seed's final policy; the dashed line is the optimum. The
    table beside it counts the seeds within the optimum's tolerance and gives
    the spread (lowest, median, highest), so nothing is only in the picture.
    """
    seeds = result.get("seeds")
    if not seeds or not seeds.get("rows"):
        return Markup()
    labels = method_labels(result)
    methods = [m for m in labels if m in seeds["methods"]]
    rows = seeds["rows"]
    best = result.get("optimum", {}).get("reward", 0.0)
    values = [r["expected_reward"][m] for r in rows for m in methods]
    lo, hi = min([*values, 0.0, best]), max([*values, best])
    hi = hi if hi > lo else lo + 1

    def x(v: float) -> float:
        """Where a value lies along the track, in percent of its width."""
        return (v - lo) / (hi - lo) * 100

    def at(v: float) -> str:
        return f"left: {x(v):.1f}%"

    # HTML, not SVG: its text keeps the page's size on a phone, where a scaled
    # drawing's would shrink with it (issue 23). Positions are percentages.
    best_mark = el("span", {"class": "lab-sim__seeds-best", "style": at(best)})
    strip_rows = []
    for m in methods:
        # Seeds that end on the same value, as the page writes it, share one dot labelled
        # with how many they are; distinct values never merge (issue 39: 5.94 and 5.95 did).
        spots: dict[str, list[tuple[int, float]]] = {}
        for r in rows:
            v = r["expected_reward"][m]
            spots.setdefault(format_reward(v), []).append((r["seed"], v))
        places = [x(math.fsum(v for _, v in spot) / len(spot)) for spot in spots.values()]
        lanes = _lanes(places)
        dots = []
        for (shown, spot), place, lane in zip(spots.items(), places, lanes, strict=True):
            seeds_here = ", ".join(str(seed) for seed, _ in spot)
            title = f"{labels[m]}: {shown} (seed{'s' if len(spot) > 1 else ''} {seeds_here})"
            size = min(8 + 2.4 * (len(spot) - 1) ** 0.5 * 2, 22)
            dots.append(
                el(
                    "span",
                    {
                        "class": f"lab-sim__dot lab-sim__dot--{m}",
                        "style": f"left: {place:.1f}%; --lab-sim-dot: {size:.1f}px; "
                        f"--lab-sim-lane: {lane}",
                        "title": title,
                    },
                    # Beside its dot, on the side with more room, clear of the lane above.
                    el(
                        "span",
                        {
                            "class": "lab-sim__seeds-count"
                            + (" lab-sim__seeds-count--before" if place > 50 else "")
                        },
                        f"\u00d7{len(spot)}",
                    )
                    if len(spot) > 1
                    else "",
                )
            )
        strip_rows.append(
            el(
                "div",
                {"class": "lab-sim__seeds-row", "data-lab-method": m},
                el("span", {"class": "lab-sim__seeds-label"}, labels[m]),
                el(
                    "span",
                    {
                        "class": "lab-sim__seeds-track",
                        "style": f"--lab-sim-lanes: {max(lanes, default=0) + 1}",
                    },
                    best_mark,
                    *dots,
                ),
            )
        )
    ticks = el(
        "div",
        {"class": "lab-sim__seeds-ticks"},
        *(
            el("span", {"class": "lab-sim__seeds-tick", "style": at(v)}, format_reward(v))
            for v in sorted({lo, 0.0, best} if lo < 0 else {lo, best})
        ),
    )
    axis = el("p", {"class": "lab-sim__seeds-axis"}, SEEDS_AXIS_TITLE)
    count = seeds["count"]
    reached = "; ".join(
        f"{labels[m]}: {seeds['methods'][m]['reached_optimum']} of {count}" for m in methods
    )
    chart = el(
        "div",
        {
            "class": "lab-sim__seeds-chart",
            "role": "img",
            "aria-label": f"Expected episode reward of each seed; reached the optimum: {reached}.",
        },
        *strip_rows,
        ticks,
        axis,
    )
    head = el(
        "tr",
        None,
        *(
            el("th", None, h, scope="col")
            for h in (
                "Method",
                "Reached the optimum",
                "Rate over all seeds (95% interval)",
                "Lowest",
                "Median",
                "Highest",
            )
        ),
    )
    body = join(
        el(
            "tr",
            {"data-lab-method": m},
            el(
                "th",
                {"scope": "row"},
                el(
                    "span",
                    {"class": f"lab-sim__dot-key lab-sim__dot-key--{m}", "aria-hidden": "true"},
                ),
                labels[m],
            ),
            el("td", None, f"{seeds['methods'][m]['reached_optimum']} of {count}"),
            el("td", None, _interval_text(seeds["methods"][m].get("interval"))),
            *(
                el("td", None, format_reward(seeds["methods"][m][k]))
                for k in ("min", "median", "max")
            ),
        )
        for m in methods
    )
    table = el(
        "table",
        {"class": "lab-sim__seeds-table"},
        el("thead", None, head),
        el("tbody", None, body),
    )
    return chart + el("div", {"class": "lab-sim__scroll"}, table)


def _interval_text(interval: Sequence[float] | None) -> str:
    """A 95% interval of a rate as the table writes it: "0% to 16%"; an exact method has
    none, its seeds being one result repeated."""
    if not interval:
        return "none: exact"
    low, high = interval
    return f"{low:.0%} to {high:.0%}"


def _seeds_caption(result: Mapping[str, Any]) -> str:
    seeds = result.get("seeds")
    if not seeds:
        return Markup()
    first = result.get("params", {}).get("seed", 0)
    count = seeds["count"]
    tolerance = result.get("optimum", {}).get("tolerance", 0.02)
    which = f"seed {first}" if count == 1 else f"seeds {first} to {first + count - 1}"
    return (
        f"Expected episode reward of each method's final policy, for {which}: seeds that end "
        "on the same value share a dot, marked with how many they are, and close values are "
        "drawn one above the other. "
        f"The dashed line is the best possible, {format_reward(result['optimum']['reward'])}; "
        f"a seed reached it when it ends within {tolerance:.0%} of it. A count of seeds is a "
        "sample: the rate column is the 95% Wilson interval of the rate over all seeds. The "
        "exact centralized control samples nothing, so its seeds are one result repeated. "
        "Raise Seeds to see how often a result happens, not just whether it can."
    )


# -------------------------------------------------------------------- all


def render_results(result: Mapping[str, Any], prefix: str) -> dict[str, Markup]:
    """Every part of the lab a finished run fills, by slot (see :data:`SLOTS`).

    ``prefix`` starts the transcript's element ids (``lab-<id>``).
    """
    return {
        "summary": render_summary(result),
        "output": render_output(result.get("output")),
        "curve-caption": escape(_curve_caption(result)),
        "curve-table": render_curve_table(result),
        "heatmap-caption": escape(_heatmap_caption(result)),
        "heatmaps": render_heatmaps(result),
        "partners-caption": escape(_partners_caption(result)),
        "partners": render_partners(result),
        "seeds-caption": escape(_seeds_caption(result)),
        "seeds": render_seeds(result),
        "episode": render_episode(result, prefix),
    }
