"""The base every lab block is read on: its fence, its located error, its YAML reader.

A lab block is a fenced block (```` ```lab-<kind> ````) whose body is YAML.
Each kind's module (:mod:`lesson_hooks.fences.visual_lab`, ...) reads that YAML
with a :class:`Reader`, which fails at the offending node's line in the file
(``docs/page.md:LINE: ...``), and says "did you mean" with :func:`did_you_mean`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from mkdocs.exceptions import PluginError
from pymdownx.superfences import SuperFencesException

from lab import ParamError
from lab.core.rules import ID, ID_WORDS

#: YAML's tag for an empty value.
NULL_TAG = "tag:yaml.org,2002:null"

# libyaml composes a block about ten times faster than pure-Python PyYAML (a
# site's blocks are read twice per build), with the same nodes and start lines.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: A mapping's entries by key: the key's node and the value's node.
Entries = dict[str, tuple[yaml.Node, yaml.Node]]

#: The attribute that keeps an element out of the site's search index (Material's and
#: Zensical's search skip ``data-search-exclude``): what a lab holds back until the
#: reader has tried (answers, hints, a solution), and its buttons, which a search
#: result would show as words run together ("Run the testsCheckStop").
NOT_SEARCHED: Mapping[str, bool] = {"data-search-exclude": True}


class FenceError(PluginError, SuperFencesException):
    """A bad lab block; the message starts with ``path:line:``.

    It is a ``SuperFencesException`` so that SuperFences lets it through: any
    other error in a custom fence makes SuperFences give up on the block and
    publish it as text. ``where`` replaces ``path:line`` when the block's line
    in the file is unknown (:meth:`Fence.error`).
    """

    def __init__(self, path: str | None, line: int, problem: str, where: str = "") -> None:
        super().__init__(f"{where or f'{path}:{line}'}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class Page:
    """What a block knows of the page it is on: none of it without the build's hooks."""

    #: The page as a contributor names it (``docs/lesson.md``); ``None`` when unknown.
    path: str | None = None
    #: The page's URL from the site's root (``lesson/``), for page-relative links.
    url: str = ""
    #: The lab kinds whose blocks the page has; ``None`` when unknown.
    kinds: frozenset[str] | None = None


@dataclass(frozen=True)
class Fence:
    """One lab block: its name (``lab-quiz``), its body, where it stands."""

    name: str
    body: str
    #: The line of its opening fence in the file; 0 when unknown.
    line: int = 0
    page: Page = field(default_factory=Page)
    #: How many blocks of its kind come before it on the page.
    index: int = 0

    def error(self, line: int, problem: str) -> FenceError:
        """The block's error at ``line`` of the file.

        A block whose place is unknown (a build that runs no hooks, a block
        the page's source does not show) counts ``line`` from its opening fence.
        """
        if self.line and self.page.path:
            return FenceError(self.page.path, line, problem)
        where = f"a ```{self.name} block"
        if line > self.line:
            where += f", line {line - self.line} from its opening fence"
        if self.page.path:
            where = f"{self.page.path}: {where}"
        return FenceError(self.page.path, line, problem, where)


