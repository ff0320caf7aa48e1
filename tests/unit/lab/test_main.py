"""``python -m lab run``: the page's numbers, reproduced by CPython from a settings file."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lab import rpc
from lesson_hooks.support.lab_archive import build_lab_archive
from lesson_hooks.support.paths import ROOT
from tests.support.runs import CASES


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


def test_the_downloadable_zip_runs_the_command_with_the_pages_numbers(tmp_path: Path) -> None:
    # What "Download the lab (zip)" offers, unpacked anywhere, with the settings Reproduce saves.
    with zipfile.ZipFile(io.BytesIO(build_lab_archive().content)) as archive:
        archive.extractall(tmp_path)
    call, settings = CASES["simulation"]
    page = json.loads(
        rpc.dispatch(call, json.dumps({"params": settings, "render": "lab-simulation"}))
    )["result"]
    saved = page["exports"]["settings"]
    (tmp_path / saved["name"]).write_text(saved["text"], encoding="utf-8")
    command = shlex.split(page["exports"]["command"])
    assert command[:3] == ["python3", "-m", "lab"]
    done = subprocess.run(
        [sys.executable, *command[1:]], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    # The JSON download is the command's output, and both hold the page's numbers.
    (json_file,) = (f for f in page["exports"]["files"] if f["label"] == "Download results (JSON)")
    assert json.loads(done.stdout) == json.loads(json_file["text"])
    assert json.loads(done.stdout)["expected_reward"] == page["expected_reward"]
