"""Math typeset at build time by the pinned KaTeX: pages ship finished math.

``pymdownx.arithmatex`` (generic mode) leaves each formula as ``\\( … \\)`` in
a ``<span class="arithmatex">`` or ``\\[ … \\]`` in a ``<div class="arithmatex">``.
This hook collects every page's formulas as MkDocs converts the pages, has
KaTeX (the npm ``katex`` that package-lock.json pins) typeset all that its
cache lacks in one Node run of ``katex_render.mjs`` before the first page is
written, and puts KaTeX's markup in place of the TeX in each written page:
HTML for the eye and MathML (with the TeX as its annotation) for screen
readers. The search index, made from the pages' content before that, keeps the
TeX.

So a reader's browser runs no KaTeX: math reads without JavaScript, in the
downloadable copy opened from disk, and with no shift when it appears. A page
with math links KaTeX's stylesheet in its head; the stylesheet, its woff2
fonts and the licence are vendored to ``KATEX_DIR`` (and so precached for
offline reading like every site file).

A formula KaTeX refuses fails the build at ``docs/page.md:LINE:`` with KaTeX's
message, and so do an inline formula that spans lines and TeX left in a page's
text outside any formula: a line break inside a formula (the ``\\n`` of ``\\ne``
read as a newline, say) either reads as a space or, in a table row, splits the
formula into two halves that show as TeX.

Renders are cached in ``node_modules/.cache/lesson-katex/`` by the formula,
its mode, KaTeX's version and the script, so a warm build runs no Node at all.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from lesson_hooks.support import paths
from lesson_hooks.support.cache_files import write_atomically
from lesson_hooks.support.node_tools import installed_version, locked_version, run_tool
from lesson_hooks.support.pages import display_path
from lesson_hooks.support.paths import BUILD_HOOKS, KATEX_DIR, NODE_MODULES, PACKAGE_LOCK

NODE_KATEX = NODE_MODULES / "katex"
SCRIPT = BUILD_HOOKS / "katex_render.mjs"
CACHE_DIR = paths.CACHE_DIR / "lesson-katex"
#: What the script imports, and the stylesheet pages with math link.
KATEX_MODULE = "katex.mjs"
STYLESHEET = "katex.min.css"
TIMEOUT = 120  # seconds; the whole site's math takes well under one
_KEEP = 500  # cached renders (a live preview makes one per edited formula)

#: A formula as arithmatex writes it: its text is the TeX, HTML-escaped, in delimiters.
_FORMULA = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<text>.*?)</(?P=tag)>', re.DOTALL)
#: Where TeX is no formula's: code, scripts and form fields show text as it is.
_NOT_PROSE = re.compile(r"<(pre|code|script|style|textarea)\b.*?</\1>", re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
#: A TeX command (``\frac``) or delimiter in a page's text: math that no formula took.
_TEX = re.compile(r"\\(?:[A-Za-z]{2,}|[()[\]])")
_OPENERS = (("\\(", "\\)"), ("\\[", "\\]"))
#: C0 controls are invisible in KaTeX's messages: name them instead.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")


@dataclass(frozen=True)
class Formula:
    tex: str
    display: bool


@dataclass
class _PageMath:
    path: str  # as a contributor names it: docs/page.md
    source: str  # the page's Markdown file, to find a formula's line in
    formulas: list[Formula]


# The current build's pages with math (src_uri -> what they hold) and KaTeX's renders.
_pages: dict[str, _PageMath] = {}
_rendered: dict[Formula, str] = {}


def locked_katex_version(lock: Path = PACKAGE_LOCK) -> str:
    return locked_version("katex", lock)


def check_katex(node_katex: Path = NODE_KATEX, lock: Path = PACKAGE_LOCK) -> str:
    """Fail with a clear message unless node_modules holds the locked KaTeX."""
    locked = locked_katex_version(lock)
    installed = installed_version(node_katex)
    if installed != locked:
        found = f"KaTeX {installed}" if installed else "missing"
        raise PluginError(
            f"{node_katex} is {found}, but package-lock.json pins katex {locked}. Run `npm ci`."
        )
    missing = [n for n in (KATEX_MODULE, STYLESHEET) if not (node_katex / "dist" / n).is_file()]
    if missing:
        raise PluginError(
            f"KaTeX {locked} in {node_katex} lacks {', '.join(missing)}. Run `npm ci`."
        )
    return locked


def katex_files(node_katex: Path = NODE_KATEX) -> dict[str, Path]:
    """Site path -> source file, for everything a reader's browser needs: no script."""
    dist = node_katex / "dist"
    files = {f"{KATEX_DIR}/{STYLESHEET}": dist / STYLESHEET}
    # woff2 only: every supported browser reads it, so the others are never fetched.
    for font in sorted((dist / "fonts").glob("*.woff2")):
        files[f"{KATEX_DIR}/fonts/{font.name}"] = font
    files[f"{KATEX_DIR}/LICENSE"] = node_katex / "LICENSE"
    return files


