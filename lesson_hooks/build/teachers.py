"""MkDocs hook: the teacher's page, the home page's total time, each page's reading time.

What these show is measured at build time from the pages themselves, so it
cannot drift from them: each page's words (its Markdown's prose, without code,
markup or lab blocks) at :data:`WORDS_PER_MINUTE`, plus :data:`LAB_MINUTES` per
lab block of each kind; the answer key comes from the same specs the lab
blocks read (the Visual Lab's parts, the quiz's right options, each
guided experiment's keyed option and explanation).

A page asks for one of them with a line of its own::

    <!-- generated: pages -->

:data:`MARKERS` names them. The markup is built by :mod:`lab.core.markup`, so every
text from a page or a spec is escaped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data

from lab.core.markup import Markup, el, join, void
from lab.exercise.grade import signature
from lab.kinds import KINDS
from lesson_hooks.fences import sitewide
from lesson_hooks.fences.base import NOT_SEARCHED
from lesson_hooks.fences.experiment import inline, settings_text
from lesson_hooks.fences.simulation.code_panel import highlighted
from lesson_hooks.support.pages import MARKER, display_path, marker_lines, nav_titles

WORDS_PER_MINUTE = 200
# Minutes a reader spends on a lab block of each kind beyond its page's words, and
# the kind's name on the teacher's page: declared with the kind (lab/kinds.py).
LAB_MINUTES = {kind.name: kind.minutes for kind in KINDS}
LAB_NAMES = {kind.name: kind.title for kind in KINDS}
# Pages a reader consults rather than reads through: listed, not in the total.
REFERENCE_PAGES = ("index.md", "references.md", "glossary.md", "my-work.md", "teachers.md")
MARKERS = (
    "pages",
    "total-time",
    "lesson-time",
    "read-time",
    "experiments",
    "exercises",
    "answers",
    "class-view",
)

_FENCED = re.compile(r"^([ \t>]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)
_NOT_PROSE = (
    re.compile(r"<!--.*?-->", re.DOTALL),
    re.compile(r"<[^>]+>"),  # HTML tags (their text stays)
    re.compile(r"\{[ \t]*[.#:][^}]*\}"),  # attribute lists
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"^[ \t]*--8<--.*$", re.MULTILINE),  # snippets (code listings)
    re.compile(r"^\*\[[^\]]+\]:.*$", re.MULTILINE),  # abbreviations
    re.compile(r":[\w-]+:"),  # icons
    re.compile(r"\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL),  # math
    re.compile(r"`[^`\n]*`"),  # inline code
)
_WORD = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?")


def count_words(markdown: str) -> int:
    """The words a reader reads in a page's Markdown: not its code, markup or lab blocks."""
    text = get_data(markdown)[0]
    text = _FENCED.sub("", text)
    for pattern in _NOT_PROSE:
        text = pattern.sub(" ", text)
    return len(_WORD.findall(text))


@dataclass(frozen=True)
class PageInfo:
    src_uri: str
    url: str
    title: str
    description: str
    words: int
    labs: tuple[tuple[str, Any], ...]  # (kind, what its fence read), in order

    @property
    def minutes(self) -> int:
        labs = sum(LAB_MINUTES[kind] for kind, _ in self.labs)
        return math.ceil(self.words / WORDS_PER_MINUTE + labs)

    @property
    def timed(self) -> bool:
        return self.src_uri not in REFERENCE_PAGES

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.labs if k == kind)


_site: list[PageInfo] = []


def on_files(files: Files, config: MkDocsConfig) -> Files:
    titles = nav_titles(config.nav)
    _site.clear()
    for src_uri in titles:
        file = files.get_file_from_path(src_uri)
        if file is None or not file.is_documentation_page():
            continue
        markdown = file.content_string
        meta = get_data(markdown)[1]
        read = sitewide.read_page(markdown, display_path(file, config), file.url)
        labs = tuple((fence.name.removeprefix("lab-"), block) for fence, block in read)
        _site.append(
            PageInfo(
                src_uri,
                file.url,
                titles[src_uri],
                str(meta.get("description", "")).strip(),
                count_words(markdown),
                labs,
            )
        )
    return files


