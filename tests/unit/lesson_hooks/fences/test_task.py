"""lesson_hooks.fences.task: reading lab-task blocks, located errors, and the markup contract."""

from __future__ import annotations

import html
import json
import re

import pytest

from lesson_hooks.fences.task import TaskFenceError, parse_page, render_task

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


def error(markdown: str) -> str:
    with pytest.raises(TaskFenceError) as err:
        parse_page(markdown, PATH)
    return str(err.value)


def line_of(markdown: str, text: str) -> int:
    (number,) = [n for n, line in enumerate(markdown.split("\n"), 1) if text in line]
    return number


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
        ("    right: true", "    right: yes please", "right: yes please", "must be true or false"),
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
            "The report has no {expression}: it must come from the run.",
        ),
        ("lab: simulation", "lab: chess", "lab: chess", "`lab` must be one of"),
        ("id: my-task", "id: My Task", "id: My Task", "must be lowercase letters"),
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
    markdown = page(task)
    found = error(markdown)
    assert found.startswith(f"{PATH}:{line_of(markdown, at)}: "), found
    assert message in found


def test_options_number_two_to_four() -> None:
    one = re.sub(r"  - text: Yes.*?\n.*?\n", "", TASK, count=1, flags=re.S)
    assert "needs 2 to 4 predictions; got 1" in error(page(one))
    extra = "".join(f"  - text: Option {i}.\n    when: 1 == {i}\n" for i in range(3))
    five = TASK.replace("report:", extra + "report:")
    assert "needs 2 to 4 predictions; got 5" in error(page(five))


def test_a_missing_key_and_a_repeated_option_are_named() -> None:
    assert error(
        page(TASK.replace("explanation: Because the <safe> answer is never punished.\n", ""))
    ).endswith("the task has no `explanation`.")
    twice = TASK.replace("No, `stub` + `alone` in *every* seed.", "Yes, in most seeds.")
    assert "option 2 repeats option 1" in error(page(twice))


def test_an_empty_task_or_a_list_is_refused_at_the_fence() -> None:
    empty = page("```lab-task\n```\n")
    assert error(empty) == f"{PATH}:{line_of(empty, '```lab-task')}: the task is empty."
    listed = page("```lab-task\n- id: x\n```\n")
    assert "a task is a mapping with keys `id`, `lab`" in error(listed)


def test_a_task_needs_its_lab_on_the_page() -> None:
    markdown = page(lab="")
    assert (
        f"{PATH}:{line_of(markdown, 'lab: simulation')}: this page has no ```lab-simulation"
        in error(markdown)
    )


def test_two_tasks_with_one_id_are_refused() -> None:
    markdown = page(TASK + "\n" + TASK)
    second = [n for n, line in enumerate(markdown.split("\n"), 1) if line == "```lab-task"][1]
    assert error(markdown).startswith(f"{PATH}:{second}: task id 'my-task' is already used at")


def test_an_example_inside_another_code_block_is_left_alone() -> None:
    assert parse_page(page(task=f"````markdown\n{TASK}````\n"), PATH) == []


def test_the_markup_follows_the_contract_and_reads_without_javascript() -> None:
    (task,) = parse_page(page(), PATH)
    markup = render_task(task, "../assets/lab/widgets/task.css")
    assert markup.startswith('<link rel="stylesheet" href="../assets/lab/widgets/task.css">')
    root = re.search(r'<div class="lab lab-task"[^>]*>', markup)
    assert root
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
    assert render_task(task).startswith("<div")  # the stylesheet is linked once per page
