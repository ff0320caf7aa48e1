"""Errors the lab reports to the reader in plain words."""

from __future__ import annotations

from typing import Any


class LabError(Exception):
    """A problem the reader can act on; ``fields`` maps a control to its reason."""

    def __init__(self, message: str, fields: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = dict(fields or {})

    def to_json(self) -> dict[str, Any]:
        reply: dict[str, Any] = {"kind": type(self).__name__, "message": self.message}
        if self.fields:
            reply["fields"] = self.fields
        return reply
