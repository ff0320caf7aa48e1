"""The README's test command collects every folder of tests."""

from __future__ import annotations

from fnmatch import fnmatch

import pytest

from tests.conftest import ROOT


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
