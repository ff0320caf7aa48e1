"""MkDocs hook: ```` ```lab-task ```` blocks become predict-run-explain experiments.

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
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from lab.guided.tasks import TaskError, check_condition, check_report, task_params
from lab.kinds import RUNNERS
from lab.sim.params import ParamError
from lesson_hooks.fences import base as fence_blocks
from lesson_hooks.fences.base import NULL_TAG, SLUG, Fence, FenceError
from lesson_hooks.fences.base import file_lines as fence_lines
from lesson_hooks.fences.base import find_fences as _find_fences
from lesson_hooks.fences.mapping import _keys, _Reader
from lesson_hooks.support.paths import LAB_DIR

FENCE_INFO = "lab-task"
STYLESHEET = f"{LAB_DIR}/widgets/task.css"
MIN_OPTIONS, MAX_OPTIONS = 2, 4

_TASK_KEYS = ("id", "lab", "question", "settings", "options", "report", "explanation")
_OPTION_KEYS = ("text", "when", "right")
#: Each lab's form spec, for naming the task's settings on the page.


class TaskFenceError(FenceError):
    """A bad task; the message starts with ``path:line:``."""


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
    path: str
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


class _TaskReader(_Reader):
    """Turns one fence's YAML into a Task, failing at the offending line."""

    def __init__(self, fence: Fence, path: str, labs_on_page: set[str]) -> None:
        super().__init__(fence, path)
        self.labs_on_page = labs_on_page

    def fail(self, at: yaml.Node | int, problem: str) -> TaskFenceError:
        line = at if isinstance(at, int) else self.line_of(at)
        return TaskFenceError(self.path, line, problem)

    def read(self) -> Task:  # type: ignore[override]
        entries = self.top(_TASK_KEYS, _TASK_KEYS, "task")

        task_id = self.text(*entries["id"], "`id`")
        if not SLUG.match(task_id):
            raise self.fail(
                entries["id"][1],
                f"`id` {task_id!r} must be lowercase letters, digits and single hyphens "
                "(like climbing-defaults).",
            )
        lab = self.text(*entries["lab"], "`lab`")
        if lab not in RUNNERS:
            raise self.fail(entries["lab"][1], f"`lab` must be one of {_keys(tuple(RUNNERS))}.")
        if lab not in self.labs_on_page:
            raise self.fail(
                entries["lab"][1],
                f"this page has no ```lab-{lab} block for the task to run; add one.",
            )
        settings, params = self.settings(lab, *entries["settings"])
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
            path=self.path,
            line=self.fence.line,
        )

    def settings(
        self, lab: str, key: yaml.Node, node: yaml.Node
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG:
            node = yaml.MappingNode("tag:yaml.org,2002:map", [])
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, "`settings` maps the lab's parameter names to values.")
        settings: dict[str, Any] = {}
        lines: dict[str, int] = {}
        for name_node, value_node in node.value:
            name = str(yaml.safe_load(yaml.serialize(name_node)))
            if name in settings:
                raise self.fail(name_node, f"`settings` sets {name!r} twice.")
            settings[name] = yaml.safe_load(yaml.serialize(value_node))
            lines[name] = self.line_of(name_node)
        try:
            params = task_params(lab, settings)
        except ParamError as err:
            name, reason = next(iter(err.fields.items()))
            raise self.fail(lines.get(name, self.line_of(key)), f"`settings`: {reason}") from err
        return settings, params

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
            if not isinstance(item, yaml.MappingNode):
                raise self.fail(item, f"{what} must be a mapping with keys {_keys(_OPTION_KEYS)}.")
            entries = self.mapping(item, _OPTION_KEYS, what)
            for needed in ("text", "when"):
                if needed not in entries:
                    raise self.fail(item, f"{what} has no `{needed}`.")
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


def labs_on_page(markdown: str, path: str) -> set[str]:
    """The kinds of lab placed on a page by their own fences."""
    return {kind for kind in RUNNERS if _find_fences(markdown, path, f"lab-{kind}", TaskFenceError)}


