"""``python -m lab run``: the page's numbers, reproduced by CPython from a settings file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lab import rpc
from lesson_hooks.support.paths import ROOT

# The teacher's example: the penalty game at k = -100, over several seeds.
CASES = {
    "simulation": ("run_simulation", {"table": "penalty", "penalty_k": -100, "seeds": 3}),
    "language-models": ("run_language_models", {"updates": 20, "seed": 3}),
}


def run_lab(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lab", "run", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("kind", CASES)
def test_the_command_prints_what_the_page_computes(kind: str, tmp_path: Path) -> None:
    call, settings = CASES[kind]
    file = tmp_path / "settings.json"
    file.write_text(json.dumps(settings), encoding="utf-8")
    done = run_lab(kind, str(file))
    assert done.returncode == 0, done.stderr
    # What the worker answers the page for the same settings (the page adds only its HTML).
    page = json.loads(rpc.dispatch(call, json.dumps({"params": settings})))["result"]
    assert json.loads(done.stdout) == page
    assert "expected_reward" in page and page["params"]["seed"] == settings.get("seed", 0)


def test_bad_settings_print_pythons_reasons_and_exit_2() -> None:
    done = run_lab("simulation", "-", stdin='{"seeds": 0, "table": "x"}')
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        'table: Reward table must be one of climbing, penalty, custom; got "x".',
        "seeds: Seeds must be a whole number from 1 to 50; got 0.",
    ]


@pytest.mark.parametrize(
    ("stdin", "problem"),
    [
        ("{", "- is not JSON"),
        ("[1]", "- must hold a JSON object of settings"),
    ],
)
def test_a_file_that_is_not_settings_is_refused(stdin: str, problem: str) -> None:
    done = run_lab("language-models", "-", stdin=stdin)
    assert done.returncode == 2
    assert problem in done.stderr
