"""A page as a contributor names it, for every located build error; a page's generated lines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

__all__ = ["MARKER", "display_path", "marker_lines"]

#: A line the build fills (``lesson_hooks/build/teachers.py``): ``<!-- generated: NAME -->``.
MARKER = re.compile(r"^<!-- generated: (?P<name>[\w-]+) -->[ \t]*$", re.MULTILINE)


def marker_lines(markdown: str) -> set[str]:
    """The names of the ``<!-- generated: NAME -->`` lines in a page's Markdown."""
    return {match["name"] for match in MARKER.finditer(markdown)}


def display_path(file: File, config: MkDocsConfig) -> str:
    """The page as a contributor names it, e.g. ``docs/lesson.md``."""
    if file.abs_src_path and config.config_file_path:
        try:
            source = Path(file.abs_src_path).resolve()
            return source.relative_to(Path(config.config_file_path).resolve().parent).as_posix()
        except ValueError:
            pass
    return f"{Path(config.docs_dir).name}/{file.src_uri}"


def nav_titles(nav: Any) -> dict[str, str]:
    """Each page of the nav (``config.nav``) by its ``src_uri``: its title there, in order."""
    titles: dict[str, str] = {}
    for entry in nav or []:
        if isinstance(entry, dict):
            for title, target in entry.items():
                if isinstance(target, str):
                    titles[target] = title
                else:
                    titles |= nav_titles(target)
    return titles
