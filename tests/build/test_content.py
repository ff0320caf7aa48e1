"""The built pages carry the whole lesson, its callouts, figure and references."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from lab.core.links import SETTINGS
from tests.conftest import ROOT, BuiltSite
from tests.support.html import Node, normalise, parse, without_permalinks

# The lesson text as handed to us (../shared/source/lesson.txt), kept in the repo
# so a clone can test against it; test_the_source_copy_is_current guards drift.
SOURCE = ROOT / "tests" / "fixtures" / "lesson.txt"
SHARED_SOURCE = ROOT.parent / "shared" / "source" / "lesson.txt"
PAGES = {
    "home": "",
    "lesson": "lesson/",
    "simulation": "simulation/",
    "summary": "summary/",
    "glossary": "glossary/",
    "references": "references/",
    "language-models": "language-models/",
    "teachers": "teachers/",
}
# Hosts that only ever stand in for a real address (RFC 2606, RFC 6761, GitHub's example).
PLACEHOLDER_HOSTS = re.compile(r"(^|\.)(example\.(com|org|net|github\.io)|invalid|test|localhost)$")

# Interactive widget chrome in the source text, not prose.
WIDGET_CHROME = {"drop here", "CheckClear"}
# The source runs the figure's three tags together.
GLUED = {"CoordinateCommunicateAdapt": ("Coordinate", "Communicate", "Adapt")}

LESSON_SECTIONS = {
    "several-models-one-task": "Several Models, One Task",
    "why-this-matters": "Why This Matters",
    "prompted-and-learned-collaboration": "Prompted Collaboration and Learned Collaboration",
    "what-carries-over": "What Carries Over",
    "visual-lab": "Visual Lab: Build the LLM Collaboration Problem",
    # The site's own learning aids after the lesson text (issue 10).
    "worked-example": "Worked Example: One Episode",
    "check-your-understanding": "Check Your Understanding",
}

CALLOUTS = [
    ("question", "By the end of this section you can answer"),
    ("objectives", "In this section you will"),
    ("takeaway", "Key takeaway"),
    ("distinction", "What the distinction is not"),
    ("pitfall", "Common pitfall"),
    ("takeaway", "Key takeaway"),
]

REFERENCES = {
    "liu-2026": {
        "Publisher": "https://ojs.aaai.org/index.php/AAAI/article/view/40487",
        "arXiv:2508.04652": "https://arxiv.org/abs/2508.04652",
        "doi:10.1609/aaai.v40i38.40487": "https://doi.org/10.1609/aaai.v40i38.40487",
    },
    "park-2025": {
        "ACL Anthology": "https://aclanthology.org/2025.acl-long.1459/",
        "arXiv:2502.18439": "https://arxiv.org/abs/2502.18439",
        "doi:10.18653/v1/2025.acl-long.1459": "https://doi.org/10.18653/v1/2025.acl-long.1459",
    },
    "wang-2026": {"arXiv:2606.07513": "https://arxiv.org/abs/2606.07513"},
    "he-2024": {"arXiv:2404.04834": "https://arxiv.org/abs/2404.04834"},
    "zhou-2023": {"arXiv:2310.11667": "https://arxiv.org/abs/2310.11667"},
    # Cited by the simulation lab, after the lesson's own; no stable link is known.
    "claus-1998": {},
    "panait-2006": {},
    # Cited by the glossary (relative overgeneralization; GRPO).
    "panait-2003": {},
    "shao-2024": {"arXiv:2402.03300": "https://arxiv.org/abs/2402.03300"},
}

# The "Current version" line where a work has been published since the lesson cited it
# (issue 10): what it must say, and its links.
CURRENT_VERSIONS = {
    "liu-2026": (["Shuo Liu", "Christopher Amato", "AAAI Press"], {}),
    "park-2025": (
        ["(Volume 1: Long Papers)", "Vienna, Austria", "July 2025"],
        {},
    ),
    "he-2024": (
        [
            "ACM Transactions on Software Engineering and Methodology, 34(5), 2025",
            "Literature Review, Vision, and the Road Ahead",
            "The lesson cites the 2024 preprint",
        ],
        {"doi:10.1145/3712003": "https://doi.org/10.1145/3712003"},
    ),
    "zhou-2023": (
        ["ICLR 2024", "The lesson cites the 2023 preprint"],
        {"OpenReview": "https://openreview.net/forum?id=mM7VurbA4r"},
    ),
}
BIBTEX_TYPES = {"he-2024": "@article{", "zhou-2023": "@inproceedings{"}

INLINE_MENTIONS = [
    ("Liu and colleagues", "liu-2026", 2),
    ("MAPoRL", "park-2025", 3),  # the lesson's two, and an editor's note on transfer
    ("Agentopia", "wang-2026", 1),
    ("He et al., 2024", "he-2024", 1),
    ("SOTOPIA", "zhou-2023", 1),
]


def page_file(site: BuiltSite, url_path: str) -> Path:
    return site.dir / url_path / "index.html"


def article(site: BuiltSite, page: str) -> Node:
    """The page's content column (no navigation, header or footer)."""
    return parse(page_file(site, PAGES[page])).find("article", "md-content__inner")


