"""The learner record's format (lab/core/record.py): one definition, read alike by Python
and by the page's one reader (docs/assets/record/record.js, run here in Node on the
data the build hands it), from what the widgets already keep."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lab.core.record import (
    BLOCK,
    DERIVED,
    EMPTY,
    FORMAT,
    MAX_FILE_BYTES,
    REASONS,
    SITE,
    VERSION,
    Contribution,
    Source,
    derive,
    for_the_page,
    refusal,
)
from lab.kinds import KINDS
from lesson_hooks.build.record import GLOBAL, script_text
from tests.conftest import ROOT
from tests.unit.lab.core.test_rules import node

ASSETS = ROOT / "docs" / "assets"
RECORD_JS = ASSETS / "record" / "record.js"
RECORDED = [kind for kind in KINDS if kind.record]

#: A small site: one page with a quiz of 2 questions, an exercise and an experiment.
PAGES: list[dict[str, Any]] = [
    {
        "page": "lesson/",
        "title": "Lesson",
        "blocks": [
            {
                "id": "q",
                "kind": "quiz",
                "title": "Check",
                "anchor": "lab-q",
                "versions": {"spec": "v1"},
                "items": [],
                "count": 2,
            },
            {
                "id": "ex",
                "kind": "exercise",
                "title": "f(x)",
                "anchor": "lab-ex",
                "versions": {"spec": "v2", "code": "c1"},
                "tests": [],
                "count": 0,
            },
            {
                "id": "task",
                "kind": "experiment",
                "title": "What happens?",
                "anchor": "task",
                "versions": {},
                "options": ["A", "B"],
                "answer": 1,
                "count": 0,
            },
        ],
    }
]
DATA = for_the_page("9.9.9", PAGES)

# Runs record.js (a classic script) on the build's data, then `body` on stdin's JSON.
RUNNER = """
import fs from "node:fs";
import vm from "node:vm";
globalThis.self = globalThis;
const here = (name) => new URL(name, import.meta.url);
vm.runInThisContext(fs.readFileSync(here("format.js"), "utf8"));
vm.runInThisContext(fs.readFileSync(here("record.js"), "utf8"));
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const storage = (entries) => ({
  length: entries.length,
  key: (i) => entries[i][0],
  getItem: (key) => new Map(entries).get(key) ?? null,
});
const out = (%s)(input, self.LearnerRecord, storage);
process.stdout.write(JSON.stringify(out));
"""


def run_js(body: str, data: Any, tmp_path: Path) -> Any:
    modules = {"format.js": script_text(DATA), "record.js": RECORD_JS.read_text("utf-8")}
    return node(RUNNER % body, modules, data, tmp_path)


def stored(entries: dict[str, Any]) -> list[list[str]]:
    return [[k, v if isinstance(v, str) else json.dumps(v)] for k, v in entries.items()]


#: What a student's widgets keep: the quiz checked once (question 1 right, 2 wrong), the
#: exercise passed after 2 attempts with a hint and its code edited, a prediction run.
KEPT = {
    "lab-quiz:/site/lesson/:q": {
        "version": "v1",
        "answers": {"1": [0], "2": [1, 2]},
        "checks": 1,
        "verdicts": {"1": True, "2": False},
    },
    "lab-exercise:/site/lesson/:ex": {
        "version": "v2",
        "progress": {
            "attempts": 2,
            "hints": 1,
            "passed": True,
            "failed": True,
            "solution": False,
            "tests": [{"n": 1, "hidden": False, "passed": True}],
        },
    },
    "lab-code:/site/lesson/:ex": {"version": "c1", "code": "def f(x):\n    return x\n"},
    "lab-task:/site/lesson/:task": "B",
    "lab-task-run:/site/lesson/:task": {"outcome": "It went as B says.", "matched": True},
    # Another block's keys, and a save for another version of this quiz: not read.
    "lab-quiz:/site/lesson/:quiz-two": {"version": "v1", "answers": {"1": [3]}},
    "lab-quiz:/old/lesson/:q": {"version": "v0", "answers": {"1": [3]}, "checks": 9},
}


def test_each_kind_fills_only_the_records_fields_from_where_its_widget_keeps_them() -> None:
    scripts = "\n".join(p.read_text("utf-8") for p in ASSETS.rglob("*.js"))
    assert {kind.name for kind in RECORDED} == {"visual-lab", "quiz", "experiment", "exercise"}
    for kind in RECORDED:
        assert kind.record is not None
        for name, source in kind.record.fills.items():
            assert name in BLOCK and name not in DERIVED
            # graded.js keys "lab-<storage>:" by the widget's `storage`; others write it whole.
            written = f"`{source.prefix}$" in scripts or f'storage: "{source.storage}"' in scripts
            assert written, f"{kind.name}: no widget writes {source.prefix}"
    with pytest.raises(ValueError, match="unknown fields"):
        Contribution({"colour": Source("quiz")})


def test_a_record_is_read_from_the_widgets_keys_whatever_the_pages_path(tmp_path: Path) -> None:
    record = run_js("(kept, R, storage) => R.read('Ada', storage(kept))", stored(KEPT), tmp_path)
    assert (record["format"], record["version"], record["site"]) == (FORMAT, VERSION, SITE)
    assert record["site_version"] == "9.9.9" and record["student"] == "Ada"
    quiz, exercise, task = record["pages"][0]["blocks"]
    assert quiz["answers"] == {"1": [0], "2": [1, 2]} and quiz["attempts"] == 1
    assert (quiz["answered"], quiz["right"], quiz["points"], quiz["max"]) == (True, False, 1, 2)
    assert exercise["code"] == "def f(x):\n    return x\n"
    assert (exercise["attempts"], exercise["hints"], exercise["solution"]) == (2, 1, False)
    assert (exercise["right"], exercise["points"], exercise["max"]) == (True, 1, 1)
    assert exercise["tests"] == [{"n": 1, "hidden": False, "passed": True}]
    assert task["prediction"] == "B" and task["outcome"] == "It went as B says."
    assert (task["right"], task["points"], task["max"]) == (True, 0, 0)  # never scored
    assert record["score"] == {"points": 2, "max": 3}
    assert refusal(json.dumps(record)) is None


def test_nothing_kept_is_a_record_of_nothing_started(tmp_path: Path) -> None:
    record = run_js("(kept, R, storage) => R.read('', storage(kept))", [], tmp_path)
    for block in record["pages"][0]["blocks"]:
        assert {k: block[k] for k in EMPTY} == EMPTY
        assert (block["answered"], block["right"], block["points"]) == (False, None, 0)
    assert record["score"] == {"points": 0, "max": 3}


BLOCKS = [
    ({"answers": {}, "verdicts": None, "attempts": 0}, 2, True),
    ({"answers": {"1": [0]}, "verdicts": None, "attempts": 0}, 2, True),
    ({"answers": {"1": [0]}, "verdicts": {"1": True}, "attempts": 1}, 2, True),
    ({"answers": {"1": [0], "2": [1]}, "verdicts": {"1": True, "2": True}, "attempts": 3}, 2, True),
    ({"answers": {"1": [0]}, "verdicts": {"1": False}, "attempts": 1}, 2, True),
    ({"attempts": 0, "passed": False}, 0, True),
    ({"attempts": 2, "passed": False}, 0, True),
    ({"attempts": 2, "passed": True}, 0, True),
    ({"prediction": "A", "matched": None, "outcome": None}, 0, False),
    ({"prediction": "A", "matched": False, "outcome": "no"}, 0, False),
    ({"prediction": "A", "matched": True, "outcome": "yes"}, 0, False),
]


def test_python_and_the_page_derive_a_blocks_state_alike(tmp_path: Path) -> None:
    cases = [({**EMPTY, **block}, items, graded) for block, items, graded in BLOCKS]
    expected = [derive(block, items, graded) for block, items, graded in cases]
    body = """(cases, R) => cases.map(([block, items, graded]) => R.derive(block, items, graded))"""
    assert run_js(body, cases, tmp_path) == expected
    assert expected[0] == {"answered": False, "right": None, "points": 0, "max": 2}
    assert expected[3] == {"answered": True, "right": True, "points": 2, "max": 2}
    assert expected[6]["right"] is False and expected[7]["right"] is True
    assert expected[10] == {"answered": True, "right": True, "points": 0, "max": 0}


def valid() -> dict[str, Any]:
    block = {"id": "q", "kind": "quiz", "title": "Check", **EMPTY}
    block.update(derive(block, 2, True))
    return {
        "format": FORMAT,
        "version": VERSION,
        "site": SITE,
        "site_version": "1",
        "student": "Ada",
        "saved": "2026-12-05T08:00:00Z",
        "score": {"points": 0, "max": 2},
        "pages": [{"page": "lesson/", "title": "Lesson", "blocks": [block]}],
    }


def broken(change: Any) -> str:
    record = copy.deepcopy(valid())
    change(record)
    return json.dumps(record)


TEXT = json.dumps(valid())
FILES: list[tuple[str, int | None, str | None]] = [
    (TEXT, None, None),
    (TEXT, 50_000_000, REASONS["too_large"].format(mb="50.0", limit=f"{MAX_FILE_BYTES / 1e6:g}")),
    (TEXT[: len(TEXT) // 2], None, REASONS["truncated"]),
    ("\x89PNG not json", None, REASONS["not_json"]),
    ('{"hello": 1}', None, REASONS["not_record"]),
    ("[1, 2]", None, REASONS["not_record"]),
    (
        broken(lambda r: r.update(site="other-<b>lesson</b>")),
        None,
        REASONS["other_site"].format(site="other-<b>lesson</b>"),
    ),
    (
        broken(lambda r: r.update(version=VERSION + 1)),
        None,
        REASONS["newer"].format(version=VERSION + 1, expected=VERSION),
    ),
    (
        broken(lambda r: r.update(version=VERSION - 1)),
        None,
        REASONS["older"].format(version=VERSION - 1, expected=VERSION),
    ),
    (broken(lambda r: r.pop("student")), None, "damaged: the record has no 'student'"),
    (broken(lambda r: r.update(pages={})), None, "damaged: the record's 'pages' is not array"),
    (
        broken(lambda r: r["pages"][0]["blocks"][0].update(attempts="2")),
        None,
        "damaged: page 1's block 1's 'attempts' is not integer",
    ),
    (
        broken(lambda r: r["pages"][0]["blocks"][0].update(right=1)),
        None,
        "damaged: page 1's block 1's 'right' is not boolean or null",
    ),
    (broken(lambda r: r["score"].pop("max")), None, "damaged: the record's score has no 'max'"),
    (
        broken(lambda r: r["pages"][0]["blocks"][0].update(tests=[{"n": 1, "passed": True}])),
        None,
        "damaged: page 1's block 1's test 1 has no 'hidden'",
    ),
    (broken(lambda r: r.update(student="<script>x</script>" * 1000)), None, None),
]


def test_python_and_the_page_refuse_the_same_files_for_the_same_reasons(
    tmp_path: Path,
) -> None:
    for text, size, expected in FILES:
        assert refusal(text, size) == expected, text[:80]
    cases = [[text, len(text.encode()) if size is None else size] for text, size, _ in FILES]
    body = "(cases, R) => cases.map(([text, size]) => R.refusal(text, size))"
    assert run_js(body, cases, tmp_path) == [expected for _, _, expected in FILES]


def test_a_records_file_is_named_by_the_student_and_the_site(tmp_path: Path) -> None:
    names = ["Ada", " Ada Lovelace ", "a/b:c", "x\ty"]
    body = "(names, R) => names.map((name) => R.fileName(name))"
    assert run_js(body, names, tmp_path) == [
        f"Ada-{SITE}.json",
        f"Ada Lovelace-{SITE}.json",
        f"a-b-c-{SITE}.json",
        f"x-y-{SITE}.json",
    ]


def test_the_page_gets_the_format_as_one_global_and_holds_no_copy_of_it() -> None:
    text = script_text(DATA)
    assert text.splitlines()[1].startswith(f"self.{GLOBAL} = {{")
    assert text.isascii()
    for path in (ASSETS / "record").glob("*.js"):
        source = path.read_text("utf-8")
        assert f'"{FORMAT}"' not in source and f'"{SITE}"' not in source, path
        for reason in REASONS.values():
            assert reason[:30] not in source, path
