"""lesson_hooks.fences.task: reading lab-task blocks, located errors, and the markup contract."""

from __future__ import annotations

import html
import json
import re

import pytest

from lesson_hooks.fences.task import parse_page, render_task
from tests.support.located import line_of, raises_located

PATH = "docs/page.md"
LAB = "```lab-simulation\n```\n"
TASK = """\
```lab-task
id: my-task
lab: simulation
question: Do the learned agents find 11?
settings:
  table: penalty
  penalty_k: -100
  seeds: 20
options:
  - text: Yes, in most seeds.
    when: seeds.methods.learned.reached_optimum > seeds.count / 2
  - text: No, `stub` + `alone` in *every* seed.
    when: seeds.methods.learned.reached_optimum == 0
    right: true
report: the agents found it in {seeds.methods.learned.reached_optimum} seeds
explanation: Because the <safe> answer is never punished.
```
"""


def page(task: str = TASK, lab: str = LAB) -> str:
    return f"# Page\n\n{lab}\nSome text.\n\n{task}"


def fails_at(markdown: str, at: str | int, problem: str) -> None:
    """Reading the page fails at the line holding ``at`` (or at line ``at``)."""
    line = at if isinstance(at, int) else line_of(markdown, at)
    raises_located(lambda: parse_page(markdown, PATH), PATH, line, problem)


def test_a_task_is_read_with_its_checked_settings_and_right_option() -> None:
    (task,) = parse_page(page(), PATH)
    assert task.id == "my-task" and task.lab == "simulation"
    assert task.settings == {"table": "penalty", "penalty_k": -100, "seeds": 20}
    assert task.params["penalty_k"] == -100.0 and task.params["group_size"] == 32
    assert task.answer == 1
    assert task.spec["options"][1] == {
        "text": "No, `stub` + `alone` in *every* seed.",
        "when": "seeds.methods.learned.reached_optimum == 0",
    }
    assert task.line == line_of(page(), "```lab-task")


@pytest.mark.parametrize(
    ("old", "new", "at", "message"),
    [
        ("question:", "questoin:", "questoin:", "unknown key 'questoin' in the task"),
        ("  seeds: 20", "  seeds: 0", "  seeds: 0", "`settings`: Seeds must be a whole number"),
        ("  seeds: 20", "  colour: red", "  colour: red", "`settings`: Unknown parameter"),
        (
            "    when: seeds.methods.learned.reached_optimum == 0",
            "    when: open('x')",
            "open('x')",
            "the `when` of option 2: open() is not allowed",
        ),
        (
            "    right: true",
            "    right: yes please",
            "right: yes please",
            "`right` must be true or false.",
        ),
        ("    right: true", "", "options:", "exactly one option needs `right: true`"),
        (
            "reached_optimum} seeds",
            "reached_optimum seeds",
            "report:",
            "`report`: The report has an unmatched { or }.",
        ),
        (
            "report: the agents found it in {seeds.methods.learned.reached_optimum} seeds",
            "report: the agents found it",
            "report:",
            "`report`: The report has no {expression}: it must come from the run.",
        ),
        ("lab: simulation", "lab: chess", "lab: chess", "`lab` must be one of"),
        ("id: my-task", "id: My Task", "id: My Task", "`id` 'My Task' must be lowercase letters"),
        (
            "explanation: Because the <safe> answer is never punished.",
            "explanation:",
            "explanation:",
            "`explanation` is empty",
        ),
        ("question: Do", "question: [Do", "question: [Do", "invalid YAML"),
    ],
)
def test_a_mistake_fails_at_its_line(old: str, new: str, at: str, message: str) -> None:
    task = TASK.replace(old, new, 1)
    assert task != TASK
    fails_at(page(task), at, message)


