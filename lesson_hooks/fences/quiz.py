"""Check-your-understanding quizzes declared in Markdown as ```` ```lab-quiz ```` fences.

A contributor writes the quiz as YAML in a fence on any page::

    ```lab-quiz
    id: check-understanding
    prompt: Check your understanding.
    questions:
      - text: Is a debate with a winner and a loser cooperative?
        explanation: Cooperation needs one shared reward.
        options:
          - text: No, the rewards are opposed.
            correct: true
            feedback: One side's gain is the other's loss.
          - text: Yes, the models talk to each other.
            feedback: Talking is not sharing a reward.
    ```

A question with more than one ``correct: true`` option is a multiple-answer
question (checkboxes); otherwise it takes one answer (radio buttons). Every
option needs its own feedback. The build validates every quiz before any page
renders (``docs/<page>.md:<line>: ...``), writes each one's spec to
``assets/lab/quizzes/<id>.json`` for the Python grader
(:func:`lab.graded.quiz.check_quiz`), and replaces the fence with a form that reads as
the whole quiz, answers in collapsed blocks, without JavaScript;
``assets/lab/widgets/quiz.js`` enhances it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from html import escape
from typing import Any

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lesson_hooks.fences import base as fence_blocks
from lesson_hooks.fences.base import SLUG, Fence, FenceError
from lesson_hooks.fences.base import file_lines as fence_lines
from lesson_hooks.fences.base import find_fences as _find_fences
from lesson_hooks.fences.mapping import _keys, _Reader, collect_graded

FENCE_INFO = "lab-quiz"
SPEC_DIR = "assets/lab/quizzes"
MIN_OPTIONS = 2

_QUIZ_KEYS = ("id", "prompt", "questions")
_QUESTION_KEYS = ("text", "explanation", "options")
_OPTION_KEYS = ("text", "correct", "feedback")


class QuizError(FenceError):
    """A bad quiz; the message starts with ``path:line:``."""


@dataclass(frozen=True)
class Option:
    text: str
    correct: bool
    feedback: str


@dataclass(frozen=True)
class Question:
    n: int
    text: str
    explanation: str
    options: tuple[Option, ...]

    @property
    def multiple(self) -> bool:
        return sum(option.correct for option in self.options) > 1


@dataclass(frozen=True)
class Quiz:
    id: str
    prompt: str
    questions: tuple[Question, ...]
    path: str
    line: int

    @cached_property
    def spec(self) -> dict[str, Any]:
        """The JSON the grader reads; ``version`` hashes everything else."""
        content: dict[str, Any] = {
            "id": self.id,
            "prompt": self.prompt,
            "questions": [
                {
                    "n": q.n,
                    "text": q.text,
                    "multiple": q.multiple,
                    "explanation": q.explanation,
                    "options": [
                        {"text": o.text, "correct": o.correct, "feedback": o.feedback}
                        for o in q.options
                    ],
                }
                for q in self.questions
            ],
        }
        canonical = json.dumps(content, sort_keys=True, ensure_ascii=False)
        version = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]
        return {"id": self.id, "version": version, **content}

    @property
    def spec_path(self) -> str:
        return f"{SPEC_DIR}/{self.id}.json"


class _QuizReader(_Reader):
    """Turns one fence's YAML into a Quiz, failing at the offending line."""

    def fail(self, at: yaml.Node | int, problem: str) -> QuizError:
        line = at if isinstance(at, int) else self.line_of(at)
        return QuizError(self.path, line, problem)

    def read(self) -> Quiz:  # type: ignore[override]
        entries = self.top(_QUIZ_KEYS, _QUIZ_KEYS, "quiz")
        quiz_id = self.text(*entries["id"], "`id`")
        if not SLUG.match(quiz_id):
            raise self.fail(
                entries["id"][1],
                f"`id` {quiz_id!r} must be lowercase letters, digits and single hyphens "
                "(like check-understanding).",
            )
        prompt = self.text(*entries["prompt"], "`prompt`")
        items = self.sequence(*entries["questions"], "`questions`")
        if not items:
            raise self.fail(entries["questions"][0], "`questions` needs at least one question.")
        questions = tuple(self.question(n, item) for n, item in enumerate(items, start=1))
        return Quiz(quiz_id, prompt, questions, self.path, self.fence.line)

    def question(self, n: int, item: yaml.Node) -> Question:
        what = f"question {n}"
        if not isinstance(item, yaml.MappingNode):
            raise self.fail(item, f"{what} must be a mapping with keys {_keys(_QUESTION_KEYS)}.")
        entries = self.mapping(item, _QUESTION_KEYS, what)
        for key in _QUESTION_KEYS:
            if key not in entries:
                raise self.fail(item, f"{what} has no `{key}`.")
        text = self.text(*entries["text"], f"the `text` of {what}")
        explanation = self.text(*entries["explanation"], f"the `explanation` of {what}")
        key, value = entries["options"]
        nodes = self.sequence(key, value, f"the `options` of {what}")
        if len(nodes) < MIN_OPTIONS:
            raise self.fail(key, f"{what} needs at least {MIN_OPTIONS} options.")
        options: list[Option] = []
        seen: dict[str, int] = {}
        for i, node in enumerate(nodes, start=1):
            option = self.option(f"option {i} of {what}", node)
            if option.text in seen:
                raise self.fail(
                    node,
                    f"option {i} of {what} repeats option {seen[option.text]} ({option.text!r}).",
                )
            seen[option.text] = i
            options.append(option)
        if not any(option.correct for option in options):
            raise self.fail(key, f"{what} has no option with `correct: true`.")
        return Question(n, text, explanation, tuple(options))

    def option(self, what: str, node: yaml.Node) -> Option:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping with keys {_keys(_OPTION_KEYS)}.")
        entries = self.mapping(node, _OPTION_KEYS, what)
        for key in ("text", "feedback"):
            if key not in entries:
                raise self.fail(node, f"{what} has no `{key}` (every option explains itself).")
        correct = False
        if "correct" in entries:
            key, value = entries["correct"]
            if not (isinstance(value, yaml.ScalarNode) and value.value in ("true", "false")):
                raise self.fail(value, f"`correct` in {what} must be true or false.")
            correct = value.value == "true"
        return Option(
            self.text(*entries["text"], f"the `text` of {what}"),
            correct,
            self.text(*entries["feedback"], f"the `feedback` of {what}"),
        )