def _find(src_uri: str) -> PageInfo | None:
    """The page's info, or ``None`` for a page the site's nav does not hold."""
    return next((i for i in _site if i.src_uri == src_uri), None)


def _info(src_uri: str) -> PageInfo:
    info = _find(src_uri)
    if info is None:
        raise PluginError(f"{src_uri}: not a page of the site's nav.")
    return info


def total_minutes() -> int:
    return sum(info.minutes for info in _site if info.timed)


def _labs_text(info: PageInfo) -> str:
    kinds = dict.fromkeys(kind for kind, _ in info.labs)
    named = []
    for kind in kinds:
        n = info.count(kind)
        name = LAB_NAMES[kind]
        named.append(f"{n} {name}s" if n > 1 else f"the {name}")
    return ", ".join(named) if named else "none"


def _href(page: Page, info: PageInfo, anchor: str = "") -> str:
    url = get_relative_url(info.url, page.url)
    return f"{url}#{anchor}" if anchor else url


def _pages_table(page: Page) -> Markup:
    rows = [
        el(
            "tr",
            None,
            el("td", None, el("a", {"href": _href(page, info)}, info.title)),
            el("td", None, info.description),
            el("td", None, _labs_text(info)),
            el(
                "td",
                None,
                f"{info.minutes} min" if info.timed else "as needed",
                void("br"),
                f"{info.words:,} words",
            ),
        )
        for info in _site
        if info.src_uri != page.file.src_uri
    ]
    head = el(
        "tr",
        None,
        *(el("th", {"scope": "col"}, name) for name in ("Page", "Covers", "Labs", "Time")),
    )
    return _scrolling(
        el(
            "table",
            {"class": "lesson-teachers__pages"},
            el("thead", None, head),
            el("tbody", None, *rows),
        )
    )


def _scrolling(table: Markup) -> Markup:
    """``table`` in Material's own wrapper, which scrolls sideways (with the scroll cue):
    on a phone a wide table scrolls rather than break its words."""
    return el(
        "div", {"class": "md-typeset__scrollwrap"}, el("div", {"class": "md-typeset__table"}, table)
    )


def _rule() -> Markup:
    labs = ", ".join(f"{LAB_NAMES[k]} {m} min" for k, m in LAB_MINUTES.items())
    return el(
        "p",
        {"class": "lesson-teachers__rule"},
        f"How the times are measured: a page's words at {WORDS_PER_MINUTE} a minute, plus, "
        f"for each lab on it: {labs}; rounded up. The total, about {total_minutes()} min, is "
        "the pages read through (the home page, the references, the glossary and My Work are "
        "consulted, not counted).",
    )


def _blocks(kind: str) -> list[tuple[PageInfo, Any]]:
    """Every block of this kind on the site, with its page, in the nav's order."""
    return [(info, block) for info in _site for found, block in info.labs if found == kind]


def seeds_run(params: dict[str, Any]) -> str:
    """The seeds an experiment runs, as it runs them: from its params (``seed``, the first;
    ``seeds``, how many), so a key never reads as if it covered more seeds than the run."""
    first, count = int(params.get("seed", 0)), int(params.get("seeds", 1))
    if count == 1:
        return f"Run with seed {first}"
    return f"Run over seeds {first} to {first + count - 1}"


def _question_link(page: Page, info: PageInfo, task: Any) -> Markup:
    """An experiment's question, linked to it, its Markdown rendered as the card renders it."""
    # No code marks: inside a link they fall below 4.5:1 in the dark scheme.
    return el("a", {"href": _href(page, info, task.id)}, inline(task.question.replace("`", "")))


def _experiments(page: Page) -> Markup:
    items = [
        el(
            "li",
            None,
            _question_link(page, info, task),
            f" ({info.title}). The experiment: {settings_text(task)}.",
        )
        for info, task in _blocks("experiment")
    ]
    return el("ol", {"class": "lesson-teachers__experiments"}, *items)


