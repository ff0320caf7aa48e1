"""The simulation lab's prose as its claims tests read it: the lab's page and its reference."""

from __future__ import annotations

import re
from functools import cache

from lesson_hooks.support.paths import ROOT

#: The pages whose sentences about the toy are checked against the model.
SIMULATION_PAGES = (ROOT / "docs" / "simulation.md", ROOT / "docs" / "simulation-reference.md")


def _spaced(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@cache
def _prose() -> str:
    return " ".join(_spaced(p.read_text(encoding="utf-8")) for p in SIMULATION_PAGES)


def simulation_pages_say(quote: str) -> bool:
    """Whether one of the pages says ``quote``, however either of them wraps its lines."""
    return _spaced(quote) in _prose()
