"""Page descriptions escaped for the attribute Material writes them into.

Material's ``base.html`` puts a page's front-matter ``description`` (else the
site's ``site_description``) into ``<meta name="description" content="…">``
as it is: MkDocs' Jinja does not autoescape. A double quote in it ends the
attribute early, the rest becomes dozens of bogus attributes, and search
engines and link previews read a truncated description. This hook hands the
template the escaped text instead, as ``Markup``, so a template that does
escape (``| e``, or autoescape) leaves it as it is rather than escaping twice.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page


def escaped(value: Any) -> Any:
    """``value`` HTML-escaped, once: a ``Markup`` or a non-string is left as it is."""
    return escape(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.site_description = escaped(config.site_description)
    return config


def on_page_context(
    context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation
) -> dict[str, Any]:
    # Just before the template: nothing before it reads the description as text.
    if page.meta and "description" in page.meta:
        page.meta["description"] = escaped(page.meta["description"])
    return context