# ------------------------------------------------------------------- source


def source_paragraphs() -> dict[str, list[str]]:
    """The source's lines (paragraphs, list items), split into the site's pages."""
    pages: dict[str, list[str]] = {"lesson": [], "summary": [], "references": []}
    current = "lesson"
    for raw in SOURCE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line == "LLMs as Cooperative Agents Summary":
            current = "summary"
        elif line == "References":
            current = "references"
        line = re.sub(r"^(?:•|\d+\.)\s+", "", line)
        if not line or line in WIDGET_CHROME:
            continue
        pages[current].extend(GLUED.get(line, (line,)))
    return pages


SOURCE_PARAGRAPHS = source_paragraphs()


# -------------------------------------------------------------------- tests


@pytest.mark.parametrize("page", ["lesson", "summary", "references"])
def test_every_sentence_of_the_source_is_on_its_page(site: BuiltSite, page: str) -> None:
    text = article(site, page).text(skip=without_permalinks)
    missing = [line for line in SOURCE_PARAGRAPHS[page] if normalise(line) not in text]
    assert not missing, f"{page}: missing from the built page:\n" + "\n".join(missing)


def test_the_source_split_found_every_page() -> None:
    # Guards the test above against a source edit that silently empties a page.
    assert len(SOURCE_PARAGRAPHS["lesson"]) > 60
    assert SOURCE_PARAGRAPHS["summary"][0] == "LLMs as Cooperative Agents Summary"
    assert len(SOURCE_PARAGRAPHS["summary"]) == 6
    assert len(SOURCE_PARAGRAPHS["references"]) == 6


def test_widget_chrome_is_not_prose(site: BuiltSite) -> None:
    text = article(site, "lesson").text()
    assert "drop here" not in text
    assert "CheckClear" not in text


def test_lesson_title_and_reading_time(site: BuiltSite) -> None:
    lesson = article(site, "lesson")
    assert [h.text(skip=without_permalinks) for h in lesson.find_all("h1")] == [
        "LLMs as Cooperative Agents"
    ]
    assert lesson.find("p", "lesson-meta").text() == "7 min read"


def test_lesson_sections_are_headings_with_stable_ids(site: BuiltSite) -> None:
    headings = {
        h.attrs.get("id"): h.text(skip=without_permalinks)
        for h in article(site, "lesson").find_all("h2")
    }
    assert headings == LESSON_SECTIONS


def test_each_callout_is_an_admonition_of_its_own_kind(site: BuiltSite) -> None:
    found = []
    for box in article(site, "lesson").find_all("div", "admonition"):
        kind = next(c for c in box.attrs["class"].split() if c != "admonition")
        found.append((kind, box.find("p", "admonition-title").text()))
    assert found == CALLOUTS


def test_the_figure_is_real_text_with_a_caption(site: BuiltSite) -> None:
    figures = article(site, "lesson").find_all("figure")
    assert len(figures) == 1
    figure = figures[0]
    titles = [p.text() for p in figure.find_all("p", "lesson-figure__title")]
    questions = [p.text() for p in figure.find_all("p", "lesson-figure__question")]
    assert titles == ["One LLM", "Several LLM agents"]
    assert questions == ["What should I produce?", "What should we produce together?"]
    tags = [li.text() for li in figure.find("ul", "lesson-figure__tags").find_all("li")]
    assert tags == ["Coordinate", "Communicate", "Adapt"]
    assert figure.find("figcaption").text() == (
        "The structure is the one from the Background. "
        "What changed is that an observation is a prompt and an action is a response."
    )
    assert not figure.find_all("img"), "the figure must not be a picture of text"
    # Each drawing is an image with a text alternative screen readers announce.
    drawings = figure.find_all("svg")
    assert len(drawings) == 2
    for svg in drawings:
        assert svg.attrs.get("role") == "img"
        title = svg.find("title")
        assert svg.attrs.get("aria-labelledby") == title.attrs["id"]
        assert len(title.text()) > 20