def _exercises(page: Page) -> Markup:
    """Each coding exercise, linked, with its page, its tests and its time."""
    minutes = LAB_MINUTES["exercise"]
    items = [
        el(
            "li",
            None,
            # The code outside the link: a code mark inside one falls below 4.5:1 in the dark.
            el("code", None, signature(block.function, block.parameters)),
            " on ",
            el("a", {"href": _href(page, info, f"lab-{block.id}")}, info.title),
            f": {len(block.tests)} tests, {len(block.hints)} hints; about {minutes} min.",
            " The function trains the simulation lab once it passes." if block.uses else "",
        )
        for info, block in _blocks("exercise")
    ]
    return el("ol", {"class": "lesson-teachers__exercises"}, *items)


def _exercise_answers() -> list[Markup]:
    """Each exercise's solution and its author's remarks, as the block gives them."""
    out: list[Markup] = []
    for info, block in _blocks("exercise"):
        out.append(
            el(
                "h4",
                None,
                el("code", None, signature(block.function, block.parameters)),
                f" ({info.title})",
            )
        )
        out.append(highlighted(block.solution))
        if block.remarks:
            out.append(el("p", None, inline(block.remarks)))
    if out:
        out.insert(0, el("h3", None, "The coding exercises"))
    return out


def _answers(page: Page) -> Markup:
    out: list[Markup] = []
    for info in _site:
        for kind, block in info.labs:
            if kind == "visual-lab":
                out.append(el("h3", None, f"{block.prompt} ({info.title})"))
                out.append(
                    el(
                        "ol",
                        None,
                        *(
                            el(
                                "li",
                                None,
                                f"{p.text}: ",
                                el("strong", None, p.answer),
                                ". ",
                                p.explanation,
                            )
                            for p in block.parts
                        ),
                    )
                )
            elif kind == "quiz":
                out.append(el("h3", None, f"The quiz ({info.title})"))
                items = []
                for q in block.questions:
                    right = [o.text for o in q.options if o.correct]
                    items.append(
                        el(
                            "li",
                            None,
                            f"{q.text} ",
                            el("strong", None, " / ".join(right)),
                            f" {q.explanation}",
                        )
                    )
                out.append(el("ol", None, *items))
    out.extend(_exercise_answers())
    tasks = _blocks("experiment")
    if tasks:
        out.append(el("h3", None, "The guided experiments"))
        items = [
            el(
                "li",
                None,
                _question_link(page, info, task),
                f" {seeds_run(task.params)}: ",
                el("strong", None, inline(task.options[task.answer].text)),
                " ",
                inline(task.explanation),
            )
            for info, task in tasks
        ]
        out.append(el("ol", None, *items))
    # Out of the search index, as the answers are on the students' pages: a student's
    # search for a question's words would otherwise show its answer in the result. A
    # section, not a div: Material's search ends an exclusion at the first </div> inside
    # it (a solution's listing), as its parser tells elements apart by their tag alone.
    return el("section", {"class": "lesson-teachers__answers", **NOT_SEARCHED}, *out)


