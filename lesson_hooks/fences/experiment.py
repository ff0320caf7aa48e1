"""Guided experiments as ```` ```lab-experiment ```` blocks in Markdown: predict, run, explain.

An experiment drives a lab on the same page. The reader predicts, presses **Run this
experiment** (the lab's controls are set to the experiment's settings and the lab
runs), and is told, in words :mod:`lab.experiment.outcome` makes from the run, how the
prediction fared; then the explanation opens::

    ```lab-experiment
    id: climbing-defaults           # unique across the site
    lab: simulation                 # the page's ```lab-simulation block runs it
    question: Over 20 seeds, how often do learned agents find 11?
    settings:                       # checked by the lab's own validator
      seeds: 20
    options:                        # 2 to 4; each `when` is a condition on the result
      - text: In most seeds.
        when: seeds.methods.learned.reached_optimum > seeds.count / 2
      - text: In none.
        when: seeds.methods.learned.reached_optimum == 0
        right: true                 # the option the explanation calls right
    report: the learned agents found it in {seeds.methods.learned.reached_optimum} seeds
    explanation: Why, in a sentence or a paragraph.
    ```

A mistake fails the build at its line (``docs/page.md:LINE: ...``): an unknown
key, a setting the lab refuses, a condition or report :mod:`lab.experiment.outcome` cannot
read, no or several ``right`` options, a lab the page does not have. Without
JavaScript the question, the options, the settings and the explanation (in a
collapsed block) read as a plain text; ``assets/lab/widgets/experiment.js`` makes it run.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from lab.core.links import link_fragment
from lab.core.markup import Markup, el, join, trusted, void
from lab.experiment.outcome import ExperimentError, check_condition, check_report
from lab.kinds import RUNNERS
from lesson_hooks.fences.base import NOT_SEARCHED, Fence, Reader, keys
from lesson_hooks.fences.custom import LabFence

FENCE_INFO = "lab-experiment"
MIN_OPTIONS, MAX_OPTIONS = 2, 4

_EXPERIMENT_KEYS = ("id", "lab", "question", "settings", "options", "report", "explanation")
_OPTION_KEYS = ("text", "when", "right")


@dataclass(frozen=True)
class Option:
    text: str
    when: str
    right: bool


@dataclass(frozen=True)
class Experiment:
    id: str
    lab: str
    question: str
    settings: dict[str, Any]
    params: dict[str, Any]
    options: tuple[Option, ...]
    report: str
    explanation: str
    path: str | None
    line: int

    @property
    def answer(self) -> int:
        """The index of the option the explanation calls right."""
        return next(i for i, option in enumerate(self.options) if option.right)

    @property
    def spec(self) -> dict[str, Any]:
        """What :func:`lab.experiment.experiment_outcome` and the page's script read, as JSON."""
        return {
            "id": self.id,
            "lab": self.lab,
            "params": self.params,
            "options": [{"text": o.text, "when": o.when} for o in self.options],
            "report": self.report,
        }


