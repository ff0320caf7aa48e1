"""MkDocs hook: the site-wide side of the lab blocks (:mod:`lesson_hooks.fences.sitewide`).

The blocks themselves are SuperFences custom fences (``mkdocs.yml``); this hook
reads every page's blocks before any page renders, tells the formatters where
each block of a page stands, and checks afterwards that each became a lab.
MkDocs loads this file as a module of its own, so nothing imports it: the
state it drives lives in the package's modules.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lesson_hooks.fences import sitewide


def on_files(files: Files, config: MkDocsConfig) -> Files:
    return sitewide.read_site(files, config)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    sitewide.enter(page, config)
    return markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    sitewide.leave(page, html)
    return html