def parse_page(markdown: str, path: str, labs: set[str] | None = None) -> list[Task]:
    """Every task on one page, in order; ids must differ.

    ``labs``: the kinds of lab the page has (found on the page when not given).
    """
    fences = _find_fences(markdown, path, FENCE_INFO, TaskFenceError)
    if not fences:
        return []
    if labs is None:
        labs = labs_on_page(markdown, path)
    tasks = [_TaskReader(fence, path, labs).read() for fence in fences]
    check_unique(tasks)
    return tasks


def check_unique(tasks: list[Task]) -> None:
    first: dict[str, Task] = {}
    for task in tasks:
        if task.id in first:
            other = first[task.id]
            raise TaskFenceError(
                task.path,
                task.line,
                f"task id {task.id!r} is already used at {other.path}:{other.line}.",
            )
        first[task.id] = task


_CODE = re.compile(r"`([^`]+)`")
_EMPHASIS = re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])")


def inline(text: str) -> str:
    """Escaped text with Markdown's `code` and *emphasis* (the rest stays as written)."""
    out = html.escape(text, quote=False)
    out = _CODE.sub(r"<code>\1</code>", out)
    return _EMPHASIS.sub(r"<em>\1</em>", out)


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


def render_task(task: Task, stylesheet: str | None = None) -> str:
    """The task as plain markup: readable without JavaScript; task.js makes it run."""
    name = f"lab-task-{task.id}"
    options = "\n".join(
        f'<li class="lab-task__option" data-lab-task-option="{i}">'
        f'<label><input type="radio" name="{name}" value="{i}"> '
        f"<span>{inline(option.text)}</span></label></li>"
        for i, option in enumerate(task.options)
    )
    spec = html.escape(json.dumps(task.spec, ensure_ascii=False, separators=(",", ":")))
    link = f'<link rel="stylesheet" href="{html.escape(stylesheet)}">\n' if stylesheet else ""
    right = task.options[task.answer]
    return f"""{link}<div class="lab lab-task" id="{task.id}" data-lab="task" \
data-lab-task="{task.id}" data-lab-task-lab="{task.lab}" data-lab-task-spec="{spec}">
<form class="lab-task__form" data-lab-task-form>
<fieldset class="lab-task__prediction" aria-describedby="{name}-settings">
<legend class="lab-task__question">{inline(task.question)}</legend>
<ul class="lab-task__options">
{options}
</ul>
</fieldset>
<p class="lab-task__outcome" data-lab-task-outcome aria-live="polite"></p>
<p class="lab-task__settings" id="{name}-settings"><strong>The experiment:</strong> \
{html.escape(settings_text(task))}.</p>
<div class="lab-task__actions" data-lab-task-actions hidden>
<button type="submit" class="md-button md-button--primary" data-lab-task-run>Run this \
experiment</button>
<p class="lab-task__status" data-lab-task-status role="status"></p>
</div>
<details class="lab-task__explanation note" data-lab-task-explanation>
<summary>Answer and explanation</summary>
<p><strong>Answer:</strong> {inline(right.text)}</p>
<p>{inline(task.explanation)}</p>
</details>
</form>
</div>"""


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Check every task on the site before any page renders (ids are site-wide)."""
    every: list[Task] = []
    for file in list(files):
        if not (file.is_documentation_page() and file.inclusion.is_in_serve()):
            continue
        tasks = parse_page(file.content_string, fence_blocks.display_path(file, config))
        check_unique([*every, *tasks])
        every.extend(tasks)
    return files


@fence_lines
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if FENCE_INFO not in markdown:
        return markdown
    path = fence_blocks.display_path(page.file, config)
    # on_files found the page's labs in its source; other hooks may have replaced them by now.
    tasks = parse_page(markdown, path, set(RUNNERS))
    if not tasks:
        return markdown
    stylesheet = get_relative_url(STYLESHEET, page.url)
    blocks = [render_task(task, stylesheet if i == 0 else None) for i, task in enumerate(tasks)]
    fences = _find_fences(markdown, path, FENCE_INFO, TaskFenceError)
    return fence_blocks.replace_fences(markdown, fences, blocks)


__all__ = [
    "FENCE_INFO",
    "Option",
    "Task",
    "TaskFenceError",
    "labs_on_page",
    "on_files",
    "on_page_markdown",
    "parse_page",
    "render_task",
]