def _class_view() -> Markup:
    """The class view's markup: ``docs/assets/record/class-view.js`` reads the files and
    fills the table (hidden until it mounts: without a script no file can be read)."""

    def button(action: str, text: str) -> Markup:
        attributes = {"type": "button", "class": "md-button", "data-record-class-action": action}
        return el("button", attributes, text)

    return el(
        "section",
        {"class": "lesson-class", "data-record-class": True, "hidden": True},
        el(
            "div",
            {"class": "lesson-class__drop", "data-record-class-drop": True},
            el(
                "label", {"for": "lesson-class-files"}, "Students' files: drop them here, or choose"
            ),
            " ",
            void(
                "input",
                {
                    "type": "file",
                    "id": "lesson-class-files",
                    "multiple": True,
                    "accept": ".json,application/json",
                    "data-record-class-input": True,
                },
            ),
        ),
        el(
            "p",
            {"class": "lesson-class__status", "data-record-class-status": True, "role": "status"},
        ),
        el("ul", {"class": "lesson-class__files", "data-record-class-files": True}),
        el(
            "div",
            {"class": "lesson-class__results", "data-record-class-results": True, "hidden": True},
            el(
                "p",
                {"class": "lesson-class__actions"},
                button("csv", "Download the table as CSV"),
                " ",
                button("clear", "Clear the class"),
            ),
            _scrolling(
                el(
                    "table",
                    {"class": "lesson-class__table", "data-record-class-table": True},
                    el("caption", None, "The class"),
                )
            ),
            el(
                "div",
                {
                    "class": "lesson-class__student",
                    "data-record-class-student": True,
                    "hidden": True,
                },
            ),
            el("div", {"class": "lesson-class__details", "data-record-class-details": True}),
        ),
    )


def _total_time(page: Page) -> Markup:
    teachers = _info("teachers.md")
    return el(
        "p",
        {"class": "lesson-total-time"},
        "Altogether, the pages read through and their labs take about "
        f"{total_minutes()} minutes (the site's estimate; ",
        el("a", {"href": _href(page, teachers)}, "For Teachers"),
        " says how it is measured and what each page takes).",
    )


def _lesson_time(page: Page) -> Markup:
    info = _info(page.file.src_uri)
    labs = [kind for kind, _ in info.labs]
    return el(
        "p",
        {"class": "lesson-estimate"},
        # The author's line above counts the lesson's text; ours counts the editor's
        # notes too, so it says so rather than seem to contradict it.
        "The line above is the author's time for the lesson's text. With this site's "
        f"editor's notes and labs, about {info.minutes} min (the site's estimate: "
        f"{info.words:,} words, the notes included, at {WORDS_PER_MINUTE} a minute, plus "
        + ", ".join(f"the {LAB_NAMES[k]} {LAB_MINUTES[k]} min" for k in dict.fromkeys(labs))
        + ").",
    )


def _read_time(page: Page) -> str:
    """The line under a page's title (our pages'; the lesson's is its author's): Markdown."""
    info = _info(page.file.src_uri)
    line = f":material-clock-outline: {math.ceil(info.words / WORDS_PER_MINUTE)} min read"
    if info.timed and info.labs:
        line += f", about {info.minutes} min with its labs"
    return f"{line}\n{{ .lesson-meta }}"


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in MARKERS:
            # MkDocs hands on the Markdown without its front matter: count from the file.
            source = page.file.content_string
            line = source.count("\n", 0, source.index(match[0])) + 1
            raise PluginError(
                f"{display_path(page.file, config)}:{line}: unknown generated block "
                f"{name!r} (expected one of {', '.join(MARKERS)})."
            )
        made = {
            "pages": lambda: join([_pages_table(page), _rule()], "\n"),
            "total-time": lambda: _total_time(page),
            "lesson-time": lambda: _lesson_time(page),
            "read-time": lambda: _read_time(page),
            "experiments": lambda: _experiments(page),
            "exercises": lambda: _exercises(page),
            "answers": lambda: _answers(page),
            "class-view": _class_view,
        }[name]()
        # A block of its own (raw HTML, or a paragraph): blank lines around it.
        return f"\n{made}\n"

    _check_read_time(markdown, page, config)
    return MARKER.sub(replace, markdown)


def _check_read_time(markdown: str, page: Page, config: MkDocsConfig) -> None:
    """A timed page with lab blocks says how long it takes with them, under its title."""
    info = _find(page.file.src_uri)
    said = marker_lines(markdown)
    if info and info.timed and info.labs and not said & {"read-time", "lesson-time"}:
        raise PluginError(
            f"{display_path(page.file, config)}:1: a page with lab blocks tells its reader how "
            "long it takes with them: put the line <!-- generated: read-time --> under its title."
        )
