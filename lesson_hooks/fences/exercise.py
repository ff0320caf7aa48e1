"""Graded coding exercises declared in Markdown as ```` ```lab-exercise ```` blocks.

    ```lab-exercise
    id: shared-reward
    prompt: |
      Write `shared_rewards(table, helper, main)`: each agent's reward for one
      joint response, `[helper's, main's]`.
    starter: |
      def shared_rewards(table, helper, main):
          return [0.0, 0.0]
    tests:
      - call: "shared_rewards([[11, -30, 0], [-30, 7, 6], [0, 0, 5]], 0, 0)"
        expect: [11, 11]
        message: core + delegate is the best cell, and both agents get its 11.
      - call: "shared_rewards([[1, 2, 3], [4, 5, 6], [7, 8, 9]], 2, 0)"
        expect: [7, 7]
        message: Only the cell at (helper, main) is right.
        hidden: true
    hints:
      - Which index of `table` picks the row?
    solution: |
      def shared_rewards(table, helper, main):
          reward = table[helper][main]
          return [reward, reward]
    remarks: Nothing in the reward says which agent earned it.
    reference: shared-reward
    wrong:
      - code: |
          def shared_rewards(table, helper, main):
              reward = table[main][helper]
              return [reward, reward]
        reason: the table read transposed
    ```

The reader writes the function the ``starter`` defines (its first top-level
``def``, or the one ``function`` names); each test calls it (``call``, a Python
expression), says what it should return (``expect``, YAML data; numbers match
within 1e-9) and what a reader should learn from it (``message``); a
``hidden: true`` test grades without showing its call. ``hints`` are revealed
one at a time; the ``solution`` and its ``remarks`` are offered after a failed
Check or on request.
``reference`` names the lab's own function for the exercise
(:data:`lab.exercise.references.REFERENCES`): each test's ``expect`` must agree
with it, a hidden test ships without its answer (the grader computes it), and
Check adds a random test against it. ``wrong`` lists wrong solutions, each with
its ``reason``: each must run and fail a test, or the build stops at it.
``uses`` names a simulation lab on the same page whose advantage a passing
function can replace, at the settings in that lab's form
(:mod:`lab.exercise.train`); the function then takes one argument, the
group's returns.

A mistake fails the build at its line (``docs/page.md:LINE:``), and so does a
``solution`` that fails its own tests or the random test (graded here by the
reader's grader, :func:`lab.exercise.grade.check_exercise`, the random test
drawn from :data:`BUILD_SEED`), or a ``starter`` or a wrong solution that passes.
The build writes each spec to ``assets/lab/exercises/<id>.json``
(:mod:`lesson_hooks.fences.graded`). Without JavaScript the prompt, the starter
and the public tests read as text, and the hints and the solution sit in
collapsed blocks; ``widgets/exercise.js`` makes it an editor with Check.
"""

from __future__ import annotations

import ast
import functools
import json
from dataclasses import dataclass
from typing import Any

import yaml

from lab.core.markup import Markup, el, join
from lab.exercise.grade import check_exercise, reference_value, same, shown, signature
from lab.exercise.references import REFERENCES
from lesson_hooks.fences import custom, graded
from lesson_hooks.fences.base import NOT_SEARCHED, Fence, Reader, scalar
from lesson_hooks.fences.experiment import inline
from lesson_hooks.fences.graded import Graded, graded_fence
from lesson_hooks.fences.simulation.code_panel import editor_panel, highlighted
from lesson_hooks.fences.simulation.fence import read_simulation

SPEC_DIR = "assets/lab/exercises"
#: The kind of lab ``uses:`` may name, and what the reader's function replaces there.
USES_KIND = "simulation"

_KEYS = (
    "id",
    "prompt",
    "starter",
    "function",
    "tests",
    "hints",
    "solution",
    "remarks",
    "uses",
    "reference",
    "wrong",
)
_REQUIRED = ("id", "prompt", "starter", "tests", "solution", "reference", "wrong")
_TEST_KEYS = ("call", "expect", "message", "hidden")
_WRONG_KEYS = ("code", "reason")
#: The seed of the property test when the build grades the solution and the wrong ones,
#: so that the build's verdict does not change from one build to the next.
BUILD_SEED = 0


