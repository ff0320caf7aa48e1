"""lesson_hooks.fences.base: a block's YAML mistakes fail at the line to fix, in plain words."""

from __future__ import annotations

import pytest

from lesson_hooks.fences.sitewide import read_page
from tests.support.located import raises_located

PATH = "docs/page.md"
# The line a mistake is on, and how the build words it.
MARK = "  # <- here"

MISTAKES = {
    "a colon in a value": (
        f"id: q\nprompt: Try: it now{MARK}\n",
        "a colon and a space (`: `) where YAML expects none",
    ),
    "no space after a colon": (
        f"id: q\nprompt:Try it{MARK}\nquestions:\n  - text: a\n",
        "this line is not `key: value`",
    ),
    "a quotation never closed": (
        f'id: q\nprompt: "Try it{MARK}\nquestions: []\n',
        "a quotation or bracket opened here is never closed.",
    ),
    "a key indented too far": (
        f"id: q\nprompt: Try it\n  questions: []{MARK}\n",
        "a colon and a space (`: `) where YAML expects none",
    ),
    "a list never closed": (
        f"id: q\nquestions: [1, 2{MARK}\nprompt: Try it\n",
        "the list opened with `[` here is not closed with `]`.",
    ),
    "the block ends in a list": (f"id: q\nquestions: [{MARK}\n", "the block ends inside a list"),
    "an item out of line": (
        f"id: q\nquestions:\n  - text: a\n   - text: b{MARK}\n",
        "this line does not line up with the lines beside it",
    ),
    "a value going on after its quote": (
        f'id: q\nprompt: "Try" it{MARK}\n',
        "the value goes on after its closing quote; put the whole value in quotes.",
    ),
    "the first key indented": (
        f"  id: q{MARK}\nprompt: Try it\n",
        "the block's first line is indented more than a line below it",
    ),
    "a value starting with a backtick": (
        f"id: q\nprompt: `code`{MARK}\n",
        "a value cannot start with this character; put the value in quotes.",
    ),
}


@pytest.mark.parametrize(("body", "problem"), MISTAKES.values(), ids=MISTAKES.keys())
def test_a_yaml_mistake_fails_at_its_own_line_in_plain_words(body: str, problem: str) -> None:
    page = f"# Page\n\n```lab-quiz\n{body.replace(MARK, '')}```\n"
    line = 4 + next(i for i, text in enumerate(body.split("\n")) if MARK in text)
    raises_located(lambda: read_page(page, PATH), PATH, line, f"invalid YAML: {problem}")
