"""The simulation lab's prose as its claims tests read it: the lab's page and its reference."""

from __future__ import annotations

import re

from lesson_hooks.support.paths import ROOT

#: The pages whose sentences about the toy are checked against the model.
SIMULATION_PAGES = (ROOT / "docs" / "simulation.md", ROOT / "docs" / "simulation-reference.md")


def simulation_prose() -> str:
    """Both pages' Markdown, each run of whitespace one space (a quote may wrap anywhere)."""
    return " ".join(re.sub(r"\s+", " ", p.read_text(encoding="utf-8")) for p in SIMULATION_PAGES)
