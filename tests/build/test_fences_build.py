"""Lab blocks work wherever a fenced block works, and one Markdown cannot place fails the build.

Each test builds a small scratch site (tests/support/scratch.py) on the site's
own Markdown configuration and the lab blocks' hook.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from lab.kinds import KINDS
from tests.support.html import Node, parse
from tests.support.located import build_fails_at, line_of
from tests.support.scratch import build, scratch_site

PAGE = "docs/index.md"


def quiz(quiz_id: str, feedback_key: str = "feedback") -> str:
    return textwrap.dedent(f"""\
        ```lab-quiz
        id: {quiz_id}
        prompt: Answer, then press Check.
        questions:
          - text: Do the agents share one reward?
            explanation: Cooperation means one shared reward.
            options:
              - text: "Yes."
                correct: true
                feedback: Both are scored on the joint output.
              - text: "No."
                {feedback_key}: Each would then have its own.
        ```
        """)


MAPPING = """\
```lab-visual-lab
id: in-a-tab
prompt: Drag each part onto its concept.
concepts: [Observation, Policy]
parts:
  - text: The prompt
    answer: Observation
    explanation: A model's prompt is what it observes.
```
"""


def indent(block: str, by: int = 4) -> str:
    return textwrap.indent(block, " " * by)


NESTED = f"""\
# Nested labs

!!! question "Check your understanding"

{indent(quiz("in-an-admonition"))}
=== "Tab A"

{indent(MAPPING)}
=== "Tab B"

    Nothing here: see [the first part](#lab-in-a-tab-part-1).

??? note "Collapsed"

{indent(quiz("in-collapsible"))}
/// details | A details block

{quiz("in-a-details-block")}
///

1. A step of a list:

{indent(quiz("in-a-list-item"))}
"""


def labs(root: Node, kind: str) -> list[Node]:
    return root.all(**{"data-lab": kind})


def inside(node: Node, container: Node) -> bool:
    return any(n is node for n in container.iter())


def titled(page: Node, tag: str, title: str) -> Node:
    """The ``tag`` element whose own title (an admonition's, a summary) is ``title``."""
    (found,) = [
        node
        for node in page.find_all(tag)
        if any(isinstance(c, Node) and c.tag in ("p", "summary") and c.text() == title
               for c in node.children)
    ]  # fmt: skip
    return found


def test_blocks_in_admonitions_tabs_details_and_lists_render_as_labs(tmp_path: Path) -> None:
    project = scratch_site(tmp_path, {"index.md": NESTED})
    result = build(project)
    assert result.returncode == 0, result.stdout + result.stderr
    html = (project / "site" / "index.html").read_text(encoding="utf-8")
    # The labs' markup, not a listing of their YAML.
    assert "language-lab-" not in html and "```lab-" not in html and "id: in-" not in html
    page = parse(project / "site" / "index.html").find("article", "md-content__inner")
    quizzes = {node.attrs["data-lab-id"]: node for node in labs(page, "quiz")}
    assert set(quizzes) == {"in-an-admonition", "in-collapsible", "in-a-details-block",
                            "in-a-list-item"}  # fmt: skip
    (block,) = labs(page, "visual-lab")
    assert block.attrs["data-lab-spec"] == "assets/lab/visual-labs/in-a-tab.json"
    # Each sits where the page put it.
    assert inside(quizzes["in-an-admonition"], titled(page, "div", "Check your understanding"))
    assert inside(block, page.find("div", "tabbed-block"))
    assert inside(quizzes["in-collapsible"], titled(page, "details", "Collapsed"))
    assert inside(quizzes["in-a-details-block"], titled(page, "details", "A details block"))
    (steps,) = [n for n in page.children if isinstance(n, Node) and n.tag == "ol"]
    assert inside(quizzes["in-a-list-item"], steps.find("li"))
    # Their specs are shipped, and a link to an element inside a nested lab passed --strict.
    spec = json.loads((project / "site" / "assets/lab/visual-labs/in-a-tab.json").read_text())
    assert spec["version"] == block.attrs["data-lab-version"]
    for quiz_id in quizzes:
        assert (project / "site" / f"assets/lab/quizzes/{quiz_id}.json").is_file()


def test_a_mistake_in_a_nested_block_fails_at_its_line_in_the_file(tmp_path: Path) -> None:
    text = "---\ntitle: Front matter\n---\n" + NESTED.replace(
        indent(quiz("in-collapsible")), indent(quiz("in-collapsible", "feedbak"))
    )
    project = scratch_site(tmp_path, {"index.md": text})
    build_fails_at(
        build(project),
        PAGE,
        line_of(text, "feedbak:"),
        "unknown key 'feedbak' in option 2 of question 1 (expected `text`, `correct`, "
        "`feedback`). Did you mean `feedback`?",
    )


UNPLACEABLE = {
    "indented as code in a list": (
        f"# Page\n\n1. A step:\n\n{indent(quiz('as-code'), 8)}",
        "```lab-quiz",
        "the ```lab-quiz block is shown as code, not as a lab: Markdown reads it as an "
        "indented code block",
    ),
    "a line indented less than its fence": (
        f"# Page\n\n1. A step:\n\n{indent(quiz('ragged'))}".replace(
            "    prompt: Answer", "  prompt: Answer"
        ),
        "  prompt: Answer",
        "this line is indented less than the opening fence of its ```lab-quiz block (line 5)",
    ),
    "on a list item's first line": (
        f"# Page\n\n1. {quiz('on-the-item')}",
        "1. ```lab-quiz",
        "a ```lab-quiz block cannot open on a list item's first line",
    ),
    "an unknown kind": (
        f"# Page\n\n{quiz('misspelt').replace('lab-quiz', 'lab-quizz')}",
        "```lab-quizz",
        "unknown lab block ```lab-quizz (expected "
        + ", ".join(f"`{kind.fence_name}`" for kind in KINDS)
        + "). Did you mean `lab-quiz`?",
    ),
    "an option after the name": (
        f"# Page\n\n{quiz('titled').replace('```lab-quiz', '```lab-quiz title=x')}",
        "```lab-quiz",
        "the opening line of a ```lab-quiz block holds nothing after the block's name",
    ),
}


@pytest.mark.parametrize(("text", "at", "problem"), UNPLACEABLE.values(), ids=UNPLACEABLE)
def test_a_block_markdown_cannot_place_fails_the_build_at_its_line(
    tmp_path: Path, text: str, at: str, problem: str
) -> None:
    project = scratch_site(tmp_path, {"index.md": text})
    build_fails_at(build(project), PAGE, line_of(text, at), problem)


def test_an_example_inside_another_fence_is_shown_not_run(tmp_path: Path) -> None:
    text = f"# Page\n\nWrite a quiz like this:\n\n````markdown\n{quiz('shown')}````\n"
    project = scratch_site(tmp_path, {"index.md": text})
    result = build(project)
    assert result.returncode == 0, result.stdout + result.stderr
    page = parse(project / "site" / "index.html")
    assert not labs(page, "quiz")
    assert "id: shown" in page.find("pre").text()
