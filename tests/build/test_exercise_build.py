"""The build validates mapping exercises, naming file and line, and ships their specs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from lesson_hooks.fences.mapping import parse_page
from tests.conftest import ROOT, BuiltSite, mkdocs_build

PROJECT = (
    "mkdocs.yml",
    "docs",
    "includes",
    "overrides",
    "lesson_hooks",
    "lab",
    "package-lock.json",
)
LESSON = "docs/lesson.md"


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


def line_of(path: Path, text: str) -> int:
    """1-based number of the only line of ``path`` containing ``text``."""
    (number,) = [
        n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if text in line
    ]
    return number


def test_a_wrong_answer_fails_the_build_at_its_line(project: Path) -> None:
    lesson = project / LESSON
    source = lesson.read_text(encoding="utf-8")
    assert source.count("    answer: Policy\n") == 1
    lesson.write_text(source.replace("    answer: Policy\n", "    answer: Polcy\n"))

    result = mkdocs_build(project / "mkdocs.yml", project / "site")

    assert result.returncode != 0
    output = result.stdout + result.stderr
    line = line_of(lesson, "answer: Polcy")
    assert f"{LESSON}:{line}: the answer of part 2, 'Polcy', is not one of the concepts" in output


def test_a_duplicate_id_on_another_page_fails_the_build(project: Path) -> None:
    lesson = project / LESSON
    fence = re.search(r"^```lab-mapping\n.*?^```$", lesson.read_text(), re.M | re.S)
    assert fence
    summary = project / "docs" / "summary.md"
    summary.write_text(summary.read_text(encoding="utf-8") + "\n" + fence[0] + "\n")

    result = mkdocs_build(project / "mkdocs.yml", project / "site")

    assert result.returncode != 0
    first, second = sorted(
        [
            (LESSON, line_of(lesson, "```lab-mapping")),
            ("docs/summary.md", line_of(summary, "```lab-mapping")),
        ]
    )
    assert (
        f"{second[0]}:{second[1]}: exercise id 'llm-collaboration' is already used at "
        f"{first[0]}:{first[1]}." in result.stdout + result.stderr
    )


def test_the_built_site_ships_each_exercise_spec(site: BuiltSite) -> None:
    (exercise,) = parse_page((ROOT / LESSON).read_text(encoding="utf-8"), LESSON)
    spec_file = site.dir / "assets" / "lab" / "exercises" / "llm-collaboration.json"
    assert json.loads(spec_file.read_text(encoding="utf-8")) == exercise.spec

    html = (site.dir / "lesson" / "index.html").read_text(encoding="utf-8")
    assert html.count('data-lab="mapping"') == 1
    assert 'data-lab-spec="../assets/lab/exercises/llm-collaboration.json"' in html
    assert f'data-lab-version="{exercise.spec["version"]}"' in html
    assert "```lab-mapping" not in html and "lab-mapping\n" not in html


def test_a_lab_fence_below_front_matter_fails_at_the_files_line(project: Path) -> None:
    # MkDocs hands hooks the page without its front matter; the error still names the
    # line a contributor sees in the file.
    page = project / "docs" / "simulation.md"
    source = page.read_text(encoding="utf-8")
    assert source.startswith("---\n") and source.count("```lab-simulation\n```") == 1
    page.write_text(
        source.replace("```lab-simulation\n```", "```lab-simulation\ndefaults:\n  turns: 3\n```")
    )

    result = mkdocs_build(project / "mkdocs.yml", project / "site")

    assert result.returncode != 0
    line = line_of(page, "turns: 3")
    assert f"docs/simulation.md:{line}: `defaults`: turns: Turns must be 1 or 2" in (
        result.stdout + result.stderr
    )
