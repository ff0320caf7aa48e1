"""The README's test command collects every folder of tests, each marked by its layer."""

from __future__ import annotations

import re
from fnmatch import fnmatch

import pytest

from tests.conftest import LAYERS, ROOT, layer


def test_no_folder_of_tests_is_one_pytest_skips(request: pytest.FixtureRequest) -> None:
    # pytest's default norecursedirs has "build": tests/build and
    # tests/unit/lesson_hooks/build went uncollected by `./dev test` until
    # pyproject.toml set its own.
    skipped = request.config.getini("norecursedirs")
    folders = [init.parent for init in (ROOT / "tests").rglob("__init__.py")]
    assert {"unit", "build", "browser", "seeds"} <= {f.name for f in folders}
    for folder in folders:
        matched = [pattern for pattern in skipped if fnmatch(folder.name, pattern)]
        assert not matched, f"{folder.relative_to(ROOT)} is skipped by {matched}"


def test_every_folder_of_tests_is_one_layer_with_a_registered_marker(
    request: pytest.FixtureRequest,
) -> None:
    # tests/conftest.py marks each test by its top-level folder, so `-m unit` or
    # `-m "not browser and not seeds"` picks layers (--strict-markers needs them registered).
    tests = ROOT / "tests"
    folders = {path.relative_to(tests).parts[0] for path in tests.rglob("test_*.py")}
    assert folders == set(LAYERS), "each top-level folder of tests is a layer in LAYERS"
    registered = {line.split(":")[0].strip() for line in request.config.getini("markers")}
    assert set(LAYERS) <= registered
    for path in tests.rglob("test_*.py"):
        expected = path.relative_to(tests).parts[0]
        assert layer(path) == expected, path.relative_to(ROOT)
    # Exactly one: no test or conftest marks a layer by hand on top of the folder's.
    by_hand = re.compile(
        rf"mark\.({'|'.join(LAYERS)})\b|add_marker\(\s*[\"']({'|'.join(LAYERS)})\b"
    )
    for path in tests.rglob("*.py"):
        found = by_hand.search(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(ROOT)} marks a layer itself: {found[0]}"


def test_this_test_has_its_layers_marker_and_no_other(request: pytest.FixtureRequest) -> None:
    marked = {marker.name for marker in request.node.iter_markers()} & set(LAYERS)
    assert marked == {"unit"}


def test_browser_tests_share_one_boot_deadline_and_one_way_to_open_a_lab() -> None:
    # tests/browser/support.py's BOOT and open_lab: one deadline for Python's first start,
    # so a slower machine is answered in one place (engines count in seconds: BOOT_SECONDS).
    own = re.compile(r"^BOOT\s*=", re.MULTILINE)
    support = ROOT / "tests" / "browser" / "support.py"
    defined = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests" / "browser").rglob("*.py")
        if path != support and own.search(path.read_text(encoding="utf-8"))
    ]
    assert defined == [], f"import BOOT from tests/browser/support.py instead: {defined}"
    assert own.search(support.read_text(encoding="utf-8"))


def test_the_fast_loop_runs_the_cpython_layer_on_every_core() -> None:
    # ./dev check is CPU-bound: on two cores, one process leaves one idle.
    task = (ROOT / "dev").read_text(encoding="utf-8").split("task_check() {")[1].split("\n}")[0]
    assert "local where=(tests/unit -n auto)" in task
    assert re.search(r"^pytest-xdist==", (ROOT / "requirements.lock").read_text(), re.MULTILINE)