def test_prompted_and_learned_collaboration_are_side_by_side_cards(site: BuiltSite) -> None:
    grid = article(site, "lesson").find("div", "lesson-compare")
    assert "grid" in grid.classes
    cards = [child for child in grid.children if isinstance(child, Node)]
    assert all("card" in card.classes for card in cards)
    assert [card.find("h3").text(skip=without_permalinks) for card in cards] == [
        "Prompted collaboration",
        "Learned collaboration",
    ]
    for card in cards:
        assert len(card.find("ul").find_all("li")) == 3


def test_what_carries_over_pairs_earlier_and_llm_questions(site: BuiltSite) -> None:
    grid = article(site, "lesson").find("div", "lesson-carry")
    cards = [child for child in grid.children if isinstance(child, Node)]
    assert [card.find("h3").text(skip=without_permalinks) for card in cards] == [
        "Coordinate",
        "Communicate",
        "Adapt",
    ]
    for card in cards:
        assert card.find("p", "lesson-carry__earlier").text().startswith("Earlier: ")
        assert card.find("p", "lesson-carry__now").text().startswith("With LLMs: ")


def test_the_visual_lab_reads_as_an_exercise_without_javascript(site: BuiltSite) -> None:
    lesson = article(site, "lesson")
    text = lesson.text()
    section = text[text.index(LESSON_SECTIONS["visual-lab"]) :]
    positions = [
        section.index(part)
        for part in (
            "Drag each part of an LLM collaboration system onto the MARL concept",
            "The prompt and local history given to one model",
            "The language model that turns that input into a response",
            "The response that model generates",
            "The score the finished joint output receives",
            "The updated user or system state after the responses land",
        )
    ]
    assert positions == sorted(positions), "the parts are out of the source's order"
    for concept in ("Observation", "Policy", "Action", "Reward", "Environment transition"):
        assert concept in section


def test_every_reference_has_an_anchor_its_links_and_bibtex(site: BuiltSite) -> None:
    refs = article(site, "references")
    headings = [h for h in refs.find_all("h2") if h.attrs.get("id") in REFERENCES]
    assert [h.attrs["id"] for h in headings] == list(REFERENCES)
    blocks = refs.find("div", "lesson-refs").children
    for anchor, links in REFERENCES.items():
        heading = next(h for h in headings if h.attrs["id"] == anchor)
        entry = _siblings_after(blocks, heading)
        citation = entry[0]
        found = {a.text(): a.attrs.get("href") for a in citation.find_all("a")}
        assert found == links, anchor
        current = [p for p in entry if "lesson-ref-current" in p.classes]
        if anchor in CURRENT_VERSIONS:
            says, current_links = CURRENT_VERSIONS[anchor]
            assert len(current) == 1, anchor
            text = current[0].text()
            assert text.startswith("Current version."), anchor
            for words in says:
                assert words in text, (anchor, words)
            assert {a.text(): a.attrs.get("href") for a in current[0].find_all("a")} == (
                current_links
            )
        else:
            assert not current, anchor
        bibtex = entry[-1]
        assert bibtex.tag == "details"
        assert bibtex.find("summary").text() == "BibTeX"
        record = bibtex.find("code").text()
        assert record.startswith(BIBTEX_TYPES.get(anchor, "@")), anchor
        assert "{" + anchor + "," in record, anchor


def test_the_references_intro_names_the_order_it_uses(site: BuiltSite) -> None:
    refs = article(site, "references")
    intro = refs.find("p").text()
    assert "in the order of the lesson's own reference list" in intro
    order = [h.attrs["id"] for h in refs.find_all("h2") if h.attrs.get("id") in REFERENCES]
    source_order = ["liu-2026", "park-2025", "wang-2026", "he-2024", "zhou-2023"]
    assert order[: len(source_order)] == source_order


