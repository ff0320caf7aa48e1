"""What the formatters know of their page, and what the hook checks once a page is rendered."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from lab.kinds import KINDS
from lesson_hooks.fences import custom, sitewide
from lesson_hooks.fences.base import FenceError
from lesson_hooks.fences.scan import find_lab_fences
from tests.support.located import raises_located
from tests.support.markdown import convert

PATH = "docs/page.md"
QUIZ = """\
```lab-quiz
id: {id}
prompt: Answer.
questions:
  - text: Shared?
    explanation: One reward.
    options:
      - text: "Yes."
        correct: true
        feedback: Right.
      - text: "No."
        {key}: Wrong.
```
"""


def quiz(quiz_id: str = "q", key: str = "feedback") -> str:
    return QUIZ.format(id=quiz_id, key=key)


@dataclass
class _File:
    src_uri: str = "page.md"


@dataclass
class _Page:
    """What leave reads of an MkDocs page."""

    file: _File = field(default_factory=_File)
    url: str = "page/"
    present_anchor_ids: set[str] = field(default_factory=set)


@pytest.fixture(autouse=True)
def _no_page_left_over():
    yield
    custom.leave()


def render(markdown: str) -> str:
    """``markdown`` converted as the hook has a page converted: its blocks entered first."""
    fences = find_lab_fences(markdown, PATH, "page/")
    custom.enter(fences[0].page, fences)
    return convert(markdown)


def test_each_block_is_claimed_by_its_line_identical_ones_in_order() -> None:
    markdown = f"# Page\n\n{quiz()}\n!!! note\n\n" + "".join(
        f"    {line}\n" if line else "\n" for line in quiz().split("\n")[:-1]
    )
    html = render(markdown)
    page = custom.leave()
    assert page is not None
    assert set(page.markup) == set(page.fences) and len(page.fences) == 2
    assert html.count('data-lab="quiz"') == 2
    # Links are relative to the page (the spec file lives at the site's root).
    assert 'data-lab-spec="../assets/lab/quizzes/q.json"' in html


def test_the_ids_inside_the_labs_become_the_pages_anchors() -> None:
    html = render(f"# Page\n\n{quiz()}")
    page = _Page()
    sitewide.leave(page, html)  # type: ignore[arg-type]
    assert {"lab-q", "lab-q-q1-hint"} <= page.present_anchor_ids


def test_an_element_id_of_two_kinds_fails_at_the_second_block_naming_the_first() -> None:
    # A quiz `q` and a language-model lab `q` both make the element id `lab-q`.
    markdown = f"# Page\n\n{quiz()}\n```lab-language-models\nid: q\n```\n"
    html = render(markdown)
    second = markdown.split("\n").index("```lab-language-models") + 1
    raises_located(
        lambda: sitewide.leave(_Page(), html),  # type: ignore[arg-type]
        PATH,
        second,
        "the element id 'lab-q' is already used on this page by the ```lab-quiz block at line 3;"
        " give this block, or the one at line 3, another `id`.",
    )


def test_a_block_id_equal_to_a_headings_fails_at_the_block() -> None:
    html = render(f"# Page\n\n{quiz()}\n## Questions {{#lab-q}}\n")
    raises_located(
        lambda: sitewide.leave(_Page(), html),  # type: ignore[arg-type]
        PATH,
        3,
        "the element id 'lab-q' of this ```lab-quiz block is also the id of a <h2> on this page",
    )


def test_a_block_no_formatter_rendered_fails_at_its_line() -> None:
    markdown = f"# Page\n\n{quiz()}"
    fences = find_lab_fences(markdown, PATH)
    custom.enter(fences[0].page, fences)
    raises_located(
        lambda: sitewide.leave(_Page(), "<h1>Page</h1>"),  # type: ignore[arg-type]
        PATH,
        3,
        "the ```lab-quiz block was not rendered as a lab",
    )


def test_without_the_hook_a_block_renders_and_its_errors_count_from_its_fence() -> None:
    assert 'data-lab="quiz"' in convert(f"# Page\n\n{quiz()}")
    with pytest.raises(FenceError) as caught:
        convert(f"# Page\n\n{quiz(key='feedbak')}")
    assert str(caught.value).startswith(
        "a ```lab-quiz block, line 11 from its opening fence: unknown key 'feedbak'"
    )


def test_an_unknown_kind_is_named_with_the_closest_kind() -> None:
    raises_located(
        lambda: sitewide.read_page("```lab-simulaton\n```\n", PATH),
        PATH,
        1,
        "unknown lab block ```lab-simulaton (expected "
        + ", ".join(f"`{kind.fence_name}`" for kind in KINDS)
        + "). Did you mean `lab-simulation`?",
    )


# ------------------------------------------------- the declaration and its copies


def _config(entries: list[dict]) -> dict:
    return {"mdx_configs": {"pymdownx.superfences": {"custom_fences": entries}}}


def test_mkdocs_yml_registering_every_kind_passes() -> None:
    sitewide.check_config(_config(sitewide.custom_fences()))  # type: ignore[arg-type]


def test_a_kind_missing_from_mkdocs_yml_fails_the_build_with_the_entry_to_add() -> None:
    missing = KINDS[-1]
    entries = [e for e in sitewide.custom_fences() if e["name"] != missing.fence_name]
    with pytest.raises(PluginError) as err:
        sitewide.check_config(_config(entries))  # type: ignore[arg-type]
    message = str(err.value)
    assert f"the lab kind {missing.name!r} (lab/kinds.py) needs this entry" in message
    assert f"        - name: {missing.fence_name}\n" in message
    assert f"format: !!python/name:{missing.fence}.formatter" in message


def test_an_entry_no_kind_declares_fails_the_build() -> None:
    stray = {**sitewide.custom_fences()[0], "name": "lab-not-a-kind", "class": "lab-not-a-kind"}
    with pytest.raises(
        PluginError, match=re.escape("'lab-not-a-kind', which no kind in lab/kinds.py declares")
    ):
        sitewide.check_config(_config([*sitewide.custom_fences(), stray]))  # type: ignore[arg-type]


HEAD = """<html><head>
<link rel="stylesheet" href="../assets/stylesheets/lesson.css">
<link rel="stylesheet" href="../assets/lab/lab.css">
<link rel="stylesheet" href="../assets/stylesheets/aids.css">
<link rel="stylesheet" href="../assets/record/record.css">
</head><body></body></html>"""


def _stylesheets(html: str) -> list[str]:
    return re.findall(r'<link rel="stylesheet" href="([^"]+)">', html.split("</head>")[0])


def test_a_lab_page_links_one_stylesheet_for_its_labs_where_the_site_wide_ones_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each stylesheet in the head is a request before the first paint."""
    page = _Page()
    monkeypatch.setattr(sitewide, "_joined", ["assets/lab/lab.css", "assets/record/record.css"])
    monkeypatch.setattr(sitewide, "_sheets", {})
    assert sitewide.link_stylesheets(HEAD, page) == HEAD  # a page without labs
    sitewide._sheets[page.file.src_uri] = "assets/lab/styles/quiz_worked-example.css"
    assert _stylesheets(sitewide.link_stylesheets(HEAD, page)) == [
        "../assets/stylesheets/lesson.css",
        "../assets/lab/styles/quiz_worked-example.css",
        "../assets/stylesheets/aids.css",
    ]
    # A theme that links them otherwise fails the build rather than style a page twice.
    other = HEAD.replace("record/record.css", "record/record.css?v=2")
    with pytest.raises(PluginError, match=r"page\.md: the head does not link <link [^>]*record"):
        sitewide.link_stylesheets(other, page)


