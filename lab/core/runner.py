"""What a run-style lab offers the rest of ``lab``: its settings, its run, its files.

Each run-style kind's package defines its :class:`Runner` (``lab/sim/runner.py``,
``lab/lm/runner.py``); :data:`lab.kinds.KINDS` names it, and whatever serves
every such lab (links, downloads, ``python -m lab run``, guided experiments)
takes the runner it is handed, so nothing below the registry imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lab.core.tables import Figure

__all__ = ["Runner"]


@dataclass(frozen=True)
class Runner:
    """How a run-style lab checks its settings, runs, describes its settings, and
    writes its results as files (:mod:`lab.core.export`)."""

    #: The kind's name (:data:`lab.kinds.KINDS`): its files' and command's name.
    kind: str
    validate: Callable[[Any], Any]
    run: Callable[..., dict[str, Any]]
    spec: Callable[[], dict[str, dict[str, Any]]]
    #: One CSV row per seed and method; the learning curve as CSV.
    rows: Callable[[Mapping[str, Any]], str]
    curve: Callable[[Mapping[str, Any]], str]
    #: The charts Python draws as files.
    figures: tuple[Figure, ...] = ()