def test_options_number_two_to_four() -> None:
    one = re.sub(r"  - text: Yes.*?\n.*?\n", "", TASK, count=1, flags=re.S)
    fails_at(page(one), "options:", "`options` needs 2 to 4 predictions; got 1")
    extra = "".join(f"  - text: Option {i}.\n    when: 1 == {i}\n" for i in range(3))
    five = TASK.replace("report:", extra + "report:")
    fails_at(page(five), "options:", "`options` needs 2 to 4 predictions; got 5")


def test_a_missing_key_and_a_repeated_option_are_named() -> None:
    markdown = page(TASK.replace("explanation: Because the <safe> answer is never punished.\n", ""))
    fails_at(markdown, "```lab-task", "the task has no `explanation`.")
    twice = page(TASK.replace("No, `stub` + `alone` in *every* seed.", "Yes, in most seeds."))
    second = [n for n, line in enumerate(twice.split("\n"), 1) if "- text: Yes," in line][1]
    fails_at(twice, second, "option 2 repeats option 1")


def test_an_empty_task_or_a_list_is_refused_at_the_fence() -> None:
    empty = page("```lab-task\n```\n")
    fails_at(empty, "```lab-task", "the task is empty.")
    listed = page("```lab-task\n- id: x\n```\n")
    fails_at(listed, "- id: x", "a task is a mapping with keys `id`, `lab`")


def test_a_task_needs_its_lab_on_the_page() -> None:
    fails_at(page(lab=""), "lab: simulation", "this page has no ```lab-simulation")


def test_two_tasks_with_one_id_are_refused() -> None:
    markdown = page(TASK + "\n" + TASK)
    first, second = [n for n, line in enumerate(markdown.split("\n"), 1) if line == "```lab-task"]
    fails_at(markdown, second, f"task id 'my-task' is already used at {PATH}:{first}.")


def test_an_example_inside_another_code_block_is_left_alone() -> None:
    assert parse_page(page(task=f"````markdown\n{TASK}````\n"), PATH) == []


def test_the_markup_follows_the_contract_and_reads_without_javascript() -> None:
    (task,) = parse_page(page(), PATH)
    markup = render_task(task, "../assets/lab/widgets/task.css")
    root = re.match(r'<div class="lab lab-task"[^>]*>\n', markup)  # one element, for Markdown
    assert root and markup.endswith("</div>")
    assert markup[root.end() :].startswith(
        '<link rel="stylesheet" href="../assets/lab/widgets/task.css">'
    )
    assert 'id="my-task"' in root[0] and 'data-lab-task="my-task"' in root[0]
    assert 'data-lab="task"' in root[0] and 'data-lab-task-lab="simulation"' in root[0]
    spec = re.search(r'data-lab-task-spec="([^"]*)"', root[0])
    assert spec and json.loads(html.unescape(spec[1])) == task.spec
    assert '<legend class="lab-task__question">Do the learned agents find 11?</legend>' in markup
    radios = re.findall(
        r'<label><input type="radio" name="lab-task-my-task" value="(\d)"> <span>(.*?)</span>',
        markup,
    )
    assert radios == [
        ("0", "Yes, in most seeds."),
        ("1", "No, <code>stub</code> + <code>alone</code> in <em>every</em> seed."),
    ]
    assert ">Run this experiment</button>" in markup.replace("\\\n", "")
    assert "data-lab-task-actions hidden" in markup  # no button without JavaScript
    assert '<details class="lab-task__explanation note" data-lab-task-explanation>' in markup
    assert "Because the &lt;safe&gt; answer is never punished." in markup
    assert (
        "<strong>The experiment:</strong> Reward table Penalty game, Penalty k \u2212100, Seeds 20"
        in markup
    )
    # A link that opens this experiment with its settings in the lab's form (lab.share).
    assert (
        '<a href="#my-task?table=penalty&amp;penalty_k=-100&amp;seeds=20" '
        "data-lab-task-link>Open the lab with these settings</a>"
    ) in markup.replace("\\\n", "")
    assert "<link" not in render_task(task)  # the stylesheet is linked once per page
