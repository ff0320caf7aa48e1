"""A lab's settings in the page's address: the one format, written and read here.

A link to a run-style lab's settings is the page's address with the fragment
``#TARGET?QUERY``: ``TARGET`` is the id of the element to open at (the lab's
own, ``lab-<id>``, or a guided experiment's, whose settings then go to its
lab), and ``QUERY`` is ``name=value`` pairs joined by ``&``, only the settings
that differ from the spec's defaults, each percent-encoded; a table is its
rows joined by ``;``, each row's cells by ``,``. For example::

    #lab-simulation?table=penalty&penalty_k=-100&seeds=20

A fragment with no ``?`` is a plain anchor and carries no settings (so the
page's ordinary links to a lab never change its form); ``TARGET?`` alone
means every setting at its default, so Copy link at the defaults ends in a bare
``?`` on purpose: it is what sets a reader's changed form back to the defaults.
The fragment never reaches a server or
the service worker, so a link works on any host and sub-path, offline and
from disk. The page splits off ``TARGET`` (an element id, to scroll to) and
leaves the rest to :func:`read_link`, which checks the values with the lab's
own validator: a refused or unknown value is reported with the validator's
reason and the other settings are applied.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, unquote

from lab.core.params import ParamError, Spec, check
from lab.core.rules import LINK_SETTINGS
from lab.core.runner import Runner

__all__ = ["link_fragment", "read_link", "settings_query"]

#: Between the target's id and the settings.
SETTINGS = LINK_SETTINGS
PAIRS, ROWS, CELLS = "&", ";", ","
#: The kinds of field whose control takes any text (a refused value can be shown in it).
TYPED = frozenset({"integer", "number", "table"})


def _text(value: Any) -> str:
    """One value as the query writes it: numbers as short as they read back exactly."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


def _encode(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ROWS.join(CELLS.join(quote(_text(cell), safe="") for cell in row) for row in value)
    return quote(_text(value), safe="")


def settings_query(spec: Spec, params: Mapping[str, Any]) -> str:
    """The settings of ``params`` (checked values) that differ from ``spec``'s defaults, encoded."""
    pairs = []
    for name, field in spec.items():
        value = params.get(name, field["default"])
        # Checked values are plain JSON (tables as lists), as the spec's defaults are.
        if value is None or value == field["default"]:
            continue
        pairs.append(f"{quote(name, safe='')}={_encode(value)}")
    return PAIRS.join(pairs)


def link_fragment(runner: Runner, target: str, settings: Any) -> str:
    """The fragment (without ``#``) that opens ``target`` with ``runner``'s lab set to ``settings``.

    ``settings`` are checked by the lab's validator first (a :class:`ParamError` if refused).
    """
    params = runner.validate(settings).to_json()
    return f"{target}{SETTINGS}{settings_query(runner.spec(), params)}"


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def _decode(field: Mapping[str, Any], text: str) -> Any:
    if field["kind"] == "table":
        return [[unquote(cell) for cell in row.split(CELLS)] for row in text.split(ROWS)]
    return unquote(text)


def _given(
    spec: Spec, validate: Callable[[Any], Any], query: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """The query's values by field, as typed; names no field has, with the validator's words."""
    given: dict[str, Any] = {}
    unknown: dict[str, str] = {}
    for pair in query.split(PAIRS):
        if not pair:
            continue
        name, _, text = pair.partition("=")
        name = unquote(name)
        if name in spec:
            given[name] = _decode(spec[name], text)
        else:
            # The validator's own refusal of a name it does not know.
            try:
                validate({name: text})
            except ParamError as err:
                unknown[name] = err.fields.get(name, f"Unknown setting {name!r}.")
    return given, unknown


def _validated(
    spec: Spec, validate: Callable[[Any], Any], given: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str], set[str]]:
    """The settings ``given`` as the validator takes them, dropping each refused one.

    Returns the checked settings (every field; a refused one at its default)
    and the refusals ``{field: reason}``, each field's first, and the fields
    dropped though not refused. Each round drops the fields refused, so the
    rest still apply; a field then missing that another needs (the custom
    table of ``table=custom``) drops the fields that need it (its
    ``used_when``).
    """
    errors: dict[str, str] = {}
    dropped: set[str] = set()
    kept = dict(given)
    while True:
        try:
            return validate(kept).to_json(), errors, dropped
        except ParamError as err:
            for name, reason in err.fields.items():
                errors.setdefault(name, reason)
            drop = {name for name in err.fields if name in kept}
            if not drop:
                drop = {
                    other
                    for name in err.fields
                    for other in spec.get(name, {}).get("used_when", {})
                    if other in kept
                }
                dropped |= drop
            if not drop:
                # Nothing of the link left to drop: the defaults themselves.
                return validate({}).to_json(), errors, dropped | kept.keys()
            for name in drop:
                del kept[name]


def read_link(runner: Runner, fragment: str) -> dict[str, Any] | None:
    """What the fragment ``TARGET?QUERY`` asks of ``runner``'s lab; ``None`` without settings.

    ``{"target", "params", "errors"}``: ``params`` every setting of the lab
    as its form should now hold it (the link's accepted values, the others
    at the spec's defaults), ``errors`` each refused or unknown name with
    the validator's reason. Any text is read: a truncated or hand-edited
    link gives refusals, never an exception.
    """
    text = fragment[1:] if fragment.startswith("#") else fragment
    if SETTINGS not in text:
        return None
    target, _, query = text.partition(SETTINGS)
    spec = runner.spec()
    given, unknown = _given(spec, runner.validate, query)
    params, errors, dropped = _validated(spec, runner.validate, given)
    for name, value in given.items():
        if name in errors and spec[name]["kind"] in TYPED:
            # Shown as the link had it, for the reader to see and fix; a refused
            # choice stays at its default (a select cannot hold it).
            params[name] = value
        elif name in dropped:
            # Fine itself, dropped only for a field that needs it: as checked alone.
            values, refused = check(spec, {name: value})
            if not refused:
                params[name] = _plain(values[name])
    return {"target": unquote(target), "params": params, "errors": {**unknown, **errors}}
