"""One HTML tree for the tests: the built pages and the labs' markup, read as a reader sees them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
_BLOCK = {
    "address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt",
    "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "td", "th",
    "tr", "ul",
}  # fmt: skip
_INVISIBLE = {"script", "style", "template"}


@dataclass(eq=False)
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [
            node
            for node in self.iter()
            if (tag is None or node.tag == tag) and (cls is None or cls in node.classes)
        ]

    def find(self, tag: str | None = None, cls: str | None = None) -> Node:
        found = self.find_all(tag, cls)
        assert found, f"no <{tag or '*'}> with class {cls!r}"
        return found[0]

    def all(self, **attrs: str | None) -> list[Node]:
        """Elements having each attribute (with that value, unless the value is None)."""
        return [
            node
            for node in self.iter()
            if all(k in node.attrs and (v is None or node.attrs[k] == v) for k, v in attrs.items())
        ]

    def one(self, **attrs: str | None) -> Node:
        """The one element having these attributes (``one(**{"data-lab": "quiz"})``)."""
        (found,) = self.all(**attrs)
        return found

    def text(self, skip: Callable[[Node], bool] = lambda node: False) -> str:
        """Text as a reader sees it: whitespace collapsed, quotes straightened."""
        return normalise("".join(self._pieces(skip)))

    def _pieces(self, skip: Callable[[Node], bool]) -> Iterator[str]:
        if self.tag in _INVISIBLE or skip(self):
            return
        if self.tag in _BLOCK:
            yield " "
        for child in self.children:
            if isinstance(child, str):
                yield child
            else:
                yield from child._pieces(skip)
        if self.tag in _BLOCK:
            yield " "


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def without_permalinks(node: Node) -> bool:
    """For :meth:`Node.text`'s ``skip``: a heading's permalink (Material's "¶")."""
    return "headerlink" in node.classes


def normalise(text: str) -> str:
    return " ".join(text.translate(_QUOTES).split())


def parse_html(markup: str) -> Node:
    """``markup`` as a tree under a ``#document`` node."""
    builder = _TreeBuilder()
    builder.feed(markup)
    builder.close()
    return builder.root


def parse(path: Path) -> Node:
    return parse_html(path.read_text(encoding="utf-8"))


def labs_stylesheet(site_dir: Path, url: str) -> str:
    """The one stylesheet a built page links for its labs (lesson_hooks/fences/sitewide.py),
    as text; the page links no lab or record stylesheet of its own beside it."""
    page = parse(site_dir / url / "index.html")
    hrefs = [
        link.attrs["href"]
        for link in page.iter()
        if link.tag == "link" and link.attrs.get("rel") == "stylesheet"
    ]
    labs = [h for h in hrefs if "/assets/lab/" in h or "/assets/record/" in h]
    assert len(labs) == 1 and "/assets/lab/styles/" in labs[0], labs
    return (site_dir / url / labs[0]).resolve().read_text(encoding="utf-8")


def shipped_stylesheet(site_dir: Path, path: str) -> str:
    """A stylesheet as the site ships it, without the link to its source map."""
    text = (site_dir / path).read_text(encoding="utf-8").split("/*# sourceMappingURL=")[0]
    assert text.strip(), f"{path} ships empty"
    return text.rstrip()
