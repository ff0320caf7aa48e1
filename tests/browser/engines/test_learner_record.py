"""The learner record in every engine: a student's answer is downloaded as their file from
"Your work", and the teacher's class view reads it (and refuses a bad file beside it),
on the served site and in the downloadable copy read from disk.

The file is taken where the page hands it to the browser (the Blob behind the
download link), so no engine's download dialog is involved; the class view is
given it as the file picker gives files (``input.files``, then ``change``).
The Chromium suite (tests/browser/test_record.py) downloads and picks for real.
"""

from __future__ import annotations

import json
from pathlib import Path

from lab.core.record import REASONS, SITE
from tests.browser.engines.base import Engine
from tests.browser.engines.conftest import also_home
from tests.browser.test_quiz import QUESTIONS
from tools.static_server import StaticServer

QUIZ = '[data-lab="quiz"]'
FIRST = QUESTIONS[0]
RIGHT = next(o["text"] for o in FIRST["options"] if o["correct"])

# Keep the file the page hands to the browser, instead of downloading it.
CATCH_DOWNLOAD = """() => {
  const make = URL.createObjectURL;
  URL.createObjectURL = (blob) => { window.testBlob = blob; return make(blob); };
  HTMLAnchorElement.prototype.click = function () {
    if (this.download) window.testSaved = this.download;
  };
}"""
SAVED = """async () => window.testSaved && window.testBlob
  ? [window.testSaved, await window.testBlob.text()] : null"""
# The class view, once set up, given files as its picker gives them.
PICK = """(files) => {
  const input = document.querySelector("[data-record-class-input]");
  if (!input || input.closest("[hidden]")) return false;
  const picked = new DataTransfer();
  for (const [name, text] of files) picked.items.add(new File([text], name));
  input.files = picked.files;
  input.dispatchEvent(new Event("change", { bubbles: true }));
  return true;
}"""
STATUS = "[data-record-class-status]"


def download(engine: Engine, name: str) -> tuple[str, str]:
    """Type ``name`` in "Your work" and press Download my work: the file's name and text."""
    engine.wait_for(
        "() => !!document.querySelector('[data-record]:not([data-record-pending])')",
        timeout=30,
        what="the page's Your work",
    )
    engine.call(CATCH_DOWNLOAD)
    engine.focus("[data-record-name]")
    engine.type(name)
    engine.text_contains("[data-record-summary]", f"{name}-{SITE}.json")
    engine.click("[data-record] button", "Download my work")
    file, text = engine.wait_for(SAVED, timeout=30, what="the downloaded file")
    return file, text


def import_class(engine: Engine, files: list[tuple[str, str]]) -> None:
    engine.wait_for(PICK, files, timeout=30, what="the class view to take files")


def test_a_students_work_is_downloaded_and_read_by_the_class_view(
    engine: Engine, origin: StaticServer
) -> None:
    engine.goto(origin.url + "lesson/")
    engine.wait_for(
        "(s) => !!document.querySelector(s + '[data-lab-enhanced]')",
        QUIZ,
        timeout=60,
        what="the quiz set up",
    )
    engine.click(f"{QUIZ} input", RIGHT)
    engine.goto(origin.url + "my-work/")
    file, text = download(engine, "Ada")
    assert file == f"Ada-{SITE}.json", engine.name
    record = json.loads(text)
    quiz = next(b for p in record["pages"] for b in p["blocks"] if b["kind"] == "quiz")
    assert quiz["answered"] and quiz["attempts"] == 0, engine.name

    engine.goto(origin.url + "teachers/")
    import_class(engine, [(file, text), ("notes.json", "not a record")])
    engine.text_is(STATUS, "1 file loaded, 1 refused (the list says why); 1 student in the table.")
    engine.text_contains("[data-record-class-files]", f"{file}: loaded, Ada.")
    engine.text_contains(
        "[data-record-class-files]", f"notes.json: refused, {REASONS['not_json']}."
    )
    engine.text_is("[data-record-class-table] tbody th", "Ada")


def test_the_copy_read_from_disk_downloads_and_reads_records(
    request, engine: Engine, offline_copy: Path
) -> None:
    """From file://: no module runs there, and the record's scripts are classic ones."""
    home = offline_copy.resolve().as_uri() + "/"
    also_home(request, home)
    engine.goto(home + "my-work.html")
    file, text = download(engine, "Ben")
    assert file == f"Ben-{SITE}.json", engine.name
    engine.goto(home + "teachers.html")
    import_class(engine, [(file, text)])
    engine.text_is(STATUS, "1 file loaded; 1 student in the table.")
    engine.text_is("[data-record-class-table] tbody th", "Ben")