def graded_at_build(spec: dict[str, Any], source: str) -> dict[str, Any]:
    """:func:`check_exercise` of ``source`` at :data:`BUILD_SEED`, computed once per spec
    and code in a process (the result is shared: read it, never change it).

    A build reads every block four times (the site-wide hooks of the lab blocks, the
    teacher's page and the learner record, then the page's rendering), and grading
    runs the solution and each wrong solution against every test: most of a build's
    time, were it done each time. The verdict depends only on the spec, the code and
    the lab that runs it, which ``mkdocs serve`` keeps as it first imported it.
    """
    return _graded(json.dumps(spec, sort_keys=True), source)


@functools.lru_cache(maxsize=256)  # a serve session's edits, many times over
def _graded(spec: str, source: str) -> dict[str, Any]:
    return check_exercise(json.loads(spec), source, seed=BUILD_SEED)


@dataclass(frozen=True)
class Test:
    n: int
    call: str
    expect: Any
    message: str
    hidden: bool
    line: int


@dataclass(frozen=True)
class Wrong:
    """A wrong solution the block expects its tests to catch, and why it is wrong."""

    code: str
    reason: str
    line: int


@dataclass(frozen=True)
class Exercise(Graded):
    SPEC_DIR = SPEC_DIR

    prompt: str
    starter: str
    function: str
    parameters: tuple[str, ...]
    tests: tuple[Test, ...]
    hints: tuple[str, ...]
    solution: str
    remarks: str
    uses: str | None
    reference: str
    wrong: tuple[Wrong, ...]

    def content(self) -> dict[str, Any]:
        """The spec the page ships: a hidden test without its answer (the grader computes it
        from the reference), the wrong solutions left out (the build's business)."""
        return {
            "id": self.id,
            "function": self.function,
            "parameters": list(self.parameters),
            "starter": self.starter,
            "reference": self.reference,
            "tests": [
                {"n": t.n, "call": t.call, "message": t.message, "hidden": t.hidden}
                | ({} if t.hidden else {"expect": t.expect, "shown": shown(t.expect)})
                for t in self.tests
            ],
            "hints": list(self.hints),
            "solution": self.solution,
            "remarks": self.remarks,
            "uses": self.uses,
        }

    def graded_spec(self) -> dict[str, Any]:
        """The spec as the build grades it: every test shown, with the author's answer."""
        return {
            **self.content(),
            "tests": [
                {"n": t.n, "call": t.call, "expect": t.expect, "message": t.message}
                | {"shown": shown(t.expect), "hidden": False}
                for t in self.tests
            ],
        }

    @property
    def public(self) -> tuple[Test, ...]:
        return tuple(t for t in self.tests if not t.hidden)


def _code(text: str) -> str:
    return text.strip("\n") + "\n"


