"""The build tests' scratch copy of the whole project, for a test that breaks a page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT

PROJECT = (
    "mkdocs.yml",
    "docs",
    "includes",
    "overrides",
    "lesson_hooks",
    "lab",
    "package-lock.json",
    "pyproject.toml",  # the site's version, which a learner record carries
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch copy of the project a test may break."""
    copy = tmp_path / "project"
    copy.mkdir()
    for name in PROJECT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / name)
    (copy / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return copy
