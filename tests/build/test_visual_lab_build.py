"""The build validates Visual Labs, naming file and line, and ships their specs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lesson_hooks.fences.visual_lab import INSTRUCTION, parse_page
from tests.conftest import ROOT, BuiltSite, mkdocs_build
from tests.support.html import parse
from tests.support.located import build_fails_at, edit_fails_at, line_of

LESSON = "docs/lesson.md"


def test_a_wrong_answer_fails_the_build_at_its_line(project: Path) -> None:
    edit_fails_at(
        project,
        LESSON,
        "    answer: Policy\n",
        "    answer: Polcy\n",
        "answer: Polcy",
        "the answer of part 2, 'Polcy', is not one of the concepts",
    )


def test_a_duplicate_id_on_another_page_fails_the_build(project: Path) -> None:
    lesson = project / LESSON
    fence = re.search(r"^```lab-visual-lab\n.*?^```$", lesson.read_text(), re.M | re.S)
    assert fence
    summary = project / "docs" / "summary.md"
    summary.write_text(summary.read_text(encoding="utf-8") + "\n" + fence[0] + "\n")

    result = mkdocs_build(project / "mkdocs.yml", project / "site")

    first, second = sorted(
        (page, line_of(path.read_text(encoding="utf-8"), "```lab-visual-lab"))
        for page, path in ((LESSON, lesson), ("docs/summary.md", summary))
    )
    build_fails_at(
        result,
        *second,
        f"Visual Lab id 'llm-collaboration' is already used at {first[0]}:{first[1]}.",
    )


def test_the_built_site_ships_each_visual_lab_spec(site: BuiltSite) -> None:
    (visual_lab,) = parse_page((ROOT / LESSON).read_text(encoding="utf-8"), LESSON)
    spec_file = site.dir / "assets" / "lab" / "visual-labs" / "llm-collaboration.json"
    assert json.loads(spec_file.read_text(encoding="utf-8")) == visual_lab.spec

    html = (site.dir / "lesson" / "index.html").read_text(encoding="utf-8")
    assert html.count('data-lab="visual-lab"') == 1
    assert 'data-lab-spec="../assets/lab/visual-labs/llm-collaboration.json"' in html
    assert f'data-lab-version="{visual_lab.spec["version"]}"' in html
    assert "```lab-visual-lab" not in html and "lab-visual-lab\n" not in html


def test_a_lab_fence_below_front_matter_fails_at_the_files_line(project: Path) -> None:
    # MkDocs hands hooks the page without its front matter; the error still names the
    # line a contributor sees in the file.
    assert (project / "docs" / "simulation.md").read_text(encoding="utf-8").startswith("---\n")
    edit_fails_at(
        project,
        "docs/simulation.md",
        "```lab-simulation\n```",
        "```lab-simulation\ndefaults:\n  turns: 3\n```",
        "turns: 3",
        "`defaults`: turns: Turns must be 1 or 2",
    )


def test_the_sites_instruction_follows_the_authors_prompt_marked_as_ours(
    site: BuiltSite,
) -> None:
    """The prompt says to drag parts onto concepts; the widget moves concepts onto
    parts, so the site says how, by touch, mouse and keyboard, as an editor's note."""
    lab = parse(site.dir / "lesson" / "index.html").find("div", "lab-visual-lab")
    paragraphs = lab.find_all("p")
    prompt, instruction = paragraphs[0], paragraphs[1]
    assert "lab-visual-lab__prompt" in prompt.classes
    assert prompt.text().startswith("Drag each part of an LLM collaboration system")
    assert {"lab-visual-lab__instructions", "lesson-editor-note"} <= set(instruction.classes)
    text = instruction.text()
    assert text == f"Editor's note: {INSTRUCTION}"
    for words in ("Tap or click a concept", "drag", "Enter or Space", "Delete", "Escape"):
        assert words in text, words
