"""The teacher's page's pure helpers (lesson_hooks/build/teachers.py); the page as built is
tested in tests/build/test_teachers_build.py."""

from __future__ import annotations

import pytest

from lesson_hooks.build.teachers import seeds_run


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"seed": 0, "seeds": 20}, "Run over seeds 0 to 19"),
        ({"seed": 5, "seeds": 3}, "Run over seeds 5 to 7"),
        ({"seed": 7, "seeds": 1}, "Run with seed 7"),
        ({}, "Run with seed 0"),  # the labs' defaults: one run, seed 0
    ],
)
def test_seeds_run_states_the_seeds_as_the_experiment_runs_them(
    params: dict[str, int], said: str
) -> None:
    assert seeds_run(params) == said
