"""The built site carries the code editor and the reader's code, from this project only."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from lab import original_source
from lab.sim.user_code import code_version
from lesson_hooks.support.paths import EDITOR_BUNDLE
from tests.conftest import ROOT, BuiltSite

PAGE = "simulation/index.html"
# Where code-panel.js imports the bundle from, relative to itself.
_IMPORT = re.compile(r'new URL\("([^"]+)",\s*import\.meta\.url\)')


class CodeBlock(HTMLParser):
    """The text of the code block in the lab's code panel, and the panel's attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.panel: dict[str, str | None] | None = None
        self.in_pre = False
        self.depth = 0  # inside the block's code element
        self.done = False
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if "data-lab-code" in found and self.panel is None:
            self.panel = found
        if self.panel is None or self.done:
            return
        if self.depth:
            self.depth += 1
        elif tag == "pre":
            self.in_pre = True
        elif tag == "code" and self.in_pre:
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            self.done = self.depth == 0

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


def test_the_editor_bundle_is_generated_where_the_page_imports_it(site: BuiltSite) -> None:
    bundle = site.dir / EDITOR_BUNDLE
    text = bundle.read_text(encoding="utf-8")
    assert text.startswith("/*! The lesson's code editor")
    assert re.search(r"export\s*\{[^}]*createEditor", text)
    assert "https://" not in text  # nothing from another origin
    panel_js = site.dir / "assets/lab/widgets/code-panel.js"
    (relative,) = _IMPORT.findall(panel_js.read_text(encoding="utf-8"))
    assert (panel_js.parent / relative).resolve() == bundle.resolve()
    # Only the bundle ships: the entry it is made from stays out of the site.
    assert not list(site.dir.rglob("editor_entry.js"))


def test_the_bundle_is_cached_with_the_lab_not_at_install(site: BuiltSite) -> None:
    manifest = json.loads((site.dir / "precache-manifest.json").read_text(encoding="utf-8"))
    (entry,) = [e for e in manifest["files"] if e["url"] == EDITOR_BUNDLE]
    assert entry["group"] == "lab"


def test_the_page_shows_the_real_code_with_its_version(site: BuiltSite) -> None:
    parser = CodeBlock()
    parser.feed((site.dir / PAGE).read_text(encoding="utf-8"))
    assert parser.panel is not None
    original = original_source()
    assert "".join(parser.text) == original
    assert parser.panel["data-lab-code-version"] == code_version(original)


def test_the_entry_is_outside_docs() -> None:
    assert not list(Path(ROOT / "docs").rglob("editor_entry.js"))
