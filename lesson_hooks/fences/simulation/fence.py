"""Reading a ```` ```lab-simulation ```` fence: its id and the form's starting values.

A page places the lab with a fence whose YAML body is optional::

    ```lab-simulation
    id: simulation            # optional; names the lab's element ids (lab-<id>-...)
    defaults:                 # optional; starting values, checked by lab.validate_params
      turns: 2
    ```

A bad fence fails the build with ``docs/<page>.md:<line>: ...``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from lab import ParamError, SimParams, validate_params
from lesson_hooks.fences.base import NULL_TAG, SLUG, Fence, FenceError, compose_yaml
from lesson_hooks.fences.base import find_fences as _find_fences

FENCE_INFO = "lab-simulation"
DEFAULT_ID = "simulation"
FENCE_KEYS = ("id", "defaults")


class SimulationFenceError(FenceError):
    """A bad ```lab-simulation fence; the message starts with ``path:line:``."""


@dataclass(frozen=True)
class SimulationLab:
    """One lab on a page: its id and the values its form starts with."""

    id: str
    params: SimParams
    path: str
    line: int

    @property
    def prefix(self) -> str:
        """The prefix of every element id inside the lab."""
        return f"lab-{self.id}"


def find_fences(markdown: str, path: str) -> list[Fence]:
    """Every ```{FENCE_INFO} fence that starts a line, outside other fenced blocks."""
    return _find_fences(markdown, path, FENCE_INFO, SimulationFenceError)


def _scalar(node: yaml.Node) -> Any:
    """A YAML scalar as the safe loader reads it (numbers as numbers)."""
    return yaml.safe_load(yaml.serialize(node))


def _keys(keys: Sequence[str]) -> str:
    return ", ".join(f"`{key}`" for key in keys)


def parse_fence(fence: Fence, path: str) -> SimulationLab:
    """Validate one fence's YAML; raise SimulationFenceError naming ``path`` and the line."""

    def line_of(node: yaml.Node) -> int:
        return fence.line + 1 + node.start_mark.line

    def fail(line: int, problem: str) -> SimulationFenceError:
        return SimulationFenceError(path, line, problem)

    try:
        root = compose_yaml(fence.body)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = fence.line + 1 + mark.line if mark else fence.line
        raise fail(line, f"invalid YAML: {err.problem}.") from err
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == NULL_TAG):
        return SimulationLab(DEFAULT_ID, validate_params(), path, fence.line)
    if not isinstance(root, yaml.MappingNode):
        raise fail(
            line_of(root), f"the lab's settings are a mapping with keys {_keys(FENCE_KEYS)}."
        )

    entries: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in root.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in FENCE_KEYS:
            close = difflib.get_close_matches(str(key), FENCE_KEYS, n=1)
            hint = f" Did you mean `{close[0]}`?" if close else ""
            raise fail(
                line_of(key_node),
                f"unknown key {key!r} in the lab's settings (expected {_keys(FENCE_KEYS)}).{hint}",
            )
        if key in entries:
            raise fail(line_of(key_node), f"`{key}` appears twice in the lab's settings.")
        entries[key] = (key_node, value_node)

    lab_id = DEFAULT_ID
    if "id" in entries:
        node = entries["id"][1]
        value = node.value if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, str) or not SLUG.match(value):
            raise fail(
                line_of(node),
                f"`id` {value!r} must be lowercase letters, digits and single hyphens "
                "(like simulation).",
            )
        lab_id = value

    defaults: dict[str, Any] = {}
    lines: dict[str, int] = {}
    if "defaults" in entries:
        key_node, node = entries["defaults"]
        if isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG:
            node = yaml.MappingNode("tag:yaml.org,2002:map", [])
        if not isinstance(node, yaml.MappingNode):
            raise fail(line_of(node), "`defaults` maps parameter names to starting values.")
        for name_node, value_node in node.value:
            name = str(_scalar(name_node))
            if name in defaults:
                raise fail(line_of(name_node), f"`defaults` sets {name!r} twice.")
            defaults[name] = _scalar(value_node)
            lines[name] = line_of(name_node)
    try:
        params = validate_params(defaults)
    except ParamError as err:
        name, reason = next(iter(err.fields.items()))
        raise fail(lines.get(name, fence.line), f"`defaults`: {name}: {reason}") from err
    return SimulationLab(lab_id, params, path, fence.line)


def parse_page(markdown: str, path: str) -> list[SimulationLab]:
    """Every simulation lab on one page, in order; ids must differ."""
    labs = [parse_fence(fence, path) for fence in find_fences(markdown, path)]
    seen: dict[str, SimulationLab] = {}
    for lab in labs:
        if lab.id in seen:
            raise SimulationFenceError(
                path,
                lab.line,
                f"a lab with id {lab.id!r} is already on this page (line {seen[lab.id].line}); "
                "give this one its own `id`.",
            )
        seen[lab.id] = lab
    return labs