def find_formulas(content: str) -> list[Formula]:
    """Every formula arithmatex left in ``content`` (a page's HTML), in order."""
    return [_formula(match) for match in _FORMULA.finditer(content)]


def _formula(match: re.Match[str]) -> Formula:
    display = match["tag"] == "div"
    opener, closer = _OPENERS[display]
    tex = html.unescape(match["text"]).strip()
    if tex.startswith(opener) and tex.endswith(closer):
        tex = tex[len(opener) : -len(closer)]
    return Formula(tex.strip(), display)


def tex_left_as_text(content: str) -> str | None:
    """The first piece of ``content``'s prose (a page's HTML) that holds TeX outside a formula.

    A formula a line break split (``\\ne`` read as a newline, say) is no formula
    to arithmatex: Markdown turns its ``\\(`` into ``(`` and the rest reads as
    TeX. Code, scripts and form fields are not prose.
    """
    prose = _TAG.sub("\n", _NOT_PROSE.sub("", _FORMULA.sub("", content)))
    for piece in prose.split("\n"):
        if _TEX.search(piece):
            return html.unescape(piece).strip()
    return None


def line_of(source: str, text: str) -> int | None:
    """The 1-based line of ``source`` where ``text`` (its first non-blank line) starts."""
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    at = source.find(first) if first else -1
    return source.count("\n", 0, at) + 1 if at >= 0 else None


def tex_line(source: str, piece: str) -> int:
    """The line of ``source`` that ``piece`` of a page's text (TeX left as text) came from."""
    command = _TEX.search(piece)
    tries = [piece, piece[command.start() :] if command else "", command[0] if command else ""]
    return next((line for t in tries if t and (line := line_of(source, t))), 1)


def _visible(message: str) -> str:
    return _CONTROL.sub(lambda m: f"U+{ord(m[0]):04X}", message)


def _key(formula: Formula, version: str, script: bytes) -> str:
    h = hashlib.sha256()
    for part in (version.encode(), script, b"display" if formula.display else b"inline"):
        h.update(part)
        h.update(b"\0")
    h.update(formula.tex.encode("utf-8"))
    return h.hexdigest()[:24]


def _run_katex(formulas: list[Formula], node_katex: Path, script: Path) -> list[dict[str, str]]:
    """KaTeX's answer for each of ``formulas``, in one Node run: ``{"html"}`` or ``{"error"}``."""
    node = shutil.which("node")
    if node is None:
        raise PluginError(
            "Node is needed to typeset the site's math and was not found on PATH "
            "(./dev installs what the build needs)."
        )
    request = json.dumps([{"tex": f.tex, "display": f.display} for f in formulas])
    done = run_tool(
        [node, script, node_katex / "dist" / KATEX_MODULE],
        str(script),
        "typeset the math",
        timeout=TIMEOUT,
        stdin=request.encode("utf-8"),
    )
    answers = json.loads(done.stdout)
    if len(answers) != len(formulas):
        raise PluginError(f"{script}: answered {len(answers)} of {len(formulas)} formulas.")
    return answers


