"""lesson_hooks.fences.exercise: the block read, every mistake at its line, its markup."""

from __future__ import annotations

import textwrap

import pytest

from lesson_hooks.fences import custom, exercise
from lesson_hooks.fences.base import Fence, Page
from lesson_hooks.fences.exercise import FENCE, parse_page
from lesson_hooks.fences.scan import find_lab_fences
from tests.support.located import raises_located

PATH = "docs/page.md"

BLOCK = """\
id: mean-advantage
prompt: |
  Write the *group-relative* advantage: `returns` minus their mean.

  A second paragraph.
starter: |
  def group_advantage(returns):
      return returns
tests:
  - call: group_advantage([1.0, 2.0, 3.0])
    expect: [-1.0, 0.0, 1.0]
    message: The mean is 2.
  - call: group_advantage([4.0, 4.0])
    expect: [0.0, 0.0]
    message: Equal returns, no advantage.
    hidden: true
hints:
  - Use `sum`.
  - Then `len`.
solution: |
  def group_advantage(returns):
      m = sum(returns) / len(returns)
      return [r - m for r in returns]
remarks: The same value for every agent.
reference: group-advantage
wrong:
  - code: |
      def group_advantage(returns):
          return [r - max(returns) for r in returns]
    reason: the best return as the baseline
"""


def page(body: str = BLOCK) -> str:
    # The block's first YAML line is the page's line 4.
    return f"# Page\n\n```lab-exercise\n{body}```\n"


def read(body: str = BLOCK):
    (block,) = parse_page(page(body), PATH)
    return block


def line_of(text: str, body: str = BLOCK) -> int:
    """The page's line holding ``text`` (the block's YAML starts at line 4)."""
    (n,) = [i for i, line in enumerate(body.splitlines()) if text in line]
    return n + 4


def test_a_block_is_read_with_its_function_and_tests() -> None:
    block = read()
    assert (block.id, block.function, block.parameters, block.line) == (
        "mean-advantage",
        "group_advantage",
        ("returns",),
        3,
    )
    assert [t.hidden for t in block.tests] == [False, True]
    assert block.hints == ("Use `sum`.", "Then `len`.")
    assert block.spec["tests"][0]["shown"] == "[-1.0, 0.0, 1.0]"
    # A hidden test ships without its answer: the grader computes it from the reference.
    assert block.spec["reference"] == "group-advantage"
    assert "expect" not in block.spec["tests"][1] and "shown" not in block.spec["tests"][1]
    # The wrong solutions are the build's: the page does not ship them.
    assert [w.reason for w in block.wrong] == ["the best return as the baseline"]
    assert "wrong" not in block.spec


def test_the_modules_example_is_a_block_the_build_accepts() -> None:
    """The docstring's example (a contributor copies it) builds: solution, wrong, reference."""
    example = exercise.__doc__.split("```lab-exercise\n", 1)[1].split("```", 1)[0]
    block = read(textwrap.dedent(example))
    assert (block.id, block.function, block.spec["reference"]) == (
        "shared-reward",
        "shared_rewards",
        "shared-reward",
    )
    assert [w.reason for w in block.wrong] == ["the table read transposed"]


STARTER = "  def group_advantage(returns):\n      return returns\n"
SECOND = "  - call: group_advantage([4.0, 4.0])"
MISTAKES = [
    ("id: mean-advantage", "id: Mean Advantage", "id:", "`id` 'Mean Advantage' must be"),
    ("remarks:", "remark:", "remark:", "unknown key 'remark'"),
    ("return returns\n", "return returns)\n", "return returns)", "`starter` is not valid Python"),
    (SECOND, SECOND[:-1], "group_advantage([4.0, 4.0]", "the `call` of test 2 is not a Python"),
    (
        SECOND,
        "  - call: max([4.0, 4.0])",
        "max([4.0",
        "the `call` of test 2 must call group_advantage",
    ),
    ("    message: The mean is 2.\n", "", "call: group_advantage([1.0", "test 1 has no `message`"),
    ("    hidden: true", "    hidden: yes", "hidden: yes", "`hidden` in test 2 must be true"),
    (STARTER, "  x = 1\n", "starter:", "`starter` must define"),
    (
        "reference: group-advantage",
        "reference: mean",
        "reference: mean",
        "`reference`: no reference named 'mean'",
    ),
    ("    reason: the best", "    why: the best", "why: the best", "unknown key 'why'"),
    (
        "reference: group-advantage",
        "reference: softmax-step",
        "reference: softmax-step",
        "`reference`: 'softmax-step' defines policy_step, not the starter's group_advantage",
    ),
]


@pytest.mark.parametrize(("old", "new", "at", "problem"), MISTAKES)
def test_a_mistake_fails_at_its_line(old: str, new: str, at: str, problem: str) -> None:
    assert BLOCK.count(old) == 1
    body = BLOCK.replace(old, new)
    raises_located(lambda: read(body), PATH, line_of(at, body), problem)


def test_a_wrong_solution_that_passes_stops_the_build_at_it() -> None:
    body = BLOCK.replace(
        "          return [r - max(returns) for r in returns]",
        "          return [r - sum(returns) / len(returns) for r in returns]",
    )
    raises_located(
        lambda: read(body),
        PATH,
        line_of("  - code: |", body),
        "wrong solution 1 passes every test (the best return as the baseline): add a test it "
        "fails.",
    )
    head, tail = BLOCK.rsplit("def group_advantage(", 1)
    broken = f"{head}def other({tail}"
    raises_located(
        lambda: read(broken), PATH, line_of("  - code: |", broken), "wrong solution 1 does not run"
    )
    none = BLOCK.split("wrong:")[0] + "wrong: []\n"
    raises_located(lambda: read(none), PATH, line_of("wrong:", none), "`wrong` needs at least one")


