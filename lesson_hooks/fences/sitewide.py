"""The site-wide side of the lab blocks: what no single block can check or do alone.

A block renders itself (:mod:`lesson_hooks.fences.custom`); the build's hook
(``lesson_hooks/fences/hook.py``) calls this module for the rest:

- before any page renders (:func:`read_site`), every page's blocks are found
  (:mod:`lesson_hooks.fences.scan`) and read, so a mistake anywhere fails the
  build at its line: an unknown kind of block, an id used twice (across the
  site for Visual Labs, quizzes and guided experiments, on the page for the labs), an experiment
  whose lab is not on its page; and the graded blocks' spec files are added to
  the site (the widgets fetch them, also under ``mkdocs serve``);
- around each page's rendering (:func:`enter`, :func:`leave`), the formatters
  are told the page's blocks and where they stand, and afterwards every block
  must have become a lab: one Markdown read as something else (text, an
  indented code block) fails the build at its line rather than reaching
  readers as code. No element id may appear twice on the page: a block
  whose markup repeats an id fails at its line, naming the block (or the
  element) that has it first. The ids inside the labs' markup count as the
  page's anchors, so links to a transcript's steps pass the strict build.

- before that (:func:`check_config`), ``mkdocs.yml``'s ``custom_fences`` must
  register each kind's formatter, in :data:`lab.kinds.KINDS`' order;
- with the pages read, each set of kinds found together on a page gets one
  stylesheet (:func:`read_site`): the labs' site-wide ones (``extra_css`` under
  ``assets/lab/`` and ``assets/record/``) and each kind's, joined; after a page
  is written (:func:`link_stylesheets`), its head links that one file in their
  place. Each stylesheet in the head is a request before the first paint, and
  on Lighthouse's slow 4G five of them cost more than one
  (contributing/benchmark.md, the labs' own cost);
- under Zensical, which renders the blocks in its own process, the build's
  pipeline checks each built page with :func:`built` instead of :func:`leave`.

The kinds come from :data:`lab.kinds.KINDS`: each declares its fence module
(``Kind.fence``), which holds its ``FENCE``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from html.parser import HTMLParser
from importlib import import_module
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkDocsPage
from mkdocs.utils import get_relative_url

from lab.kinds import KINDS
from lesson_hooks.fences import custom
from lesson_hooks.fences.base import Fence, FenceError, Page, did_you_mean, keys
from lesson_hooks.fences.custom import LabFence, check_unique
from lesson_hooks.fences.graded import Graded
from lesson_hooks.fences.scan import find_lab_fences
from lesson_hooks.support.pages import display_path
from lesson_hooks.support.paths import LAB_ASSETS, LAB_DIR, WIDGETS_DIR

#: Every kind's fence, by the fence's name (``lab-quiz``), from the module its kind names.
FENCES: dict[str, LabFence[Any]] = {
    kind.fence_name: import_module(kind.fence).FENCE for kind in KINDS
}


def custom_fences() -> list[dict[str, Any]]:
    """``pymdownx.superfences``' ``custom_fences``, one per kind, as ``mkdocs.yml`` lists them."""
    return [
        {"name": name, "class": name, "format": fence.format, "validator": custom.validator}
        for name, fence in FENCES.items()
    ]


def _yaml_entry(kind_fence: str, module: str) -> str:
    return (
        f"        - name: {kind_fence}\n"
        f"          class: {kind_fence}\n"
        f"          format: !!python/name:{module}.formatter\n"
        f"          validator: !!python/name:{custom.__name__}.validator"
    )


def check_config(config: MkDocsConfig) -> None:
    """``mkdocs.yml`` registers every kind's fence as :data:`lab.kinds.KINDS` declares it.

    The list is a copy (Zensical reads it, and no hook can feed it), so a kind
    missing from it, or an entry no kind declares, fails the build naming the
    entry to write and where, rather than leaving the kind's blocks unread.
    """
    superfences = config["mdx_configs"].get("pymdownx.superfences", {})
    registered = {entry.get("name"): entry for entry in superfences.get("custom_fences", [])}
    problems = []
    for kind, wanted in zip(KINDS, custom_fences(), strict=True):
        entry = registered.get(kind.fence_name)
        if entry is None or any(entry.get(key) != value for key, value in wanted.items()):
            problems.append(
                f"the lab kind {kind.name!r} (lab/kinds.py) needs this entry under "
                "pymdownx.superfences' custom_fences in mkdocs.yml"
                + (" (the one there differs)" if entry else "")
                + f":\n{_yaml_entry(kind.fence_name, kind.fence)}"
            )
    declared = {kind.fence_name for kind in KINDS}
    for name in registered:
        if isinstance(name, str) and name.startswith("lab-") and name not in declared:
            problems.append(
                f"mkdocs.yml registers the custom fence {name!r}, which no kind in lab/kinds.py "
                "declares: declare it again in KINDS (lab/kinds.py) if its files are still "
                "there, or remove this entry (and the kind's files and blocks)."
            )
    if problems:
        raise PluginError("mkdocs.yml: " + "\n\n".join(problems))


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
# Each page's one stylesheet for its labs (by src_uri), and the site-wide ones it holds.
_sheets: dict[str, str] = {}
_joined: list[str] = []
# A stylesheet's link to its source map: the map of one part does not fit the joined file.
_SOURCE_MAP = re.compile(rb"/\*# sourceMappingURL=[^*]*\*/\s*")


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
    _join_stylesheets(files, config)
    return files


