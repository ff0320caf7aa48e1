"""``./dev new-lab``: a scaffolded kind passes its own tests and builds, in a scratch copy.

The copy holds the project's files as git sees them (tracked and new, not
ignored), so the scaffold edits its ``lab/kinds.py`` and ``mkdocs.yml``, never
the project's; ``node_modules`` is shared for the build's tools and caches.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lesson_hooks.support.paths import ROOT
from tests.conftest import mkdocs_build
from tests.support.html import labs_stylesheet, shipped_stylesheet

BLOCK = "```lab-coin\nid: first-flips\nflips: 20\n```\n"
PAGE = "docs/summary.md"  # the guide's example page: a timed page with no lab of its own
READ_TIME = "<!-- generated: read-time -->"


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch copy of the project with the kind ``coin`` scaffolded."""
    copy = tmp_path_factory.mktemp("new-lab") / "project"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    (copy / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    made = _run(copy, "-m", "tools.new_lab", "coin")
    assert made.returncode == 0, made.stderr
    # It names the page that documents the block for writers, and where to go on.
    assert "contributing/lab-blocks.md: a row `lab-coin` in its table" in made.stdout
    assert "'## Coin lab'" in made.stdout
    return copy


def test_the_scaffold_writes_the_kind_and_one_declaration(project: Path) -> None:
    for path in (
        "lab/coin/model.py",
        "lab/coin/rpc.py",
        "lesson_hooks/fences/coin.py",
        "docs/assets/lab/widgets/coin.js",
        "docs/assets/lab/widgets/coin.css",
        "tests/unit/lab/coin/test_model.py",
        "tests/unit/lesson_hooks/fences/test_coin.py",
        "tests/browser/test_coin.py",
    ):
        assert (project / path).is_file(), path
    kinds = (project / "lab" / "kinds.py").read_text(encoding="utf-8")
    assert kinds.count("coin_rpc") == 2  # its import and its Kind
    assert "name: lab-coin\n" in (project / "mkdocs.yml").read_text(encoding="utf-8")
    again = _run(project, "-m", "tools.new_lab", "coin")
    assert again.returncode != 0 and "exists already" in again.stderr


def test_the_scaffolded_kind_passes_its_own_tests_and_the_registry_checks(project: Path) -> None:
    tests = [
        "tests/unit/lab/coin",
        "tests/unit/lesson_hooks/fences/test_coin.py",
        "tests/unit/test_widgets.py",
        "tests/unit/test_layout.py",
        "tests/unit/lesson_hooks/fences/test_sitewide.py",
    ]
    ran = _run(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests)
    assert ran.returncode == 0, ran.stdout[-3000:]
    lint = _run(project, "-m", "ruff", "check", "lab", "lesson_hooks", "tests", "tools")
    assert lint.returncode == 0, lint.stdout
    formatted = _run(project, "-m", "ruff", "format", "--check", "lab", "lesson_hooks", "tests")
    assert formatted.returncode == 0, formatted.stdout


def test_a_page_with_the_new_block_builds_and_says_its_time(project: Path) -> None:
    page = project / PAGE
    # As the project has it, less the reading-time line a contributor following the
    # guide has added already (the copy holds their working tree).
    lines = page.read_text(encoding="utf-8").split("\n")
    original = "\n".join(line for line in lines if line.strip() != READ_TIME)
    page.write_text(f"{original}\n{BLOCK}", encoding="utf-8")
    # Without its reading-time line, the build says where to add it.
    refused = mkdocs_build(project / "mkdocs.yml", project / "site")
    assert refused.returncode != 0
    assert f"{PAGE}:1: a page with lab blocks tells its reader how long" in refused.stderr
    title = next(line for line in original.split("\n") if line.startswith("# "))
    page.write_text(
        original.replace(title, f"{title}\n\n{READ_TIME}", 1) + f"\n{BLOCK}",
        encoding="utf-8",
    )
    built = mkdocs_build(project / "mkdocs.yml", project / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    html = (project / "site" / "summary" / "index.html").read_text(encoding="utf-8")
    assert 'data-lab="coin"' in html and 'data-lab-coin-flips="20"' in html
    coin_css = shipped_stylesheet(project / "site", "assets/lab/widgets/coin.css")
    assert coin_css in labs_stylesheet(project / "site", "summary")
    assert (project / "site" / "assets" / "lab" / "widgets" / "coin.js").is_file()


def test_a_kind_missing_from_mkdocs_yml_fails_the_build_naming_the_entry(project: Path) -> None:
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    entry = (
        "        - name: lab-coin\n"
        "          class: lab-coin\n"
        "          format: !!python/name:lesson_hooks.fences.coin.formatter\n"
        "          validator: !!python/name:lesson_hooks.fences.custom.validator\n"
    )
    assert entry in text
    config.write_text(text.replace(entry, ""), encoding="utf-8")
    try:
        refused = mkdocs_build(config, project / "site")
    finally:
        config.write_text(text, encoding="utf-8")
    assert refused.returncode != 0
    assert "the lab kind 'coin' (lab/kinds.py) needs this entry" in refused.stderr
    assert entry.rstrip("\n") in refused.stderr
