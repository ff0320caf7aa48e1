"""Hand the page the learner record's format and the site's blocks, as a script the build writes.

The format lives once, in :mod:`lab.core.record`, and each kind's part of it
beside the kind in ``lab/kinds.py``. This hook writes
:func:`lab.core.record.for_the_page` into the site as ``assets/record/format.js``
with the site's version (``pyproject.toml``) and, for each page of the nav,
the blocks a record covers, described from what their fences read: the
record's reader (``docs/assets/record/record.js``) makes a student's record
from them, and the teacher's class view checks and reads a class's records
by them (the quiz's options and feedback, an exercise's tests, an
experiment's keyed answer).

It is a classic script setting one global, not an ES module, because the
downloadable copy read from disk (``file://``) runs no module, and both
"Download my work" and the class view work there. Like ``rules.js`` it is made
on every build and is never in ``docs/`` or in git.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from lab.core.markup import Markup, el, void
from lab.core.record import for_the_page
from lab.exercise.grade import signature
from lab.kinds import KINDS
from lab.sim.user_code import code_version
from lesson_hooks.fences import sitewide
from lesson_hooks.support.pages import display_path, nav_titles
from lesson_hooks.support.paths import PYPROJECT, RECORD_DIR

FORMAT_SCRIPT = f"{RECORD_DIR}/format.js"
#: The global the script sets, which record.js reads.
GLOBAL = "LEARNER_RECORD_FORMAT"
HEADER = (
    "// Made by the build (lesson_hooks/build/record.py) from lab/core/record.py, "
    "lab/kinds.py and the pages' blocks (edit those)."
)
RECORDED = {kind.name: kind for kind in KINDS if kind.record}


def site_version(pyproject: Path = PYPROJECT) -> str:
    return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])


def describe(kind: str, block: Any) -> dict[str, Any]:
    """What a record and the class view need of one block: its title, the versions its
    saved values must carry, and what the teacher reads a class's answers against."""
    if kind == "quiz":
        return {
            "title": block.prompt,
            "anchor": f"lab-{block.id}",
            "versions": {"spec": block.spec["version"]},
            "items": [
                {
                    "n": q.n,
                    "text": q.text,
                    "options": [
                        {"text": o.text, "correct": o.correct, "feedback": o.feedback}
                        for o in q.options
                    ],
                }
                for q in block.questions
            ],
        }
    if kind == "visual-lab":
        return {
            "title": block.prompt,
            "anchor": f"lab-{block.id}",
            "versions": {"spec": block.spec["version"]},
            "items": [{"n": p.n, "text": p.text, "answer": p.answer} for p in block.parts],
        }
    if kind == "exercise":
        return {
            "title": signature(block.function, block.parameters),
            "anchor": f"lab-{block.id}",
            "versions": {"spec": block.spec["version"], "code": code_version(block.starter)},
            "tests": [
                {"n": t.n, "hidden": t.hidden, "call": None if t.hidden else t.call}
                for t in block.tests
            ],
        }
    if kind == "experiment":
        return {
            "title": block.question,
            "anchor": block.id,
            "versions": {},
            "options": [o.text for o in block.options],
            "answer": next(i for i, o in enumerate(block.options) if o.right),
        }
    raise PluginError(
        f"lab/kinds.py: the kind {kind!r} adds to the learner record, and "
        "lesson_hooks/build/record.py's describe() does not say what of its blocks."
    )


def site_pages(files: Files, config: MkDocsConfig) -> list[dict[str, Any]]:
    """Each nav page with blocks a record covers: its URL, title and those blocks."""
    pages = []
    for src_uri, title in nav_titles(config.nav).items():
        file = files.get_file_from_path(src_uri)
        if file is None or not file.is_documentation_page():
            continue
        read = sitewide.read_page(file.content_string, display_path(file, config), file.url)
        blocks = []
        for fence, block in read:
            kind = fence.name.removeprefix("lab-")
            if kind not in RECORDED:
                continue
            items = RECORDED[kind].record.items
            blocks.append(
                {
                    "id": block.id,
                    "kind": kind,
                    **describe(kind, block),
                    "count": len(getattr(block, items)) if items else 0,
                }
            )
        if blocks:
            pages.append({"page": file.url, "title": title, "blocks": blocks, "src": src_uri})
    return pages


def script_text(data: dict[str, Any]) -> str:
    # JSON is a JavaScript expression; ensure_ascii keeps the file plain ASCII, and
    # "</" cannot end a script element because the file is never inlined.
    return f"{HEADER}\nself.{GLOBAL} = {json.dumps(data, ensure_ascii=True)};\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if files.get_file_from_path(FORMAT_SCRIPT) is not None:
        raise PluginError(
            f"{Path(config.docs_dir) / FORMAT_SCRIPT} would hide the generated script: "
            "remove it and edit lab/core/record.py instead."
        )
    pages = site_pages(files, config)
    _recorded.clear()
    _recorded.update(page.pop("src") for page in pages)
    data = for_the_page(site_version(), pages)
    files.append(File.generated(config, FORMAT_SCRIPT, content=script_text(data)))
    return files


# ------------------------------------------------------------------ "Download my work"

#: The page that holds only the student's work (besides every page with recorded blocks).
MY_WORK_PAGE = "my-work.md"
# The pages with blocks a record covers, by src_uri (on_files reads them).
_recorded: set[str] = set()


def panel() -> Markup:
    """ "Download my work": the name, the summary of what the file holds, Download and
    Print. Unseen until ``my-work.js`` sets it up (it needs a script to read the work), but
    in its place from the start, so that nothing below it moves when it appears."""
    return el(
        "section",
        {
            "class": "lesson-record",
            "data-record": True,
            "aria-labelledby": "lesson-record-title",
            "data-record-pending": True,
        },
        # A region named by its title, not a heading: the lesson's headings are its text's.
        el("p", {"class": "lesson-record__title", "id": "lesson-record-title"}, "Your work"),
        el(
            "p",
            None,
            "What you answer, predict and write in the labs stays in this browser. To hand "
            "it to your teacher, type your name and download it as one file: nothing is "
            "sent anywhere, and the file holds your work on every page of the site.",
        ),
        el(
            "p",
            {"class": "lesson-record__name"},
            el("label", {"for": "lesson-record-name"}, "Your name"),
            " ",
            void(
                "input",
                {
                    "type": "text",
                    "id": "lesson-record-name",
                    "data-record-name": True,
                    "autocomplete": "name",
                    "spellcheck": "false",
                },
            ),
        ),
        el("p", {"class": "lesson-record__holds"}, "What the file holds:"),
        el("div", {"class": "lesson-record__summary", "data-record-summary": True}),
        el(
            "p",
            {"class": "lesson-record__actions"},
            el(
                "button",
                {
                    "type": "button",
                    "class": "md-button md-button--primary",
                    "data-record-action": "download",
                },
                "Download my work",
            ),
            " ",
            el(
                "button",
                {"type": "button", "class": "md-button", "data-record-action": "print"},
                "Print my work",
            ),
        ),
        el("p", {"class": "lesson-record__status", "data-record-status": True, "role": "status"}),
        el("div", {"class": "lesson-record__print", "data-record-print": True}),
    )


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri in _recorded or page.file.src_uri == MY_WORK_PAGE:
        return f"{html}\n{panel()}\n"
    return html
