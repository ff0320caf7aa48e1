"""Math typeset at build time by the pinned KaTeX: found, rendered, cached, refused at its line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from lesson_hooks.build import katex
from lesson_hooks.build.katex import Formula

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (katex.NODE_KATEX / "dist" / katex.KATEX_MODULE).is_file(),
    reason="needs Node and npm ci (katex)",
)

CONTENT = (
    '<p>Its return is <span class="arithmatex">\\(r_1 + \\gamma \\, \\bar r_2\\)</span>, '
    'and <span class="arithmatex">\\(a &lt; b\\)</span>.</p>\n'
    '<div class="arithmatex">\\[\n\\langle I,\\ S \\rangle\n\\]</div>\n'
)
#: What a string escape makes of "\bar": a backspace, then "ar".
BACKSPACED = "r_1 + \\gamma \\, \x08ar r_2"


def test_formulas_are_found_in_order_with_their_mode_and_tex() -> None:
    assert katex.find_formulas(CONTENT) == [
        Formula("r_1 + \\gamma \\, \\bar r_2", display=False),
        Formula("a < b", display=False),
        Formula("\\langle I,\\ S \\rangle", display=True),
    ]


def test_a_page_gets_katexs_markup_with_mathml_for_screen_readers(tmp_path: Path) -> None:
    formulas = katex.find_formulas(CONTENT)
    rendered, refused = katex.render(formulas, cache_dir=tmp_path)
    assert not refused
    page = katex.typeset(CONTENT, rendered)
    assert "\\(" not in page and "\\[" not in page
    assert page.count('<span class="arithmatex"><span class="katex">') == 2
    assert '<div class="arithmatex"><span class="katex-display">' in page
    # The accessible form: MathML, with the TeX as its annotation.
    assert page.count('<math xmlns="http://www.w3.org/1998/Math/MathML"') == 3
    assert '<annotation encoding="application/x-tex">a &lt; b</annotation>' in page
    assert "<mi>\u03b3</mi>" in page and '<mo stretchy="false">⟨</mo>' in page


def test_a_warm_build_runs_no_node_and_an_edit_runs_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    formulas = [Formula("x^2", display=False)]
    first, _ = katex.render(formulas, cache_dir=tmp_path)
    monkeypatch.setattr(katex.shutil, "which", lambda name: None)
    again, _ = katex.render(formulas, cache_dir=tmp_path)
    assert again == first
    with pytest.raises(PluginError, match="Node is needed"):
        katex.render([Formula("x^3", display=False)], cache_dir=tmp_path)


def test_a_formula_with_a_stray_control_character_is_refused_at_its_line(tmp_path: Path) -> None:
    source = f"---\ntitle: T\n---\n\n# T\n\nIts return is \\({BACKSPACED}\\).\n"
    formula = Formula(BACKSPACED, display=False)
    rendered, refused = katex.render([formula, Formula("x", False)], cache_dir=tmp_path)
    assert list(rendered) == [Formula("x", False)]
    page = katex._PageMath("docs/page.md", source, [formula])
    report = katex.refusal_report([page], refused)
    # KaTeX's own message, with the invisible character named.
    assert report.startswith("docs/page.md:7: KaTeX parse error: Unexpected character: 'U+0008'")
    # A refusal is not cached: the fixed formula is tried again.
    assert len(list(tmp_path.glob("*.html"))) == 1


def test_a_formula_a_line_break_split_is_tex_left_in_the_prose_at_its_line() -> None:
    # Today's leave-one-out row, the \n of "\ne" read as a newline: the row split in two, and
    # Markdown turned the unmatched "\(" into "(" (what the page showed).
    source = (
        "| Baseline | Advantage |\n| --- | --- |\n| `mean` | \\(A_g = R_g - \\bar R\\) |\n"
        "| `leave_one_out` | \\(A_g = R_g - \\frac{1}{G-1}\\sum_{h " + "\n" + "e g} R_h\\) |\n"
    )
    built = (
        '<tr><td><code>mean</code></td><td><span class="arithmatex">\\(A_g = R_g - \\bar R\\)'
        "</span></td></tr>\n<tr><td><code>leave_one_out</code></td>"
        "<td>(A_g = R_g - \\frac{1}{G-1}\\sum_{h</td></tr>\n<tr><td>e g} R_h)</td></tr>"
    )
    left = katex.tex_left_as_text(built)
    assert left == "(A_g = R_g - \\frac{1}{G-1}\\sum_{h"
    assert katex.tex_line(source, left) == 4


def test_tex_in_formulas_and_code_is_not_left_as_text() -> None:
    assert katex.tex_left_as_text(CONTENT) is None
    code = "<p>Write <code>\\frac{a}{b}</code>.</p><pre><code>re.compile(r'\\(')</code></pre>"
    assert katex.tex_left_as_text(code) is None
    assert katex.tex_left_as_text("<p>A path like C:\\ is fine, and so is \\, alone.</p>") is None


def test_a_formulas_line_is_found_in_the_page_source() -> None:
    source = "# T\n\nA tuple\n\n\\[\n\\langle I,\\ S \\rangle\n\\]\n"
    assert katex.line_of(source, "\n\\langle I,\\ S \\rangle\n") == 6
    assert katex.line_of(source, "\\notthere") is None


def test_only_the_stylesheet_fonts_and_licence_are_vendored() -> None:
    files = katex.katex_files()
    assert not [name for name in files if name.endswith((".js", ".mjs"))]
    assert f"{katex.KATEX_DIR}/{katex.STYLESHEET}" in files
    fonts = [name for name in files if "/fonts/" in name]
    assert fonts and all(name.endswith(".woff2") for name in fonts)
