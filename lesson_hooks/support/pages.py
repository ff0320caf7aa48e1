"""A page as a contributor names it, for every located build error."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

__all__ = ["display_path"]


def display_path(file: File, config: MkDocsConfig) -> str:
    """The page as a contributor names it, e.g. ``docs/lesson.md``."""
    if file.abs_src_path and config.config_file_path:
        try:
            source = Path(file.abs_src_path).resolve()
            return source.relative_to(Path(config.config_file_path).resolve().parent).as_posix()
        except ValueError:
            pass
    return f"{Path(config.docs_dir).name}/{file.src_uri}"
