"""A run's results as files: CSV text, and the charts Python draws as files."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

__all__ = ["Figure", "csv_text"]


class Figure(NamedTuple):
    """A chart a lab offers as a file: its link's label, its name's suffix, its drawing.

    A drawing that has nothing to draw (one seed: no strip) returns ``None`` and
    offers no file.
    """

    label: str
    suffix: str
    draw: Callable[[Mapping[str, Any]], str | None]


def _cell(value: Any) -> Any:
    # JSON's words for truth values, as the JSON download has them.
    return ("true" if value else "false") if isinstance(value, bool) else value


def csv_text(header: list[str], rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return out.getvalue()
