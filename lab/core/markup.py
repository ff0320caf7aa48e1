"""The one HTML builder: text is escaped by construction, markup is a type.

Every renderer in ``lab`` (and the build's fences) writes its markup through
:func:`el`: a child or attribute value that is not :class:`Markup` is text and
is escaped on the way in, so no caller can forget to escape a number cell, a
reader's output or a contributor's prompt. :class:`Markup` is what :func:`el`,
:func:`join` and :func:`escape` return; :func:`trusted` marks markup made by a
library that escapes for itself (Pygments' highlighting), and is the only way
to turn a plain string into markup.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["Markup", "attrs", "el", "escape", "join", "trusted", "void"]


class Markup(str):
    """A string of HTML that is safe to insert as it stands."""

    __slots__ = ()

    def __add__(self, other: object) -> Markup:
        return Markup(str.__add__(self, escape(other)))

    def __radd__(self, other: object) -> Markup:
        return Markup(str.__add__(escape(other), self))


def escape(value: object) -> Markup:
    """``value`` as HTML text: markup passes through, anything else is escaped."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def trusted(markup: str) -> Markup:
    """Markup from a source that escapes for itself (say why at the call)."""
    return Markup(markup)


def join(parts: Iterable[object], separator: object = "") -> Markup:
    """Children side by side: each escaped unless it is markup; ``None`` leaves nothing."""
    return Markup(escape(separator).join(escape(part) for part in parts if part is not None))


def _name(key: str) -> str:
    # Python names for HTML's: class_ -> class, aria_label -> aria-label.
    return key.rstrip("_").replace("_", "-")


def attrs(attributes: Mapping[str, Any] | None = None, **named: Any) -> Markup:
    """Attributes as HTML: ``None`` and ``False`` leave one out, ``True`` writes its name alone.

    Names in ``attributes`` are written as given (``data-lab-html``); keyword
    names are Python's (``class_``, ``aria_label``).
    """
    merged = {**(attributes or {}), **{_name(k): v for k, v in named.items()}}
    out = []
    for name, value in merged.items():
        if value is None or value is False:
            continue
        out.append(f" {name}" if value is True else f' {name}="{escape(value)}"')
    return Markup("".join(out))


def el(
    tag: str, attributes: Mapping[str, Any] | None = None, /, *children: object, **named: Any
) -> Markup:
    """``<tag attributes>children</tag>``: children that are not markup are escaped as text."""
    return Markup(f"<{tag}{attrs(attributes, **named)}>{join(children)}</{tag}>")


def void(tag: str, attributes: Mapping[str, Any] | None = None, /, **named: Any) -> Markup:
    """An element with no content and no end tag (``input``, ``link``, ``br``)."""
    return Markup(f"<{tag}{attrs(attributes, **named)}>")
