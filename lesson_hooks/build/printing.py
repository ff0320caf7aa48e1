"""MkDocs hook: the print a page offers (issue 39).

Printing a page as it is (the browser's own Print) gives the teacher's copy:
every answer, as the print stylesheets show them. A page with a block that
shows answers (a kind declared with ``answers=True`` in ``lab/kinds.py``) also
offers a student's worksheet, which leaves them out; the teacher's page, which
holds the answer key, offers to print it. The offer is ``page.meta["print"]``,
which ``overrides/main.html`` renders as a button for
``docs/assets/theme/print.js``; the stylesheets say what each print leaves out.
"""

from __future__ import annotations

from typing import TypedDict

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lab.kinds import KINDS
from lesson_hooks.fences.scan import find_lab_fences
from lesson_hooks.support.pages import marker_lines

#: The fences whose blocks show answers.
ANSWERING = frozenset(kind.fence_name for kind in KINDS if kind.answers)


class Offer(TypedDict):
    """One print a page offers: its mode (``data-lesson-print``) and its button's label."""

    mode: str
    label: str


WORKSHEET = Offer(mode="worksheet", label="Print worksheet")
ANSWER_KEY = Offer(mode="answer-key", label="Print answer key")


def offer(markdown: str, path: str) -> Offer | None:
    """The print a page's Markdown offers, if any."""
    if "answers" in marker_lines(markdown):
        return ANSWER_KEY
    if any(fence.name in ANSWERING for fence in find_lab_fences(markdown, path)):
        return WORKSHEET
    return None


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    page.meta["print"] = offer(markdown, page.file.src_uri)
    return markdown
