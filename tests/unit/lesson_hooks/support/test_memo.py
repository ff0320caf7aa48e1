"""The build memo: a warm build reuses training runs until the code or the settings change."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lesson_hooks.support.memo import memoized

calls: list[dict[str, object]] = []


def train(params: dict[str, object]) -> dict[str, object]:
    """Stands in for a training run rendered as HTML: records that it ran."""
    calls.append(dict(params))
    return {"html": f"<p>{params['updates']} updates</p>", "pair": (1, 2)}


def fake_lab(root: Path, source: str) -> ModuleType:
    """A freshly imported package named ``fakelab`` whose ``__init__.py`` is ``source``."""
    package = root / "fakelab"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(
        "fakelab", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.json"))


Run = Callable[..., Any]


@pytest.fixture
def run(tmp_path: Path) -> Run:
    """``run(updates)``: the memoized ``train`` against a fake lab and a cache in ``tmp_path``."""
    calls.clear()
    lab = fake_lab(tmp_path, "RATE = 0.2\n")

    def memo_run(updates: int, package: ModuleType = lab, cache: Path = tmp_path / "cache") -> Any:
        return memoized(train, {"updates": updates}, cache_dir=cache, package=package)

    return memo_run


def test_the_same_code_and_params_reuse_the_run(tmp_path: Path, run: Run) -> None:
    first, again = run(200), run(200)
    assert calls == [{"updates": 200}]
    # A miss returns what a hit reads back (JSON: the tuple is a list either way).
    assert first == again == {"html": "<p>200 updates</p>", "pair": [1, 2]}
    assert len(entries(tmp_path / "cache")) == 1


def test_changed_params_run_again(run: Run) -> None:
    run(200)
    assert run(300)["html"] == "<p>300 updates</p>"
    assert calls == [{"updates": 200}, {"updates": 300}]


def test_an_edit_of_the_lab_runs_again(tmp_path: Path, run: Run) -> None:
    run(200)
    (tmp_path / "fakelab" / "sim.py").write_text("STEPS = 3\n", encoding="utf-8")
    edited = fake_lab(tmp_path, "RATE = 0.2\n")
    run(200, edited)
    run(200, edited)
    assert calls == [{"updates": 200}, {"updates": 200}]
    assert len(entries(tmp_path / "cache")) == 2


def test_a_corrupt_entry_is_ignored_and_rewritten(tmp_path: Path, run: Run) -> None:
    run(200)
    [entry] = entries(tmp_path / "cache")
    for corrupt in ('{"key": "x", "val', '{"key": "another", "value": 1}', "\xff[]"):
        entry.write_text(corrupt, encoding="latin-1")
        value = run(200)
        assert value["html"] == "<p>200 updates</p>"
        assert json.loads(entry.read_text(encoding="utf-8"))["value"] == value
    assert len(calls) == 4
    run(200)
    assert len(calls) == 4


def test_a_cache_that_cannot_be_written_still_gives_the_value(tmp_path: Path, run: Run) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    assert run(200, cache=blocked)["html"] == "<p>200 updates</p>"
    assert len(calls) == 1