def compose_yaml(text: str) -> yaml.Node | None:
    """A block's YAML as nodes (with line marks), by libyaml when PyYAML has it.

    A block libyaml refuses is composed again by PyYAML, so an error reads in
    PyYAML's words (``yaml.MarkedYAMLError``), which the readers quote.
    """
    try:
        return yaml.compose(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        return yaml.compose(text, Loader=yaml.SafeLoader)


# PyYAML's problems, in a writer's words: (the start of its message, what to do).
_YAML_WORDS = (
    (
        "mapping values are not allowed",
        "a colon and a space (`: `) where YAML expects none; put a value holding `: ` "
        "in quotes, or line this key up with the keys above it.",
    ),
    (
        "could not find expected ':'",
        "this line is not `key: value` and does not go on from the line above; "
        "add the key and a space after its colon, or indent it under its key.",
    ),
    ("found unexpected end of stream", "a quotation or bracket opened here is never closed."),
    (
        "expected the node content",
        "the block ends inside a list or mapping opened with `[` or `{`; close it.",
    ),
    (
        "found character",
        "a value cannot start with this character; put the value in quotes.",
    ),
    ("expected ',' or ']'", "the list opened with `[` here is not closed with `]`."),
    ("expected ',' or '}'", "the mapping opened with `{` here is not closed with `}`."),
    (
        "expected <block end>, but found '<scalar>'",
        "the value goes on after its closing quote; put the whole value in quotes.",
    ),
    (
        "expected <block end>",
        "this line does not line up with the lines beside it; indent it like the other keys "
        "or list items at its level.",
    ),
    (
        "expected '<document start>'",
        "the block's first line is indented more than a line below it; start every "
        "top-level key at the same column: remove this line's indent.",
    ),
    ("found undefined alias", "a value starting with `*` is read as an alias; quote the value."),
    (
        "expected alphabetic or numeric character",
        "a value starting with `*` or `&` is read as YAML's own; quote the value.",
    ),
)

# Where PyYAML's context mark, not its problem mark, is the line to fix: the
# problem is found only at the next token (often the next line), after the
# key, quotation or bracket that opened it.
_OPENED_AT_CONTEXT = ("simple key", "quoted scalar", "flow sequence", "flow mapping")


def yaml_problem(err: yaml.MarkedYAMLError, text: str) -> tuple[int | None, str]:
    """Where in a block's body ``text`` (0-based line) YAML failed, and what to do, in
    plain words."""
    context = err.context or ""
    opened = err.context_mark is not None and any(c in context for c in _OPENED_AT_CONTEXT)
    mark = err.context_mark if opened else (err.problem_mark or err.context_mark)
    problem = err.problem or ""
    words = next(
        (words for start, words in _YAML_WORDS if problem.startswith(start)),
        f"YAML cannot read this line ({problem}).",
    )
    if mark is None:
        return None, words
    # A problem found at the body's end (or a blank line) belongs to the last written line.
    lines = text.split("\n")
    if problem.startswith("expected '<document start>'"):
        # Found at the first line indented less than the first: the indented first line
        # is what a writer fixes (the others line up with each other).
        return next(i for i, written in enumerate(lines) if written.strip()), words
    line = min(mark.line, len(lines) - 1)
    while line > 0 and not lines[line].strip():
        line -= 1
    return line, words


def keys(names: Iterable[str]) -> str:
    """Names as a contributor writes them: `a`, `b`, `c`."""
    return ", ".join(f"`{name}`" for name in names)


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """ " Did you mean `x`?" for the choice closest to a misspelt ``word``, or nothing."""
    close = difflib.get_close_matches(str(word), list(choices), n=1)
    return f" Did you mean `{close[0]}`?" if close else ""


def scalar(node: yaml.Node) -> Any:
    """A YAML node as the safe loader reads it (numbers as numbers, lists as lists)."""
    return yaml.safe_load(yaml.serialize(node))


class Reader:
    """Reads one block's YAML nodes, failing at the line of the offending node."""

    def __init__(self, fence: Fence) -> None:
        self.fence = fence

    def line_of(self, node: yaml.Node) -> int:
        return self.fence.line + 1 + node.start_mark.line

    def fail(self, at: yaml.Node | int, problem: str) -> FenceError:
        return self.fence.error(at if isinstance(at, int) else self.line_of(at), problem)

    def root(self) -> yaml.Node | None:
        """The body's YAML, or ``None`` for an empty body."""
        try:
            root = compose_yaml(self.fence.body)
        except yaml.MarkedYAMLError as err:
            at, words = yaml_problem(err, self.fence.body)
            line = self.fence.line + 1 + at if at is not None else self.fence.line
            raise self.fail(line, f"invalid YAML: {words}") from err
        if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == NULL_TAG):
            return None
        return root

    def top(self, allowed: tuple[str, ...], required: tuple[str, ...], noun: str) -> Entries:
        """The body's mapping, every required key present (``noun``: "quiz")."""
        root = self.root()
        if root is None:
            raise self.fail(self.fence.line, f"the {noun} is empty.")
        if not isinstance(root, yaml.MappingNode):
            article = "an" if noun[0] in "aeiou" else "a"
            raise self.fail(root, f"{article} {noun} is a mapping with keys {keys(allowed)}.")
        entries = self.mapping(root, allowed, f"the {noun}")
        for key in required:
            if key not in entries:
                raise self.fail(self.fence.line, f"the {noun} has no `{key}`.")
        return entries

    def mapping(self, node: yaml.MappingNode, allowed: tuple[str, ...], what: str) -> Entries:
        """A mapping's entries: only ``allowed`` keys, each once."""
        entries: Entries = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key not in allowed:
                raise self.fail(
                    key_node,
                    f"unknown key {key!r} in {what} (expected {keys(allowed)})."
                    + did_you_mean(key, allowed),
                )
            if key in entries:
                raise self.fail(key_node, f"`{key}` appears twice in {what}.")
            entries[key] = (key_node, value_node)
        return entries

    def item(
        self,
        node: yaml.Node,
        allowed: tuple[str, ...],
        required: Iterable[str],
        what: str,
        missing: str = "",
    ) -> Entries:
        """One list item that is a mapping (a part, a question, an option) with its keys."""
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping with keys {keys(allowed)}.")
        entries = self.mapping(node, allowed, what)
        for key in required:
            if key not in entries:
                raise self.fail(node, f"{what} has no `{key}`{missing}.")
        return entries

    def text(self, key: yaml.Node, value: yaml.Node, what: str) -> str:
        if not isinstance(value, yaml.ScalarNode):
            raise self.fail(value, f"{what} must be text.")
        text = "" if value.tag == NULL_TAG else value.value.strip()
        if not text:
            raise self.fail(key, f"{what} is empty.")
        return text

    def slug(self, entry: tuple[yaml.Node, yaml.Node], example: str) -> str:
        """The block's ``id``, which names elements and files: :data:`lab.core.rules.ID`."""
        value = self.text(*entry, "`id`")
        if not ID.fullmatch(value):
            raise self.fail(entry[1], f"`id` {value!r} must be {ID_WORDS} (like {example}).")
        return value

    def flag(self, key: yaml.Node, value: yaml.Node, where: str = "") -> bool:
        """``true`` or ``false``; ``where`` names the item (" in option 2 of question 1")."""
        if not (isinstance(value, yaml.ScalarNode) and value.value in ("true", "false")):
            raise self.fail(value, f"`{key.value}`{where} must be true or false.")
        return value.value == "true"

    def sequence(self, key: yaml.Node, value: yaml.Node, what: str) -> list[yaml.Node]:
        if isinstance(value, yaml.ScalarNode) and value.tag == NULL_TAG:
            return []
        if not isinstance(value, yaml.SequenceNode):
            raise self.fail(value, f"{what} must be a list.")
        return value.value

    def values(
        self, what: str, node: yaml.Node, not_a_mapping: str
    ) -> tuple[dict[str, Any], dict[str, int]]:
        """A mapping of parameter names to values (``what``: "`settings`") and their lines."""
        if isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG:
            return {}, {}
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, not_a_mapping)
        values: dict[str, Any] = {}
        lines: dict[str, int] = {}
        for name_node, value_node in node.value:
            key = str(scalar(name_node))
            if key in values:
                raise self.fail(name_node, f"{what} sets {key!r} twice.")
            values[key] = scalar(value_node)
            lines[key] = self.line_of(name_node)
        return values, lines

    def checked(
        self,
        validate: Callable[[Mapping[str, Any]], Any],
        values: Mapping[str, Any],
        lines: Mapping[str, int],
        at: int,
        say: Callable[[str, str], str],
    ) -> Any:
        """``validate(values)``; its first refusal fails at that value's line (else at ``at``).

        ``say(name, reason)`` words the refusal.
        """
        try:
            return validate(values)
        except ParamError as err:
            name, reason = next(iter(err.fields.items()))
            raise self.fail(lines.get(name, at), say(name, reason)) from err
