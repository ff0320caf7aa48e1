"""lesson_hooks.fences.experiment: reading lab-experiment blocks, located errors, the markup."""

from __future__ import annotations

import html
import json
import re

import pytest

from lesson_hooks.fences.experiment import parse_page, render_experiment
from tests.support.located import line_of, raises_located

PATH = "docs/page.md"
LAB = "```lab-simulation\n```\n"
EXPERIMENT = """\
```lab-experiment
id: my-experiment
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


def page(experiment: str = EXPERIMENT, lab: str = LAB) -> str:
    return f"# Page\n\n{lab}\nSome text.\n\n{experiment}"


def fails_at(markdown: str, at: str | int, problem: str) -> None:
    """Reading the page fails at the line holding ``at`` (or at line ``at``)."""
    line = at if isinstance(at, int) else line_of(markdown, at)
    raises_located(lambda: parse_page(markdown, PATH), PATH, line, problem)


def test_a_experiment_is_read_with_its_checked_settings_and_right_option() -> None:
    (experiment,) = parse_page(page(), PATH)
    assert experiment.id == "my-experiment" and experiment.lab == "simulation"
    assert experiment.settings == {"table": "penalty", "penalty_k": -100, "seeds": 20}
    assert experiment.params["penalty_k"] == -100.0 and experiment.params["group_size"] == 32
    assert experiment.answer == 1
    assert experiment.spec["options"][1] == {
        "text": "No, `stub` + `alone` in *every* seed.",
        "when": "seeds.methods.learned.reached_optimum == 0",
    }
    assert experiment.line == line_of(page(), "```lab-experiment")


@pytest.mark.parametrize(
    ("old", "new", "at", "message"),
    [
        ("question:", "questoin:", "questoin:", "unknown key 'questoin' in the experiment"),
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
        (
            "id: my-experiment",
            "id: My Experiment",
            "id: My Experiment",
            "`id` 'My Experiment' must be lowercase letters",
        ),
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
    experiment = EXPERIMENT.replace(old, new, 1)
    assert experiment != EXPERIMENT
    fails_at(page(experiment), at, message)


def test_options_number_two_to_four() -> None:
    one = re.sub(r"  - text: Yes.*?\n.*?\n", "", EXPERIMENT, count=1, flags=re.S)
    fails_at(page(one), "options:", "`options` needs 2 to 4 predictions; got 1")
    extra = "".join(f"  - text: Option {i}.\n    when: 1 == {i}\n" for i in range(3))
    five = EXPERIMENT.replace("report:", extra + "report:")
    fails_at(page(five), "options:", "`options` needs 2 to 4 predictions; got 5")


def test_a_missing_key_and_a_repeated_option_are_named() -> None:
    markdown = page(
        EXPERIMENT.replace("explanation: Because the <safe> answer is never punished.\n", "")
    )
    fails_at(markdown, "```lab-experiment", "the experiment has no `explanation`.")
    twice = page(EXPERIMENT.replace("No, `stub` + `alone` in *every* seed.", "Yes, in most seeds."))
    second = [n for n, line in enumerate(twice.split("\n"), 1) if "- text: Yes," in line][1]
    fails_at(twice, second, "option 2 repeats option 1")


def test_an_empty_experiment_or_a_list_is_refused_at_the_fence() -> None:
    empty = page("```lab-experiment\n```\n")
    fails_at(empty, "```lab-experiment", "the experiment is empty.")
    listed = page("```lab-experiment\n- id: x\n```\n")
    fails_at(listed, "- id: x", "an experiment is a mapping with keys `id`, `lab`")


def test_a_experiment_needs_its_lab_on_the_page() -> None:
    fails_at(page(lab=""), "lab: simulation", "this page has no ```lab-simulation")


def test_two_experiments_with_one_id_are_refused() -> None:
    markdown = page(EXPERIMENT + "\n" + EXPERIMENT)
    first, second = [
        n for n, line in enumerate(markdown.split("\n"), 1) if line == "```lab-experiment"
    ]
    fails_at(markdown, second, f"experiment id 'my-experiment' is already used at {PATH}:{first}.")


def test_an_example_inside_another_code_block_is_left_alone() -> None:
    assert parse_page(page(experiment=f"````markdown\n{EXPERIMENT}````\n"), PATH) == []


def test_the_markup_follows_the_contract_and_reads_without_javascript() -> None:
    (experiment,) = parse_page(page(), PATH)
    markup = render_experiment(experiment)
    root = re.match(r'<div class="lab lab-experiment"[^>]*>\n', markup)  # one element, for Markdown
    assert root and markup.endswith("</div>")
    assert 'id="my-experiment"' in root[0] and 'data-lab-experiment="my-experiment"' in root[0]
    assert 'data-lab="experiment"' in root[0] and 'data-lab-experiment-lab="simulation"' in root[0]
    spec = re.search(r'data-lab-experiment-spec="([^"]*)"', root[0])
    assert spec and json.loads(html.unescape(spec[1])) == experiment.spec
    assert (
        '<legend class="lab-experiment__question">Do the learned agents find 11?</legend>' in markup
    )
    radios = re.findall(
        r'<label><input type="radio" name="lab-experiment-my-experiment" value="(\d)"> '
        r"<span>(.*?)</span>",
        markup,
    )
    assert radios == [
        ("0", "Yes, in most seeds."),
        ("1", "No, <code>stub</code> + <code>alone</code> in <em>every</em> seed."),
    ]
    assert ">Run this experiment</button>" in markup.replace("\\\n", "")
    assert "data-lab-experiment-actions hidden" in markup  # no button without JavaScript
    assert (
        '<details class="lab-experiment__explanation note" data-lab-experiment-explanation '
        "data-search-exclude>" in markup
    )
    assert "Because the &lt;safe&gt; answer is never punished." in markup
    assert (
        "<strong>The experiment:</strong> Reward table Penalty game, Penalty k \u2212100, Seeds 20"
        in markup
    )
    # A link that opens this experiment with its settings in the lab's form (lab.core.links).
    assert (
        '<a href="#my-experiment?table=penalty&amp;penalty_k=-100&amp;seeds=20" '
        "data-lab-experiment-link>Open the lab with these settings</a>"
    ) in markup.replace("\\\n", "")
    assert "<link" not in render_experiment(experiment)  # the stylesheet is linked once per page