def parse_quiz(fence: Fence, path: str) -> Quiz:
    return _QuizReader(fence, path).read()  # type: ignore[return-value]


def parse_page(markdown: str, path: str) -> list[Quiz]:
    """Every quiz on one page, in order."""
    fences = _find_fences(markdown, path, FENCE_INFO, QuizError)
    return [parse_quiz(fence, path) for fence in fences]


def check_unique(quizzes: list[Quiz]) -> None:
    first: dict[str, Quiz] = {}
    for quiz in quizzes:
        if quiz.id in first:
            other = first[quiz.id]
            raise QuizError(
                quiz.path,
                quiz.line,
                f"quiz id {quiz.id!r} is already used at {other.path}:{other.line}.",
            )
        first[quiz.id] = quiz


def _hint(question: Question) -> str:
    return "Choose every answer that applies." if question.multiple else "Choose one answer."


def render_question(quiz: Quiz, question: Question) -> str:
    prefix = f"lab-{quiz.id}-q{question.n}"
    kind = "checkbox" if question.multiple else "radio"
    options = "\n".join(
        f'<li class="lab-quiz__option" data-lab-option="{i}">'
        f'<label><input type="{kind}" name="{prefix}" value="{i}"> '
        f"<span>{escape(option.text)}</span></label>"
        f'<p class="lab-quiz__option-feedback" data-lab-option-feedback hidden></p></li>'
        for i, option in enumerate(question.options)
    )
    right = [o for o in question.options if o.correct]
    answers = "\n".join(
        f"<li><strong>{'Right' if o.correct else 'Not right'}:</strong> {escape(o.text)}. "
        f"{escape(o.feedback)}</li>"
        for o in question.options
    )
    label = "Answers" if len(right) > 1 else "Answer"
    return f"""<fieldset class="lab-quiz__question" data-lab-question="{question.n}" \
aria-describedby="{prefix}-hint">
<legend class="lab-quiz__text">{escape(question.text)}</legend>
<p class="lab-quiz__hint" id="{prefix}-hint">{_hint(question)}</p>
<ul class="lab-quiz__options">
{options}
</ul>
<p class="lab-quiz__verdict" data-lab-verdict hidden></p>
<details class="lab-quiz__answer note" data-lab-answer>
<summary>{label} and explanation</summary>
<ul>
{answers}
</ul>
<p>{escape(question.explanation)}</p>
</details>
</fieldset>"""


def render_quiz(quiz: Quiz, spec_url: str) -> str:
    """A plain form that reads as the whole quiz; quiz.js grades it."""
    questions = "\n".join(f"<li>{render_question(quiz, q)}</li>" for q in quiz.questions)
    return f"""<div class="lab lab-quiz" id="lab-{quiz.id}" data-lab="quiz" \
data-lab-id="{quiz.id}" data-lab-spec="{escape(spec_url)}" \
data-lab-version="{quiz.spec["version"]}">
<p class="lab-quiz__prompt">{escape(quiz.prompt)}</p>
<ol class="lab-quiz__questions">
{questions}
</ol>
<div class="lab-quiz__controls" data-lab-controls hidden>
<button type="button" class="md-button md-button--primary" data-lab-action="check">Check</button>
<button type="button" class="md-button" data-lab-action="clear">Clear</button>
<p class="lab-quiz__summary" data-lab-summary></p>
</div>
<p class="lab-status" data-lab-status role="status"></p>
<div class="lab-visually-hidden" data-lab-announcer aria-live="polite"></div>
</div>"""


# Rendered markup per page (src_uri), filled by on_files for on_page_markdown.
_rendered: dict[str, list[str]] = {}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    _rendered.clear()
    _rendered.update(collect_graded(files, config, parse_page, check_unique, render_quiz))
    return files


@fence_lines
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    blocks = _rendered.get(page.file.src_uri)
    if not blocks:
        return markdown
    path = fence_blocks.display_path(page.file, config)
    fences = _find_fences(markdown, path, FENCE_INFO, QuizError)
    return fence_blocks.replace_fences(markdown, fences, blocks)
