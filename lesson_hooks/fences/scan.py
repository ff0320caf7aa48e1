"""Finding a page's lab blocks with their lines in the file, as SuperFences will read them.

SuperFences hands a custom fence its body, not where the body stands, so the
build finds every ```` ```lab-… ```` block of a page first, at any indentation
(inside an admonition, a content tab, a list item or a block quote), skipping
the bodies of other fenced blocks (an example inside a ```` ```markdown ````
fence is shown, not run). It reads them by SuperFences' own rules, so a block
those rules would not read as a fence (a line indented less than its opening
fence, an opening fence on a list item's first line, anything after the
block's name) fails here at its line instead of reaching readers as text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from lesson_hooks.fences.base import Fence, FenceError, Page

# What may stand before a fence on its line: SuperFences' indentation and block-quote marks.
_PREFIX = " \t>"
_OPEN = re.compile(r"(?P<fence>`{3,}|~{3,})[ \t]*(?P<name>[^\s`~]*)(?P<rest>.*?)[ \t]*\Z")
# A lab fence after a list marker: Markdown reads it as the item's text, never as a fence.
_ON_LIST_ITEM = re.compile(
    r"[ \t>]*(?:[-*+]|\d+[.)])[ \t]+(?:`{3,}|~{3,})[ \t]*(?P<name>lab-[^\s`~]*)[ \t]*\Z"
)
# Python-Markdown expands tabs before SuperFences reads the page.
_TAB_LENGTH = 4


@dataclass(frozen=True)
class Found:
    """A lab block as found: its fence's name, the line of its opening fence, its body."""

    name: str
    line: int
    body: str


def is_lab(name: str) -> bool:
    return name.startswith("lab-")


def find_lab_fences(markdown: str, path: str, url: str = "") -> list[Fence]:
    """Every lab block of a page's file (``markdown``, at ``path``, served at ``url``), in order."""
    found = _find(markdown, path)
    page = Page(path, url, frozenset(block.name.removeprefix("lab-") for block in found))
    seen: Counter[str] = Counter()
    fences = []
    for block in found:
        fences.append(Fence(block.name, block.body, block.line, page, seen[block.name]))
        seen[block.name] += 1
    return fences


def _find(markdown: str, path: str) -> list[Found]:
    lines = markdown.expandtabs(_TAB_LENGTH).split("\n")
    found: list[Found] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        at = i + 1
        indent = len(line) - len(line.lstrip(_PREFIX))
        opener = _OPEN.match(line, indent)
        if opener and opener["fence"][0] == "`" and "`" in opener["rest"]:
            opener = None  # ```code``` at the start of a line: inline code, not a fence
        if opener is None:
            stray = _ON_LIST_ITEM.match(line)
            if stray:
                raise FenceError(
                    path,
                    at,
                    f"a ```{stray['name']} block cannot open on a list item's first line; put "
                    "its opening fence on a line of its own, indented like the item's text.",
                )
            i += 1
            continue
        name, fence = opener["name"], opener["fence"]
        lab = is_lab(name)
        if lab and opener["rest"]:
            raise FenceError(
                path,
                at,
                f"the opening line of a ```{name} block holds nothing after the block's name "
                f"(found {opener['rest']!r}).",
            )
        end, body = _block(lines, i, indent, fence)
        if lab:
            if end is None:
                raise FenceError(path, at, f"the ```{name} fence is never closed.")
            if end < 0:
                raise FenceError(
                    path,
                    1 - end,
                    f"this line is indented less than the opening fence of its ```{name} block "
                    f"(line {at}), so Markdown would not read the block as a lab; indent every "
                    "line of the block like its opening fence.",
                )
            found.append(Found(name, at, body))
        # SuperFences reads nothing as a fence inside a block left open to the end, and
        # reads on after the line that ends a block or breaks its indentation.
        i = len(lines) if end is None else abs(end) + 1
    return found


def _block(lines: list[str], start: int, indent: int, fence: str) -> tuple[int | None, str]:
    """Where the block opened at ``start`` ends, and its body dedented by ``indent``.

    The end is the closing line's index; minus the index of the first line
    indented less than the opening fence (which ends the block for SuperFences
    without closing it); ``None`` when no line closes it.
    """
    close = re.compile(rf"{re.escape(fence)}[ \t]*\Z")
    body: list[str] = []
    for j in range(start + 1, len(lines)):
        line = lines[j]
        lead = min(len(line) - len(line.lstrip(_PREFIX)), indent)
        content = line[lead:]
        if not line.strip():
            body.append(line[indent:])
        elif lead != indent:
            return -j, ""
        elif close.match(content):
            return j, "\n".join(body)
        else:
            body.append(content)
    return None, ""
