"""Guided experiments declared in Markdown as ```` ```lab-task ```` blocks: predict, run, explain.

A task drives a lab on the same page. The reader predicts, presses **Run this
experiment** (the lab's controls are set to the task's settings and the lab
runs), and is told, in words :mod:`lab.guided.tasks` makes from the run, how the
prediction fared; then the explanation opens::

    ```lab-task
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
key, a setting the lab refuses, a condition or report :mod:`lab.guided.tasks` cannot
read, no or several ``right`` options, a lab the page does not have. Without
JavaScript the question, the options, the settings and the explanation (in a
collapsed block) read as a plain text; ``assets/lab/widgets/task.js`` makes it run.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml
from mkdocs.utils import get_relative_url

from lab.core.markup import Markup, el, join, trusted, void
from lab.guided.tasks import TaskError, check_condition, check_report, task_params
from lab.kinds import RUNNERS
from lab.share import link_fragment
from lesson_hooks.fences.base import Fence, Reader, keys
from lesson_hooks.fences.custom import LabFence
from lesson_hooks.support.paths import LAB_DIR

FENCE_INFO = "lab-task"
STYLESHEET = f"{LAB_DIR}/widgets/task.css"
MIN_OPTIONS, MAX_OPTIONS = 2, 4

_TASK_KEYS = ("id", "lab", "question", "settings", "options", "report", "explanation")
_OPTION_KEYS = ("text", "when", "right")


@dataclass(frozen=True)
class Option:
    text: str
    when: str
    right: bool


@dataclass(frozen=True)
class Task:
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
        """What lab.guided.tasks.task_outcome reads (and the page's script), as JSON data."""
        return {
            "id": self.id,
            "lab": self.lab,
            "params": self.params,
            "options": [{"text": o.text, "when": o.when} for o in self.options],
            "report": self.report,
        }


class _TaskReader(Reader):
    """Turns one block's YAML into a Task, failing at the offending line."""

    def read(self) -> Task:
        entries = self.top(_TASK_KEYS, _TASK_KEYS, "task")
        task_id = self.slug(entries["id"], "climbing-defaults")
        lab = self.text(*entries["lab"], "`lab`")
        if lab not in RUNNERS:
            raise self.fail(entries["lab"][1], f"`lab` must be one of {keys(RUNNERS)}.")
        kinds = self.fence.page.kinds
        if kinds is not None and lab not in kinds:
            raise self.fail(
                entries["lab"][1],
                f"this page has no ```lab-{lab} block for the task to run; add one.",
            )
        key, node = entries["settings"]
        settings, lines = self.values(
            "`settings`", node, "`settings` maps the lab's parameter names to values."
        )
        params = self.checked(
            lambda values: task_params(lab, values),
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
        except TaskError as err:
            raise self.fail(node, f"`report`: {err}") from err
        return Task(
            id=task_id,
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
            except TaskError as err:
                raise self.fail(when_node, f"the `when` of {what}: {err}") from err
            right = self.flag(*entries["right"]) if "right" in entries else False
            options.append(Option(text, when, right))
        if sum(o.right for o in options) != 1:
            raise self.fail(
                key, "exactly one option needs `right: true`: the one the explanation calls right."
            )
        return tuple(options)


def read_task(fence: Fence) -> Task:
    """Validate one block's YAML; raise FenceError naming its file and line.

    On a page the build knows, the task's lab must have its own block there.
    """
    return _TaskReader(fence).read()


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


def settings_text(task: Task) -> str:
    """The settings the task sets, as the lab's form names them."""
    spec = RUNNERS[task.lab].spec()
    parts = [
        f"{spec[name]['label']} {_value(spec[name], task.params[name])}"
        for name in spec
        if name in task.settings
    ]
    listed = ", ".join(parts) if parts else "the lab's defaults"
    rest = "; every other setting at its default" if parts else ""
    return f"{listed}{rest}"


def _option(task: Task, i: int, option: Option) -> Markup:
    radio = void("input", type="radio", name=f"lab-task-{task.id}", value=i)
    return el(
        "li",
        {"class": "lab-task__option", "data-lab-task-option": i},
        el("label", None, radio, " ", el("span", None, inline(option.text))),
    )


def render_task(task: Task, stylesheet: str | None = None) -> Markup:
    """The task as plain markup: readable without JavaScript; task.js makes it run."""
    name = f"lab-task-{task.id}"
    options = join((_option(task, i, o) for i, o in enumerate(task.options)), "\n")
    spec = json.dumps(task.spec, ensure_ascii=False, separators=(",", ":"))
    # Inside the lab's element, so the block is one element for Markdown to place.
    link = join([void("link", rel="stylesheet", href=stylesheet), "\n"]) if stylesheet else None
    right = task.options[task.answer]
    # A link to this experiment that puts its settings in the lab's form (lab.share);
    # after Run in the actions, which only a page running the lab shows.
    fragment = link_fragment(task.lab, task.id, task.settings)
    prediction = el(
        "fieldset",
        {"class": "lab-task__prediction", "aria-describedby": f"{name}-settings"},
        "\n",
        el("legend", {"class": "lab-task__question"}, inline(task.question)),
        "\n",
        el("ul", {"class": "lab-task__options"}, "\n", options, "\n"),
        "\n",
    )
    # What the card shows of its run once it is done: the count over seeds (where
    # Python gives one), the lab's main chart drawn again at the card's size, and
    # the way to the lab's full charts; task.js fills and shows it.
    result = el(
        "div",
        {"class": "lab-task__result", "data-lab-task-result": True, "hidden": True},
        "\n",
        el("p", {"class": "lab-task__seeds", "data-lab-task-seeds": True}),
        "\n",
        el("div", {"class": "lab-task__chart", "data-lab-task-chart": True}),
        "\n",
        el("p", None, el("a", {"data-lab-task-charts": True}, "See the full charts in the lab")),
        "\n",
    )
    actions = el(
        "div",
        {"class": "lab-task__actions", "data-lab-task-actions": True, "hidden": True},
        "\n",
        el(
            "button",
            {"type": "submit", "class": "md-button md-button--primary", "data-lab-task-run": True},
            "Run this experiment",
        ),
        "\n",
        # The run's progress, mirrored from the lab, and what to do next; polite.
        el("p", {"class": "lab-task__status", "data-lab-task-status": True, "role": "status"}),
        "\n",
        el(
            "p",
            {"class": "lab-task__link"},
            el(
                "a",
                {"href": f"#{fragment}", "data-lab-task-link": True},
                "Open the lab with these settings",
            ),
        ),
        "\n",
    )
    explanation = el(
        "details",
        {"class": "lab-task__explanation note", "data-lab-task-explanation": True},
        "\n",
        el("summary", None, "Answer and explanation"),
        "\n",
        el("p", None, el("strong", None, "Answer:"), " ", inline(right.text)),
        "\n",
        el("p", None, inline(task.explanation)),
        "\n",
    )
    form = el(
        "form",
        {"class": "lab-task__form", "data-lab-task-form": True},
        "\n",
        prediction,
        "\n",
        el(
            "p",
            {
                "class": "lab-task__outcome",
                "data-lab-task-outcome": True,
                "aria-live": "polite",
            },
        ),
        "\n",
        result,
        "\n",
        el(
            "p",
            {"class": "lab-task__settings", "id": f"{name}-settings"},
            el("strong", None, "The experiment:"),
            f" {settings_text(task)}.",
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
            "class": "lab lab-task",
            "id": task.id,
            "data-lab": "task",
            "data-lab-task": task.id,
            "data-lab-task-lab": task.lab,
            "data-lab-task-spec": spec,
        },
        "\n",
        link,
        form,
        "\n",
    )


def _render(task: Task, fence: Fence) -> str:
    # The stylesheet is linked once per page, by its first task.
    stylesheet = get_relative_url(STYLESHEET, fence.page.url) if fence.index == 0 else None
    return render_task(task, stylesheet)


FENCE = LabFence("task", read_task, _render, unique="site", noun="task")
formatter = FENCE.format
parse_page = FENCE.read_page
