"""The SCORM 1.2 package in an LMS: scorm-again's runtime (the LMS side) hosts it in a frame.

A stand-in LMS (``tests/browser/lms/host.html``) puts scorm-again's ``Scorm12API``
at ``window.API`` and launches ``scorm.html`` in a frame, served from one
origin with the package (``./dev scorm``'s build). A student answers the quiz;
the test reads what the runtime received, closes the course as an LMS does,
resumes in a browser with nothing stored from the LMS's ``suspend_data``, and
checks the calls' order and scorm-again's log, which reports a call out of
sequence. The bad cases: a truncated ``suspend_data``, a refused value, the
API gone mid-session. In Chromium and Firefox; every request stays on the
LMS's origin (the ``engine`` fixture fails a test on any other, and on any
page error).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from lxml import etree

from lesson_hooks.fences.quiz import parse_page
from tests.browser.engines.base import Engine
from tests.browser.engines.conftest import also_home
from tests.browser.support import BOOT_SECONDS, build_site
from tests.build.test_html_valid import VNU, java
from tests.conftest import ROOT
from tests.support.schemas import manifest_errors
from tools.static_server import StaticServer

# Chromium and Firefox, the engines issue 45 asks the package to be tested in.
ENGINES = pytest.mark.parametrize(
    "engine_name",
    [
        pytest.param("chromium", marks=pytest.mark.chromium),
        pytest.param("firefox", marks=pytest.mark.firefox),
    ],
)

(QUIZ,) = parse_page((ROOT / "docs" / "lesson.md").read_text(encoding="utf-8"), "lesson")
QUESTIONS = QUIZ.spec["questions"]
QUIZ_KEY = f"lab-quiz:lesson.html:{QUIZ.id}"  # as suspend_data names it, without the folder
HOST = ROOT / "tests" / "browser" / "lms"
SCORM_AGAIN = ROOT / "node_modules" / "scorm-again" / "dist" / "scorm12.min.js"

# The documents, from the LMS's page: the launch page in its frame, the site in the launch page's.
LAUNCH = "document.querySelector('iframe')?.contentDocument"
SITE = f"{LAUNCH}?.querySelector('[data-lms-frame]')?.contentDocument"
STATE = f"() => {LAUNCH}?.documentElement.dataset.lmsState ?? null"
SHOWN = f"() => {SITE}?.location.pathname.split('/').pop() ?? null"
# What the runtime accepted: each element's last value whose LMSSetValue answered "true".
CMI = """() => {
  const held = {};
  for (const [name, element, value, answer] of self.lms.calls) {
    if (name === "LMSSetValue" && answer === "true") held[element] = value;
  }
  return held;
}"""
# The learner record's score, read in the launch page by the record's own reader.
RECORD_SCORE = (
    f"() => {{ const w = {LAUNCH}.defaultView;"
    " return w.LearnerRecord.score(w.LearnerRecord.read('')); }"
)
CHOOSE = f"""(n, indices) => {{
  const doc = {SITE};
  const group = doc.querySelector(`[data-lab-question="${{n}}"]`);
  for (const input of group.querySelectorAll("input:checked")) input.click();
  for (const i of indices) group.querySelector(`input[value="${{i}}"]`).click();
  return true;
}}"""
CHOSEN = f"""(n) => [...{SITE}.querySelectorAll(`[data-lab-question="${{n}}"] input:checked`)]
  .map((input) => Number(input.value))"""
STORED = f"(key) => {LAUNCH}.defaultView.localStorage.getItem(key)"


def right(question: dict[str, Any]) -> list[int]:
    return [i for i, option in enumerate(question["options"]) if option["correct"]]


def wrong(question: dict[str, Any]) -> list[int]:
    return [next(i for i, option in enumerate(question["options"]) if not option["correct"])]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The stand-in LMS's folder: its page, scorm-again, and in pkg/ the package as
    `./dev scorm` builds it."""
    root = tmp_path_factory.mktemp("lms")
    build_site(root / "pkg", OFFLINE="true", SCORM="true")
    for name in ("host.html", "host.js"):
        shutil.copy(HOST / name, root / name)
    shutil.copy(SCORM_AGAIN, root / "scorm12.js")
    return root


@pytest.fixture
def origin(engine_name: str, package: Path) -> Iterator[StaticServer]:
    """The LMS on a port of its own (this module's, in place of the site's): a new origin."""
    server = StaticServer(package)
    server.start()
    yield server
    server.close()


@pytest.fixture
def another_origin(request: pytest.FixtureRequest, package: Path) -> Iterator[StaticServer]:
    """The same LMS at a second origin: a browser where the student's work is not stored."""
    server = StaticServer(package)
    server.start()
    also_home(request, server.url)
    yield server
    server.close()