class _ExperimentReader(Reader):
    """Turns one block's YAML into an Experiment, failing at the offending line."""

    def read(self) -> Experiment:
        entries = self.top(_EXPERIMENT_KEYS, _EXPERIMENT_KEYS, "experiment")
        experiment_id = self.slug(entries["id"], "climbing-defaults")
        lab = self.text(*entries["lab"], "`lab`")
        if lab not in RUNNERS:
            raise self.fail(entries["lab"][1], f"`lab` must be one of {keys(RUNNERS)}.")
        kinds = self.fence.page.kinds
        if kinds is not None and lab not in kinds:
            raise self.fail(
                entries["lab"][1],
                f"this page has no ```lab-{lab} block for the experiment to run; add one.",
            )
        key, node = entries["settings"]
        settings, lines = self.values(
            "`settings`", node, "`settings` maps the lab's parameter names to values."
        )
        params = self.checked(
            lambda values: RUNNERS[lab].validate(dict(values)).to_json(),
            settings,
            lines,
            self.line_of(key),
            lambda name, reason: f"`settings`: {reason}",
        )
        options = self.options(*entries["options"])
        key, node = entries["report"]
        report = self.text(key, node, "`report`")
        try:
            check_report(report)
        except ExperimentError as err:
            raise self.fail(node, f"`report`: {err}") from err
        return Experiment(
            id=experiment_id,
            lab=lab,
            question=self.text(*entries["question"], "`question`"),
            settings=settings,
            params=params,
            options=options,
            report=report,
            explanation=self.text(*entries["explanation"], "`explanation`"),
            path=self.fence.page.path,
            line=self.fence.line,
        )

    def options(self, key: yaml.Node, node: yaml.Node) -> tuple[Option, ...]:
        items = self.sequence(key, node, "`options`")
        if not MIN_OPTIONS <= len(items) <= MAX_OPTIONS:
            raise self.fail(
                key,
                f"`options` needs {MIN_OPTIONS} to {MAX_OPTIONS} predictions; got {len(items)}.",
            )
        options: list[Option] = []
        seen: dict[str, int] = {}
        for i, item in enumerate(items, start=1):
            what = f"option {i}"
            entries = self.item(item, _OPTION_KEYS, ("text", "when"), what)
            text = self.text(*entries["text"], f"the `text` of {what}")
            if text in seen:
                raise self.fail(item, f"{what} repeats option {seen[text]} ({text!r}).")
            seen[text] = i
            when_key, when_node = entries["when"]
            when = self.text(when_key, when_node, f"the `when` of {what}")
            try:
                check_condition(when)
            except ExperimentError as err:
                raise self.fail(when_node, f"the `when` of {what}: {err}") from err
            right = self.flag(*entries["right"]) if "right" in entries else False
            options.append(Option(text, when, right))
        if sum(o.right for o in options) != 1:
            raise self.fail(
                key, "exactly one option needs `right: true`: the one the explanation calls right."
            )
        return tuple(options)


def read_experiment(fence: Fence) -> Experiment:
    """Validate one block's YAML; raise FenceError naming its file and line.

    On a page the build knows, the experiment's lab must have its own block there.
    """
    return _ExperimentReader(fence).read()


_CODE = re.compile(r"`([^`]+)`")
_EMPHASIS = re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])")


def inline(text: str) -> Markup:
    """Escaped text with Markdown's `code` and *emphasis* (the rest stays as written)."""
    out = html.escape(text, quote=False)
    out = _CODE.sub(r"<code>\1</code>", out)
    # Escaped above; the substitutions add only the two tags.
    return trusted(_EMPHASIS.sub(r"<em>\1</em>", out))


