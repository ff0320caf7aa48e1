"""The shape of a call the page makes into ``lab`` (see :mod:`lab.rpc`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Call", "Progress"]

#: Reports a partial result to the page while a call runs.
Progress = Callable[[dict[str, Any]], None]
#: A call: its JSON arguments and a progress reporter in, a JSON-able result out.
Call = Callable[[dict[str, Any], Progress], Any]