def launch(engine: Engine, server: StaticServer, cmi: dict[str, Any] | None = None) -> None:
    query = f"?cmi={quote(json.dumps(cmi))}" if cmi else ""
    engine.goto(f"{server.url}host.html{query}")
    engine.wait_for(f"() => ({STATE})() === 'open'", timeout=60, what="the session to open")


def open_page(engine: Engine, page: str) -> None:
    """The student follows the site's own link to ``page`` (each link loads a new page)."""
    engine.call(f"(p) => {{ {SITE}.querySelector(`a[href$='${{p}}']`).click(); }}", page)
    engine.wait_for(
        f"(p) => ({SHOWN})() === p && {SITE}.readyState === 'complete'",
        page,
        timeout=60,
        what=f"{page} in the course frame",
    )
    # The quiz is set up as it nears the screen, as a reader scrolls to it.
    engine.wait_for(
        f"() => {{ const quiz = {SITE}.querySelector('[data-lab=quiz]'); quiz.scrollIntoView();"
        " return quiz.hasAttribute('data-lab-enhanced'); }",
        timeout=60,
        what="the quiz to be set up",
    )


def cmi(engine: Engine) -> dict[str, Any]:
    return engine.call(CMI)


def wait_cmi(engine: Engine, element: str, value: Any, *, timeout: float = 30) -> dict[str, Any]:
    engine.wait_for(
        f"(v) => ({CMI})()[{json.dumps(element)}] === v",
        value,
        timeout=timeout,
        what=lambda: f"the LMS's {element} to be {value!r} (it holds {cmi(engine)!r})",
    )
    return cmi(engine)


def close(engine: Engine) -> list[list[Any]]:
    """The student leaves the course; every API call of the session, in order."""
    engine.call("() => self.lms.close()")
    engine.wait_for(
        "() => self.lms.calls.some(([name]) => name === 'LMSFinish')", timeout=30, what="LMSFinish"
    )
    return engine.call("() => self.lms.calls")


def logged(engine: Engine) -> list[dict[str, Any]]:
    """scorm-again's warnings and errors: a call out of sequence or a refused value is one."""
    return engine.call("() => self.lms.log")


def in_order(calls: list[list[Any]]) -> None:
    """One session: LMSInitialize first, LMSFinish last, nothing between them refused by order."""
    names = [call[0] for call in calls]
    assert names[0] == "LMSInitialize" and names.count("LMSInitialize") == 1, names
    assert names[-1] == "LMSFinish" and names.count("LMSFinish") == 1, names
    assert "LMSCommit" in names, names


def test_the_package_manifest_is_scorm_12_and_names_every_file(package: Path) -> None:
    pkg = package / "pkg"
    manifest = (pkg / "imsmanifest.xml").read_bytes()
    assert manifest_errors(manifest) == []
    root = etree.fromstring(manifest)
    ns = {"cp": "http://www.imsproject.org/xsd/imscp_rootv1p1p2"}
    assert root.xpath("string(cp:metadata/cp:schemaversion)", namespaces=ns) == "1.2"
    (item,) = root.xpath("//cp:item", namespaces=ns)
    (resource,) = root.xpath("//cp:resource", namespaces=ns)
    assert item.get("identifierref") == resource.get("identifier")
    assert resource.get("href") == "scorm.html"
    listed = set(resource.xpath("cp:file/@href", namespaces=ns))
    on_disk = {p.relative_to(pkg).as_posix() for p in pkg.rglob("*") if p.is_file()}
    assert listed == on_disk - {"imsmanifest.xml"}