def _value(spec: dict[str, Any], value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    names = spec.get("choice_labels", {})
    shown = names.get(value, names.get(str(value), value))
    if isinstance(shown, float):
        shown = f"{shown:g}"
    return str(shown).replace("-", "\N{MINUS SIGN}") if isinstance(shown, int | str) else str(shown)


def settings_text(experiment: Experiment) -> str:
    """The settings the experiment sets, as the lab's form names them."""
    spec = RUNNERS[experiment.lab].spec()
    parts = [
        f"{spec[name]['label']} {_value(spec[name], experiment.params[name])}"
        for name in spec
        if name in experiment.settings
    ]
    listed = ", ".join(parts) if parts else "the lab's defaults"
    rest = "; every other setting at its default" if parts else ""
    return f"{listed}{rest}"


def _option(experiment: Experiment, i: int, option: Option) -> Markup:
    radio = void("input", type="radio", name=f"lab-experiment-{experiment.id}", value=i)
    return el(
        "li",
        {"class": "lab-experiment__option", "data-lab-experiment-option": i},
        el("label", None, radio, " ", el("span", None, inline(option.text))),
    )


def render_experiment(experiment: Experiment) -> Markup:
    """The experiment as plain markup: readable without JavaScript; experiment.js makes it run."""
    name = f"lab-experiment-{experiment.id}"
    options = join((_option(experiment, i, o) for i, o in enumerate(experiment.options)), "\n")
    spec = json.dumps(experiment.spec, ensure_ascii=False, separators=(",", ":"))
    right = experiment.options[experiment.answer]
    # A link to this experiment that puts its settings in the lab's form (lab.core.links);
    # after Run in the actions, which only a page running the lab shows.
    fragment = link_fragment(RUNNERS[experiment.lab], experiment.id, experiment.settings)
    prediction = el(
        "fieldset",
        {"class": "lab-experiment__prediction", "aria-describedby": f"{name}-settings"},
        "\n",
        el("legend", {"class": "lab-experiment__question"}, inline(experiment.question)),
        "\n",
        el("ul", {"class": "lab-experiment__options"}, "\n", options, "\n"),
        "\n",
    )
    # What the card shows of its run once it is done, under the outcome's sentence: the
    # counts over seeds as a compact table (where Python gives one), the lab's main
    # chart drawn again at the card's size, and the way to the lab's full charts;
    # experiment.js fills and shows it.
    result = el(
        "div",
        {"class": "lab-experiment__result", "data-lab-experiment-result": True, "hidden": True},
        "\n",
        el("div", {"class": "lab-experiment__scroll", "data-lab-experiment-counts": True}),
        "\n",
        el("div", {"class": "lab-experiment__chart", "data-lab-experiment-chart": True}),
        "\n",
        el(
            "p",
            None,
            # A real link from the start (crawlers, assistive tech, a reader without
            # JavaScript): the lab's block under its default id, ``lab-<kind>``;
            # experiment.js points it at the lab's charts once a run has drawn them.
            el(
                "a",
                {"href": f"#lab-{experiment.lab}", "data-lab-experiment-charts": True},
                "See the full charts in the lab",
            ),
        ),
        "\n",
    )
    actions = el(
        "div",
        {"class": "lab-experiment__actions", "data-lab-experiment-actions": True, "hidden": True},
        "\n",
        el(
            "button",
            {
                "type": "submit",
                "class": "md-button md-button--primary",
                "data-lab-experiment-run": True,
            },
            "Run this experiment",
        ),
        "\n",
        # The run's progress, mirrored from the lab, and what to do next; polite.
        el(
            "p",
            {
                "class": "lab-experiment__status",
                "data-lab-experiment-status": True,
                "role": "status",
            },
        ),
        "\n",
        el(
            "p",
            {"class": "lab-experiment__link"},
            el(
                "a",
                {"href": f"#{fragment}", "data-lab-experiment-link": True},
                "Open the lab with these settings",
            ),
        ),
        "\n",
    )
    explanation = el(
        "details",
        {
            "class": "lab-experiment__explanation note",
            "data-lab-experiment-explanation": True,
            **NOT_SEARCHED,
        },
        "\n",
        el("summary", None, "Answer and explanation"),
        "\n",
        el("p", None, el("strong", None, "Answer:"), " ", inline(right.text)),
        "\n",
        el("p", None, inline(experiment.explanation)),
        "\n",
    )
    form = el(
        "form",
        {"class": "lab-experiment__form", "data-lab-experiment-form": True},
        "\n",
        prediction,
        "\n",
        el(
            "p",
            {
                "class": "lab-experiment__outcome",
                "data-lab-experiment-outcome": True,
                "aria-live": "polite",
            },
        ),
        "\n",
        result,
        "\n",
        el(
            "p",
            {"class": "lab-experiment__settings", "id": f"{name}-settings"},
            el("strong", None, "The experiment:"),
            f" {settings_text(experiment)}.",
        ),
        "\n",
        actions,
        "\n",
        explanation,
        "\n",
    )
    return el(
        "div",
        {
            "class": "lab lab-experiment",
            "id": experiment.id,
            "data-lab": "experiment",
            "data-lab-experiment": experiment.id,
            "data-lab-experiment-lab": experiment.lab,
            "data-lab-experiment-spec": spec,
        },
        "\n",
        form,
        "\n",
    )


def _render(experiment: Experiment, fence: Fence) -> str:
    return render_experiment(experiment)


FENCE = LabFence("experiment", read_experiment, _render)
formatter = FENCE.format
parse_page = FENCE.read_page
