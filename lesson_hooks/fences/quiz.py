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
option needs its own feedback. Options show in the order written, so a quiz of
several questions whose right answers all come first is refused: a reader
could answer by position. The build validates every quiz before any page
renders (``docs/<page>.md:<line>: ...``), writes each one's spec to
``assets/lab/quizzes/<id>.json`` for the Python grader
(:func:`lab.graded.quiz.check_quiz`; :mod:`lesson_hooks.fences.graded`), and renders
the block as a form that reads as the whole quiz, answers in collapsed blocks,
without JavaScript; ``assets/lab/widgets/quiz.js`` enhances it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import yaml

from lab.core.markup import Markup, el, join, void
from lesson_hooks.fences import graded
from lesson_hooks.fences.base import NOT_SEARCHED, Fence, Reader
from lesson_hooks.fences.graded import Graded, graded_fence

SPEC_DIR = "assets/lab/quizzes"
MIN_OPTIONS = 2

_QUIZ_KEYS = ("id", "prompt", "questions")
_QUESTION_KEYS = ("text", "explanation", "options")
_OPTION_KEYS = ("text", "correct", "feedback")


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
class Quiz(Graded):
    SPEC_DIR = SPEC_DIR

    prompt: str
    questions: tuple[Question, ...]

    def content(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "prompt": self.prompt,
            "questions": [
                {
                    "n": q.n,
                    "text": q.text,
                    "multiple": q.multiple,
                    "explanation": q.explanation,
                    "options": [asdict(option) for option in q.options],
                }
                for q in self.questions
            ],
        }


def answer_first(question: Question) -> bool:
    """Whether ``question``'s right options are its first ones (all of them, before any wrong)."""
    right = sum(option.correct for option in question.options)
    return all(option.correct for option in question.options[:right])


class _QuizReader(Reader):
    """Turns one block's YAML into a Quiz, failing at the offending line."""

    def read(self) -> Quiz:
        entries = self.top(_QUIZ_KEYS, _QUIZ_KEYS, "quiz")
        quiz_id = self.slug(entries["id"], "check-understanding")
        prompt = self.text(*entries["prompt"], "`prompt`")
        items = self.sequence(*entries["questions"], "`questions`")
        if not items:
            raise self.fail(entries["questions"][0], "`questions` needs at least one question.")
        questions = tuple(self.question(n, item) for n, item in enumerate(items, start=1))
        if len(questions) > 1 and all(answer_first(q) for q in questions):
            raise self.fail(
                self.fence.line,
                f"every one of the quiz's {len(questions)} questions puts its right answer(s) "
                "first, so a reader can answer without reading: put the right options at "
                "different positions.",
            )
        return Quiz(quiz_id, self.fence.page.path, self.fence.line, prompt, questions)

    def question(self, n: int, item: yaml.Node) -> Question:
        what = f"question {n}"
        entries = self.item(item, _QUESTION_KEYS, _QUESTION_KEYS, what)
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
        entries = self.item(
            node, _OPTION_KEYS, ("text", "feedback"), what, " (every option explains itself)"
        )
        correct = "correct" in entries and self.flag(*entries["correct"], f" in {what}")
        return Option(
            self.text(*entries["text"], f"the `text` of {what}"),
            correct,
            self.text(*entries["feedback"], f"the `feedback` of {what}"),
        )


def read_quiz(fence: Fence) -> Quiz:
    """Validate one block's YAML; raise FenceError naming its file and line."""
    return _QuizReader(fence).read()


def sentence(text: str) -> str:
    """``text`` ending as a sentence: a full stop added only when it has no closing mark."""
    closed = text.rstrip("\"'\u201d\u2019)").endswith((".", "!", "?", "\u2026"))
    return text if closed else f"{text}."


def _hint(question: Question) -> str:
    return "Choose every answer that applies." if question.multiple else "Choose one answer."


def render_question(quiz: Quiz, question: Question) -> Markup:
    prefix = f"lab-{quiz.id}-q{question.n}"
    kind = "checkbox" if question.multiple else "radio"
    options = join(
        (
            el(
                "li",
                {"class": "lab-quiz__option", "data-lab-option": i},
                el(
                    "label",
                    None,
                    void("input", type=kind, name=prefix, value=i),
                    " ",
                    el("span", None, option.text),
                ),
                el(
                    "p",
                    {"class": "lab-quiz__option-feedback", "data-lab-option-feedback": True},
                    hidden=True,
                ),
            )
            for i, option in enumerate(question.options)
        ),
        "\n",
    )
    right = [o for o in question.options if o.correct]
    answers = join(
        (
            el(
                "li",
                None,
                el("strong", None, f"{'Right' if o.correct else 'Not right'}:"),
                f" {sentence(o.text)} {o.feedback}",
            )
            for o in question.options
        ),
        "\n",
    )
    label = "Answers" if len(right) > 1 else "Answer"
    return el(
        "fieldset",
        {"class": "lab-quiz__question", "data-lab-question": question.n},
        "\n",
        # The number goes with its question, not beside the hint that follows.
        el(
            "legend",
            {"class": "lab-quiz__text"},
            el("span", {"class": "lab-quiz__number"}, f"{question.n}."),
            " ",
            question.text,
        ),
        "\n",
        el("p", {"class": "lab-quiz__hint", "id": f"{prefix}-hint"}, _hint(question)),
        "\n",
        el("ul", {"class": "lab-quiz__options"}, "\n", options, "\n"),
        "\n",
        el("p", {"class": "lab-quiz__verdict", "data-lab-verdict": True}, hidden=True),
        "\n",
        el(
            "details",
            {"class": "lab-quiz__answer note", "data-lab-answer": True, **NOT_SEARCHED},
            "\n",
            el("summary", None, f"{label} and explanation"),
            "\n",
            el("ul", None, "\n", answers, "\n"),
            "\n",
            el("p", None, question.explanation),
            "\n",
        ),
        "\n",
        aria_describedby=f"{prefix}-hint",
    )


def render_quiz(quiz: Quiz, spec_url: str) -> Markup:
    """A plain form that reads as the whole quiz; quiz.js grades it."""
    questions = join((el("li", None, render_question(quiz, q)) for q in quiz.questions), "\n")
    return graded.shell(
        quiz,
        "quiz",
        spec_url,
        "\n",
        el("p", {"class": "lab-quiz__prompt"}, quiz.prompt),
        "\n",
        el("ol", {"class": "lab-quiz__questions"}, "\n", questions, "\n"),
        "\n",
        graded.controls("quiz"),
        "\n",
        graded.status(),
        "\n",
    )


FENCE = graded_fence("quiz", read_quiz, render_quiz)
formatter = FENCE.format
parse_page = FENCE.read_page