def test_an_expected_value_the_labs_own_function_disagrees_with_stops_the_build() -> None:
    body = BLOCK.replace("    expect: [0.0, 0.0]", "    expect: [0.0, 0.5]")
    raises_located(
        lambda: read(body),
        PATH,
        line_of("call: group_advantage([4.0, 4.0])", body),
        "the `expect` of test 2 is [0.0, 0.5], but the lab's own function ('group-advantage') "
        "returns [0.0, 0.0]",
    )


def test_a_solution_that_fails_a_test_stops_the_build_at_that_test() -> None:
    body = BLOCK.replace("      m = sum(returns) / len(returns)", "      m = 2.0")
    raises_located(
        lambda: read(body),
        PATH,
        line_of("call: group_advantage([4.0, 4.0])", body),
        "the `solution` fails test 2: group_advantage([4.0, 4.0]) should return [0.0, 0.0]; "
        "it returned [2.0, 2.0].",
    )


def test_a_solution_that_does_not_run_stops_the_build_at_the_solution() -> None:
    body = BLOCK.replace(
        "solution: |\n  def group_advantage(", "solution: |\n  def group_advantages("
    )
    raises_located(
        lambda: read(body),
        PATH,
        line_of("solution:", body),
        "the `solution` does not run: Your code has no function named group_advantage",
    )


def test_a_starter_that_already_passes_is_refused() -> None:
    mean = "      return [r - sum(returns) / len(returns) for r in returns]\n"
    body = BLOCK.replace("      return returns\n", mean)
    raises_located(lambda: read(body), PATH, line_of("starter:", body), "the `starter` already")


def test_only_hidden_tests_are_refused() -> None:
    first = "    message: The mean is 2.\n"
    body = BLOCK.replace(first, f"{first}    hidden: true\n")
    raises_located(
        lambda: read(body), PATH, line_of("tests:", body), "`tests` needs at least one public"
    )


def test_uses_names_a_simulation_lab_on_the_page() -> None:
    body = BLOCK + "uses: simulation\n"
    markdown = page(body)
    # Without the build's page in hand, the block is read as written.
    assert read(body).uses == "simulation"
    # On a page without that lab, the build stops at `uses`.
    custom.enter(Page(PATH), find_lab_fences(markdown, PATH))
    try:
        raises_located(
            lambda: read(body),
            PATH,
            line_of("uses:", body),
            "`uses`: no simulation lab with id 'simulation'",
        )
        with_lab = f"```lab-simulation\n```\n\n{markdown}"
        custom.enter(Page(PATH), find_lab_fences(with_lab, PATH))
        (block,) = parse_page(with_lab, PATH)
        assert block.uses == "simulation"
    finally:
        custom.leave()


def test_a_blocks_code_is_graded_once_however_often_the_build_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hooks and the page's rendering each read the block: the verdict is kept."""
    graded: list[str] = []
    check = exercise.check_exercise

    def counted(spec: dict, source: str, **options: object) -> dict:
        graded.append(source)
        return check(spec, source, **options)

    monkeypatch.setattr(exercise, "check_exercise", counted)
    exercise._graded.cache_clear()  # other tests graded this block already
    assert read() == read()
    # The solution, the starter and the one wrong solution, each once.
    assert len(graded) == 3
    # An edited wrong solution is graded afresh, and only it.
    edited = BLOCK.replace("r - max(returns)", "r - min(returns)")
    assert read(edited).wrong != read().wrong
    assert graded[3:] == [
        "def group_advantage(returns):\n    return [r - min(returns) for r in returns]\n"
    ]


def test_uses_needs_a_function_of_the_returns_alone() -> None:
    body = (
        BLOCK.replace("group_advantage(returns)", "group_advantage(returns, other)").replace(
            "group_advantage([", "group_advantage(0, ["
        )
        + "uses: simulation\n"
    )
    raises_located(lambda: read(body), PATH, line_of("uses:", body), "`uses`: the simulation calls")


def test_the_markup_reads_without_javascript() -> None:
    html = str(FENCE.render(read(), Fence("lab-exercise", "")))
    assert (
        'data-lab="exercise"' in html
        and 'data-lab-spec="assets/lab/exercises/mean-advantage.json"' in html
    )
    assert "<em>group-relative</em>" in html and "<code>returns</code>" in html
    # The public test reads as text; the hidden one is only counted.
    assert (
        "<code>group_advantage([1.0, 2.0, 3.0])</code> should return <code>[-1.0, 0.0, 1.0]</code>"
        in html
    )
    assert "group_advantage([4.0, 4.0])" not in html
    assert "Check runs these tests, 1 hidden test and a random test" in html
    # Hints and solution are collapsed blocks, kept out of the site's search; the
    # buttons wait for the script.
    assert '<details class="lab-exercise__hints" data-lab-hints data-search-exclude>' in html
    assert '<details class="lab-exercise__solution" data-lab-solution data-search-exclude>' in html
    assert "data-lab-controls hidden" in html
    assert "data-lab-train" not in html
