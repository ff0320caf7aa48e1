"""The built simulation page: its lab made from the spec and the model, nothing typed twice."""

from __future__ import annotations

import re

from lab import param_spec, run_experiment
from lab.sim.render import SLOTS, render_episode
from lesson_hooks.build.tab_stops import focusable_listings
from lesson_hooks.fences.simulation import parse_page
from tests.conftest import ROOT, BuiltSite

PAGE = "simulation/index.html"
REFERENCE = "simulation-reference/index.html"
SOURCE = ROOT / "docs" / "simulation.md"
LAB_JS = ("simulation.js", "simulation-curve.js", "code-panel.js")


def built(site: BuiltSite) -> str:
    return (site.dir / PAGE).read_text(encoding="utf-8")


def test_the_transcript_is_lab_renders_own_of_the_pages_run(site: BuiltSite) -> None:
    """Golden output that cannot drift: the page holds exactly what lab.sim.render makes,
    with the tab stops the build gives every listing (lesson_hooks/build/tab_stops.py)."""
    (lab,) = parse_page(SOURCE.read_text(encoding="utf-8"), "docs/simulation.md")
    expected = focusable_listings(render_episode(run_experiment(lab.params), lab.prefix))
    assert f'<div data-lab-episode data-lab-html="episode">{expected}</div>' in built(site)


def test_every_step_the_reference_links_to_is_in_the_transcript(site: BuiltSite) -> None:
    """The Dec-POMDP table on the reference page points into the lab's transcript."""
    reference = (site.dir / REFERENCE).read_text(encoding="utf-8")
    links = set(re.findall(r'href="\.\./simulation/#(lab-simulation-[a-z0-9-]+)"', reference))
    assert len(links) >= 6
    ids = set(re.findall(r'\sid="([^"]+)"', built(site)))
    assert links <= ids, sorted(links - ids)


def test_the_form_has_every_field_of_the_spec_and_each_result_a_place(site: BuiltSite) -> None:
    html = built(site)
    boxes = re.findall(r'data-lab-field-box="([a-z_]+)"', html)
    assert boxes == list(param_spec())
    for slot in SLOTS:
        assert html.count(f'data-lab-html="{slot}"') == 1, slot


def test_the_pages_javascript_holds_no_rule_or_number_format_of_pythons(
    site: BuiltSite,
) -> None:
    """Limits, messages and number formats are Python's; the page's scripts only carry them."""
    for name in LAB_JS:
        source = (site.dir / "assets" / "lab" / "widgets" / name).read_text(encoding="utf-8")
        # (The curve rounds its SVG path's coordinates with toFixed; nothing it shows.)
        for twin in ("toExponential", "labMin", "labMax", "labMessage", "labBest"):
            assert twin not in source, (name, twin)
    assert not (site.dir / "assets" / "lab" / "simulation-render.js").exists()
