"""Markdown as the site converts it, with the lab blocks as custom fences (no MkDocs)."""

from __future__ import annotations

import markdown

from lesson_hooks.fences.sitewide import custom_fences


def convert(text: str) -> str:
    """``text`` as HTML, with the extensions a lab block can sit in (admonitions, tabs, details)."""
    md = markdown.Markdown(
        extensions=[
            "admonition",
            "attr_list",
            "md_in_html",
            "pymdownx.details",
            "pymdownx.superfences",
            "pymdownx.tabbed",
            "pymdownx.blocks.details",
        ],
        extension_configs={
            "pymdownx.superfences": {"custom_fences": custom_fences()},
            "pymdownx.tabbed": {"alternate_style": True},
        },
    )
    return md.convert(text)
