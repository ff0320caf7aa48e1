"""The build vendors the locked Pyodide and ships ``lab`` as one archive."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from lesson_hooks import runtime

LOCKED = runtime.locked_pyodide_version()


def fake_runtime(tmp_path: Path, version: str, files=runtime.RUNTIME_FILES) -> Path:
    folder = tmp_path / "pyodide"
    folder.mkdir()
    (folder / "package.json").write_text(json.dumps({"version": version}))
    for name in files:
        (folder / name).write_bytes(b"x")
    return folder


def test_the_installed_runtime_matches_the_lock() -> None:
    assert runtime.check_runtime() == LOCKED


def test_a_missing_runtime_says_to_run_npm_ci(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match=r"runtime is missing .*npm ci"):
        runtime.check_runtime(tmp_path / "nowhere")


def test_a_runtime_that_does_not_match_the_lock_is_refused(tmp_path: Path) -> None:
    folder = fake_runtime(tmp_path, "0.0.1")
    with pytest.raises(PluginError, match=rf"Pyodide 0\.0\.1, but package-lock.json pins {LOCKED}"):
        runtime.check_runtime(folder)


def test_missing_runtime_files_are_named(tmp_path: Path) -> None:
    folder = fake_runtime(tmp_path, LOCKED, files=runtime.RUNTIME_FILES[:-1])
    with pytest.raises(PluginError, match=runtime.RUNTIME_FILES[-1]):
        runtime.check_runtime(folder)


def test_an_unreadable_lock_is_named(tmp_path: Path) -> None:
    lock = tmp_path / "package-lock.json"
    lock.write_text("{")
    with pytest.raises(PluginError, match=r"package-lock\.json"):
        runtime.locked_pyodide_version(lock)


def test_the_lab_archive_holds_the_package_sources_only() -> None:
    archive = runtime.build_lab_archive()
    with zipfile.ZipFile(io.BytesIO(archive.content)) as zipped:
        names = zipped.namelist()
    assert "lab/__init__.py" in names
    assert "lab/browser.py" in names
    assert all(name.startswith("lab/") and name.endswith(".py") for name in names)


def test_the_lab_archive_name_follows_its_content(tmp_path: Path) -> None:
    package = tmp_path / "lab"
    shutil.copytree(runtime.LAB_PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    first = runtime.build_lab_archive(package)
    assert runtime.build_lab_archive(package) == first  # reproducible
    (package / "__init__.py").write_text('"""changed"""\n')
    assert runtime.build_lab_archive(package).name != first.name


def test_the_manifest_points_the_worker_at_the_vendored_runtime() -> None:
    archive = runtime.LabArchive(name="lab-abc.zip", content=b"")
    manifest = runtime.runtime_manifest("1.2.3", archive)
    assert manifest == {
        "pyodide": {"version": "1.2.3", "indexURL": "../vendor/pyodide/"},
        "archive": "lab-abc.zip",
    }
