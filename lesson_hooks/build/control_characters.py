"""No control characters in the site's Markdown: every page, and every file its snippets include.

A C0 control character is invisible in an editor and forbidden in HTML, and
each one found in this site's pages so far was a TeX command gone through a
string escape on its way in: the ``\\b`` of ``\\bar`` became a backspace (U+0008),
the ``\\f`` of ``\\frac`` a form feed (U+000C). The formula then reads wrong,
or not at all. So the build fails at the file and line of each one, naming
it. Tab and line feed are text; a carriage return is allowed only in a CRLF
line ending (a lone one, the ``\\r`` of ``\\rho`` say, is refused: MkDocs
would read it as a line break, which splits a formula in two).

Snippets (``pymdownx.snippets``: sections of ``lab/`` shown on a page, and the
glossary's ``includes/abbreviations.md`` appended to every page) are found by
running that extension's own reader, with the build's settings, over each
page, so every file a page includes is checked exactly as it is included.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from markdown import Markdown
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from pymdownx.snippets import SnippetExtension, SnippetMissingError, SnippetPreprocessor

from lesson_hooks.support.pages import display_path

SNIPPETS = "pymdownx.snippets"
_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]|\r(?!\n)")
_NAMES = {
    0x00: "NULL",
    0x07: "BELL",
    0x08: "BACKSPACE",
    0x0B: "LINE TABULATION",
    0x0C: "FORM FEED",
    0x0D: "CARRIAGE RETURN",
    0x1B: "ESCAPE",
}
# The string escapes that make these characters, each with a TeX command it eats.
_ESCAPES = {
    0x07: ("\\a", "\\alpha"),
    0x08: ("\\b", "\\bar"),
    0x0B: ("\\v", "\\vec"),
    0x0C: ("\\f", "\\frac"),
    0x0D: ("\\r", "\\rho"),
}

# Files already checked in this build (a snippet file is included by many pages).
_checked: set[Path] = set()


def control_characters(text: str) -> list[tuple[int, int, str]]:
    """``(line, column, character)`` of each forbidden control character in ``text``, 1-based."""
    found = []
    for m in _FORBIDDEN.finditer(text):  # the whole text: a CRLF's CR is followed by its LF
        line_start = text.rfind("\n", 0, m.start()) + 1
        found.append((text.count("\n", 0, m.start()) + 1, m.start() - line_start + 1, m[0]))
    return found


def describe(character: str) -> str:
    """The character by code point (and name), e.g. ``U+0008 (BACKSPACE)``."""
    code = ord(character)
    name = _NAMES.get(code)
    return f"U+{code:04X} ({name})" if name else f"U+{code:04X}"


def problem(character: str, column: int) -> str:
    """What is wrong at ``column``, with the escape that likely made ``character``."""
    text = f"control character {describe(character)} at column {column}"
    escape = _ESCAPES.get(ord(character))
    if escape:
        text += f"; was {escape[1]} meant? A string escape turns {escape[0]} into this character"
    return text + "."


def check_text(text: str, path: str) -> None:
    """Fail with ``path:line:`` for each control character ``text`` holds."""
    found = control_characters(text)
    if found:
        raise PluginError(
            "\n".join(f"{path}:{line}: {problem(char, column)}" for line, column, char in found)
        )


def check_file(path: Path, shown: str) -> None:
    """Check ``path``'s bytes (so a lone carriage return is seen), as ``shown``, once per build."""
    resolved = path.resolve()
    if resolved in _checked:
        return
    check_text(path.read_bytes().decode("utf-8", "replace"), shown)
    _checked.add(resolved)


class _SnippetReads(SnippetPreprocessor):
    """pymdownx.snippets' preprocessor, noting each file it reads."""

    def __init__(self, config: dict, md: Markdown) -> None:
        super().__init__(config, md)
        self.files: list[str] = []

    def read_lines(self, path: str) -> list[str]:
        self.files.append(path)
        return super().read_lines(path)


def snippet_files(markdown: str, options: dict) -> list[Path]:
    """Every file ``pymdownx.snippets``, set up with ``options``, includes into ``markdown``."""
    reads = _SnippetReads(SnippetExtension(**options).getConfigs(), Markdown())
    with contextlib.suppress(SnippetMissingError):  # the build's own run reports it
        reads.run(markdown.split("\n"))
    return [Path(name) for name in dict.fromkeys(reads.files)]


def _shown(path: Path, config: MkDocsConfig) -> str:
    root = Path(config.config_file_path).resolve().parent
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


# ------------------------------------------------------------------ MkDocs hooks


def on_files(files: Files, config: MkDocsConfig) -> Files:
    _checked.clear()
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not page.file.abs_src_path:  # a page made in code has no source to check
        return markdown
    check_file(Path(page.file.abs_src_path), display_path(page.file, config))
    if SNIPPETS in config.markdown_extensions:
        options = config.mdx_configs.get(SNIPPETS, {})
        for path in snippet_files(page.file.content_string, options):
            check_file(path, _shown(path, config))
    return markdown
