"""The learner record: two students work, download their files, and the teacher reads the
class; bad files are refused each with its reason while the rest load; the print; the
keyboard; axe; and no table on the site breaks a word."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from pypdf import PdfReader

from lab.core.record import MAX_FILE_BYTES, REASONS, SITE
from lesson_hooks.fences.exercise import parse_page as parse_exercises
from tests.browser.conftest import PageErrors
from tests.browser.support import axe_violations, report, site_pages
from tests.browser.test_exercise import button, open_exercise, write
from tests.browser.test_quiz import QUESTIONS, open_quiz, option, right
from tests.conftest import ROOT, BuiltSite

ADVANTAGE = {
    block.id: block
    for block in parse_exercises((ROOT / "docs" / "simulation.md").read_text("utf-8"), "")
}["group-advantage"]
FILES = "Students' files: drop them here, or choose"
#: The first experiment on the simulation page, its keyed answer and another option.
EXPERIMENT = "#climbing-defaults"
KEYED, OTHER = "In none of them.", "In most of them."
# "Print my work" asks no dialog in a test: the page is left as set to print.
NO_DIALOG = "window.print = () => { document.documentElement.dataset.printAsked = ''; };"


@pytest.fixture
def student(browser: Browser, browser_context_args: dict) -> Iterator[Any]:
    """A new student: a browser context of their own (their own storage), failing on errors."""
    contexts: list[tuple[BrowserContext, PageErrors]] = []

    def make() -> Page:
        context = browser.new_context(**browser_context_args, accept_downloads=True)
        page = context.new_page()
        errors = PageErrors()
        page.on("console", errors.on_console)
        page.on("pageerror", errors.on_page_error)
        contexts.append((context, errors))
        return page

    yield make
    for context, errors in contexts:
        context.close()
        assert not errors.unexpected(), "\n".join(errors.unexpected())


def answer_quiz(page: Page, choices: dict[int, list[int]]) -> None:
    """Choose the options ``choices[n]`` of question ``n`` and Check."""
    quiz = open_quiz(page)
    for n, indices in choices.items():
        for index in indices:
            option(quiz, QUESTIONS[n - 1], index).check()
    quiz.get_by_role("button", name="Check", exact=True).click()
    expect(quiz.locator("[data-lab-summary]")).not_to_have_text("Checking…")
    expect(quiz.locator("[data-lab-summary]")).not_to_be_empty()


def predict(page: Page, text: str) -> None:
    card = page.locator(EXPERIMENT)
    card.get_by_role("radio", name=text, exact=True).check()


def download(page: Page, name: str, folder: Path) -> tuple[Path, str]:
    """Type ``name`` in the page's "Your work", read its summary, download; the file and
    the summary the student saw."""
    panel = page.locator("[data-record]")
    panel.get_by_label("Your name").fill(name)
    summary = panel.locator("[data-record-summary]")
    expect(summary).to_contain_text(f"{name}-{SITE}.json")
    with page.expect_download() as done:
        panel.get_by_role("button", name="Download my work").click()
    file = done.value
    assert file.suggested_filename == f"{name}-{SITE}.json"
    path = folder / file.suggested_filename
    file.save_as(path)
    expect(panel.locator("[data-record-status]")).to_contain_text(f"Downloaded {name}-")
    return path, summary.inner_text()


def load_class(page: Page, files: list[Any]) -> Locator:
    page.goto("teachers/")
    view = page.locator("[data-record-class]")
    expect(view).to_be_visible()
    view.get_by_label(FILES).set_input_files(files)
    return view


def rows(view: Locator) -> dict[str, list[str]]:
    """The class table: each row's cells by its student's name."""
    table = view.locator("[data-record-class-table]")
    out = {}
    for row in table.locator("tbody tr").all():
        cells = [c.strip() for c in row.locator("th, td").all_inner_texts()]
        out[cells[0]] = cells[1:]
    return out


def column(view: Locator, label: str) -> int:
    """The index (after the student's) of the column headed ``label``."""
    heads = [h.strip() for h in view.locator("thead th").all_inner_texts()]
    return heads.index(label) - 1


def test_two_students_hand_in_their_work_and_the_teacher_reads_the_class(
    student: Any, page: Page, tmp_path: Path
) -> None:
    q1 = QUESTIONS[0]
    wrong1 = next(i for i, o in enumerate(q1["options"]) if not o["correct"])
    # Ada: both first questions right; the keyed prediction; the exercise passed with a hint.
    ada = student()
    answer_quiz(ada, {1: right(q1), 2: right(QUESTIONS[1])})
    lab = open_exercise(ada)
    predict(ada, KEYED)
    button(lab, "Show a hint (1 of 2)").click()
    write(lab, ADVANTAGE.solution)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "passed")
    ada.goto("my-work/")
    ada_file, ada_summary = download(ada, "Ada", tmp_path)
    assert "Score: 3 of " in ada_summary
    assert "passed, 1 Check, 1 hint" in ada_summary
    assert f'predicted "{KEYED}"' in ada_summary

    # Ben: the first question wrong; another prediction; the starter checked, not passed.
    ben = student()
    answer_quiz(ben, {1: [wrong1], 2: right(QUESTIONS[1])})
    lab = open_exercise(ben)
    predict(ben, OTHER)
    button(lab, "Check").click()
    expect(lab).to_have_attribute("data-lab-run", "failed")
    ben_file, ben_summary = download(ben, "Ben", tmp_path)  # the page's own "Your work"
    assert "Score: 1 of " in ben_summary
    assert "not passed yet, 1 Check" in ben_summary

    # The teacher loads both files.
    view = load_class(page, [ada_file, ben_file])
    expect(view.locator("[data-record-class-status]")).to_have_text(
        "2 files loaded; 2 students in the table."
    )
    table = rows(view)
    assert sorted(table) == ["Ada", "Ben"]
    quiz = column(view, "Quiz 1")
    exercise = column(view, "Coding exercise 2")
    experiment = column(view, "Guided experiment 1")
    most = len(QUESTIONS)
    assert table["Ada"][quiz] == f"2 of {most} right, 1 Check"
    assert table["Ben"][quiz] == f"1 of {most} right, 1 Check"
    assert table["Ada"][exercise] == "passed, 1 Check, 1 hint"
    assert table["Ben"][exercise] == "not passed, 1 Check"
    assert table["Ada"][experiment] == "predicted right"
    assert table["Ben"][experiment] == "predicted wrong"
    assert table["Ada"][0].startswith("3 of ") and table["Ben"][0].startswith("1 of ")

    details = view.locator("[data-record-class-details]")
    option1 = q1["options"][wrong1]
    expect(details).to_contain_text(
        f"{q1['text']} Right at their last Check: 1 of 2 who answered (50%). Most common "
        f"wrong choice (1 student): {option1['text']}; its feedback: {option1['feedback']}"
    )
    expect(details).to_contain_text("Passed: Ada. Not passed: Ben. Most frequent failing test:")
    expect(details).to_contain_text(f"{KEYED} (the keyed answer): 1 student")
    expect(details).to_contain_text(f"{OTHER}: 1 student")

    # Sorting by the score (highest first, then lowest) puts Ada first, then last.
    view.get_by_role("button", name="Score", exact=True).click()
    expect(view.locator("thead th").nth(1)).to_have_attribute("aria-sort", "descending")
    expect(view.locator("tbody th")).to_have_text(["Ada", "Ben"])
    view.get_by_role("button", name="Score", exact=True).click()
    expect(view.locator("tbody th")).to_have_text(["Ben", "Ada"])

    # The CSV holds the table: per activity done, right, attempts, hints, solution seen.
    with page.expect_download() as done:
        view.get_by_role("button", name="Download the table as CSV").click()
    text = Path(done.value.path()).read_text(encoding="utf-8")
    lines = list(csv.DictReader(io.StringIO(text)))
    by_name = {line["Student"]: line for line in lines}
    assert by_name["Ada"]["Coding exercise 2 done"] == "yes"
    assert by_name["Ada"]["Coding exercise 2 right"] == "yes"
    assert by_name["Ada"]["Coding exercise 2 hints"] == "1"
    assert by_name["Ben"]["Coding exercise 2 right"] == "no"
    assert by_name["Ben"]["Quiz 1 right"] == f"1/{most}"
    assert by_name["Ada"]["Score"] == "3"
    assert by_name["Ben"]["Coding exercise 1 done"] == "no"

    # A student's row opens their code and answers, as text.
    view.get_by_role("button", name="Ada: open their work").click()
    work = view.locator("[data-record-class-student]")
    expect(work.get_by_role("heading", name=f"Ada's work (from {ada_file.name})")).to_be_focused()
    expect(work.locator("pre code")).to_have_text(ADVANTAGE.solution)
    expect(work).to_contain_text(f"{q1['text']}: {q1['options'][right(q1)[0]]['text']} (right)")
    work.get_by_role("button", name="Close").click()
    expect(view.get_by_role("button", name="Ada: open their work")).to_be_focused()


