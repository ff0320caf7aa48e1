"""Visual Labs declared in Markdown as ```` ```lab-visual-lab ```` fences.

A contributor writes the Visual Lab as YAML in a fence on any page::

    ```lab-visual-lab
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

With ``complete_feedback: true`` the Visual Lab promises a feedback line for
every wrong concept on every part, and the build fails on any pair it misses.

The build validates every Visual Lab on the site before any page renders (a bad
one fails the build with ``docs/<page>.md:<line>: ...``), writes each one's spec
to ``assets/lab/visual-labs/<id>.json`` for the Python checker
(:func:`lab.graded.visual_lab.check_visual_lab`; :mod:`lesson_hooks.fences.graded`), and
renders the block as plain markup that reads as a complete Visual Lab without
JavaScript; ``assets/lab/widgets/visual-lab.js`` enhances it. Texts are plain text,
not Markdown.

Under the author's prompt every Visual Lab shows the site's own instruction for
the enhanced widget (:data:`INSTRUCTION`), marked as an editor's note: the
widget moves concepts onto parts, whatever the prompt says, and a phone or
keyboard reader needs to be told how.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import yaml

from lab.core.markup import Markup, el, join
from lesson_hooks.fences import graded
from lesson_hooks.fences.base import NOT_SEARCHED, Fence, Reader
from lesson_hooks.fences.graded import Graded, graded_fence

SPEC_DIR = "assets/lab/visual-labs"
# How visual-lab.js is used, the same for every Visual Lab (so no block restates it);
# shown only once it has enhanced the Visual Lab (visual-lab.css).
INSTRUCTION = (
    "Tap or click a concept, then the part it names; or drag the concept onto the part. "
    "A placed concept can be picked up again and moved to another part or back to the "
    "concepts. By keyboard: Tab to a concept and press Enter or Space to pick it up, Tab "
    "to a part and press Enter to place it there; Delete on a part returns its concept, "
    "and Escape cancels a pick."
)
MIN_CONCEPTS = 2

_KEYS = ("id", "prompt", "concepts", "parts", "complete_feedback")
_REQUIRED_KEYS = ("id", "prompt", "concepts", "parts")
_PART_KEYS = ("text", "answer", "explanation", "feedback")


@dataclass(frozen=True)
class Part:
    n: int
    text: str
    answer: str
    explanation: str
    feedback: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class VisualLab(Graded):
    SPEC_DIR = SPEC_DIR

    prompt: str
    concepts: tuple[str, ...]
    parts: tuple[Part, ...]

    def content(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "prompt": self.prompt,
            "concepts": list(self.concepts),
            "parts": [asdict(part) for part in self.parts],
        }


class _VisualLabReader(Reader):
    """Turns one block's YAML nodes into a VisualLab, failing at the offending line."""

    def read(self) -> VisualLab:
        entries = self.top(_KEYS, _REQUIRED_KEYS, "Visual Lab")
        visual_lab_id = self.slug(entries["id"], "llm-collaboration")
        prompt = self.text(*entries["prompt"], "`prompt`")
        concepts = self.concepts(*entries["concepts"])
        parts = self.parts(*entries["parts"], concepts)
        if "complete_feedback" in entries and self.flag(*entries["complete_feedback"]):
            self.require_complete_feedback(entries["parts"][1], parts, concepts)
        return VisualLab(
            id=visual_lab_id,
            path=self.fence.page.path,
            line=self.fence.line,
            prompt=prompt,
            concepts=concepts,
            parts=parts,
        )

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
            entries = self.item(item, _PART_KEYS, ("text", "answer", "explanation"), what)
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


def read_visual_lab(fence: Fence) -> VisualLab:
    """Validate one block's YAML; raise FenceError naming its file and line."""
    return _VisualLabReader(fence).read()


def _instruction(prefix: str) -> Markup:
    return el(
        "p",
        {
            "class": "lab-visual-lab__instructions lesson-editor-note",
            "id": f"{prefix}-instructions",
        },
        el("em", None, "Editor's note:"),
        f" {INSTRUCTION}",
    )


def render_visual_lab(visual_lab: VisualLab, spec_url: str) -> Markup:
    """Plain markup that reads as the whole Visual Lab; visual-lab.js enhances it."""
    prefix = f"lab-{visual_lab.id}"
    concepts = join(
        (el("li", {"data-lab-concept": concept}, concept) for concept in visual_lab.concepts), "\n"
    )
    parts = join(
        (
            el(
                "li",
                {
                    "class": "lab-visual-lab__part",
                    "id": f"{prefix}-part-{part.n}",
                    "data-lab-part": part.n,
                },
                el(
                    "span",
                    {"class": "lab-visual-lab__part-text", "id": f"{prefix}-part-{part.n}-text"},
                    part.text,
                ),
            )
            for part in visual_lab.parts
        ),
        "\n",
    )
    answers = join(
        (
            el(
                "li",
                None,
                f"{part.text}: ",
                el("strong", None, part.answer),
                f". {part.explanation}",
            )
            for part in visual_lab.parts
        ),
        "\n",
    )
    return graded.shell(
        visual_lab,
        "visual-lab",
        spec_url,
        "\n",
        el("p", {"class": "lab-visual-lab__prompt", "id": f"{prefix}-prompt"}, visual_lab.prompt),
        "\n",
        _instruction(prefix),
        "\n",
        el(
            "ul",
            {"class": "lab-visual-lab__concepts", "data-lab-concepts": True},
            "\n",
            concepts,
            "\n",
        ),
        "\n",
        el("ol", {"class": "lab-visual-lab__parts", "data-lab-parts": True}, "\n", parts, "\n"),
        "\n",
        graded.controls("visual-lab", buttons_hidden=True),
        "\n",
        graded.status(),
        "\n",
        el(
            "details",
            {"class": "lab-visual-lab__answers note", "data-lab-answers": True, **NOT_SEARCHED},
            "\n",
            el("summary", None, "Answers and explanations"),
            "\n",
            el("ol", None, "\n", answers, "\n"),
            "\n",
        ),
        "\n",
    )


FENCE = graded_fence("visual-lab", read_visual_lab, render_visual_lab)
formatter = FENCE.format
parse_page = FENCE.read_page