def test_the_launch_page_passes_the_html_checker(package: Path) -> None:
    # The package's other pages are the downloadable copy's, which tests/build checks.
    launch_page = package / "pkg" / "scorm.html"
    done = subprocess.run(
        [java(), "-jar", str(VNU), "--errors-only", str(launch_page)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")


@ENGINES
def test_a_student_s_work_reaches_the_lms_and_resumes_elsewhere(
    engine: Engine, origin: StaticServer, another_origin: StaticServer
) -> None:
    launch(engine, origin)
    engine.wait_for(
        f"() => ({SHOWN})() === 'index.html'", timeout=60, what="the course to open at its start"
    )
    # Reported as the course opened.
    wait_cmi(engine, "cmi.core.lesson_status", "incomplete")
    open_page(engine, "lesson.html")
    engine.call(f"() => {SITE}.querySelector('[data-lab=quiz]').scrollIntoView()")
    engine.wait_for(
        f"() => {SITE}.querySelector('[data-lab=quiz]').dataset.labState === 'ready'",
        timeout=BOOT_SECONDS,
        what="the quiz's Python",
    )
    # Every question right but the first.
    for question in QUESTIONS:
        engine.call(
            CHOOSE, question["n"], wrong(question) if question["n"] == 1 else right(question)
        )
    engine.call(f"() => {SITE}.querySelector('[data-lab=quiz] [data-lab-action=check]').click()")
    total = len(QUESTIONS)
    engine.wait_for(
        f"(t) => {SITE}.querySelector('[data-lab=quiz] [data-lab-summary]').textContent === t",
        f"{total - 1} of {total} correct.",
        timeout=60,
        what="the quiz's verdict",
    )

    score = engine.call(RECORD_SCORE)
    assert score["points"] == total - 1
    raw = str(round(100 * score["points"] / score["max"], 2)).removesuffix(".0")
    held = wait_cmi(engine, "cmi.core.score.raw", raw)
    assert held["cmi.core.score.min"] == "0" and held["cmi.core.score.max"] == "100"
    assert held["cmi.core.lesson_status"] == "incomplete"
    assert held["cmi.core.lesson_location"] == "lesson.html"
    assert 0 < len(held["cmi.suspend_data"]) <= 4096
    suspended = dict(json.loads(held["cmi.suspend_data"])["k"])
    assert json.loads(suspended[QUIZ_KEY])["verdicts"] == {
        str(q["n"]): q["n"] != 1 for q in QUESTIONS
    }

    calls = close(engine)
    in_order(calls)
    assert not logged(engine)
    held = cmi(engine)
    assert held["cmi.core.exit"] == "suspend"
    assert re.fullmatch(r"\d{4}:\d{2}:\d{2}\.\d{2}", held["cmi.core.session_time"])

    # Another browser: nothing stored; the LMS resumes the course from what it kept.
    launch(
        engine,
        another_origin,
        {
            "core": {"lesson_location": held["cmi.core.lesson_location"], "entry": "resume"},
            "suspend_data": held["cmi.suspend_data"],
        },
    )
    engine.wait_for(
        f"() => ({SHOWN})() === 'lesson.html'",
        timeout=60,
        what="the course to reopen where the student was",
    )
    assert int(engine.call(f"() => {LAUNCH}.documentElement.dataset.lmsRestored")) >= 1
    engine.wait_for(
        f"() => !!{SITE}.querySelector('[data-lab=quiz][data-lab-enhanced]')",
        timeout=60,
        what="the quiz to be set up",
    )
    for question in QUESTIONS:
        expected = wrong(question) if question["n"] == 1 else right(question)
        assert engine.call(CHOSEN, question["n"]) == expected, question["n"]
    assert engine.call(RECORD_SCORE) == score
    wait_cmi(engine, "cmi.core.score.raw", raw)
    in_order(close(engine))
    assert not logged(engine)


@ENGINES
def test_a_damaged_lms_refused_values_and_a_lost_api_cost_the_student_nothing(
    engine: Engine, origin: StaticServer
) -> None:
    first, second = QUESTIONS[0], QUESTIONS[1]
    kept = json.dumps(
        {
            "v": 1,
            "k": [
                [
                    QUIZ_KEY,
                    json.dumps({"version": QUIZ.spec["version"], "answers": {"1": right(first)}}),
                ]
            ],
        }
    )
    # The LMS cut suspend_data short: nothing is put back, and nothing breaks.
    launch(engine, origin, {"suspend_data": kept[: len(kept) // 2]})
    assert engine.call(f"() => {LAUNCH}.documentElement.dataset.lmsRestored") == "0"
    open_page(engine, "lesson.html")
    engine.call(CHOOSE, first["n"], wrong(first))
    wait_cmi(engine, "cmi.core.lesson_location", "lesson.html")
    engine.wait_for(
        f"(k) => JSON.parse(({CMI})()['cmi.suspend_data']).k.some(([key]) => key === k)",
        QUIZ_KEY,
        timeout=30,
        what="the answer in suspend_data",
    )

    # The LMS refuses suspend_data: the launch page says which; the LMS keeps its last copy.
    engine.call("() => { self.lms.refuse.push('cmi.suspend_data'); }")
    engine.call(CHOOSE, first["n"], right(first))
    engine.wait_for(
        f"() => ({LAUNCH}.documentElement.dataset.lmsRefused ?? '').startsWith('cmi.suspend_data')",
        timeout=30,
        what="the refusal to be noted",
    )
    held = cmi(engine)
    suspended = dict(json.loads(held["cmi.suspend_data"])["k"])
    assert json.loads(suspended[QUIZ_KEY])["answers"]["1"] == wrong(first)

    # The API is gone mid-session: the course stops calling it; the student goes on.
    engine.call("() => { self.lms.calls.length = 0; delete self.API; }")
    engine.call(CHOOSE, second["n"], right(second))
    engine.wait_for(
        f"() => ({STATE})() === 'lost'", timeout=30, what="the course to notice the API is gone"
    )
    assert engine.call("() => self.lms.calls") == []
    stored = json.loads(engine.call(STORED, f"lab-quiz:{origin_path(engine)}lesson.html:{QUIZ.id}"))
    assert stored["answers"] == {"1": right(first), "2": right(second)}
    assert engine.call(CHOSEN, second["n"]) == right(second)
    assert not [entry for entry in logged(engine) if entry["level"] >= 4]


def origin_path(engine: Engine) -> str:
    """The package's folder as the site's stored keys name it."""
    return engine.call(f"() => new URL('.', {LAUNCH}.location.href).pathname")


@ENGINES
def test_outside_an_lms_the_package_is_the_plain_site_served_and_from_disk(
    request: pytest.FixtureRequest, engine: Engine, origin: StaticServer, package: Path
) -> None:
    engine.goto(f"{origin.url}pkg/scorm.html")
    engine.wait_for(
        "() => location.pathname.endsWith('/pkg/index.html') && !!document.querySelector('h1')",
        timeout=60,
        what="index.html in the launch page's place",
    )
    disk = (package / "pkg").as_uri() + "/"
    also_home(request, disk)
    engine.goto(f"{disk}scorm.html")
    engine.wait_for(
        "() => location.href.endsWith('/pkg/index.html') && !!document.querySelector('h1')",
        timeout=60,
        what="index.html from disk",
    )


def record_format(package: Path) -> dict[str, Any]:
    """The learner record's format and the site's blocks, as the package hands them to the page."""
    script = (package / "pkg" / "assets" / "record" / "format.js").read_text(encoding="utf-8")
    return json.loads(script.split("=", 1)[1].strip().removesuffix(";"))


def everything_done(package: Path, *, all_right: bool) -> list[list[str]]:
    """suspend_data's entries for a student who did every graded block (each right, or
    all but one item): each stored value as its widget keeps it, by the record's format."""
    form = record_format(package)
    stored: dict[str, dict[str, Any]] = {}
    first = True
    for page in form["pages"]:
        for block in page["blocks"]:
            kind = form["kinds"][block["kind"]]
            if not kind["graded"]:
                continue
            verdicts = {str(n): True for n in range(1, block["count"] + 1)}
            if not all_right and first and verdicts:
                verdicts["1"], first = False, False
            values = {
                "answers": {n: 0 for n in verdicts},
                "verdicts": verdicts,
                "attempts": 1,
                "hints": 0,
                "solution": False,
                "passed": True,
                "tests": [
                    {"n": test["n"], "hidden": test["hidden"], "passed": True}
                    for test in block.get("tests", [])
                ],
            }
            for name, fill in kind["fills"].items():
                if fill["version"] != "spec":
                    continue
                value = stored.setdefault(
                    f"{fill['prefix']}{page['page']}:{block['id']}",
                    {"version": block["versions"]["spec"]},
                )
                *path, last = fill["field"].split(".")
                for step in path:
                    value = value.setdefault(step, {})
                value[last] = values[name]
    return [[key, json.dumps(value)] for key, value in stored.items()]


@ENGINES
def test_the_status_follows_the_record_and_suspend_data_keeps_graded_work_first(
    engine: Engine, origin: StaticServer, another_origin: StaticServer, package: Path
) -> None:
    done = everything_done(package, all_right=True)
    launch(engine, origin, {"suspend_data": json.dumps({"v": 1, "k": done})})
    wait_cmi(engine, "cmi.core.lesson_status", "passed")
    assert cmi(engine)["cmi.core.score.raw"] == "100"
    # An exercise's code too long to fit stays in the browser; the graded work is kept.
    code = f"lab-code:{origin_path(engine)}simulation.html:shared-reward"
    engine.call("(k) => localStorage.setItem(k, JSON.stringify({ code: 'x'.repeat(5000) }))", code)
    engine.wait_for(
        f"() => {LAUNCH}.documentElement.dataset.lmsLeftOut === '1'",
        timeout=30,
        what="the code to be left out of suspend_data",
    )
    suspended = json.loads(cmi(engine)["cmi.suspend_data"])["k"]
    assert sorted(key for key, _ in suspended) == sorted(key for key, _ in done)
    # The size the teacher's page gives ("about N characters"), as the LMS received it.
    teachers = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    said = re.search(r"takes about ([\d,]+) characters", teachers)
    assert said, "docs/teachers.md no longer says how long the graded work is"
    size = int(said[1].replace(",", ""))
    assert abs(len(cmi(engine)["cmi.suspend_data"]) - size) <= size / 10, size
    in_order(close(engine))

    launch(
        engine,
        another_origin,
        {"suspend_data": json.dumps({"v": 1, "k": everything_done(package, all_right=False)})},
    )
    wait_cmi(engine, "cmi.core.lesson_status", "completed")
    score = engine.call(RECORD_SCORE)
    assert score["points"] == score["max"] - 1
    in_order(close(engine))
    assert not [entry for entry in logged(engine) if entry["level"] >= 4]
