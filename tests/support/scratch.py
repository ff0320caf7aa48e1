"""A small scratch site: a few pages built with the site's own Markdown and the lab blocks' hook.

It inherits ``mkdocs.yml`` (so the custom fences and extensions are the
site's), keeps only ``lesson_hooks/fences/hook.py`` of the hooks and no plugin,
so a build takes a fraction of a second and shows what the fence layer does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from lesson_hooks.support.paths import ROOT, WIDGETS_DIR
from tests.conftest import mkdocs_build


def scratch_site(tmp_path: Path, pages: dict[str, str]) -> Path:
    """A project holding ``pages`` (``docs/<name>``: Markdown) on the site's configuration."""
    project = tmp_path / "scratch"
    (project / "docs").mkdir(parents=True)
    for name, text in pages.items():
        (project / "docs" / name).write_text(text, encoding="utf-8")
    # What the inherited configuration names relative to the project: the glossary's
    # abbreviations (appended to every page) and the theme's overrides.
    (project / "includes").mkdir()
    (project / "includes" / "abbreviations.md").write_text("", encoding="utf-8")
    (project / "overrides").symlink_to(ROOT / "overrides", target_is_directory=True)
    # The kinds' own stylesheets, which the build joins for each lab page.
    widgets = project / "docs" / WIDGETS_DIR
    widgets.parent.mkdir(parents=True)
    widgets.symlink_to(ROOT / "docs" / WIDGETS_DIR, target_is_directory=True)
    (project / "mkdocs.yml").write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\n"
        "site_name: Scratch\n"
        f"nav: [{', '.join(pages)}]\n"
        "plugins: []\n"
        f"hooks: [{ROOT / 'lesson_hooks' / 'fences' / 'hook.py'}]\n"
        "extra_css: []\n"
        "extra_javascript: []\n",
        encoding="utf-8",
    )
    return project


def build(project: Path) -> subprocess.CompletedProcess[str]:
    """The strict build of a scratch project into its ``site/``."""
    return mkdocs_build(project / "mkdocs.yml", project / "site")
