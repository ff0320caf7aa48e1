"""The lesson's worked example: one episode rendered from the model, and its math."""

from __future__ import annotations

import json

import pytest

from lab import run_experiment
from lab.sim.render import STEP_LABELS, render_episode
from lesson_hooks.build.katex import KATEX_DIR, STYLESHEET, check_katex, locked_katex_version
from lesson_hooks.build.tab_stops import focusable_listings
from lesson_hooks.fences.worked_example import PREFIX, parse_page
from tests.build.test_content import article, normalise
from tests.conftest import ROOT, BuiltSite
from tests.support.located import raises_located


def episode_block(site: BuiltSite):
    (block,) = [n for n in article(site, "lesson").iter() if "data-lab-worked-example" in n.attrs]
    return block


def test_the_episode_is_the_models_own(site: BuiltSite) -> None:
    """The page shows exactly what lab.sim.render makes of a fresh run, nothing typed by hand,
    with the tab stops the build gives every listing (lesson_hooks/build/tab_stops.py)."""
    lesson = (ROOT / "docs" / "lesson.md").read_text(encoding="utf-8")
    (params,) = parse_page(lesson, "docs/lesson.md")
    expected = focusable_listings(render_episode(run_experiment(params), PREFIX, fold=True))
    html = (site.dir / "lesson" / "index.html").read_text(encoding="utf-8")
    assert expected in html


def test_the_episode_is_labelled_with_the_exercises_concepts(site: BuiltSite) -> None:
    block = episode_block(site)
    labels = [normalise(dt.text()) for dt in block.find_all("dt")]
    for label in STEP_LABELS:
        assert label in labels, label
    turns = [h.text() for h in block.find_all("h4")]
    assert turns == ["Turn 1 of 2", "Turn 2 of 2"]
    agents = [h.text() for h in block.find_all("h5")]
    assert agents.count("Helper agent") == 2 and agents.count("Main agent") == 2
    # Two prompts, two responses, the joint output, its score and the next prompts.
    assert len(block.find_all("pre")) >= 2 * 2 * 2 + 2
    nexts = [d.find("summary").text() for d in block.find_all("details")]
    assert "Next prompt of the helper agent" in nexts and "Next prompt of the main agent" in nexts
    reward = block.find("strong", "lab-sim__reward").text()
    float(reward)


def test_the_dec_pomdp_tuple_and_policy_notation_are_math(site: BuiltSite) -> None:
    lesson = article(site, "lesson")
    # Typeset at build time; the TeX stays as the MathML's annotation.
    formulas = [n.find("annotation").text() for n in lesson.iter() if "arithmatex" in n.classes]
    assert any(r"\langle I," in f and r"\{\Omega_i\}" in f for f in formulas)
    assert any(r"\pi_i(a_i \mid h_i)" in f for f in formulas)


def test_katex_is_vendored_from_the_locked_npm_package(site: BuiltSite) -> None:
    version = check_katex()
    assert version == locked_katex_version()
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    assert package["devDependencies"]["katex"] == version
    vendored = site.dir / KATEX_DIR
    assert (vendored / STYLESHEET).is_file() and list((vendored / "fonts").glob("*.woff2"))
    # The math is typeset at build time: readers get no KaTeX script.
    assert not list(vendored.rglob("*.js")) and not list(vendored.rglob("*.mjs"))


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        ("turns: 7\n", 4, "`turns`: "),
        ("turns: [\n", 4, "invalid YAML"),
        ("- 1\n", 4, "the worked example takes simulation parameters."),
        ("turns: 1\nturns: 2\n", 5, "the worked example sets 'turns' twice."),
    ],
)
def test_bad_parameters_fail_at_their_line(body: str, line: int, problem: str) -> None:
    page = f"# T\n\n```lab-worked-example\n{body}```\n"
    raises_located(lambda: parse_page(page, "docs/page.md"), "docs/page.md", line, problem)


def test_what_repeats_in_the_episode_opens_on_demand(site: BuiltSite) -> None:
    """Each agent's prompt and every turn after the first are collapsed blocks;
    the first turn's steps (policy, action, joint output, reward) show."""
    episode = episode_block(site)
    folds = [d for d in episode.find_all("details") if "lab-sim__fold" in d.classes]
    summaries = [d.find("summary").text() for d in folds]
    later = [d for d in folds if d.find("summary").text().startswith("Turn 2 of 2")]
    assert len(later) == 1
    assert "Turn 2 of 2" in later[0].text()  # its heading is inside
    assert summaries.count("The prompt") == 4  # two agents, two turns
    first_turn = episode.find("div", "lab-sim__turn")
    assert first_turn.find("h4").text() == "Turn 1 of 2"
    assert first_turn not in list(later[0].iter())
    assert first_turn.find("dl", "lab-sim__steps--joint")