def _siblings_after(blocks: list[Node | str], heading: Node) -> list[Node]:
    elements = [b for b in blocks if isinstance(b, Node)]
    start = elements.index(heading) + 1
    rest = elements[start:]
    end = next((i for i, b in enumerate(rest) if b.tag == "h2"), len(rest))
    return rest[:end]


@pytest.mark.parametrize(("text", "anchor", "count"), INLINE_MENTIONS)
def test_inline_mentions_link_to_their_reference(
    site: BuiltSite, text: str, anchor: str, count: int
) -> None:
    links = [a for a in article(site, "lesson").find_all("a") if a.text() == text]
    assert len(links) == count
    assert {a.attrs.get("href") for a in links} == {f"../references/#{anchor}"}


def test_the_summary_is_linked_from_the_lesson_and_the_nav(site: BuiltSite) -> None:
    lesson = parse(page_file(site, "lesson/"))
    content_links = {a.attrs.get("href") for a in lesson.find("article").find_all("a")}
    assert "../summary/" in content_links
    nav = lesson.find("nav", "md-nav--primary")
    assert "../summary/" in {a.attrs.get("href") for a in nav.find_all("a")}


def test_home_page_starts_the_lesson_in_one_click(site: BuiltSite) -> None:
    home = article(site, "home")
    buttons = {a.text(): a.attrs.get("href") for a in home.find_all("a", "md-button")}
    assert buttons["Start the lesson"] == "lesson/"
    assert buttons["Summary"] == "summary/"
    assert buttons["References"] == "references/"


def test_the_home_page_places_the_lesson_sections_where_the_lesson_has_them(
    site: BuiltSite,
) -> None:
    """The home page's steps name the lesson's parts in the lesson's order, and says where.

    It once said "Try the Visual Lab at the end" although the lab sits mid-lesson,
    with the worked example and the quiz after it.
    """
    home = article(site, "home")
    steps = home.find("ol").text()
    assert "at the end" not in steps.split("Visual Lab", 1)[1].split(".", 1)[0]
    linked = [
        a.attrs["href"].split("#", 1)[1]
        for a in home.find("ol").find_all("a")
        if a.attrs.get("href", "").startswith("lesson/#")
    ]
    assert linked == ["visual-lab", "worked-example", "check-your-understanding"]
    order = list(LESSON_SECTIONS)
    assert [order.index(anchor) for anchor in linked] == sorted(order.index(a) for a in linked)
    assert linked[-1] == order[-1]  # the quiz, the only part "at the end"
    assert order[order.index("visual-lab") - 1] == "what-carries-over"
    assert "right after those questions" in steps  # the questions that carry over


@pytest.mark.parametrize("page", list(PAGES))
def test_every_internal_link_and_anchor_resolves(site: BuiltSite, page: str) -> None:
    """Raw-HTML links and the theme's links included, which MkDocs does not validate."""
    base = "http://site.invalid/"
    page_url = urljoin(base, PAGES[page])
    broken = []
    for a in parse(page_file(site, PAGES[page])).find_all("a"):
        href = a.attrs.get("href", "")
        target = urlsplit(urljoin(page_url, href))
        if not href or target.netloc != "site.invalid":
            continue
        path = site.dir / target.path.lstrip("/")
        file = path / "index.html" if target.path.endswith("/") else path
        # A link to a lab's settings opens at its target's id (lab.core.links' format).
        anchor = target.fragment.partition(SETTINGS)[0]
        if not file.is_file() or (
            anchor and not any(node.attrs.get("id") == anchor for node in parse(file).iter())
        ):
            broken.append(href)
    assert not broken, f"{page}: broken links {broken}"


@pytest.mark.parametrize("page", list(PAGES))
def test_every_link_a_keyboard_reaches_has_a_name(site: BuiltSite, page: str) -> None:
    """As any host serves the page, before any script (issue 47): a listing's line
    anchors (pymdownx.highlight's anchor_linenums) were empty links in the tab order,
    which a screen reader announces as "link" and axe-core flags (link-name)."""
    unnamed = [
        node.attrs["href"]
        for node in parse(page_file(site, PAGES[page])).find_all("a")
        if "href" in node.attrs
        and node.attrs.get("tabindex") != "-1"
        and not node.text().strip()
        and not node.attrs.get("aria-label")
        and not node.attrs.get("title")
        and not node.find_all("img") + node.find_all("svg")
    ]
    assert not unnamed, f"{page}: {len(unnamed)} links without a name, {unnamed[:5]}"


