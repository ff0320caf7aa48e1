"""No control characters in a page, a snippet or an include: the build names each at its line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page

from lesson_hooks.build import control_characters as hook
from lesson_hooks.support.paths import ROOT


def test_a_backspace_in_a_formula_is_named_at_its_line_with_the_escape_that_made_it() -> None:
    # What a string escape makes of "\bar": the defect once in the simulation page's discount.
    text = "# T\n\nIts return is \\(r_1 + \\gamma \\, \x08ar r_2\\).\n"
    with pytest.raises(PluginError) as caught:
        hook.check_text(text, "docs/page.md")
    assert str(caught.value) == (
        "docs/page.md:3: control character U+0008 (BACKSPACE) at column 33; was \\bar meant? "
        "A string escape turns \\b into this character."
    )


def test_every_control_character_is_reported_with_its_line_and_column() -> None:
    text = "a \x0crac{1}{2}\nfine\tline\r\n\x1b[0m and \rho\n"
    assert hook.control_characters(text) == [(1, 3, "\x0c"), (3, 1, "\x1b"), (3, 10, "\r")]
    with pytest.raises(PluginError) as caught:
        hook.check_text(text, "includes/x.md")
    lines = str(caught.value).split("\n")
    assert lines[0].startswith("includes/x.md:1: control character U+000C (FORM FEED) at column 3")
    assert lines[1] == "includes/x.md:3: control character U+001B (ESCAPE) at column 1."
    assert "U+000D (CARRIAGE RETURN) at column 10; was \\rho meant?" in lines[2]


def test_tabs_and_line_endings_are_text() -> None:
    assert hook.control_characters("a\tb\nc\r\nd\n") == []
    hook.check_text("a\tb\r\n", "docs/page.md")


def test_the_snippets_a_page_includes_are_found_by_the_extensions_own_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Guards against a pymdownx change that would leave the snippets unchecked.
    monkeypatch.chdir(ROOT)  # mkdocs.yml's base_path is relative to where the build runs
    options = load_config(str(ROOT / "mkdocs.yml")).mdx_configs[hook.SNIPPETS]
    page = (ROOT / "docs" / "simulation-reference.md").read_text(encoding="utf-8")
    found = {path.resolve() for path in hook.snippet_files(page, options)}
    named = {ROOT / name for name in re.findall(r'^ *--8<-- "([^":]+)', page, re.MULTILINE)}
    assert len(named) >= 2  # the reference page shows code from lab/
    assert found == named | {ROOT / "includes" / "abbreviations.md"}  # and the glossary's terms


def test_a_control_character_in_an_include_fails_the_page_that_includes_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "includes").mkdir()
    (tmp_path / "docs" / "page.md").write_text('# Page\n\n--8<-- "includes/part.md"\n')
    (tmp_path / "includes" / "part.md").write_text("One.\n\nTwo \x07lpha.\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: T\nmarkdown_extensions:\n"
        "  - pymdownx.snippets:\n      base_path: !relative $config_dir\n      check_paths: true\n"
    )
    config = load_config(str(tmp_path / "mkdocs.yml"))
    file = File("page.md", str(tmp_path / "docs"), str(tmp_path / "site"), True)
    page = Page(None, file, config)
    hook.on_files(None, config)  # type: ignore[arg-type]
    with pytest.raises(PluginError, match=r"^includes/part\.md:3: control character U\+0007 "):
        hook.on_page_markdown(file.content_string, page, config, None)  # type: ignore[arg-type]