def base_record(page: Page) -> dict[str, Any]:
    """A valid record of nothing done, made by the site's own reader."""
    return page.evaluate("() => LearnerRecord.read('Nobody', { length: 0 })")


def test_bad_files_are_refused_each_with_its_reason_and_the_rest_load(
    page: Page, tmp_path: Path
) -> None:
    page.goto("teachers/")
    record = base_record(page)

    def payload(name: str, value: Any) -> Path:
        path = tmp_path / name
        path.write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())
        return path

    huge = tmp_path / "huge.json"
    with huge.open("wb") as out:
        out.truncate(50 * 1_000_000)
    full = json.dumps({**record, "student": "Dan"})
    files = [
        payload("cleo.json", {**record, "student": "Cleo"}),
        huge,
        payload("photo.json", b"\x89PNG\r\n\x1a\n not json"),
        payload("other.json", {**record, "site": "another-lesson", "student": "Eve"}),
        payload("newer.json", {**record, "version": 99, "student": "Fay"}),
        payload("older.json", {**record, "version": 0, "student": "Gil"}),
        payload("cut.json", full[: len(full) // 2].encode()),
        payload("cleo-again.json", {**record, "student": "cleo"}),
        payload("damaged.json", {**record, "pages": "nothing", "student": "Hal"}),
        payload("hello.json", {"hello": "world"}),
    ]
    view = page.locator("[data-record-class]")
    # Two picks: the second adds to the first (the duplicate is of a file already loaded).
    view.get_by_label(FILES).set_input_files(files[:2])
    expect(view.locator("[data-record-class-files] li")).to_have_count(2)
    view.get_by_label(FILES).set_input_files(files[2:])
    items = view.locator("[data-record-class-files] li")
    expect(items).to_have_count(len(files))
    said = dict(line.split(": ", 1) for line in items.all_inner_texts())
    assert said["cleo.json"] == "loaded, Cleo."
    assert (
        said["huge.json"]
        == "refused, "
        + REASONS["too_large"].format(mb="50.0", limit=f"{MAX_FILE_BYTES / 1e6:g}")
        + "."
    )
    assert said["photo.json"] == f"refused, {REASONS['not_json']}."
    assert (
        said["other.json"]
        == "refused, " + REASONS["other_site"].format(site="another-lesson") + "."
    )
    assert said["newer.json"].startswith("refused, made by a newer version")
    assert said["older.json"].startswith("refused, made by an older version")
    assert said["cut.json"] == f"refused, {REASONS['truncated']}."
    assert (
        said["cleo-again.json"]
        == "refused, " + REASONS["duplicate"].format(other="cleo.json") + "."
    )
    assert said["damaged.json"] == "refused, damaged: the record's 'pages' is not array."
    assert said["hello.json"] == f"refused, {REASONS['not_record']}."
    assert sorted(rows(view)) == ["Cleo"]


def test_a_files_fields_show_as_text_never_as_markup(page: Page) -> None:
    page.goto("teachers/")
    record = base_record(page)
    markup = '<img src="x" onerror="window.ran = 1"><script>window.ran = 2</script>'
    block = record["pages"][0]["blocks"][0]
    block.update(answered=True, code=markup, title=markup)
    block["answers"] = {"1": markup}
    long_name = "L" * 1_000_000
    files = [
        {
            "name": f"{markup}.json",
            "mimeType": "application/json",
            "buffer": json.dumps({**record, "student": markup}).encode(),
        },
        {
            "name": "long.json",
            "mimeType": "application/json",
            "buffer": json.dumps({**record, "student": long_name}).encode(),
        },
    ]
    view = load_class(page, files)
    expect(view.locator("[data-record-class-status]")).to_contain_text("2 files loaded")
    names = view.locator("tbody th")
    expect(names.filter(has_text=markup)).to_have_count(1)
    expect(names.filter(has_text="(1,000,000 characters)")).to_have_count(1)
    view.get_by_role("button", name=f"{markup}: open their work").click()
    work = view.locator("[data-record-class-student]")
    expect(work.locator("pre code")).to_have_text(markup)
    expect(work).to_contain_text(f": {markup}")
    assert page.locator("[data-record-class] img, [data-record-class] script").count() == 0
    assert page.evaluate("() => window.ran === undefined")


def test_the_class_view_by_keyboard_and_axe_with_a_class_loaded(page: Page, tmp_path: Path) -> None:
    page.goto("teachers/")
    record = base_record(page)
    names = ["Zoe", "Abe", "Mia"]
    for i, name in enumerate(names):
        done = json.loads(json.dumps(record))
        done["student"] = name
        done["score"]["points"] = i
        (tmp_path / f"{name}.json").write_text(json.dumps(done), encoding="utf-8")
    view = page.locator("[data-record-class]")
    expect(view).to_have_attribute("data-record-class-state", "empty")  # set up
    # Playwright turns Chromium's file-chooser interception on when a listener is first
    # added, asynchronously: added inside `expect_file_chooser`, a key pressed at once can
    # beat it, and the chooser then opens unseen (about half the runs failed so).
    page.on("filechooser", lambda _: None)
    picker = page.get_by_label(FILES)
    picker.focus()
    expect(picker).to_be_focused()
    with page.expect_file_chooser() as chooser:
        page.keyboard.press("Space")
    chooser.value.set_files([tmp_path / f"{name}.json" for name in names])
    expect(view.locator("[data-record-class-status]")).to_contain_text("3 students")
    # Tab from the picker reaches the CSV button, Clear, then the sort buttons.
    sort = view.get_by_role("button", name="Student", exact=True)
    for _ in range(6):
        if page.evaluate("() => document.activeElement?.dataset.recordSort === 'student'"):
            break
        page.keyboard.press("Tab")
    expect(sort).to_be_focused()
    page.keyboard.press("Enter")  # student names, descending now
    expect(view.locator("thead th").first).to_have_attribute("aria-sort", "descending")
    expect(view.locator("tbody th")).to_have_text(["Zoe", "Mia", "Abe"])
    expect(sort).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the score, descending first
    expect(view.locator("tbody th")).to_have_text(["Mia", "Abe", "Zoe"])
    expect(view.locator("[data-record-class-status]")).to_have_text("Sorted by score, descending.")
    problems = axe_violations(page, "the teacher's page with a class loaded")
    assert not problems, report(problems)


def test_print_my_work_prints_the_summary_with_the_answers(
    page: Page,
) -> None:
    page.add_init_script(NO_DIALOG)
    q1 = QUESTIONS[0]
    answer_quiz(page, {1: right(q1)})
    page.goto("my-work/")
    panel = page.locator("[data-record]")
    panel.get_by_label("Your name").fill("Ada")
    panel.get_by_role("button", name="Print my work").click()
    expect(page.locator("html")).to_have_attribute("data-print-asked", "")
    page.emulate_media(media="print")
    text = " ".join(
        " ".join(sheet.extract_text().split()) for sheet in PdfReader(io.BytesIO(page.pdf())).pages
    )
    assert "Ada's work on LLMs as Cooperative Agents" in text
    assert " ".join(f"{q1['text']}: {q1['options'][right(q1)[0]]['text']} (right)".split()) in text
    assert "Download my work" not in text
    # The name is kept for next time.
    page.reload()
    expect(page.locator("[data-record]").get_by_label("Your name")).to_have_value("Ada")


# A word of a table cell drawn on two lines: each word (a run without white space) is
# a range whose boxes must share one line (a hyphen may end a line: "Language-" / "Model").
# Names in code count ("leave_one_out"), and so do the labs' tables the build draws (the
# language-model lab's group of sampled programs); only a code block in a cell wraps.
BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll(".md-content table :is(th, td)")) {
    if (!cell.getClientRects().length) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest("pre")) continue; // a code block wraps by its own rule
      for (const match of node.data.matchAll(/[^\\s-]+-?/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(`${match[0]} (${cell.textContent.trim().slice(0, 40)})`);
      }
    }
  }
  return broken;
}"""


@pytest.mark.parametrize("width", [390, 768, 1280])
def test_no_word_of_any_table_breaks_mid_word(page: Page, site: BuiltSite, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    broken = {}
    for path in site_pages(site):
        page.goto(path)
        if path == "teachers/":
            # The class table too, with a student loaded.
            record = base_record(page)
            view = page.locator("[data-record-class]")
            view.get_by_label(FILES).set_input_files(
                [
                    {
                        "name": "a.json",
                        "mimeType": "application/json",
                        "buffer": json.dumps({**record, "student": "Cooperative Agents"}).encode(),
                    }
                ]
            )
            expect(view.locator("tbody tr")).to_have_count(1)
        found = page.evaluate(BROKEN_WORDS)
        if found:
            broken[path] = found
    assert not broken, f"words broken mid-word at {width} px: {broken}"
