"""The settings reader of the run-style labs (simulation, language models, the episode).

A run-style lab's block is optional YAML: an ``id`` (it names the lab's element
ids, ``lab-<id>-...``) and ``defaults``, the form's starting values, checked by
the lab's own validator (:data:`lab.kinds.RUNNERS`), so a value the lab would
refuse fails the build at its line::

    ```lab-simulation
    id: climbing
    defaults:
      table: penalty
    ```

The episode's block is the parameters themselves (:func:`read_values`). The
forms word a field's help and limits from the lab's spec through
:func:`lab.core.params.field_hint`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import yaml
from mkdocs.utils import get_relative_url

from lab.core.markup import Markup, el, join, void
from lesson_hooks.fences.base import Fence, Reader, keys
from lesson_hooks.fences.custom import LabFence
from lesson_hooks.support.lab_archive import build_lab_archive
from lesson_hooks.support.paths import LAB_DIR

P = TypeVar("P")

FENCE_KEYS = ("id", "defaults")


@dataclass(frozen=True)
class Lab(Generic[P]):
    """One run-style lab on a page: its id and the values its form starts with."""

    id: str
    params: P
    path: str | None
    line: int

    @property
    def prefix(self) -> str:
        """The prefix of every element id inside the lab."""
        return f"lab-{self.id}"


def read_lab(fence: Fence, validate: Callable[[Mapping[str, Any]], P], default_id: str) -> Lab[P]:
    """The block's ``id`` and its ``defaults`` checked by ``validate``, or a located error."""
    reader = Reader(fence)
    root = reader.root()
    lab_id, defaults, lines = default_id, {}, {}
    if root is not None:
        if not isinstance(root, yaml.MappingNode):
            raise reader.fail(
                root, f"the lab's settings are a mapping with keys {keys(FENCE_KEYS)}."
            )
        entries = reader.mapping(root, FENCE_KEYS, "the lab's settings")
        if "id" in entries:
            lab_id = reader.slug(entries["id"], default_id)
        if "defaults" in entries:
            defaults, lines = reader.values(
                "`defaults`",
                entries["defaults"][1],
                "`defaults` maps parameter names to starting values.",
            )
    params = reader.checked(
        validate, defaults, lines, fence.line, lambda name, reason: f"`defaults`: {name}: {reason}"
    )
    return Lab(lab_id, params, fence.page.path, fence.line)


def read_values(
    fence: Fence, validate: Callable[[Mapping[str, Any]], Any], what: str, not_a_mapping: str
) -> dict[str, Any]:
    """A block whose body is the lab's parameters (``what`` names the block), checked."""
    reader = Reader(fence)
    root = reader.root()
    values, lines = reader.values(what, root, not_a_mapping) if root is not None else ({}, {})
    reader.checked(validate, values, lines, fence.line, lambda name, reason: f"`{name}`: {reason}")
    return values


# ------------------------------------------------------------- the forms' words


def render_shell(lab: Lab[Any], kind: str, block: str, parts: Iterable[object]) -> Markup:
    """A run-style lab's outer element, what ``shared/run-lab.js`` mounts on: its kind,
    id and run state, the class ``lab <block>``, ``parts`` one to a line."""
    attributes = {
        "class": f"lab {block}",
        "id": lab.prefix,
        "data-lab": kind,
        "data-lab-id": lab.id,
        "data-lab-run": "idle",
    }
    return el("div", attributes, "\n", join(parts, "\n"), "\n")


@dataclass(frozen=True)
class _RunLabRender:
    """A run-style lab's render, handed the lab's zip as the page reaches it
    (a class, not a closure: Zensical pickles the formatters)."""

    render: Callable[[Any, str], Markup]

    def __call__(self, lab: Lab[Any], fence: Fence) -> Markup:
        return self.render(lab, lab_archive(fence.page.url))


def run_lab_fence(
    kind: str,
    read: Callable[[Fence], Lab[P]],
    render: Callable[[Lab[P], str], Markup],
) -> LabFence[Lab[P]]:
    """A run-style lab's fence: one per page, ``render(lab, archive_url)``."""
    return LabFence(kind, read, _RunLabRender(render))


def render_fallback(class_name: str, what_it_does: str) -> Markup:
    """What a reader without JavaScript reads where the lab would be."""
    note = el("p", None, el("strong", None, "This lab needs JavaScript."), f" {what_it_does}")
    return el("div", {"class": class_name, "data-lab-fallback": True}, "\n", note, "\n")


def lab_archive(page_url: str = "") -> str:
    """The address of the lab archive the worker unpacks, from the page at ``page_url``."""
    return get_relative_url(f"{LAB_DIR}/{build_lab_archive().name}", page_url)


def render_share(prefix: str, archive: str) -> Markup:
    """Copy link, the link's field, a run's downloads and Reproduce, and the lab's zip.

    ``archive`` is the lab archive's address from the page
    (:func:`lesson_hooks.support.lab_archive.build_lab_archive`). Copy link and the
    downloads are ``assets/lab/shared/share-link.js``'s, hidden until it runs
    (without it there is no link to make and no run); the zip is a plain link.
    """
    link_id = f"{prefix}-link"
    share = el(
        "div",
        {"class": "lab-share", "data-lab-share": True, "hidden": True},
        el(
            "button",
            {"type": "button", "class": "md-button", "data-lab-action": "copy-link"},
            "Copy link",
        ),
        el(
            "span",
            {"class": "lab-share__link", "data-lab-link-box": True, "hidden": True},
            el("label", {"for": link_id}, "Link to these settings"),
            void(
                "input",
                {"id": link_id, "type": "text", "readonly": True, "data-lab-link": True},
                spellcheck="false",
                autocomplete="off",
            ),
        ),
        el("p", {"class": "lab-share__status", "role": "status", "data-lab-share-status": True}),
        el(
            "div",
            {"class": "lab-share__downloads", "data-lab-downloads": True, "hidden": True},
            el("ul", {"class": "lab-share__files", "data-lab-download-list": True}),
            el(
                "details",
                {"class": "lab-share__reproduce"},
                el("summary", None, "Reproduce"),
                el(
                    "p",
                    None,
                    "Save ",
                    el("a", {"data-lab-download-settings": True, "href": "#"}, "these settings"),
                    " beside the unpacked lab (zip), then run, with CPython 3.11 or newer and "
                    "nothing else installed:",
                ),
                # A <pre> of its own, not <pre><code>: Material would make it one of the
                # page's code blocks (an id, a copy button) before it holds anything.
                # It scrolls on a narrow screen, so the keyboard must reach it.
                el(
                    "pre",
                    {
                        "class": "lab-share__command",
                        "data-lab-command": True,
                        "tabindex": "0",
                        "role": "region",
                        "aria-label": "The command",
                    },
                ),
                el("p", None, "It prints this run's result as JSON, number for number."),
            ),
        ),
    )
    zip_link = el(
        "p",
        {"class": "lab-share__zip"},
        el("a", {"href": archive, "download": "lab.zip"}, "Download the lab (zip)"),
        ": the Python this lab runs, with a README on running it on your machine.",
    )
    return share + zip_link
