"""The build memo: a warm build reuses training runs until the code or the settings change."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from lesson_hooks.memo import memoized

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


def test_the_same_code_and_params_reuse_the_run(tmp_path: Path) -> None:
    calls.clear()
    lab = fake_lab(tmp_path, "RATE = 0.2\n")
    cache = tmp_path / "cache"
    first = memoized(train, {"updates": 200}, cache_dir=cache, package=lab)
    again = memoized(train, {"updates": 200}, cache_dir=cache, package=lab)
    assert calls == [{"updates": 200}]
    # A miss returns what a hit reads back (JSON: the tuple is a list either way).
    assert first == again == {"html": "<p>200 updates</p>", "pair": [1, 2]}
    assert len(entries(cache)) == 1


def test_changed_params_run_again(tmp_path: Path) -> None:
    calls.clear()
    lab = fake_lab(tmp_path, "RATE = 0.2\n")
    cache = tmp_path / "cache"
    memoized(train, {"updates": 200}, cache_dir=cache, package=lab)
    changed = memoized(train, {"updates": 300}, cache_dir=cache, package=lab)
    assert calls == [{"updates": 200}, {"updates": 300}]
    assert changed["html"] == "<p>300 updates</p>"


def test_an_edit_of_the_lab_runs_again(tmp_path: Path) -> None:
    calls.clear()
    cache = tmp_path / "cache"
    memoized(train, {"updates": 200}, cache_dir=cache, package=fake_lab(tmp_path, "RATE = 0.2\n"))
    (tmp_path / "fakelab" / "sim.py").write_text("STEPS = 3\n", encoding="utf-8")
    edited = fake_lab(tmp_path, "RATE = 0.2\n")
    memoized(train, {"updates": 200}, cache_dir=cache, package=edited)
    memoized(train, {"updates": 200}, cache_dir=cache, package=edited)
    assert calls == [{"updates": 200}, {"updates": 200}]
    assert len(entries(cache)) == 2


def test_a_corrupt_entry_is_ignored_and_rewritten(tmp_path: Path) -> None:
    calls.clear()
    lab = fake_lab(tmp_path, "RATE = 0.2\n")
    cache = tmp_path / "cache"
    memoized(train, {"updates": 200}, cache_dir=cache, package=lab)
    [entry] = entries(cache)
    for corrupt in ('{"key": "x", "val', '{"key": "another", "value": 1}', "\xff[]"):
        entry.write_text(corrupt, encoding="latin-1")
        value = memoized(train, {"updates": 200}, cache_dir=cache, package=lab)
        assert value["html"] == "<p>200 updates</p>"
        assert json.loads(entry.read_text(encoding="utf-8"))["value"] == value
    assert len(calls) == 4
    memoized(train, {"updates": 200}, cache_dir=cache, package=lab)
    assert len(calls) == 4


def test_a_cache_that_cannot_be_written_still_gives_the_value(tmp_path: Path) -> None:
    calls.clear()
    lab = fake_lab(tmp_path, "RATE = 0.2\n")
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    value = memoized(train, {"updates": 200}, cache_dir=blocked, package=lab)
    assert value["html"] == "<p>200 updates</p>"
    assert len(calls) == 1
