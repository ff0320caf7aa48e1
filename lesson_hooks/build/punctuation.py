"""No doubled punctuation in a page's prose: the build fails at the page, naming the text.

Text put together from parts (an option's text, then ``". "``, then its feedback)
doubles a full stop whenever a part already ends in one: "…opposing rewards.. One
side's gain…". A reader sees it; a contributor reading the YAML does not. So
every page's rendered text is read as a reader sees it, code, preformatted text,
keys and math left out, and a doubled full stop (not an ellipsis, not a path's
``..``), ``,,``, ``!!``, ``??``, ``;;`` or a full stop after ``!``/``?``/``,``/``;``
fails the build at ``docs/<page>.md`` with the words around it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lesson_hooks.support.pages import display_path

#: Elements whose text is not prose: code, keys, math, and what a reader never reads.
SKIPPED_TAGS = frozenset({"code", "pre", "kbd", "samp", "math", "script", "style", "template"})
#: Classes of elements holding math (as typed, or as typeset).
SKIPPED_CLASSES = frozenset({"arithmatex", "katex", "katex-display", "katex-mathml"})
#: Elements whose end ends a line of text: their text never runs into what follows.
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt",
        "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "legend",
        "li", "main", "nav", "ol", "p", "section", "summary", "table", "td", "th", "tr", "ul",
    }
)  # fmt: skip
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)

#: Doubled punctuation: ".." that is not part of "..." nor a path's "../" or "/..";
#: ",,", "!!", "??", ";;"; and a full stop straight after another mark ("?." ",.").
DOUBLED = re.compile(r"(?<![./])\.\.(?![./])|,,|!!|\?\?|;;|[!?,;]\.(?!\.)")
_CONTEXT = 30


class _Prose(HTMLParser):
    """The text of an HTML fragment outside the skipped elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self._open: list[bool] = []  # per open element: is it skipped?
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skipped = tag in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES)
        self._open.append(skipped)
        self._skipping += skipped

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not self._open:
            return
        self._skipping -= self._open.pop()
        if tag in _BLOCK:  # a block's end separates its text from what follows
            self.pieces.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.pieces.append(data)


def prose(html: str) -> str:
    """``html``'s text as a reader reads it, without code, pre, kbd or math; spaces collapsed."""
    parser = _Prose()
    parser.feed(html)
    parser.close()
    return " ".join("".join(parser.pieces).split())


def doubled(text: str) -> list[str]:
    """The words around each doubled punctuation mark in ``text``."""
    return [
        text[max(m.start() - _CONTEXT, 0) : m.end() + _CONTEXT].strip()
        for m in DOUBLED.finditer(text)
    ]


def check_html(html: str, path: str) -> None:
    """Fail with ``path:`` and the text around each doubled mark in ``html``'s prose."""
    found = doubled(prose(html))
    if found:
        raise PluginError(
            "\n".join(
                f"{path}: doubled punctuation in the page's text: “…{text}…”" for text in found
            )
        )


# ------------------------------------------------------------------ MkDocs hooks


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    check_html(html, display_path(page.file, config))
    return html
