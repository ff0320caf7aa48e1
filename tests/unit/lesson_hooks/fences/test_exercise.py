"""lesson_hooks.fences.exercise: the block read, located errors, and its markup."""

from __future__ import annotations

from lesson_hooks.fences.exercise import parse_page
from tests.support.located import raises_located

PATH = "docs/page.md"


def page(flips: str = "20") -> str:
    return f"# Page\n\n```lab-exercise\nid: first-flips\nflips: {flips}\n```\n"


def test_a_block_is_read() -> None:
    (block,) = parse_page(page(), PATH)
    assert (block.id, block.flips, block.line) == ("first-flips", 20, 3)


def test_a_bad_number_of_flips_fails_at_its_line() -> None:
    raises_located(
        lambda: parse_page(page("many"), PATH), PATH, 5, "`flips` must be a whole number"
    )
