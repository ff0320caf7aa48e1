"""The site builds with --strict, its pages are served in the colours they load in, and a
broken internal link or anchor stops the build."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from lesson_hooks.fences import sitewide
from tests.conftest import ROOT, BuiltSite, mkdocs_build
from tests.support.html import normalise, parse, without_permalinks
from tools.bench import plain_config

PAGES = ("index.html", "lesson/index.html", "summary/index.html", "references/index.html")


def test_strict_build_succeeds_with_every_page(tmp_path: Path) -> None:
    result = mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output
    for page in PAGES:
        assert (tmp_path / "site" / page).is_file(), page


def test_the_benchs_build_without_labs_builds_every_page_with_no_lab_in_it(
    tmp_path: Path,
) -> None:
    """./dev bench compares each page with itself built without labs: a hook the labs
    need that the bench left in (rules.js reading runtime.py's manifest) broke it."""
    with plain_config() as config:
        result = mkdocs_build(config, tmp_path / "plain", strict=False)
    assert result.returncode == 0, result.stdout + result.stderr
    for page in PAGES:
        assert (tmp_path / "plain" / page).is_file(), page
    lesson = (tmp_path / "plain" / "lesson" / "index.html").read_text(encoding="utf-8")
    assert "data-lab=" not in lesson
    assert "assets/lab/" not in lesson  # no lab script or stylesheet linked


def test_every_page_is_served_in_the_colours_its_palette_sets_at_load(site: BuiltSite) -> None:
    # On load, Material's palette sets <body>'s colours from the option that
    # matches the system (light here); any it changes restyles the whole page.
    for page in sorted(site.dir.rglob("*.html")):
        html = parse(page)
        light = html.one(**{"data-md-color-media": "(prefers-color-scheme: light)"})
        served = html.find("body").attrs
        for key in ("scheme", "primary", "accent"):
            name = f"data-md-color-{key}"
            assert served[name] == light.attrs[name], (page, name)


@pytest.mark.parametrize(
    ("link", "complaint"),
    [
        pytest.param("no-such-page.md", "not found among documentation files", id="page"),
        pytest.param(
            "summary.md#no-such-anchor",
            "does not contain an anchor '#no-such-anchor'",
            id="anchor-on-another-page",
        ),
        pytest.param("#no-such-anchor", "no such anchor on this page", id="anchor-on-same-page"),
    ],
)
def test_a_broken_internal_link_fails_the_strict_build_naming_the_page(
    project: Path, link: str, complaint: str
) -> None:
    lesson = project / "docs" / "lesson.md"
    lesson.write_text(
        lesson.read_text(encoding="utf-8") + f"\nSee [this]({link}).\n", encoding="utf-8"
    )

    result = mkdocs_build(project / "mkdocs.yml", project / "site")

    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert f"Doc file 'lesson.md' contains a link '{link}'" in output
    assert complaint in output
    assert "Aborted" in output


#: Each generator's search index: where it is, and the list of its sections.
SEARCH_INDEXES = {
    "mkdocs": ("search/search_index.json", "docs"),
    "zensical": ("search.json", "items"),
}


def search_sections(site: BuiltSite) -> list[dict]:
    """The sections of the search index of the site, as its generator wrote it."""
    where, key = SEARCH_INDEXES[site.generator]
    return json.loads((site.dir / where).read_text(encoding="utf-8"))[key]


def plain(text: str) -> str:
    """Text as a search index or a block's YAML holds it, without markup: comparable."""
    return normalise(unescape(re.sub(r"<[^>]+>|[`*]", "", text)))


def test_every_search_result_is_titled_as_its_heading_reads(built: BuiltSite) -> None:
    """A reader's search lists each section by its heading: a heading inside a lab at
    the section's level would run into the title ("The Group-Relative AdvantageTests")."""
    site_dir, sections = built.dir, search_sections(built)
    headings: dict[str, dict[str, str]] = {}
    wrong = []
    for section in sections:
        page, _, anchor = section["location"].partition("#")
        if not anchor:
            continue
        if page not in headings:
            tree = parse(site_dir / page / "index.html")
            headings[page] = {
                node.attrs["id"]: normalise(node.text(without_permalinks))
                for node in tree.iter()
                if re.fullmatch(r"h[1-6]", node.tag) and node.attrs.get("id")
            }
        title = plain(section["title"])
        heading = headings[page].get(anchor)
        if heading != title:
            wrong.append(f"{section['location']}: {title!r}, the heading reads {heading!r}")
    assert len(sections) > 50
    assert not wrong, "\n".join(wrong)


def held_back_and_taught() -> dict[str, tuple[list[str], list[str]]]:
    """By page: what its labs hold back until the reader has tried (hints, solutions,
    answers' explanations), and what they teach up front (prompts and questions)."""
    pages: dict[str, tuple[list[str], list[str]]] = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        held: list[str] = []
        taught: list[str] = []
        for fence, block in sitewide.read_page(page.read_text(encoding="utf-8"), str(page)):
            if fence.name == "lab-exercise":
                held += [*block.hints, block.solution]
                taught.append(block.prompt)
            elif fence.name == "lab-quiz":
                held += [q.explanation for q in block.questions]
                taught += [q.text for q in block.questions]
            elif fence.name == "lab-visual-lab":
                held += [part.explanation for part in block.parts]
                taught += [part.text for part in block.parts]
            elif fence.name == "lab-experiment":
                held.append(block.explanation)
                taught.append(block.question)
        if held or taught:
            pages[page.stem] = ([plain(t) for t in held], [plain(t) for t in taught])
    return pages


def test_search_finds_what_the_labs_teach_not_their_answers_or_buttons(built: BuiltSite) -> None:
    """A student's search shows no hint, solution or answer a lab holds back until they
    have tried, on the lab's page or in the teachers' answer key, and no run of buttons'
    words ("Run the testsCheckStop"); the labs' prompts and questions it finds."""
    site_dir, sections = built.dir, search_sections(built)
    text = " ".join(plain(s["text"]) for s in sections)
    pages = held_back_and_taught()
    assert len(pages) >= 3
    for page, (held, taught) in pages.items():
        # Each is on its page, as a reader without JavaScript reads it.
        shown = plain((site_dir / page / "index.html").read_text(encoding="utf-8"))
        assert [t for t in held + taught if t not in shown] == [], page
        assert [h for h in held if h in text] == [], page
        assert [t for t in taught if t not in text] == [], page
    for buttons in ("Run the testsCheck", "Show the solution", "CheckClear", "Show itNot yet"):
        assert buttons not in text
