"""The teacher's page, the home total, the lesson's estimate and our reading times, as built.

Each is checked against the pages' own sources, measured here independently of
the hook's tables, so the page cannot drift from what students see.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from lesson_hooks.build.teachers import LAB_MINUTES, WORDS_PER_MINUTE, count_words
from lesson_hooks.fences import experiment, quiz, visual_lab
from lesson_hooks.fences.experiment import inline, settings_text
from lesson_hooks.fences.scan import find_lab_fences
from tests.conftest import ROOT, BuiltSite
from tests.support.html import Node, normalise, parse, parse_html
from tests.support.located import edit_fails_at

DOCS = ROOT / "docs"
# The pages read through, in the nav's order, and their titles there.
TIMED = {
    "lesson.md": "LLMs as Cooperative Agents",
    "simulation.md": "Simulation Lab",
    "simulation-reference.md": "Simulation Lab Reference",
    "language-models.md": "Language-Model Lab",
    "summary.md": "Summary",
}


def source(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def minutes(page: str) -> int:
    text = source(page)
    labs = [f.name.removeprefix("lab-") for f in find_lab_fences(text, f"docs/{page}")]
    return math.ceil(count_words(text) / WORDS_PER_MINUTE + sum(LAB_MINUTES[k] for k in labs))


def article(site: BuiltSite, url: str) -> Node:
    return parse(site.dir / url / "index.html").find("article", "md-content__inner")


def experiments() -> list[tuple[str, experiment.Experiment]]:
    return [(p, t) for p in TIMED for t in experiment.parse_page(source(p), f"docs/{p}")]


def test_the_teachers_page_gives_each_page_its_time_and_the_rule(site: BuiltSite) -> None:
    page = article(site, "teachers/")
    rows = {
        cells[0].text(): [c.text() for c in cells]
        for row in page.find("table", "lesson-teachers__pages").find("tbody").find_all("tr")
        if (cells := row.find_all("td"))
    }
    for file, title in TIMED.items():
        assert rows[title][-1].startswith(f"{minutes(file)} min"), title
        assert rows[title][-1].endswith(" words"), title
    labs = rows["Language-Model Lab"][2].split(", ")
    assert "the language-model lab" in labs and "the coding exercise" in labs
    rule = page.find("p", "lesson-teachers__rule").text()
    assert f"words at {WORDS_PER_MINUTE} a minute" in rule
    assert f"about {sum(minutes(p) for p in TIMED)} min" in rule


def test_the_home_page_names_every_lab_and_the_total_time(site: BuiltSite) -> None:
    home = article(site, "")
    text = home.text()
    for lab in ("Visual Lab", "quiz", "Simulation Lab", "Language-Model Lab"):
        assert lab in text, lab
    total = home.find("p", "lesson-total-time")
    assert f"about {sum(minutes(p) for p in TIMED)} minutes" in total.text()
    assert [a.attrs["href"] for a in total.find_all("a")] == ["teachers/"]


def test_the_lesson_keeps_the_authors_time_and_gives_the_sites_beside_it(
    site: BuiltSite,
) -> None:
    lesson = article(site, "lesson/")
    assert lesson.find("p", "lesson-meta").text() == "7 min read"
    estimate = lesson.find("p", "lesson-estimate").text()
    # Ours says what it counts that the author's does not, so the two do not clash.
    assert estimate.startswith("The line above is the author's time for the lesson's text.")
    assert f"editor's notes and labs, about {minutes('lesson.md')} min" in estimate
    assert "words, the notes included, at 200 a minute" in estimate
    for lab in ("Visual Lab", "worked example", "quiz"):
        assert lab in estimate


def test_each_of_our_pages_gives_its_reading_time_and_its_time_with_labs(
    site: BuiltSite,
) -> None:
    # The lesson's line is its author's (above); the others are measured, like the
    # teacher's table, so a page that grows cannot keep an old estimate.
    for file in TIMED.keys() - {"lesson.md"}:
        url = file.removesuffix(".md") + "/"
        meta = article(site, url).find_all("p", "lesson-meta")
        text = source(file)
        reading = math.ceil(count_words(text) / WORDS_PER_MINUTE)
        labs = find_lab_fences(text, f"docs/{file}")
        if not labs and not meta:
            continue  # a page without labs need not say its time (the summary)
        expected = f"{reading} min read" + (
            f", about {minutes(file)} min with its labs" if labs else ""
        )
        assert [m.text().strip() for m in meta] == [expected], file


def test_every_guided_experiment_is_linked_with_its_settings(site: BuiltSite) -> None:
    page = article(site, "teachers/")
    items = page.find("ol", "lesson-teachers__experiments").find_all("li")
    expected = experiments()
    assert len(items) == len(expected) > 0
    for item, (file, t) in zip(items, expected, strict=True):
        (link,) = item.find_all("a")
        assert link.attrs["href"] == f"../{file.removesuffix('.md')}/#{t.id}"
        assert f"The experiment: {settings_text(t)}." in item.text()
        target = parse(site.dir / file.removesuffix(".md") / "index.html")
        assert target.all(id=t.id), t.id


def test_the_answer_key_is_the_labs_own(site: BuiltSite) -> None:
    key = normalise(article(site, "teachers/").find("section", "lesson-teachers__answers").text())
    (block,) = visual_lab.parse_page(source("lesson.md"), "docs/lesson.md")
    for part in block.parts:
        assert normalise(f"{part.text}: {part.answer}. {part.explanation}") in key
    (the_quiz,) = quiz.parse_page(source("lesson.md"), "docs/lesson.md")
    for question in the_quiz.questions:
        right = " / ".join(o.text for o in question.options if o.correct)
        assert normalise(f"{question.text} {right} {question.explanation}") in key
    for _, t in experiments():
        assert normalise(parse_html(inline(t.options[t.answer].text)).text()) in key
        assert normalise(parse_html(inline(t.explanation)).text()) in key


def test_an_unknown_generated_block_fails_at_its_line(project: Path) -> None:
    edit_fails_at(
        project,
        "docs/teachers.md",
        "<!-- generated: answers -->",
        "<!-- generated: answer -->",
        "<!-- generated: answer -->",
        "unknown generated block 'answer'",
    )


def test_the_teachers_page_renders_its_markdown(site: BuiltSite) -> None:
    """Generated lines go through Markdown: no ``*k*`` or backticked text on screen or paper
    (code, such as the exercises' solutions, is code: its underscores are Python's)."""
    page = article(site, "teachers/")
    text = page.text(skip=lambda node: node.tag == "code")
    raw = re.findall(r"\*[^*\s][^*]*\*|_[^_\s][^_]*_|`[^`]+`", text)
    assert not raw, raw
    for _, t in experiments():
        if "*" in t.question:  # its emphasis is markup, shown as such
            shown = normalise(parse_html(inline(t.question.replace("`", ""))).text())
            assert shown in normalise(text), t.id
    assert page.find_all("em"), "the questions' emphasis is rendered"


def test_the_answer_key_states_each_experiments_seeds_as_it_runs_them(site: BuiltSite) -> None:
    key = article(site, "teachers/").find("section", "lesson-teachers__answers")
    assert key.find_all("h3")[-1].text() == "The guided experiments"
    lines = [normalise(li.text()) for li in key.find_all("ol")[-1].find_all("li")]
    expected = experiments()
    assert len(lines) == len(expected) > 0
    for line, (_, t) in zip(lines, expected, strict=True):
        first, count = t.params["seed"], t.params["seeds"]
        said = (
            f"Run over seeds {first} to {first + count - 1}:"
            if count > 1
            else f"Run with seed {first}:"
        )
        assert said in line, (t.id, line)
        assert "0 to 199" not in line.split(said, 1)[0], (t.id, line)