def test_kinds_found_together_on_a_page_share_one_stylesheet_of_theirs_and_the_sites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mkdocs.config import load_config
    from mkdocs.structure.files import File, Files

    from lesson_hooks.support.paths import ROOT

    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path))
    config.plugins._current_plugin = None  # what MkDocs sets while a build's events run
    parts = {
        "assets/lab/lab.css": b".lab{margin:0}\n/*# sourceMappingURL=lab.css.map */\n",
        "assets/record/record.css": b".lesson-record{padding:0}",
        "assets/lab/widgets/quiz.css": b".lab-quiz{color:red}\n",
        "assets/lab/widgets/worked-example.css": b".lab-worked-example{color:blue}\n",
    }
    files = Files([File.generated(config, uri, content=text) for uri, text in parts.items()])
    fence = type("Fence", (), {})
    quiz, example = fence(), fence()
    quiz.name, example.name = "lab-quiz", "lab-worked-example"
    monkeypatch.setattr(sitewide, "_pages", {"a.md": [example, quiz], "b.md": [quiz, example]})
    monkeypatch.setattr(sitewide, "_sheets", {})
    monkeypatch.setattr(sitewide, "_joined", [])
    sitewide._pages["c.md"] = []
    sitewide._join_stylesheets(files, config)
    sheet = "assets/lab/styles/quiz_worked-example.css"
    assert sitewide._sheets == {"a.md": sheet, "b.md": sheet}
    joined = files.get_file_from_path(sheet)
    assert joined is not None and joined.content_bytes == (
        b".lab{margin:0}\n.lesson-record{padding:0}\n.lab-quiz{color:red}\n"
        b".lab-worked-example{color:blue}\n"
    )
    assert len([f for f in files if f.src_uri.startswith("assets/lab/styles/")]) == 1
