"""Every guided experiment on every page: its explanation's answer is what the model does.

The experiments are found by parsing the pages' ```lab-experiment blocks
(lesson_hooks.fences.experiment),
so a new experiment is tested with no change here. For each, the lab runs with the
experiment's settings, as the reader's Run this experiment does, and the option the
explanation calls right must be the only one the result satisfies; then the same
from seed 0: one run of the experiment's seeds, or, for an experiment about a single
seed, each of seeds 0 to 19 on its own.
"""

# ruff: noqa: RUF001 (the quotes keep the page's typography: minus signs)
from __future__ import annotations

import pytest

from lab import prompted_prior
from lab.experiment.outcome import experiment_outcome, matching_options
from lab.sim.task import CLIMBING, Observation, penalty_table
from lesson_hooks.fences.experiment import FENCE_INFO, Experiment, parse_page
from lesson_hooks.support.paths import ROOT
from tests.support.runs import run_guided_experiment
from tests.unit.lab.sim.test_claims import helper_view

DOCS = ROOT / "docs"
SEEDS = 20  # seeds 0-19


def _experiments() -> list[Experiment]:
    experiments = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        if FENCE_INFO in text:
            experiments.extend(parse_page(text, f"docs/{page.relative_to(DOCS).as_posix()}"))
    return experiments


EXPERIMENTS = _experiments()


def test_the_pages_have_their_experiments() -> None:
    labs = [experiment.lab for experiment in EXPERIMENTS]
    assert labs.count("simulation") >= 9
    assert labs.count("language-models") >= 2


def _only_the_right_option(experiment: Experiment, result: dict, where: str) -> None:
    matched = matching_options(experiment.spec, result)
    right = experiment.options[experiment.answer].text
    assert matched == [experiment.answer], (
        f"{experiment.path}:{experiment.line}: {experiment.id} {where}: "
        f"the explanation calls {right!r} right, "
        f"but the result satisfies {[experiment.options[i].text for i in matched]}"
    )


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_the_experiments_answer_is_what_the_model_does_at_its_settings(
    experiment: Experiment,
) -> None:
    result = run_guided_experiment(experiment.spec)
    _only_the_right_option(experiment, result, "at its settings")
    for choice in range(len(experiment.options)):
        outcome = experiment_outcome(experiment.spec, choice, result)
        assert outcome["text"].startswith("You predicted \u201c")
        assert outcome["right"] == (choice == experiment.answer)


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[t.id for t in EXPERIMENTS])
def test_the_experiments_answer_holds_from_seed_0(experiment: Experiment) -> None:
    params = experiment.params
    if params["seeds"] == 1:
        for seed in range(SEEDS):
            _only_the_right_option(
                experiment, run_guided_experiment(experiment.spec, seed=seed), f"with seed {seed}"
            )
    elif params["seed"] != 0:
        result = run_guided_experiment(experiment.spec, seed=0)
        _only_the_right_option(experiment, result, f"from seed 0, over {params['seeds']} seeds")
    # else the run at its settings (the test above) is the block from seed 0; tests/seeds
    # checks every block of seeds 0-999


EXPLANATION_CLAIMS = {
    # quote from an experiment's explanation -> its check (numbers as the page's other claims
    # compute them)
    "`core` earns −0.8 while `stub` earns 3.5": lambda: (
        [round(v, 2) for v in helper_view(CLIMBING)][::2] == [-0.8, 3.5]
    ),
    "a partner who plays safe 70% of the time": lambda: (
        prompted_prior(Observation("main"))[2] == 0.7
    ),
    "`core` earns 2 and `stub` 1.4": lambda: (
        [round(v, 2) for v in helper_view(penalty_table(0))][::2] == [2, 1.4]
    ),
    "`core` now earns −8 and `filter` −19, while `stub` still earns 1.4": lambda: (
        [round(v, 2) for v in helper_view(penalty_table(-100))] == [-8, -19, 1.4]
    ),
    "a risky response there can cost −30 at once": lambda: min(min(row) for row in CLIMBING) == -30,
    "`core` earns (11 − 30 + 0) / 3 = −6.3 and `stub` (0 + 0 + 5) / 3 = 1.7": lambda: (
        [round(sum(row) / 3, 1) for row in CLIMBING][::2] == [-6.3, 1.7]
    ),
    # Only `alone` scores 5 beside `stub`, and only `alone` 6 beside `filter`.
    "a 5 after its own `stub` means the partner wrote `alone`": lambda: (
        [j for j in range(3) if CLIMBING[2][j] == 5] == [2]
        and [j for j in range(3) if CLIMBING[1][j] == 6] == [2]
    ),
    "each agent's best reply to the other's safe response is its own": lambda: (
        max(range(3), key=lambda i: penalty_table(-100)[i][2]) == 2
        and max(range(3), key=lambda j: penalty_table(-100)[2][j]) == 2
    ),
    "against `filter` the main agent's best reply is `combine` (7)": lambda: (
        max(range(3), key=lambda j: CLIMBING[1][j]) == 1 and CLIMBING[1][1] == 7
    ),
    "so `core` is judged by 11 rather than by its average, −0.8": lambda: (
        round(helper_view(CLIMBING)[0], 2) == -0.8 and CLIMBING[0][0] == 11
    ),
}


@pytest.mark.parametrize("quote", EXPLANATION_CLAIMS)
def test_the_numbers_an_explanation_quotes_are_the_models(quote: str) -> None:
    explanations = " ".join(" ".join(t.explanation.split()) for t in EXPERIMENTS)
    assert quote in explanations, "no explanation says this any more"
    assert EXPLANATION_CLAIMS[quote]()
