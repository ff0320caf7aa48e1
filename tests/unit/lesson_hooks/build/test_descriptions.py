"""A description with quotes reaches <meta name="description"> whole, escaped once."""

from __future__ import annotations

from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from jinja2 import Environment
from markupsafe import Markup

from lesson_hooks.build import descriptions

# How Material's base.html writes it; MkDocs' Jinja environment does not autoescape.
META = '<meta name="description" content="{{ page.meta.description }}">'
QUOTED = 'The five points to keep from "LLMs as Cooperative Agents" & <what> carries over.'


def meta_content(markup: str) -> dict[str, str | None]:
    attributes: dict[str, str | None] = {}

    class Parser(HTMLParser):
        def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            attributes.update(attrs)

        handle_starttag = handle_startendtag

    Parser().feed(markup)
    return attributes


@pytest.mark.parametrize("autoescape", [False, True], ids=["mkdocs", "autoescaping"])
def test_a_quoted_description_reaches_the_meta_tag_whole(autoescape: bool) -> None:
    page = SimpleNamespace(meta={"description": QUOTED})
    descriptions.on_page_context({}, page, None, None)  # type: ignore[arg-type]
    markup = Environment(autoescape=autoescape).from_string(META).render(page=page)
    # Exactly two attributes: a raw quote would end `content` and add bogus ones.
    assert meta_content(markup) == {"name": "description", "content": QUOTED}


def test_escaping_is_done_once_and_leaves_other_values_alone() -> None:
    once = descriptions.escaped(QUOTED)
    assert isinstance(once, Markup) and descriptions.escaped(once) == once
    assert descriptions.escaped(None) is None
    page = SimpleNamespace(meta={"title": "No description"})
    descriptions.on_page_context({}, page, None, None)  # type: ignore[arg-type]
    assert page.meta == {"title": "No description"}