class _Reader(Reader):
    def read(self) -> Exercise:
        entries = self.top(_KEYS, _REQUIRED, "exercise")
        exercise_id = self.slug(entries["id"], "group-advantage")
        prompt = self.text(*entries["prompt"], "`prompt`")
        starter = _code(self.text(*entries["starter"], "`starter`"))
        defined = self.functions(entries["starter"][1], starter)
        function, parameters = defined[0]
        if "function" in entries:
            function = self.text(*entries["function"], "`function`")
            named = dict(defined)
            if function not in named:
                raise self.fail(
                    entries["function"][1],
                    f"`function`: the `starter` defines no {function!r} (it defines "
                    f"{', '.join(named)}).",
                )
            parameters = named[function]
        solution = _code(self.text(*entries["solution"], "`solution`"))
        self.parses(entries["solution"][1], solution, "`solution`")
        tests = self.tests(*entries["tests"], [name for name, _ in defined])
        hints: tuple[str, ...] = ()
        if "hints" in entries:
            key, value = entries["hints"]
            hints = tuple(
                self.text(key, node, f"hint {i}")
                for i, node in enumerate(self.sequence(key, value, "`hints`"), start=1)
            )
        remarks = self.text(*entries["remarks"], "`remarks`") if "remarks" in entries else ""
        uses = None
        if "uses" in entries:
            uses = self.slug(entries["uses"], "simulation")
            if len(parameters) != 1:
                raise self.fail(
                    entries["uses"][0],
                    f"`uses`: the simulation calls the advantage as {function}(returns), so the "
                    f"starter's {function} must take one argument, not {len(parameters)}.",
                )
        reference = self.reference(*entries["reference"], [name for name, _ in defined])
        wrong = self.wrong(*entries["wrong"])
        exercise = Exercise(
            exercise_id,
            self.fence.page.path,
            self.fence.line,
            prompt,
            starter,
            function,
            parameters,
            tests,
            hints,
            solution,
            remarks,
            uses,
            reference,
            wrong,
        )
        if uses is not None:
            self.uses(entries["uses"][1], uses)
        self.graded(exercise, entries)
        return exercise

    def reference(self, key: yaml.Node, value: yaml.Node, functions: list[str]) -> str:
        """The name of the lab's own function the property test and hidden tests use."""
        name = self.text(key, value, "`reference`")
        known = REFERENCES.get(name)
        if known is None:
            raise self.fail(
                value,
                f"`reference`: no reference named {name!r} in lab/exercise/references.py "
                f"(it has {', '.join(REFERENCES)}).",
            )
        if not set(known.functions) <= set(functions):
            raise self.fail(
                value,
                f"`reference`: {name!r} defines {', '.join(known.functions)}, not the "
                f"starter's {', '.join(functions)}.",
            )
        return name

    def wrong(self, key: yaml.Node, value: yaml.Node) -> tuple[Wrong, ...]:
        """Wrong solutions, each with why it is wrong: the build checks that each fails."""
        nodes = self.sequence(key, value, "`wrong`")
        if not nodes:
            raise self.fail(key, "`wrong` needs at least one wrong solution its tests must catch.")
        found = []
        for n, node in enumerate(nodes, start=1):
            what = f"wrong solution {n}"
            entries = self.item(node, _WRONG_KEYS, _WRONG_KEYS, what)
            code = _code(self.text(*entries["code"], f"the `code` of {what}"))
            self.parses(entries["code"][1], code, f"the `code` of {what}")
            reason = self.text(*entries["reason"], f"the `reason` of {what}")
            found.append(Wrong(code, reason, self.line_of(node)))
        return tuple(found)

    def uses(self, node: yaml.Node, uses: str) -> None:
        """``uses`` names a simulation lab on this page (when the build says what it holds)."""
        fences = [f for f in custom.page_fences() if f.page.path == self.fence.page.path]
        if not fences:
            return
        ids = [read_simulation(f).id for f in fences if f.name == f"lab-{USES_KIND}"]
        if uses not in ids:
            found = f" (this page has {', '.join(map(repr, ids))})" if ids else ""
            raise self.fail(
                node, f"`uses`: no simulation lab with id {uses!r} on this page{found}."
            )

    def parses(self, node: yaml.Node, source: str, what: str) -> ast.Module:
        try:
            return ast.parse(source)
        except SyntaxError as err:
            # The block's text starts on the line after `key: |`.
            line = self.line_of(node) + (err.lineno or 1) - (0 if node.style in ("|", ">") else 1)
            raise self.fail(line, f"{what} is not valid Python: {err.msg}.") from None

    def functions(self, node: yaml.Node, starter: str) -> list[tuple[str, tuple[str, ...]]]:
        """The starter's top-level functions, each with its parameters: the first is the one
        the feedback names (and ``uses`` plugs in); a test may call any of them."""
        tree = self.parses(node, starter, "`starter`")
        found = [
            (s.name, tuple(a.arg for a in [*s.args.posonlyargs, *s.args.args]))
            for s in tree.body
            if isinstance(s, ast.FunctionDef)
        ]
        if not found:
            raise self.fail(node, "`starter` must define the function the reader writes (a `def`).")
        return found

    def tests(self, key: yaml.Node, value: yaml.Node, functions: list[str]) -> tuple[Test, ...]:
        nodes = self.sequence(key, value, "`tests`")
        tests = tuple(self.test(n, node, functions) for n, node in enumerate(nodes, start=1))
        if not any(not t.hidden for t in tests):
            raise self.fail(key, "`tests` needs at least one public test (without `hidden`).")
        return tests

    def test(self, n: int, node: yaml.Node, functions: list[str]) -> Test:
        what = f"test {n}"
        entries = self.item(node, _TEST_KEYS, ("call", "expect", "message"), what)
        call = self.text(*entries["call"], f"the `call` of {what}")
        try:
            tree = ast.parse(call, mode="eval")
        except SyntaxError as err:
            raise self.fail(
                entries["call"][1], f"the `call` of {what} is not a Python expression: {err.msg}."
            ) from None
        if not any(isinstance(n, ast.Name) and n.id in functions for n in ast.walk(tree)):
            raise self.fail(
                entries["call"][1],
                f"the `call` of {what} must call {' or '.join(functions)}, which the "
                "`starter` defines.",
            )
        expect = scalar(entries["expect"][1])
        try:
            json.dumps(expect, allow_nan=False)
        except (TypeError, ValueError):
            raise self.fail(
                entries["expect"][1],
                f"the `expect` of {what} must be plain data (numbers, text, lists, mappings).",
            ) from None
        message = self.text(*entries["message"], f"the `message` of {what}")
        hidden = "hidden" in entries and self.flag(*entries["hidden"], f" in {what}")
        return Test(n, call, expect, message, hidden, self.line_of(node))

    def graded(self, exercise: Exercise, entries: dict[str, tuple[yaml.Node, yaml.Node]]) -> None:
        """Every test agrees with the reference, the solution passes them and the property
        test, and neither the starter nor any wrong solution does: else the build stops."""
        reference = REFERENCES[exercise.reference]
        for test in exercise.tests:
            try:
                value = reference_value(test.call, reference)
            except Exception as err:
                raise self.fail(
                    test.line,
                    f"the reference {exercise.reference!r} cannot compute test {test.n} "
                    f"({test.call}): {type(err).__name__}: {err}.",
                ) from None
            if not same(test.expect, value):
                raise self.fail(
                    test.line,
                    f"the `expect` of test {test.n} is {shown(test.expect)}, but the lab's own "
                    f"function ({exercise.reference!r}) returns {shown(value)} for {test.call}.",
                )
        # Every test shown, hidden ones too: the author reads what the solution returned.
        spec = exercise.graded_spec()
        result = graded_at_build(spec, exercise.solution)
        if "error" in result:
            raise self.fail(
                entries["solution"][0],
                f"the `solution` does not run: {result['error']['message']}",
            )
        for test, outcome in zip(exercise.tests, result["tests"], strict=False):
            if not outcome["passed"]:
                got = outcome.get("error") or f"it returned {outcome['got']}"
                raise self.fail(
                    test.line,
                    f"the `solution` fails test {test.n}: {test.call} should return "
                    f"{shown(test.expect)}; {got}.",
                )
        if not result["passed"]:
            raise self.fail(
                entries["reference"][0],
                f"the `solution` fails the property test: {result['tests'][-1]['detail']}",
            )
        if graded_at_build(spec, exercise.starter)["passed"]:
            raise self.fail(
                entries["starter"][0],
                "the `starter` already passes every test: the exercise asks nothing.",
            )
        for n, wrong in enumerate(exercise.wrong, start=1):
            outcome = graded_at_build(spec, wrong.code)
            if "error" in outcome:
                raise self.fail(
                    wrong.line,
                    f"wrong solution {n} does not run ({outcome['error']['message']}): a wrong "
                    "solution must run, so that a test, not Python, catches it.",
                )
            if outcome["passed"]:
                raise self.fail(
                    wrong.line,
                    f"wrong solution {n} passes every test ({wrong.reason}): add a test it fails.",
                )