@pytest.mark.skipif(not SHARED_SOURCE.exists(), reason="no ../shared beside this checkout")
def test_the_source_copy_is_current() -> None:
    assert SOURCE.read_bytes() == SHARED_SOURCE.read_bytes()


@pytest.mark.parametrize("page", list(PAGES))
def test_no_link_points_at_a_placeholder_host(site: BuiltSite, page: str) -> None:
    """Built outside its repository the site has no repository links at all (issue 10)."""
    document = parse(page_file(site, PAGES[page]))
    hrefs = [
        node.attrs["href"]
        for node in document.iter()
        if node.tag in ("a", "link") and "href" in node.attrs
    ]
    placeholders = [h for h in hrefs if PLACEHOLDER_HOSTS.search(urlsplit(h).hostname or "")]
    assert not placeholders, f"{page}: links to placeholder hosts {placeholders}"
    assert not document.find_all("a", "md-content__button"), "an edit link without a repository"
    assert not document.find_all("a", "md-source"), "a repository link without a repository"


def test_editors_notes_are_marked_as_ours_where_the_lesson_points_off_site(
    site: BuiltSite,
) -> None:
    lesson = article(site, "lesson")
    notes = [p for p in lesson.find_all("p") if "lesson-editor-note" in p.classes]
    texts = [note.text() for note in notes]
    assert all(text.startswith("Editor's note:") for text in texts)
    pointers = (
        "the Background",
        "the first page of this resource",
        "the three chapters",
        "the Adapt chapter",
    )
    # One short note for every pointer to a chapter not on this site, not one note each.
    off_site = [text for text in texts if "not on this site" in text]
    assert len(off_site) == 1
    for pointer in pointers:
        assert f'"{pointer}"' in off_site[0], pointer
    next_section = next(n for n in notes if "The Toy as a Dec-POMDP" in n.text())
    hrefs = {a.attrs.get("href") for a in next_section.find_all("a")}
    assert hrefs == {"../simulation-reference/#dec-pomdp"}


def test_editors_notes_qualify_the_sentences_the_literature_qualifies(site: BuiltSite) -> None:
    """The author's sentences stay as written; where the literature qualifies one, a note."""
    notes = {
        page: [
            p.text() for p in article(site, page).find_all("p") if "lesson-editor-note" in p.classes
        ]
        for page in ("lesson", "summary")
    }
    for page, words in (
        ("summary", "several models on one task are not enough by themselves"),
        ("summary", "the unit of reward and credit"),
        ("lesson", "MAPoRL's verifier scores the discussion as well as the final answer"),
        ("lesson", "some of the cited work does report transfer"),
    ):
        assert any(text.startswith("Editor's note:") and words in text for text in notes[page]), (
            words
        )


def test_the_worked_example_defines_its_words_before_the_episode(site: BuiltSite) -> None:
    """Every term the episode's settings line uses is explained above it, with its numbers."""
    lesson = article(site, "lesson")
    text = lesson.text()
    reading = text.index("Reading the episode")
    episode = text.index("Recorded from the learned agents after training")
    assert reading < episode
    glossary = text[reading:episode]
    for term in ("climbing game", "group", "advantage", "Seed", "softmax", "Episode reward"):
        assert term in glossary, term
    settings = re.search(r"updates: (\d+); group size: (\d+)", text[episode:])
    assert settings, "the episode's settings line"
    assert f"one *update* {settings[1]} times".replace("*", "") in glossary
    assert f"a *group* of {settings[2]} joint responses".replace("*", "") in glossary
    # The quiz asks about MAGRPO's advantage; the page defines it before the quiz.
    assert "return minus the mean return of its group" in glossary
    assert text.index("Check Your Understanding") > episode


def test_the_worked_example_says_its_agents_are_toys_and_who_builds_the_prompts(
    site: BuiltSite,
) -> None:
    """Our words around the lesson: the episode's agents are the simulation's tabular toys, not
    language models; the observation function, not T, builds each prompt; the transition's
    result is s-prime (the Visual Lab's feedback says so)."""
    text = normalise(article(site, "lesson").text())
    assert (
        "in the roles two language models would have. Here they are the simulation lab's toy agents"
        in text
    )
    assert "Building it is the observation function's job" in text
    prime = "s\N{PRIME}"
    assert (
        f"The move from s to {prime} is the environment transition; {prime} is its result." in text
    )
