"""lab.sim.figures: the heatmaps and the across-seeds strip as SVG files that read alone."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from lab import run_experiment
from lab.core.export import exports
from lab.kinds import RUNNERS
from lab.sim.figures import METHOD_COLORS, heatmaps_svg, seeds_svg
from lab.sim.render import format_percent
from tests.conftest import ROOT

SVG = "{http://www.w3.org/2000/svg}"
RESULT = run_experiment({"seeds": 4, "updates": 20})


def parse(text: str | None) -> ET.Element:
    assert text
    return ET.fromstring(text)


def test_the_heatmaps_hold_every_methods_joint_play_with_its_numbers() -> None:
    svg = parse(heatmaps_svg(RESULT))
    assert svg.tag == f"{SVG}svg" and svg.get("width") and svg.get("viewBox")
    groups = svg.findall(f"{SVG}g")
    assert [g.get("data-method") for g in groups] == [m["id"] for m in RESULT["methods"]]
    for group in groups:
        dist = RESULT["joint_distribution"][group.get("data-method")]
        cells = group.findall(f"{SVG}rect")
        assert len(cells) == 9
        # Each cell's shade is its probability; its text, the reward and the percentage.
        assert float(cells[8].get("fill-opacity")) == round(dist[2][2], 3)
        texts = [t.text for t in group.iter(f"{SVG}text")]
        assert format_percent(dist[2][2]) in texts
        assert "11 \u2605" in texts  # the best joint response, marked
    # Colours and sizes are the SVG's own: nothing depends on the page's stylesheet.
    assert svg.get("fill") and svg.get("font-family") and "class" not in ET.tostring(svg, "unicode")


def test_the_strip_has_a_dot_per_seed_and_method_at_its_expected_reward() -> None:
    svg = parse(seeds_svg(RESULT))
    dots = svg.findall(f".//{SVG}circle")
    assert len(dots) == 4 * len(RESULT["methods"])
    seeds = sorted({int(d.get("data-seed")) for d in dots})
    assert seeds == [0, 1, 2, 3]
    title = svg.find(f"{SVG}title")
    assert title is not None and title.text and "seeds 0 to 3" in title.text
    counts = [t.text for t in svg.iter(f"{SVG}text") if t.text and "at the optimum" in t.text]
    learned = RESULT["seeds"]["methods"]["learned"]["reached_optimum"]
    assert f"Learned collaboration (MAGRPO) ({learned} of 4 at the optimum)" in counts


def test_a_run_offers_them_as_svg_downloads_as_the_page_shows_them() -> None:
    names = [f["name"] for f in exports(RUNNERS["simulation"], RESULT)["files"]]
    assert names[-2].endswith("-heatmaps.svg") and names[-1].endswith("-seeds.svg")
    # One seed: the page's strip has a dot per method, and so does the file.
    one = parse(seeds_svg(run_experiment({"updates": 20})))
    assert len(one.findall(f".//{SVG}circle")) == len(RESULT["methods"])
    assert seeds_svg({"seeds": None}) is None and heatmaps_svg({}) is None


def test_each_method_has_its_own_colour_and_the_svgs_are_the_pages_light_ones() -> None:
    """Issue 39: two methods shared a colour. The SVG's colours are the stylesheet's."""
    css = (ROOT / "docs/assets/lab/widgets/simulation.css").read_text(encoding="utf-8")
    light = css.split("@media screen", 1)[0]  # the light scheme's, before the dark one's
    page = {}
    for method in METHOD_COLORS:
        found = re.search(rf"--lab-sim-{method.replace('_', '-')}: ([^;]+);", light)
        assert found, f"simulation.css gives {method} no colour of its own"
        page[method] = found.group(1)
    # The two the lesson shares are the lesson's, with the same fallbacks.
    resolved = {m: re.sub(r"var\([^,]+, (#[0-9a-f]+)\)", r"\1", c) for m, c in page.items()}
    assert resolved == METHOD_COLORS
    assert len(set(METHOD_COLORS.values())) == len(METHOD_COLORS)
