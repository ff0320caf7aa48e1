"""The graded-block base: a block the worker grades against a spec file (Visual Lab, quiz).

A graded block's spec is JSON with a ``version`` (a hash of everything else, so
answers a reader saved for another version are not applied), written to
``assets/lab/<dir>/<id>.json`` by the build; its ``id`` names that file, so it
is unique across the site (:func:`graded_fence`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, TypeVar

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from lab.core.markup import Markup, el, join
from lesson_hooks.fences.base import NOT_SEARCHED, Fence, Page
from lesson_hooks.fences.custom import LabFence

G = TypeVar("G", bound="Graded")
#: A graded block's link to its spec, in its markup (:func:`shell`).
_SPEC_LINK = re.compile(r'(\sdata-lab-spec=)"([^"]*)"')


@dataclass(frozen=True)
class Graded:
    """A graded block; a kind sets ``SPEC_DIR`` and says what it grades (:meth:`content`)."""

    SPEC_DIR: ClassVar[str]

    id: str
    path: str | None
    line: int

    def content(self) -> dict[str, Any]:
        """What the grader reads, ``id`` first."""
        raise NotImplementedError

    @cached_property
    def spec(self) -> dict[str, Any]:
        """The JSON the grader reads; ``version`` hashes everything else."""
        content = self.content()
        canonical = json.dumps(content, sort_keys=True, ensure_ascii=False)
        version = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]
        return {"id": self.id, "version": version, **content}

    @property
    def spec_path(self) -> str:
        """Where the spec lives in the built site."""
        return f"{self.SPEC_DIR}/{self.id}.json"

    def spec_url(self, page: Page) -> str:
        """The spec's URL as ``page`` reaches it."""
        return get_relative_url(self.spec_path, page.url)

    @staticmethod
    def relink(html: str, page_url: str) -> str:
        """``html``'s spec links, written from the site's root by blocks rendered with no
        page in hand (under Zensical), made relative to the page at ``page_url``."""
        return _SPEC_LINK.sub(lambda m: f'{m[1]}"{get_relative_url(m[2], page_url)}"', html)

    def spec_file(self, config: MkDocsConfig) -> File:
        """The spec as a file of the built site."""
        content = json.dumps(self.spec, ensure_ascii=False, indent=2) + "\n"
        return File.generated(config, self.spec_path, content=content)


@dataclass(frozen=True)
class _LinkingSpec:
    """A graded kind's render, handed the spec's URL as the block's page reaches it."""

    render: Callable[[Any, str], str]

    def __call__(self, block: Graded, fence: Fence) -> str:
        return self.render(block, block.spec_url(fence.page))


def graded_fence(
    kind: str, read: Callable[[Fence], G], render: Callable[[G, str], str]
) -> LabFence[G]:
    """A graded kind's fence: ``render(block, spec_url)``; declare its ids ``"site"``."""
    return LabFence(kind, read, _LinkingSpec(render))


# ------------------------------------------------------------------ markup
# The parts every graded block's markup shares, so the Visual Lab and the quiz (and
# graded.js, which reads these attributes) cannot drift apart.


def shell(
    block: Graded, kind: str, spec_url: str, *children: object, **attributes: object
) -> Markup:
    """The block's outer element: what graded.js needs to load and version it (and
    the kind's own ``attributes``, written as ``el`` writes keywords)."""
    return el(
        "div",
        {
            "class": f"lab lab-{kind}",
            "id": f"lab-{block.id}",
            "data-lab": kind,
            "data-lab-id": block.id,
            "data-lab-spec": spec_url,
            "data-lab-version": block.spec["version"],
        },
        *children,
        **attributes,
    )


def controls(kind: str, *, buttons_hidden: bool = False) -> Markup:
    """Check and Clear with the summary line, hidden until the script mounts."""

    def button(action: str, text: str, classes: str) -> Markup:
        attributes = {"type": "button", "class": classes, "data-lab-action": action}
        return el("button", attributes, text, hidden=buttons_hidden)

    return el(
        "div",
        {
            "class": f"lab-{kind}__controls",
            "data-lab-controls": True,
            "hidden": True,
            **NOT_SEARCHED,
        },
        "\n",
        button("check", "Check", "md-button md-button--primary"),
        "\n",
        button("clear", "Clear", "md-button"),
        "\n",
        el("p", {"class": f"lab-{kind}__summary", "data-lab-summary": True}),
        "\n",
    )


def status() -> Markup:
    """The status line and the screen reader's announcer."""
    return join(
        (
            el("p", {"class": "lab-status", "data-lab-status": True, "role": "status"}),
            el(
                "div",
                {"class": "lab-visually-hidden", "data-lab-announcer": True, "aria-live": "polite"},
            ),
        ),
        "\n",
    )