def read_exercise(fence: Fence) -> Exercise:
    """Validate one block's YAML and grade its solution; raise FenceError at the line."""
    return _Reader(fence).read()


def _paragraphs(text: str, cls: str | None = None) -> Markup:
    return join(
        (
            el("p", {"class": cls}, inline(part.strip()))
            for part in text.split("\n\n")
            if part.strip()
        ),
        "\n",
    )


def _test_item(test: Test) -> Markup:
    return el(
        "li",
        {"data-lab-test": test.n},
        el("code", None, test.call),
        " should return ",
        el("code", None, shown(test.expect)),
        ". ",
        el("span", {"class": "lab-exercise__message"}, test.message),
        el("p", {"class": "lab-exercise__verdict", "data-lab-verdict": True}, hidden=True),
    )


def _button(action: str, text: str, primary: bool = False, disabled: bool = False) -> Markup:
    classes = "md-button md-button--primary" if primary else "md-button"
    attributes = {"type": "button", "class": classes, "data-lab-action": action}
    return el("button", {**attributes, "disabled": disabled}, text)


def render_exercise(exercise: Exercise, spec_url: str) -> Markup:
    prefix = f"lab-{exercise.id}"
    hidden = len(exercise.tests) - len(exercise.public)
    tests = join((_test_item(t) for t in exercise.public), "\n")
    # Every exercise has a reference, so Check always adds the random test.
    hidden_tests = f"{hidden} hidden test{'s' if hidden > 1 else ''} and " if hidden else ""
    hidden_line = (
        f"Check runs these tests, {hidden_tests}a random test: calls on random inputs, "
        "checked against the lab's own code."
    )
    called = signature(exercise.function, exercise.parameters)
    hints = join(
        (el("li", {"data-lab-hint": i}, inline(h)) for i, h in enumerate(exercise.hints)), "\n"
    )
    train = (
        el(
            "div",
            {"class": "lab-exercise__train", "data-lab-train": True, "hidden": True},
            "\n",
            el(
                "p",
                None,
                "Once your function passes, train the simulation lab above with it, at the "
                "settings in its form (its seeds, the group-mean baseline) and with the "
                "verifier and prior in its editor, edited or not: once with the built-in "
                "advantage and once with yours. The report says whether the runs match, and "
                "if not, the first group whose advantages differ and where the curves part.",
            ),
            "\n",
            _button("train", "Train with my advantage", primary=True, disabled=True),
            "\n",
            el("p", {"class": "lab-exercise__train-progress", "data-lab-train-progress": True}),
            "\n",
            el("div", {"class": "lab-exercise__train-result", "data-lab-train-result": True}),
            "\n",
        )
        if exercise.uses
        else ""
    )
    return graded.shell(
        exercise,
        "exercise",
        spec_url,
        "\n",
        el("div", {"class": "lab-exercise__prompt"}, _paragraphs(exercise.prompt)),
        "\n",
        editor_panel(
            prefix,
            exercise.starter,
            f"Your code: {called}",
            el("p", {"class": "lab-code__intro"}, "The starter code, to complete."),
            "Edit it, then press Run the tests or Check; Reset brings the starter back. "
            "Your code is saved in this browser.",
        ),
        "\n",
        # Not a section of the search index (it has no id), and kept out of it: the
        # search's parsers (Material's, Zensical's) would add a heading at the level
        # of the exercise's title to that title ("The Group-Relative AdvantageTests").
        el("h3", {"class": "lab-exercise__heading", **NOT_SEARCHED}, "Tests"),
        "\n",
        el("ol", {"class": "lab-exercise__tests", "data-lab-tests": True}, "\n", tests, "\n"),
        "\n",
        el("p", {"class": "lab-exercise__hidden-tests"}, hidden_line),
        "\n",
        el(
            "div",
            {
                "class": "lab-exercise__controls",
                "data-lab-controls": True,
                "hidden": True,
                **NOT_SEARCHED,
            },
            _button("run-tests", "Run the tests"),
            _button("check", "Check", primary=True),
            _button("stop", "Stop", disabled=True),
            _button("hint", "Show a hint") if exercise.hints else "",
            _button("solution", "Show the solution"),
        ),
        "\n",
        el(
            "div",
            {
                "class": "lab-exercise__confirm",
                "data-lab-confirm": True,
                "hidden": True,
                **NOT_SEARCHED,
            },
            el("p", None, "See the solution before you have tried it? Trying first teaches more."),
            _button("solution-yes", "Show it"),
            _button("solution-no", "Not yet"),
        ),
        "\n",
        el("p", {"class": "lab-exercise__summary", "data-lab-summary": True}),
        "\n",
        el(
            "div",
            {
                "class": "lab-exercise__output",
                "data-lab-output": True,
                "hidden": True,
                **NOT_SEARCHED,
            },
            el("h4", None, "What your code printed"),
            el("pre", None, el("code", None)),
        ),
        "\n",
        el(
            "details",
            {"class": "lab-exercise__hints", "data-lab-hints": True, **NOT_SEARCHED},
            el("summary", None, f"Hints ({len(exercise.hints)})"),
            el("ol", None, "\n", hints, "\n"),
        )
        if exercise.hints
        else "",
        "\n",
        el(
            "details",
            {"class": "lab-exercise__solution", "data-lab-solution": True, **NOT_SEARCHED},
            el("summary", None, "Solution"),
            highlighted(exercise.solution),
            _paragraphs(exercise.remarks, "lab-exercise__remarks") if exercise.remarks else "",
        ),
        "\n",
        train,
        "\n",
        graded.status(),
        "\n",
        data_lab_uses=exercise.uses,
    )


FENCE = graded_fence("exercise", read_exercise, render_exercise)
formatter = FENCE.format
parse_page = FENCE.read_page
