"""The site builds with --strict, and a broken internal link or anchor stops the build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, mkdocs_build

PAGES = ("index.html", "lesson/index.html", "summary/index.html", "references/index.html")
# Everything a build reads, minus what is big, generated or private to a tool.
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "node_modules",
    "site",
    "tests",
    "__pycache__",
    "*.egg-info",
    ".*_cache",
    ".hypothesis",
    "test-results",
)


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    """A throwaway copy of the project (hooks resolve paths from their own location)."""
    copy = tmp_path / "project"
    shutil.copytree(ROOT, copy, ignore=NOT_COPIED)
    (copy / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return copy


def test_strict_build_succeeds_with_every_page(tmp_path: Path) -> None:
    result = mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output
    for page in PAGES:
        assert (tmp_path / "site" / page).is_file(), page


@pytest.mark.parametrize(
    ("link", "complaint"),
    [
        pytest.param("no-such-page.md", "not found among documentation files", id="page"),
        pytest.param(
            "summary.md#no-such-anchor",
            "does not contain an anchor '#no-such-anchor'",
            id="anchor-on-another-page",
        ),
        pytest.param("#no-such-anchor", "no such anchor on this page", id="anchor-on-same-page"),
    ],
)
def test_a_broken_internal_link_fails_the_strict_build_naming_the_page(
    project_copy: Path, link: str, complaint: str
) -> None:
    lesson = project_copy / "docs" / "lesson.md"
    lesson.write_text(
        lesson.read_text(encoding="utf-8") + f"\nSee [this]({link}).\n", encoding="utf-8"
    )

    result = mkdocs_build(project_copy / "mkdocs.yml", project_copy / "site")

    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert f"Doc file 'lesson.md' contains a link '{link}'" in output
    assert complaint in output
    assert "Aborted" in output
