"""The lab archive the worker unpacks and the page offers as "Download the lab (zip)"."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

from lesson_hooks.support.lab_archive import build_lab_archive
from lesson_hooks.support.paths import LAB_PACKAGE


def test_the_lab_archive_holds_the_package_sources_and_a_readme_only() -> None:
    archive = build_lab_archive()
    with zipfile.ZipFile(io.BytesIO(archive.content)) as zipped:
        names = zipped.namelist()
        readme = zipped.read("README.txt").decode()
    assert "lab/__init__.py" in names
    assert "lab/browser.py" in names
    assert names[0] == "README.txt"
    assert all(name.startswith("lab/") and name.endswith(".py") for name in names[1:])
    assert "python3 -m lab run simulation settings.json" in readme


def test_the_lab_archive_name_follows_its_content(tmp_path: Path) -> None:
    package = tmp_path / "lab"
    shutil.copytree(LAB_PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    first = build_lab_archive(package)
    assert build_lab_archive(package) == first  # reproducible
    (package / "__init__.py").write_text('"""changed"""\n')
    assert build_lab_archive(package).name != first.name