def _join_stylesheets(files: Files, config: MkDocsConfig) -> None:
    """One stylesheet for each set of kinds that share a page (see the module's docstring)."""
    _sheets.clear()
    _joined[:] = [c for c in config.extra_css if c.startswith(LAB_ASSETS)]
    made: set[str] = set()
    for src_uri, fences in _pages.items():
        present = {fence.name for fence in fences}
        kinds = [kind for kind in KINDS if kind.fence_name in present]
        if not kinds:
            continue
        sheet = f"{LAB_DIR}/styles/{'_'.join(kind.name for kind in kinds)}.css"
        _sheets[src_uri] = sheet
        if sheet in made:
            continue
        made.add(sheet)
        parts = [*_joined, *(f"{WIDGETS_DIR}/{k.name}.css" for k in kinds if k.stylesheet)]
        files.append(
            File.generated(config, sheet, content=b"".join(_part(files, p) for p in parts))
        )


def _part(files: Files, src_uri: str) -> bytes:
    """A stylesheet as the site ships it (minified, by then), for a joined one."""
    file = files.get_file_from_path(src_uri)
    if file is None:
        raise PluginError(f"{src_uri}: a lab page's stylesheet, not among the site's files.")
    return _SOURCE_MAP.sub(b"", file.content_bytes).rstrip() + b"\n"


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
    if done.markup:
        check_element_ids(done, html)
    # MkDocs gathers a page's anchors from its Markdown's raw HTML, before any
    # custom fence has made its markup; without these, a link to a lab's step fails.
    if done.markup and page.present_anchor_ids is not None:
        page.present_anchor_ids |= _ids("\n".join(done.markup.values())).anchors


def check_element_ids(done: custom.Rendering, html: str) -> None:
    """No element id twice on the rendered page ``html``: the block that repeats one fails
    at its line, naming the block before it that has it, or the element outside the blocks.

    Ids of different kinds can meet (an exercise's ``id: simulation`` and the
    simulation lab's default both make ``lab-simulation``), and a heading's id
    can equal a block's; the HTML checker would only find it in the built file.
    """
    first: dict[str, Fence] = {}
    in_blocks: Counter[tuple[str, str]] = Counter()
    for fence in done.fences:
        found = _ids(done.markup[fence])
        in_blocks.update(found.elements)
        for element_id in dict.fromkeys(element_id for element_id, _ in found.elements):
            other = first.setdefault(element_id, fence)
            if other is not fence:
                raise fence.error(
                    fence.line,
                    f"the element id {element_id!r} is already used on this page by the "
                    f"```{other.name} block at line {other.line}; give this block, or the one "
                    f"at line {other.line}, another `id`.",
                )
    outside = _ids(html).elements - in_blocks
    for element_id, tag in outside:
        fence = first.get(element_id)
        if fence is not None:
            raise fence.error(
                fence.line,
                f"the element id {element_id!r} of this ```{fence.name} block is also the id "
                f"of a <{tag}> on this page (a heading's id comes from its words); give this "
                "block another `id`, or the element another id.",
            )


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        #: What a link's ``#anchor`` can name: ids, and the names of ``<a>``.
        self.anchors: set[str] = set()
        #: How many elements carry each id, by id and tag.
        self.elements: Counter[tuple[str, str]] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name == "id" or (name == "name" and tag == "a")):
                self.anchors.add(value)
            if value and name == "id":
                self.elements[value, tag] += 1


def _ids(html: str) -> _Ids:
    """The ids an HTML fragment defines."""
    parser = _Ids()
    parser.feed(html)
    parser.close()
    return parser


def link_stylesheets(output: str, page: MkDocsPage) -> str:
    """Link a written page's one stylesheet for its labs from its head, in the place of
    the site-wide ones it holds, so the page is styled before it is shown and no page
    downloads a kind's stylesheet without that kind."""
    sheet = _sheets.get(page.file.src_uri)
    if sheet is None:
        return output
    if "</head>" not in output:
        raise PluginError(f"{page.file.src_uri}: no </head> to link the labs' stylesheets from.")
    head, rest = output.split("</head>", 1)
    tag = f'<link rel="stylesheet" href="{get_relative_url(sheet, page.url)}">'
    links = [f'<link rel="stylesheet" href="{get_relative_url(c, page.url)}">' for c in _joined]
    if missing := [link for link in links if link not in head]:
        raise PluginError(
            f"{page.file.src_uri}: the head does not link {', '.join(missing)} as the build "
            "expects (the theme's extra_css markup), to link its labs' stylesheet in its place."
        )
    if not links:
        return f"{head}{tag}\n</head>{rest}"
    head = head.replace(links[0], tag, 1)
    for link in links[1:]:
        head = re.sub(rf"{re.escape(link)}\n?", "", head, count=1)
    return f"{head}</head>{rest}"


def built(page: MkDocsPage, html: str) -> str:
    """:func:`leave` for a generator that renders the blocks out of this module's sight
    (Zensical, through lesson_hooks/pipeline): every block of the page is a lab in its
    built ``html``, counted by kind; the graded blocks' spec links, written from the
    site's root, become relative to the page."""
    fences = _pages.get(page.file.src_uri, [])
    for name in dict.fromkeys(f.name for f in fences):
        mine = [f for f in fences if f.name == name]
        # A lab's element says its kind: data-lab="<kind>" (a worked example: data-lab-<kind>).
        kind = re.escape(name.removeprefix("lab-"))
        made = len(re.findall(rf'\sdata-lab(?:="{kind}"|-{kind}(?=[\s>=]))', html))
        if made < len(mine):
            fence = mine[made]
            raise fence.error(
                fence.line,
                f"the ```{fence.name} block was not rendered as a lab: the built page holds "
                f"{made} of its page's {len(mine)}. Indent its opening fence, its body and its "
                "closing fence like the text around them.",
            )
    return Graded.relink(html, page.url)
