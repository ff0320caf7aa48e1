"""Lab blocks in Markdown: fenced ```lab-… blocks, found with their line numbers.

Shared by the hooks that turn such a block into a lab, so every lab block is
found, skipped (inside other code blocks) and reported the same way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

#: A slug-like id: lower-case words joined by single hyphens.
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
#: YAML's tag for an empty value.
NULL_TAG = "tag:yaml.org,2002:null"

# libyaml composes a block about ten times faster than pure-Python PyYAML (a
# site's blocks are read twice per build), with the same nodes and start lines.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Any fenced code block opener (CommonMark): its body is skipped, so an example
# lab block shown inside a ````markdown fence is left alone.
_FENCE_OPEN = re.compile(r"(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>.*)\Z")
_LAB_CLOSE = re.compile(r"`{3,}[ \t]*\Z")


class FenceError(PluginError):
    """A bad lab block; the message starts with ``path:line:``."""

    def __init__(self, path: str, line: int, problem: str) -> None:
        super().__init__(f"{path}:{line}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


def compose_yaml(text: str) -> yaml.Node | None:
    """A block's YAML as nodes (with line marks), by libyaml when PyYAML has it.

    A block libyaml refuses is composed again by PyYAML, so an error reads in
    PyYAML's words (``yaml.MarkedYAMLError``), which the hooks quote.
    """
    try:
        return yaml.compose(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        return yaml.compose(text, Loader=yaml.SafeLoader)


@dataclass(frozen=True)
class Fence:
    """A lab block: ``start``/``end`` index its opening and closing lines."""

    start: int
    end: int
    body: str

    @property
    def line(self) -> int:
        """1-based line number of the opening fence."""
        return self.start + 1


def find_fences(
    markdown: str, path: str, info: str, error: type[FenceError] = FenceError
) -> list[Fence]:
    """Every ```<info> fence that starts a line, outside other fenced blocks."""
    lab_open = re.compile(rf"```{re.escape(info)}[ \t]*\Z")
    lines = markdown.split("\n")
    fences: list[Fence] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if lab_open.match(line):
            end = next((j for j in range(i + 1, len(lines)) if _LAB_CLOSE.match(lines[j])), None)
            if end is None:
                raise error(path, i + 1, f"the ```{info} fence is never closed.")
            fences.append(Fence(start=i, end=end, body="\n".join(lines[i + 1 : end])))
            i = end + 1
            continue
        opener = _FENCE_OPEN.match(line)
        if opener and not (opener["marker"][0] == "`" and "`" in opener["info"]):
            marker = opener["marker"]
            close = re.compile(rf"[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*\Z")
            i = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), len(lines))
        i += 1
    return fences


def replace_fences(markdown: str, fences: list[Fence], blocks: list[str]) -> str:
    """Swap each fence for its block of markup (raw HTML, set apart by blank lines)."""
    lines = markdown.split("\n")
    for fence, block in reversed(list(zip(fences, blocks, strict=True))):
        lines[fence.start : fence.end + 1] = ["", block, ""]
    return "\n".join(lines)


def display_path(file: File, config: MkDocsConfig) -> str:
    """The page as a contributor names it, e.g. ``docs/lesson.md``."""
    if file.abs_src_path and config.config_file_path:
        try:
            source = Path(file.abs_src_path).resolve()
            return source.relative_to(Path(config.config_file_path).resolve().parent).as_posix()
        except ValueError:
            pass
    return f"{Path(config.docs_dir).name}/{file.src_uri}"


PageMarkdownHook = Callable[[str, Page, MkDocsConfig, Files], str]


def front_matter_lines(page: Page) -> int:
    """How many lines of the source file MkDocs cut off before the body (the YAML front matter)."""
    try:
        source = page.file.content_string
    except (AttributeError, OSError):  # a page made in code has no source file
        return 0
    body, _ = get_data(source)
    return source[: len(source) - len(body)].count("\n") if source.endswith(body) else 0


def file_lines(hook: PageMarkdownHook) -> PageMarkdownHook:
    """Run an ``on_page_markdown`` hook on the body padded back to the file's line numbers.

    MkDocs hands hooks the page without its front matter, so a fence's line in
    the body is not its line in the file; padding makes every located error name
    the line a contributor sees in their editor.
    """

    @functools.wraps(hook)
    def padded(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        skipped = front_matter_lines(page)
        if not skipped:
            return hook(markdown, page, config, files)
        out = hook("\n" * skipped + markdown, page, config, files)
        return out[skipped:] if out.startswith("\n" * skipped) else out

    return padded
