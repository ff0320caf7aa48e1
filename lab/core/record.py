"""The learner record: one student's work on the site, as one JSON file.

This module is the format's one definition. The build hands it to the page
as data (``assets/record/format.js``, written by
``lesson_hooks/build/record.py`` with the site's blocks), and the page's one
reader (``docs/assets/record/record.js``) and the teacher's class view read
and check records by it; no script holds a copy of a field name or a limit.
``contributing/learner-record.md`` describes the format for people.

A record is made in the student's browser from what the widgets already keep
in ``localStorage`` (no widget keeps a second copy): each lab kind says in
``lab/kinds.py`` (its ``record``, a :class:`Contribution`) which of a block's
fields it fills, from which stored value (a :class:`Source`). The fields
every block has (:data:`DERIVED`) follow from those by the rules
:func:`derive` states, which the page's reader applies alike.

Standard library only: ``lab`` runs in Pyodide too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BLOCK",
    "DERIVED",
    "FORMAT",
    "MAX_FILE_BYTES",
    "PAGE",
    "REASONS",
    "RECORD",
    "SITE",
    "VERSION",
    "Contribution",
    "Source",
    "checked",
    "derive",
    "for_the_page",
    "refusal",
]

#: What a record says it is, and the site it belongs to (its file names end with it).
FORMAT = "learner-record"
SITE = "llm-cooperative-agents"
#: The format's version: a record of another version is refused with its own reason.
VERSION = 1
#: A file larger than this is refused unread (a class's record is a few kilobytes).
MAX_FILE_BYTES = 2_000_000
#: A name shown longer than this is cut on screen (the file keeps it whole).
SHOWN_NAME_CHARACTERS = 80

# Each field's JSON type, as both validators read it: one type, or several joined by "|".
#: The record's own fields.
RECORD: dict[str, str] = {
    "format": "string",
    "version": "integer",
    "site": "string",
    "site_version": "string",
    "student": "string",
    "saved": "string",
    "score": "object",
    "pages": "array",
}
#: Each page's fields.
PAGE: dict[str, str] = {"page": "string", "title": "string", "blocks": "array"}
#: Each block's fields: the block, what its kind fills, and what follows from those.
BLOCK: dict[str, str] = {
    "id": "string",
    "kind": "string",
    "title": "string",
    # what the student answered: the quiz's chosen options by question, the Visual Lab's
    # concept by part
    "answers": "object|null",
    # whether each question or part was right at the last Check, by its number
    "verdicts": "object|null",
    # Checks of a quiz or Visual Lab, Checks of an exercise (its attempts)
    "attempts": "integer",
    "hints": "integer",
    "solution": "boolean",
    "passed": "boolean|null",
    # the exercise's code when the student changed the starter, and its last tests
    "code": "string|null",
    "tests": "array|null",
    # the guided experiment's prediction (the option's text), and the run's outcome
    "prediction": "string|null",
    "outcome": "string|null",
    "matched": "boolean|null",
    # derived (see derive)
    "answered": "boolean",
    "right": "boolean|null",
    "points": "integer",
    "max": "integer",
}
#: The fields every block has, worked out by :func:`derive` from the ones its kind fills.
DERIVED = ("answered", "right", "points", "max")
#: A block's fields that a kind may fill (the rest are the block's own or derived).
FILLABLE = tuple(name for name in BLOCK if name not in {"id", "kind", "title", *DERIVED})
#: A field a kind does not fill holds this.
EMPTY: dict[str, Any] = {
    name: 0 if kind == "integer" else False if kind == "boolean" else None
    for name, kind in BLOCK.items()
    if name in FILLABLE
}
#: A last test's fields (``tests``' items).
TEST: dict[str, str] = {"n": "integer", "hidden": "boolean", "passed": "boolean"}

#: The score's fields: the graded blocks' points and their most.
SCORE: dict[str, str] = {"points": "integer", "max": "integer"}


@dataclass(frozen=True)
class Source:
    """Where a widget keeps one value: ``localStorage`` under ``lab-<storage>:<page>:<id>``.

    The stored text is JSON with a ``version`` (``version`` names which of the
    block's versions it must equal: ``"spec"``, ``"code"``), or plain text
    (``plain=True``). ``field`` is a dotted path into the JSON (``progress.hints``);
    ``None`` takes the stored text itself.
    """

    storage: str
    field: str | None = None
    version: str | None = "spec"
    plain: bool = False

    @property
    def prefix(self) -> str:
        return f"lab-{self.storage}:"


@dataclass(frozen=True)
class Contribution:
    """What a lab kind adds to the record (its ``record`` in ``lab/kinds.py``).

    ``fills`` maps block fields (:data:`FILLABLE`) to where the widget keeps
    them. ``graded``: its points count in the score. ``items``: the attribute
    of its block (as the build reads it) listing what is graded one by one
    (a quiz's ``questions``), whose count is the block's ``max``; ``None``: the
    block is one item, right when ``passed`` (or ``matched``) is true.
    """

    fills: Mapping[str, Source]
    graded: bool = False
    items: str | None = None

    def __post_init__(self) -> None:
        unknown = set(self.fills) - set(FILLABLE)
        if unknown:
            raise ValueError(f"a record contribution fills unknown fields: {sorted(unknown)}")


def checked(storage: str, answers: str, items: str) -> Contribution:
    """A graded lab's contribution: its answers under ``answers``, with the Checks and
    the last verdicts ``shared/graded.js`` keeps beside them, graded item by item."""
    return Contribution(
        {
            "answers": Source(storage, answers),
            "verdicts": Source(storage, "verdicts"),
            "attempts": Source(storage, "checks"),
        },
        graded=True,
        items=items,
    )


def derive(block: Mapping[str, Any], items: int, graded: bool) -> dict[str, Any]:
    """The derived fields of a block whose kind filled the others (``items``: its count
    of graded items, 0 for a single-item kind). ``record.js`` applies the same rules.

    - answered: any answer, prediction, Check or attempt;
    - right: every item right at the last Check (false when one is wrong, null when
      unchecked); a single-item block is right when passed or matched, wrong when
      it was tried and not;
    - points: the items right (a single item: 1 when right); max: the items (1),
      both 0 for a block that is not graded.
    """
    answers = block.get("answers") or {}
    answered = bool(answers or block.get("prediction") is not None or block.get("attempts", 0) > 0)
    if items:
        verdicts = block.get("verdicts") or {}
        values = [verdicts.get(str(n)) for n in range(1, items + 1)]
        if False in values:
            right: bool | None = False
        elif all(value is True for value in values):
            right = True
        else:
            right = None
        points = sum(1 for value in values if value is True)
        most = items
    else:
        done = block.get("passed")
        if done is None:
            done = block.get("matched")
        tried = block.get("attempts", 0) > 0 or block.get("outcome") is not None
        right = True if done is True else False if tried else None
        points = 1 if right else 0
        most = 1
    if not graded:
        points = most = 0
    return {"answered": answered, "right": right, "points": points, "max": most}


#: JSON's type names of Python's values (``bool`` before ``int``: a bool is an int).
_TYPES = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return next((name for kind, name in _TYPES if isinstance(value, kind)), type(value).__name__)


def _wrong_fields(value: Any, fields: Mapping[str, str], where: str) -> str | None:
    if not isinstance(value, dict):
        return f"{where} is not an object"
    for name, allowed in fields.items():
        if name not in value:
            return f"{where} has no {name!r}"
        if _type_name(value[name]) not in allowed.split("|"):
            return f"{where}'s {name!r} is not {allowed.replace('|', ' or ')}"
    return None


#: Why a file is refused, as the teacher reads it beside its name: templates whose
#: ``{name}``s :func:`refusal` and ``record.js`` fill alike.
REASONS: dict[str, str] = {
    "too_large": "too large for a learner record ({mb} MB; the limit is {limit} MB)",
    "truncated": "cut short: the file ends before the record does (truncated)",
    "not_json": "not a learner record: it is not JSON",
    "not_record": "not a learner record: it does not say it is one",
    "other_site": "a record from another site ({site}), not this one",
    "newer": "made by a newer version of the site (record format {version}; this page "
    "reads format {expected}): open this page on the newer site",
    "older": "made by an older version of the site (record format {version}; this page "
    "reads format {expected})",
    "damaged": "damaged: {what}",
    "duplicate": "the same student as {other} (one file per student): not loaded twice",
    "unreadable": "unreadable: the browser could not read the file",
}
#: How much of a foreign site's name a refusal quotes.
QUOTED_CHARACTERS = 80


def refusal(text: str, size: int | None = None) -> str | None:
    """Why a file's ``text`` is not a record this site reads, in a teacher's words, or
    ``None`` when it is one. ``record.js``'s ``refusal`` applies the same rules, in this
    order, from :func:`for_the_page`'s data (a duplicate is the class view's to see)."""
    size = len(text.encode("utf-8")) if size is None else size
    if size > MAX_FILE_BYTES:
        return REASONS["too_large"].format(
            mb=f"{size / 1e6:.1f}", limit=f"{MAX_FILE_BYTES / 1e6:g}"
        )
    try:
        record = json.loads(text)
    except ValueError:
        return REASONS["truncated" if f'"{FORMAT}"' in text[:200] else "not_json"]
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return REASONS["not_record"]
    if record.get("site") != SITE:
        return REASONS["other_site"].format(site=str(record.get("site"))[:QUOTED_CHARACTERS])
    version = record.get("version")
    if _type_name(version) == "integer" and version != VERSION:
        reason = "newer" if version > VERSION else "older"
        return REASONS[reason].format(version=version, expected=VERSION)
    wrong = _wrong_fields(record, RECORD, "the record") or _wrong_fields(
        record["score"], SCORE, "the record's score"
    )
    for i, page in enumerate(record["pages"] if wrong is None else [], 1):
        wrong = _wrong_fields(page, PAGE, f"page {i}")
        for j, block in enumerate(page["blocks"] if wrong is None else [], 1):
            where = f"page {i}'s block {j}"
            wrong = _wrong_fields(block, BLOCK, where)
            for k, test in enumerate((block["tests"] or []) if wrong is None else [], 1):
                wrong = _wrong_fields(test, TEST, f"{where}'s test {k}")
                if wrong:
                    break
            if wrong:
                break
        if wrong:
            break
    return REASONS["damaged"].format(what=wrong) if wrong else None


def for_the_page(site_version: str, pages: list[dict[str, Any]]) -> dict[str, Any]:
    """The format as data for ``assets/record/format.js``, with the site's version and
    its ``pages`` (each with the blocks a record covers, as the build describes them)."""
    from lab.kinds import KINDS  # the registry sits above the kinds, and above this module

    return {
        "format": FORMAT,
        "version": VERSION,
        "site": SITE,
        "site_version": site_version,
        "max_file_bytes": MAX_FILE_BYTES,
        "shown_name_characters": SHOWN_NAME_CHARACTERS,
        "quoted_characters": QUOTED_CHARACTERS,
        "reasons": REASONS,
        "fields": {"record": RECORD, "page": PAGE, "block": BLOCK, "test": TEST, "score": SCORE},
        "empty": EMPTY,
        "kinds": {
            kind.name: {
                "title": kind.title,
                "graded": kind.record.graded,
                "items": kind.record.items is not None,
                "fills": {
                    name: {
                        "prefix": source.prefix,
                        "field": source.field,
                        "version": source.version,
                        "plain": source.plain,
                    }
                    for name, source in kind.record.fills.items()
                },
            }
            for kind in KINDS
            if kind.record
        },
        "pages": pages,
    }
