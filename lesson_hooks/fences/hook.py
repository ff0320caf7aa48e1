"""MkDocs hook: the site-wide side of the lab blocks (:mod:`lesson_hooks.fences.sitewide`).

The blocks themselves are SuperFences custom fences (``mkdocs.yml``); this hook
checks that ``mkdocs.yml`` registers every kind, reads every page's blocks
before any page renders, tells the formatters where each block of a page
stands, checks afterwards that each became a lab, and links each kind's
stylesheet from the pages that have it.
MkDocs loads this file as a module of its own, so nothing imports it: the
state it drives lives in the package's modules.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lesson_hooks.fences import sitewide


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    sitewide.check_config(config)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    return sitewide.read_site(files, config)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    sitewide.enter(page, config)
    return markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    sitewide.leave(page, html)
    return html


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    return sitewide.link_stylesheets(output, page)