def render(
    formulas: list[Formula],
    *,
    cache_dir: Path | None = None,
    node_katex: Path = NODE_KATEX,
    script: Path = SCRIPT,
) -> tuple[dict[Formula, str], dict[Formula, str]]:
    """KaTeX's markup for each of ``formulas`` and KaTeX's message for each it refused.

    Renders come from the cache or from one Node run for all the others;
    refusals are not cached, so a fixed formula is tried again.
    """
    cache_dir = cache_dir or CACHE_DIR
    version = check_katex(node_katex)
    code = script.read_bytes()
    rendered: dict[Formula, str] = {}
    missing: dict[Formula, str] = {}
    for formula in dict.fromkeys(formulas):
        key = _key(formula, version, code)
        cached = cache_dir / f"{key}.html"
        if cached.is_file():
            rendered[formula] = cached.read_text(encoding="utf-8")
        else:
            missing[formula] = key
    refused: dict[Formula, str] = {}
    if missing:
        for (formula, key), answer in zip(
            missing.items(), _run_katex(list(missing), node_katex, script), strict=True
        ):
            if "html" in answer:
                rendered[formula] = answer["html"]
                write_atomically(cache_dir / f"{key}.html", answer["html"])
            else:
                refused[formula] = _visible(answer["error"])
        _prune(cache_dir)
    return rendered, refused


def _prune(cache_dir: Path) -> None:
    made = sorted(cache_dir.glob("*.html"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in made[_KEEP:]:
        old.unlink(missing_ok=True)


def typeset(content: str, rendered: dict[Formula, str]) -> str:
    """``content`` with each formula's TeX replaced by KaTeX's markup (in the same element)."""

    def swap(match: re.Match[str]) -> str:
        formula, tag = _formula(match), match["tag"]
        if formula not in rendered:  # not in the page's content: added after on_env ran
            raise PluginError(f"A formula outside the pages' content was not typeset: {formula}")
        return f'<{tag} class="arithmatex">{rendered[formula]}</{tag}>'

    return _FORMULA.sub(swap, content)


def refusal_report(pages: list[_PageMath], refused: dict[Formula, str]) -> str:
    """One ``docs/page.md:LINE: KaTeX's message`` line per refused formula, where it is."""
    problems = []
    for page in pages:
        for formula in dict.fromkeys(page.formulas):
            if formula in refused:
                line = line_of(page.source, formula.tex)
                where = f"{page.path}:{line}" if line else f"{page.path}: \\({formula.tex}\\)"
                problems.append(f"{where}: {refused[formula]}")
    return "\n".join(problems)


# ------------------------------------------------------------------ MkDocs hooks


def on_files(files: Files, config: MkDocsConfig) -> Files:
    check_katex()
    _pages.clear()
    _rendered.clear()
    for dest, source in katex_files().items():
        files.append(File.generated(config, dest, abs_src_path=str(source)))
    return files


def on_page_content(html_content: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    # Only noted here: the content goes into the search index as it is, TeX and all.
    path = display_path(page.file, config)
    source = page.file.content_string
    left = tex_left_as_text(html_content)
    if left is not None:
        raise PluginError(
            f"{path}:{tex_line(source, left)}: TeX outside any formula, which shows as TeX: "
            f"'{_visible(left)}'. Put it between \\( and \\) (or \\[ and \\]), or in `code`; "
            "a formula a line break split (as \\ne does when its \\n is read as one) is no formula."
        )
    formulas = find_formulas(html_content)
    split = next((f for f in formulas if not f.display and "\n" in f.tex), None)
    if split is not None:
        raise PluginError(
            f"{path}:{line_of(source, split.tex) or 1}: an inline formula spans lines: "
            f"'{_visible(split.tex)}'. Keep it on one line; a line break inside one is how an "
            "escape such as the \\n of \\ne, read as a newline, shows (KaTeX reads it as a space)."
        )
    if formulas:
        _pages[page.file.src_uri] = _PageMath(path, source, formulas)
    return html_content


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    # Every page's content is converted by now and none is written yet: one run for all.
    rendered, refused = render([f for page in _pages.values() for f in page.formulas])
    if refused:
        raise PluginError(
            "KaTeX cannot typeset these formulas:\n"
            + refusal_report(list(_pages.values()), refused)
        )
    _rendered.update(rendered)
    return env


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    if page.file.src_uri not in _pages:
        return output
    href = get_relative_url(f"{KATEX_DIR}/{STYLESHEET}", page.url)
    if "</head>" not in output:
        raise PluginError(f"{page.file.src_uri}: no </head> to link KaTeX's stylesheet from.")
    output = output.replace("</head>", f'<link rel="stylesheet" href="{href}">\n</head>', 1)
    return typeset(output, _rendered)
