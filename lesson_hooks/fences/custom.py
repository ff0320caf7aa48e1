"""Lab blocks as SuperFences custom fences, and what their formatters know of the page.

``mkdocs.yml`` registers each kind's fence under ``pymdownx.superfences``'
``custom_fences`` (as Material's mermaid and markdown-exec do), so a lab block
works wherever a fenced block works: at the top of a page, in an admonition,
a collapsible block, a content tab or a list item. Its ``format`` is the
kind's :meth:`LabFence.format`, its ``validator`` :func:`validator`.

SuperFences gives a formatter the block's body and nothing of the page. The
build's hook (:mod:`lesson_hooks.fences.sitewide`) tells this module, before a page
is rendered, which lab blocks the page's file holds and where
(:func:`enter`); each formatter claims its block by name and body
(:func:`claim`), so its errors name the line in the file and its links are
relative to its page. Without that hook (a build that runs no MkDocs hooks) a
block still renders, with what it can know: its errors count lines from its
opening fence, its links are written as if from the site's root.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from lab.kinds import Kind, kind_named
from lesson_hooks.fences.base import Fence, FenceError, Page
from lesson_hooks.fences.scan import find_lab_fences

B = TypeVar("B")


class Placed(Protocol):
    """A block with an id, at a place in the site."""

    @property
    def id(self) -> str: ...

    @property
    def path(self) -> str | None: ...

    @property
    def line(self) -> int: ...


@dataclass(frozen=True)
class LabFence(Generic[B]):
    """One kind of lab block: how it is read and rendered (the rest is its :class:`Kind`)."""

    #: Its name in :data:`lab.kinds.KINDS`, which declares its id scope.
    kind: str
    #: The block checked, or a :class:`~lesson_hooks.fences.base.FenceError` at its line.
    read: Callable[[Fence], B]
    #: Its markup; one element (a block-level tag first), so Markdown places it as it stands.
    #: Both are module-level functions: Zensical pickles the Markdown configuration.
    render: Callable[[B, Fence], str]

    @property
    def declared(self) -> Kind:
        """Its declaration in :data:`lab.kinds.KINDS`."""
        return kind_named(self.kind)

    @property
    def unique(self) -> str | None:
        """Where its ids must be unique: ``"site"``, ``"page"``, or ``None`` (no ids)."""
        return self.declared.ids

    @property
    def repeated(self) -> str:
        """How a repeated id is refused (:func:`check_unique`)."""
        if self.unique == "site":
            return f"{self.declared.noun} id {{id!r}} is already used at {{path}}:{{line}}."
        return (
            "a lab with id {id!r} is already on this page (line {line}); "
            "give this one, or the one at line {line}, its own `id`."
        )

    @property
    def name(self) -> str:
        """The fence's name: ```` ```lab-<kind> ````."""
        return f"lab-{self.kind}"

    def read_fences(self, fences: list[Fence]) -> list[B]:
        """This kind's blocks among one page's ``fences``, read, their ids checked on the page."""
        blocks = [self.read(fence) for fence in fences if fence.name == self.name]
        if self.unique:
            check_unique(blocks, self.repeated)
        return blocks

    def read_page(self, markdown: str, path: str) -> list[B]:
        """This kind's blocks in one page's file, in order."""
        return self.read_fences(find_lab_fences(markdown, path))

    def format(
        self, source: str, language: str, class_name: str, options: dict, md: Any, **kwargs: Any
    ) -> str:
        """SuperFences' formatter: the block's markup."""
        fence = claim(language, source)
        markup = self.render(self.read(fence), fence)
        if _page is not None:
            _page.markup[fence] = markup
        return markup


def check_unique(blocks: Iterable[Placed], repeated: str) -> None:
    """Ids are unique among ``blocks``: the second use of one fails, naming the first.

    ``repeated`` words the error from the ``id`` and the first use's ``path``
    and ``line`` (:attr:`LabFence.repeated`).
    """
    first: dict[str, Placed] = {}
    for block in blocks:
        other = first.setdefault(block.id, block)
        if other is not block:
            problem = repeated.format(id=block.id, path=other.path, line=other.line)
            raise FenceError(block.path, block.line, problem)


def validator(language: str, inputs: dict, options: dict, attrs: dict, md: Any) -> bool:
    """SuperFences' validator: a lab block takes no options (its settings are its YAML)."""
    return not inputs


# ------------------------------------------------------------ the page in hand


@dataclass
class Rendering:
    """The lab blocks of the page being rendered, and the markup each was given."""

    page: Page
    fences: list[Fence]
    markup: dict[Fence, str] = field(default_factory=dict)


_page: Rendering | None = None


def enter(page: Page, fences: list[Fence]) -> None:
    """The page about to be rendered holds ``fences`` (its file's lab blocks, in order)."""
    global _page
    _page = Rendering(page, fences)


def leave() -> Rendering | None:
    """The page is rendered: what its formatters claimed and made."""
    global _page
    done, _page = _page, None
    return done


def page_fences() -> list[Fence]:
    """The lab blocks of the page being rendered (none when no hook said which page)."""
    return list(_page.fences) if _page is not None else []


def _same(text: str) -> str:
    # SuperFences reads tabs expanded and whitespace-only lines emptied.
    return "\n".join(line.rstrip() for line in text.expandtabs(4).split("\n")).strip("\n")


def claim(name: str, source: str) -> Fence:
    """The page's first unclaimed block named ``name`` with this body, else an unplaced one.

    SuperFences reads a page's blocks in order, so among blocks with one body
    the first unclaimed is this one.
    """
    if _page is None:
        return Fence(name, source)
    body = _same(source)
    for fence in _page.fences:
        if fence.name == name and fence not in _page.markup and _same(fence.body) == body:
            return fence
    return Fence(name, source, page=_page.page)
