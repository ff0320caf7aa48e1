"""Mapping exercises declared in Markdown as ```` ```lab-mapping ```` fences.

A contributor writes the exercise as YAML in a fence on any page::

    ```lab-mapping
    id: llm-collaboration
    prompt: Drag each part onto the concept it corresponds to.
    concepts: [Observation, Policy]
    parts:
      - text: The prompt given to one model
        answer: Observation
        explanation: What a model sees is its observation.
        feedback:                 # optional, for specific wrong choices
          Policy: The prompt is the model's input, not the model.
    ```

With ``complete_feedback: true`` the exercise promises a feedback line for
every wrong concept on every part, and the build fails on any pair it misses.

The build validates every exercise on the site before any page renders (a bad
one fails the build with ``docs/<page>.md:<line>: ...``), writes each one's spec
to ``assets/lab/exercises/<id>.json`` for the Python checker
(:func:`lab.graded.mapping.check_mapping`), and replaces the fence with plain markup
that reads as a complete exercise without JavaScript; ``assets/lab/widgets/mapping.js``
enhances it. Texts are plain text, not Markdown.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from html import escape
from typing import Any, Protocol, TypeVar

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from lesson_hooks.fences import base as fence_blocks
from lesson_hooks.fences.base import NULL_TAG, SLUG, Fence, FenceError
from lesson_hooks.fences.base import file_lines as fence_lines
from lesson_hooks.fences.base import find_fences as _find_fences

FENCE_INFO = "lab-mapping"
SPEC_DIR = "assets/lab/exercises"
MIN_CONCEPTS = 2

_EXERCISE_KEYS = ("id", "prompt", "concepts", "parts", "complete_feedback")
_REQUIRED_KEYS = ("id", "prompt", "concepts", "parts")
_PART_KEYS = ("text", "answer", "explanation", "feedback")


G = TypeVar("G", bound="Graded")


class ExerciseError(FenceError):
    """A bad exercise; the message starts with ``path:line:``."""


@dataclass(frozen=True)
class Part:
    n: int
    text: str
    answer: str
    explanation: str
    feedback: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Exercise:
    id: str
    prompt: str
    concepts: tuple[str, ...]
    parts: tuple[Part, ...]
    path: str
    line: int

    @cached_property
    def spec(self) -> dict[str, Any]:
        """The JSON the checker grades against; ``version`` hashes everything else."""
        content: dict[str, Any] = {
            "id": self.id,
            "prompt": self.prompt,
            "concepts": list(self.concepts),
            "parts": [
                {
                    "n": part.n,
                    "text": part.text,
                    "answer": part.answer,
                    "explanation": part.explanation,
                    "feedback": dict(part.feedback),
                }
                for part in self.parts
            ],
        }
        canonical = json.dumps(content, sort_keys=True, ensure_ascii=False)
        version = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]
        return {"id": self.id, "version": version, **content}

    @property
    def spec_path(self) -> str:
        """Where the spec lives in the built site."""
        return f"{SPEC_DIR}/{self.id}.json"


def find_fences(markdown: str, path: str) -> list[Fence]:
    """Every ```{FENCE_INFO} fence that starts a line, outside other fenced blocks."""
    return _find_fences(markdown, path, FENCE_INFO, ExerciseError)


class _Reader:
    """Turns one fence's YAML nodes into an Exercise, failing at the offending line."""

    def __init__(self, fence: Fence, path: str) -> None:
        self.fence = fence
        self.path = path

    def line_of(self, node: yaml.Node) -> int:
        return self.fence.line + 1 + node.start_mark.line

    def fail(self, at: yaml.Node | int, problem: str) -> ExerciseError:
        line = at if isinstance(at, int) else self.line_of(at)
        return ExerciseError(self.path, line, problem)

    def top(
        self, allowed: tuple[str, ...], required: tuple[str, ...], noun: str
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """The fence's top-level mapping, every required key present (``noun``: "exercise")."""
        try:
            root = fence_blocks.compose_yaml(self.fence.body)
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            line = self.fence.line + 1 + mark.line if mark else self.fence.line
            raise self.fail(line, f"invalid YAML: {err.problem}.") from err
        if root is None:
            raise self.fail(self.fence.line, f"the {noun} is empty.")
        if not isinstance(root, yaml.MappingNode):
            article = "an" if noun[0] in "aeiou" else "a"
            raise self.fail(root, f"{article} {noun} is a mapping with keys {_keys(allowed)}.")
        entries = self.mapping(root, allowed, f"the {noun}")
        for key in required:
            if key not in entries:
                raise self.fail(self.fence.line, f"the {noun} has no `{key}`.")
        return entries

    def read(self) -> Exercise:
        entries = self.top(_EXERCISE_KEYS, _REQUIRED_KEYS, "exercise")

        exercise_id = self.text(*entries["id"], "`id`")
        if not SLUG.match(exercise_id):
            raise self.fail(
                entries["id"][1],
                f"`id` {exercise_id!r} must be lowercase letters, digits and single "
                "hyphens (like llm-collaboration).",
            )
        prompt = self.text(*entries["prompt"], "`prompt`")
        concepts = self.concepts(*entries["concepts"])
        parts = self.parts(*entries["parts"], concepts)
        if "complete_feedback" in entries and self.flag(*entries["complete_feedback"]):
            self.require_complete_feedback(entries["parts"][1], parts, concepts)
        return Exercise(
            id=exercise_id,
            prompt=prompt,
            concepts=concepts,
            parts=parts,
            path=self.path,
            line=self.fence.line,
        )

    def mapping(
        self, node: yaml.MappingNode, allowed: tuple[str, ...], what: str
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        entries: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f" Did you mean `{close[0]}`?" if close else ""
                raise self.fail(
                    key_node,
                    f"unknown key {key!r} in {what} (expected {_keys(allowed)}).{hint}",
                )
            if key in entries:
                raise self.fail(key_node, f"`{key}` appears twice in {what}.")
            entries[key] = (key_node, value_node)
        return entries

    def text(self, key: yaml.Node, value: yaml.Node, what: str) -> str:
        if not isinstance(value, yaml.ScalarNode):
            raise self.fail(value, f"{what} must be text.")
        text = "" if value.tag == NULL_TAG else value.value.strip()
        if not text:
            raise self.fail(key, f"{what} is empty.")
        return text

    def flag(self, key: yaml.Node, value: yaml.Node) -> bool:
        if not (isinstance(value, yaml.ScalarNode) and value.value in ("true", "false")):
            raise self.fail(value, f"`{key.value}` must be true or false.")
        return value.value == "true"

    def require_complete_feedback(
        self, node: yaml.Node, parts: tuple[Part, ...], concepts: tuple[str, ...]
    ) -> None:
        """Every wrong concept of every part has its own line (``complete_feedback: true``)."""
        for part, item in zip(parts, node.value, strict=True):
            missing = [c for c in concepts if c != part.answer and c not in part.feedback]
            if missing:
                raise self.fail(
                    item,
                    f"part {part.n} has no `feedback` for {', '.join(map(repr, missing))}; "
                    "with `complete_feedback: true` every wrong concept needs its own line.",
                )

    def sequence(self, key: yaml.Node, value: yaml.Node, what: str) -> list[yaml.Node]:
        if isinstance(value, yaml.ScalarNode) and value.tag == NULL_TAG:
            return []
        if not isinstance(value, yaml.SequenceNode):
            raise self.fail(value, f"{what} must be a list.")
        return value.value

    def concepts(self, key: yaml.Node, value: yaml.Node) -> tuple[str, ...]:
        items = self.sequence(key, value, "`concepts`")
        if len(items) < MIN_CONCEPTS:
            raise self.fail(key, f"`concepts` needs at least {MIN_CONCEPTS} concepts.")
        seen: dict[str, yaml.Node] = {}
        for item in items:
            concept = self.text(item, item, "a concept")
            if concept in seen:
                first = self.line_of(seen[concept])
                raise self.fail(
                    item, f"concept {concept!r} is listed twice (also on line {first})."
                )
            seen[concept] = item
        return tuple(seen)

    def parts(
        self, key: yaml.Node, value: yaml.Node, concepts: tuple[str, ...]
    ) -> tuple[Part, ...]:
        items = self.sequence(key, value, "`parts`")
        if not items:
            raise self.fail(key, "`parts` needs at least one part.")
        parts: list[Part] = []
        answered: dict[str, int] = {}
        for n, item in enumerate(items, start=1):
            what = f"part {n}"
            if not isinstance(item, yaml.MappingNode):
                raise self.fail(item, f"{what} must be a mapping with keys {_keys(_PART_KEYS)}.")
            entries = self.mapping(item, _PART_KEYS, what)
            for required in ("text", "answer", "explanation"):
                if required not in entries:
                    raise self.fail(item, f"{what} has no `{required}`.")
            text = self.text(*entries["text"], f"the `text` of {what}")
            answer = self.text(*entries["answer"], f"the `answer` of {what}")
            if answer not in concepts:
                raise self.fail(
                    entries["answer"][1],
                    f"the answer of {what}, {answer!r}, is not one of the concepts "
                    f"({', '.join(concepts)}).",
                )
            if answer in answered:
                raise self.fail(
                    entries["answer"][1],
                    f"{what} has the same answer as part {answered[answer]} ({answer!r}); "
                    "each concept can be placed on one part only.",
                )
            answered[answer] = n
            explanation = self.text(*entries["explanation"], f"the `explanation` of {what}")
            feedback = (
                self.feedback(*entries["feedback"], what, answer, concepts)
                if "feedback" in entries
                else {}
            )
            parts.append(Part(n, text, answer, explanation, feedback))
        return tuple(parts)

    def feedback(
        self,
        key: yaml.Node,
        value: yaml.Node,
        what: str,
        answer: str,
        concepts: tuple[str, ...],
    ) -> dict[str, str]:
        if not isinstance(value, yaml.MappingNode):
            raise self.fail(value, f"the `feedback` of {what} must map concepts to messages.")
        feedback: dict[str, str] = {}
        for concept_node, message_node in value.value:
            concept = self.text(concept_node, concept_node, f"a `feedback` key of {what}")
            if concept not in concepts:
                raise self.fail(
                    concept_node,
                    f"the `feedback` of {what} names {concept!r}, which is not one of the "
                    f"concepts ({', '.join(concepts)}).",
                )
            if concept == answer:
                raise self.fail(
                    concept_node,
                    f"the `feedback` of {what} names its answer {concept!r}; feedback is for "
                    "wrong choices (the explanation covers the right one).",
                )
            if concept in feedback:
                raise self.fail(concept_node, f"the `feedback` of {what} names {concept!r} twice.")
            feedback[concept] = self.text(
                concept_node, message_node, f"the feedback for {concept!r} in {what}"
            )
        return feedback


def _keys(keys: tuple[str, ...]) -> str:
    return ", ".join(f"`{key}`" for key in keys)


def parse_exercise(fence: Fence, path: str) -> Exercise:
    """Validate one fence's YAML; raise ExerciseError naming ``path`` and the line."""
    return _Reader(fence, path).read()


def parse_page(markdown: str, path: str) -> list[Exercise]:
    """Every exercise on one page, in order."""
    return [parse_exercise(fence, path) for fence in find_fences(markdown, path)]


def check_unique(exercises: list[Exercise]) -> None:
    """Ids are unique across the site (they name the spec files)."""
    first: dict[str, Exercise] = {}
    for exercise in exercises:
        if exercise.id in first:
            other = first[exercise.id]
            raise ExerciseError(
                exercise.path,
                exercise.line,
                f"exercise id {exercise.id!r} is already used at {other.path}:{other.line}.",
            )
        first[exercise.id] = exercise


def render_exercise(exercise: Exercise, spec_url: str) -> str:
    """Plain markup that reads as the whole exercise; mapping.js enhances it."""
    spec = exercise.spec
    prefix = f"lab-{exercise.id}"
    concepts = "\n".join(
        f'<li data-lab-concept="{escape(concept)}">{escape(concept)}</li>'
        for concept in exercise.concepts
    )
    parts = "\n".join(
        f'<li class="lab-mapping__part" id="{prefix}-part-{part.n}" data-lab-part="{part.n}">'
        f'<span class="lab-mapping__part-text" id="{prefix}-part-{part.n}-text">'
        f"{escape(part.text)}</span></li>"
        for part in exercise.parts
    )
    answers = "\n".join(
        f"<li>{escape(part.text)}: <strong>{escape(part.answer)}</strong>. "
        f"{escape(part.explanation)}</li>"
        for part in exercise.parts
    )
    return f"""<div class="lab lab-mapping" id="{prefix}" data-lab="mapping" \
data-lab-id="{exercise.id}" data-lab-spec="{escape(spec_url)}" \
data-lab-version="{spec["version"]}">
<p class="lab-mapping__prompt" id="{prefix}-prompt">{escape(exercise.prompt)}</p>
<ul class="lab-mapping__concepts" data-lab-concepts>
{concepts}
</ul>
<ol class="lab-mapping__parts" data-lab-parts>
{parts}
</ol>
<div class="lab-mapping__controls" data-lab-controls hidden>
<button type="button" class="md-button md-button--primary" data-lab-action="check" hidden>Check\
</button>
<button type="button" class="md-button" data-lab-action="clear" hidden>Clear</button>
<p class="lab-mapping__summary" data-lab-summary></p>
</div>
<p class="lab-status" data-lab-status role="status"></p>
<div class="lab-visually-hidden" data-lab-announcer aria-live="polite"></div>
<details class="lab-mapping__answers note" data-lab-answers>
<summary>Answers and explanations</summary>
<ol>
{answers}
</ol>
</details>
</div>"""


def replace_fences(markdown: str, path: str, blocks: list[str]) -> str:
    """Swap each fence on the page for its block of markup, in order."""
    fences = find_fences(markdown, path)
    if len(fences) != len(blocks):
        raise PluginError(
            f"{path}: found {len(fences)} ```{FENCE_INFO} fences while rendering but "
            f"{len(blocks)} when the build read the page; did another plugin change it?"
        )
    return fence_blocks.replace_fences(markdown, fences, blocks)


