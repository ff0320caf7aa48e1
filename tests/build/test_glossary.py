"""The glossary page and the abbreviations appended to every page agree, and cover the lesson."""

from __future__ import annotations

import re

from lab.sim.task import CLIMBING
from tests.build.test_content import article, normalise
from tests.conftest import ROOT, BuiltSite

ABBREVIATIONS = ROOT / "includes" / "abbreviations.md"
REQUIRED = [
    "MARL",
    "Dec-POMDP",
    "joint action",
    "shared reward",
    "credit assignment",
    "advantage",
    "GRPO",
    "MAGRPO",
    "verifier",
    "held-out partner",
    "relative overgeneralization",
]


def abbreviations() -> dict[str, str]:
    text = ABBREVIATIONS.read_text(encoding="utf-8")
    return dict(re.findall(r"^\*\[([^\]]+)\]: (.+)$", text, re.M))


def test_every_required_term_has_a_definition_and_a_glossary_entry(site: BuiltSite) -> None:
    defined = abbreviations()
    glossary = article(site, "glossary")
    entries = {normalise(dt.text()) for dt in glossary.find_all("dt")}
    for term in REQUIRED:
        assert term in defined, term
        assert term in entries, term
    # Plurals share their singular's entry.
    for term in defined:
        assert term in entries or term.rstrip("s") in entries, term


def test_magrpo_advantage_is_return_minus_the_group_mean() -> None:
    advantage = abbreviations()["advantage"]
    assert "minus the mean return of its group" in advantage
    assert "optionally" in advantage  # std normalisation is an option, not the definition


def test_the_lesson_shows_definitions_on_its_terms(site: BuiltSite) -> None:
    lesson = article(site, "lesson")
    titled = {normalise(a.text()): a.attrs.get("title") for a in lesson.find_all("abbr")}
    for term in ("MARL", "Dec-POMDP", "joint action", "shared reward", "verifier"):
        assert titled.get(term) == abbreviations()[term], term


def test_relative_overgeneralization_is_defined_as_the_literature_does(site: BuiltSite) -> None:
    """An agent's part of the optimum against a safe action, averaged over the partner (Panait)."""
    short = abbreviations()["relative overgeneralization"]
    for words in ("part of the optimal joint action", "averaged over its partner", "safe action"):
        assert words in short, words
    glossary = normalise(article(site, "glossary").text())
    # The worked numbers: the climbing game's rows, averaged over a uniform partner.
    optimal_row = next(row for row in CLIMBING if max(row) == max(map(max, CLIMBING)))
    safe_row = max(CLIMBING, key=lambda row: sum(row))
    for row in (optimal_row, safe_row):
        assert f"{sum(row) / len(row):.1f}".replace("-", "\N{MINUS SIGN}") in glossary


def test_grpo_names_what_magrpo_leaves_out() -> None:
    grpo = abbreviations()["GRPO"]
    for words in ("standard deviation", "clipped", "KL"):
        assert words in grpo, words


def test_the_verifier_of_maporl_scores_every_turn_not_only_the_final_answer(
    site: BuiltSite,
) -> None:
    glossary = normalise(article(site, "glossary").text())
    assert "scores each agent's answer at every turn of the discussion, not only the final one" in (
        glossary
    )
