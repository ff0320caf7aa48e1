"""The site-wide side of the lab blocks: what no single block can check or do alone.

A block renders itself (:mod:`lesson_hooks.fences.custom`); the build's hook
(``lesson_hooks/fences/hook.py``) calls this module for the rest:

- before any page renders (:func:`read_site`), every page's blocks are found
  (:mod:`lesson_hooks.fences.scan`) and read, so a mistake anywhere fails the
  build at its line: an unknown kind of block, an id used twice (across the
  site for exercises, quizzes and tasks, on the page for the labs), a task
  whose lab is not on its page; and the graded blocks' spec files are added to
  the site (the widgets fetch them, also under ``mkdocs serve``);
- around each page's rendering (:func:`enter`, :func:`leave`), the formatters
  are told the page's blocks and where they stand, and afterwards every block
  must have become a lab: one Markdown read as something else (text, an
  indented code block) fails the build at its line rather than reaching
  readers as code. The ids inside the labs' markup count as the page's
  anchors, so links to a transcript's steps pass the strict build.

The kinds come from :data:`lab.kinds.KINDS`: each kind's fence module is
``lesson_hooks.fences.<kind>`` (``-`` read as ``_``), holding its ``FENCE``.
"""

from __future__ import annotations

from collections import defaultdict
from html.parser import HTMLParser
from importlib import import_module
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page as MkDocsPage

from lab.kinds import KINDS
from lesson_hooks.fences import custom
from lesson_hooks.fences.base import Fence, FenceError, Page, did_you_mean, keys
from lesson_hooks.fences.custom import LabFence, check_unique
from lesson_hooks.fences.graded import Graded
from lesson_hooks.fences.scan import find_lab_fences
from lesson_hooks.support.pages import display_path

#: Every kind's fence, by the fence's name (``lab-quiz``).
FENCES: dict[str, LabFence[Any]] = {
    f"lab-{kind.name}": import_module(f"{__package__}.{kind.name.replace('-', '_')}").FENCE
    for kind in KINDS
}


def custom_fences() -> list[dict[str, Any]]:
    """``pymdownx.superfences``' ``custom_fences``, one per kind, as ``mkdocs.yml`` lists them."""
    return [
        {"name": name, "class": name, "format": fence.format, "validator": custom.validator}
        for name, fence in FENCES.items()
    ]


def read_page(markdown: str, path: str, url: str = "") -> list[tuple[Fence, Any]]:
    """Every lab block of one page's file, in order, each with what its kind read of it."""
    fences = find_lab_fences(markdown, path, url)
    for fence in fences:
        if fence.name not in FENCES:
            raise FenceError(
                path,
                fence.line,
                f"unknown lab block ```{fence.name} (expected {keys(FENCES)})."
                + did_you_mean(fence.name, FENCES),
            )
    read = {name: iter(kind.read_fences(fences)) for name, kind in FENCES.items()}
    return [(fence, next(read[fence.name])) for fence in fences]


# Each page's lab blocks (by src_uri), read by read_site for enter.
_pages: dict[str, list[Fence]] = {}


def read_site(files: Files, config: MkDocsConfig) -> Files:
    """Read every page's blocks, check what spans pages, add the graded blocks' spec files."""
    _pages.clear()
    by_name: defaultdict[str, list[Any]] = defaultdict(list)
    for file in list(files):
        if not (file.is_documentation_page() and file.inclusion.is_in_serve()):
            continue
        read = read_page(file.content_string, display_path(file, config), file.url)
        _pages[file.src_uri] = [fence for fence, _ in read]
        for fence, block in read:
            by_name[fence.name].append(block)
    for name, blocks in by_name.items():
        if FENCES[name].unique == "site":
            check_unique(blocks, FENCES[name].repeated)
        for block in blocks:
            if isinstance(block, Graded):
                files.append(block.spec_file(config))
    return files


def enter(page: MkDocsPage, config: MkDocsConfig) -> None:
    """Tell the formatters which blocks the page about to be rendered holds."""
    fences = _pages.get(page.file.src_uri, [])
    where = fences[0].page if fences else Page(display_path(page.file, config), page.url)
    custom.enter(where, fences)


def leave(page: MkDocsPage, html: str) -> None:
    """Every block of the rendered page became a lab; their ids count as its anchors."""
    done = custom.leave()
    if done is None:
        return
    for fence in done.fences:
        markup = done.markup.get(fence)
        if markup is None:
            raise fence.error(
                fence.line,
                f"the ```{fence.name} block was not rendered as a lab: Markdown did not read it "
                "as a fenced block. Indent its opening fence, its body and its closing fence "
                "alike, as the text around them.",
            )
        if markup not in html:
            raise fence.error(
                fence.line,
                f"the ```{fence.name} block is shown as code, not as a lab: Markdown reads it as "
                "an indented code block (4 spaces or more beyond the text around it). Indent it "
                "like the text of its list item, admonition or tab; to show it as an example, "
                "put it inside a ````markdown fence.",
            )
    # MkDocs gathers a page's anchors from its Markdown's raw HTML, before any
    # custom fence has made its markup; without these, a link to a lab's step fails.
    if done.markup and page.present_anchor_ids is not None:
        page.present_anchor_ids |= _ids("\n".join(done.markup.values()))


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name == "id" or (name == "name" and tag == "a")):
                self.ids.add(value)


def _ids(html: str) -> set[str]:
    """The ids an HTML fragment defines (what a link's ``#anchor`` can name)."""
    parser = _Ids()
    parser.feed(html)
    parser.close()
    return parser.ids