class Graded(Protocol):
    """A fence the worker grades against a spec file: an exercise or a quiz."""

    @property
    def spec(self) -> dict[str, Any]: ...

    @property
    def spec_path(self) -> str: ...


def collect_graded(
    files: Files,
    config: MkDocsConfig,
    parse: Callable[[str, str], list[G]],
    unique: Callable[[list[G]], None],
    render: Callable[[G, str], str],
) -> dict[str, list[str]]:
    """Every page's graded fences, rendered, by page (src_uri); their specs added to ``files``.

    Every page is read up front: ids must be unique site-wide, and the spec
    files have to exist before pages render (this also covers `mkdocs serve`).
    """
    rendered: dict[str, list[str]] = {}
    found: list[G] = []
    for file in list(files):
        if not (file.is_documentation_page() and file.inclusion.is_in_serve()):
            continue
        items = parse(file.content_string, fence_blocks.display_path(file, config))
        if not items:
            continue
        unique([*found, *items])
        found.extend(items)
        rendered[file.src_uri] = [
            render(item, get_relative_url(item.spec_path, file.url)) for item in items
        ]
    for item in found:
        content = json.dumps(item.spec, ensure_ascii=False, indent=2) + "\n"
        files.append(File.generated(config, item.spec_path, content=content))
    return rendered


# Rendered markup per page (src_uri), filled by on_files for on_page_markdown.
_rendered: dict[str, list[str]] = {}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    _rendered.clear()
    _rendered.update(collect_graded(files, config, parse_page, check_unique, render_exercise))
    return files


@fence_lines
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    blocks = _rendered.get(page.file.src_uri)
    if not blocks:
        return markdown
    return replace_fences(markdown, fence_blocks.display_path(page.file, config), blocks)
