"""Every formula is typeset at build time; one KaTeX refuses fails the build at its line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lesson_hooks.build.katex import KATEX_DIR, STYLESHEET
from tests.build.test_content import Node, parse
from tests.conftest import BuiltSite, mkdocs_build
from tests.support.located import build_fails_at, line_of

LESSON = "docs/lesson.md"

MATH_PAGES = ("lesson", "simulation-reference", "glossary")


def pages(site: BuiltSite) -> dict[str, Path]:
    """Each built page by name ("index" for the home page)."""
    found = {}
    for path in site.dir.rglob("index.html"):
        name = path.parent.relative_to(site.dir).as_posix()
        found["index" if name == "." else name] = path
    return found


def formulas(page: Node) -> list[Node]:
    return [node for node in page.iter() if "arithmatex" in node.classes]


def tex(formula: Node) -> str:
    return formula.find("annotation").text()


def test_every_formula_is_katexs_markup_with_mathml_and_no_tex_is_left(site: BuiltSite) -> None:
    with_math = set()
    for name, path in pages(site).items():
        page = parse(path)
        found = formulas(page)
        if found:
            with_math.add(name)
        for formula in found:
            assert formula.find_all(cls="katex"), (name, formula.text())
            assert formula.find_all("math") and formula.find_all(cls="katex-html"), name
        # No formula left as TeX for a script to typeset.
        text = path.read_text(encoding="utf-8")
        assert not re.search(r'class="arithmatex">\\[(\[]', text), name
    assert with_math == set(MATH_PAGES)


def test_the_simulation_references_formulas_read_as_their_author_meant(site: BuiltSite) -> None:
    page = parse(pages(site)["simulation-reference"])
    shown = [tex(formula) for formula in formulas(page)]
    assert r"r_1 + \gamma \, \bar r_2" in shown
    assert r"A_g = R_g - \frac{1}{G-1}\sum_{h \ne g} R_h" in shown
    # The Baseline table has a row per baseline, the leave-one-out one whole.
    (table,) = [t for t in page.find_all("table") if "leave_one_out" in t.text()]
    rows = [row.find_all("td")[0].text() for row in table.find_all("tr")[1:]]
    assert rows == ["mean (default)", "normalized", "leave_one_out", "max", "raw"]


def test_readers_get_katexs_stylesheet_on_math_pages_and_no_katex_script(site: BuiltSite) -> None:
    for name, path in pages(site).items():
        text = path.read_text(encoding="utf-8")
        linked = f"{KATEX_DIR}/{STYLESHEET}" in text.split("</head>")[0]
        assert linked == (name in MATH_PAGES), name
        assert "katex.mjs" not in text and "math.js" not in text, name
    assert not list((site.dir / KATEX_DIR).rglob("*.*js"))


def test_the_search_index_keeps_the_formulas_tex(site: BuiltSite) -> None:
    index = json.loads((site.dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = " ".join(doc["text"] for doc in index["docs"])
    assert r"\gamma \, \bar r_2" in text
    assert "katex-mathml" not in text


def test_a_formula_katex_refuses_fails_the_build_at_its_line(project: Path) -> None:
    lesson = project / LESSON
    source = lesson.read_text(encoding="utf-8")
    anchor = "A Dec-POMDP is a tuple\n"
    assert source.count(anchor) == 1
    text = source.replace(anchor, anchor + "\nwith \\(\\frac{1}{2\\) and so on.\n")
    lesson.write_text(text)
    result = mkdocs_build(project / "mkdocs.yml", project / "site")
    build_fails_at(result, LESSON, line_of(text, "with \\(\\frac{1}{2\\)"), "KaTeX parse error: ")
    assert (
        "Unexpected end of input in a macro argument, expected '}'" in result.stdout + result.stderr
    )


@pytest.mark.parametrize(
    ("split", "problem"),
    [
        pytest.param(
            "\n- \\(\\sum_{h " + "\n" + "e g} R_h\\) for each agent.\n",
            "an inline formula spans lines: ",
            id="in-a-paragraph",
        ),
        pytest.param(
            "\n| Baseline | Advantage |\n| --- | --- |\n| loo | \\(\\sum_{h "
            + "\n"
            + "e g} R_h\\) |\n",
            "TeX outside any formula, which shows as TeX: ",
            id="in-a-table-row",
        ),
    ],
)
def test_a_formula_a_line_break_split_fails_the_build_at_its_line(
    project: Path,
    split: str,
    problem: str,
) -> None:
    # What "\ne" becomes when its \n is read as a newline.
    lesson = project / LESSON
    source = lesson.read_text(encoding="utf-8")
    anchor = "A Dec-POMDP is a tuple\n"
    text = source.replace(anchor, anchor + split)
    lesson.write_text(text)
    result = mkdocs_build(project / "mkdocs.yml", project / "site")
    build_fails_at(result, LESSON, line_of(text, "\\(\\sum_{h"), problem)


@pytest.mark.parametrize("page", MATH_PAGES)
def test_display_and_inline_math_keep_their_mode(site: BuiltSite, page: str) -> None:
    for formula in formulas(parse(pages(site)[page])):
        display = formula.tag == "div"
        assert bool(formula.find_all(cls="katex-display")) == display, tex(formula)
