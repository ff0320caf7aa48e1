"""The build checks guided experiments, naming file and line, and ships them as plain markup."""

from __future__ import annotations

import re
from pathlib import Path

from lesson_hooks.fences.experiment import parse_page
from tests.conftest import ROOT, BuiltSite
from tests.support.html import labs_stylesheet, shipped_stylesheet
from tests.support.located import edit_fails_at

PAGES = {"docs/simulation.md": "simulation", "docs/language-models.md": "language-models"}


def test_a_condition_outside_the_language_fails_the_build_at_its_line(project: Path) -> None:
    edit_fails_at(
        project,
        "docs/simulation.md",
        "    when: seeds.methods.learned.reached_optimum == 0\n    right: true\n",
        "    when: __import__('os')\n    right: true\n",
        "when: __import__('os')",
        "the `when` of option 3: __import__() is not allowed",
    )


def test_every_experiment_is_on_its_page_as_the_contract_says(site: BuiltSite) -> None:
    for source, url in PAGES.items():
        experiments = parse_page((ROOT / source).read_text(encoding="utf-8"), source)
        html = (site.dir / url / "index.html").read_text(encoding="utf-8")
        assert "```lab-experiment" not in html
        experiment_css = shipped_stylesheet(site.dir, "assets/lab/widgets/experiment.css")
        assert labs_stylesheet(site.dir, url).count(experiment_css) == 1
        for experiment in experiments:
            root = re.search(rf'<div class="lab lab-experiment" id="{experiment.id}"[^>]*>', html)
            assert root, experiment.id
            assert f'data-lab="experiment" data-lab-experiment="{experiment.id}"' in root[0]
            radios = re.findall(rf'<input type="radio" name="lab-experiment-{experiment.id}"', html)
            assert len(radios) == len(experiment.options)
        assert html.count(">Run this experiment</button>") == len(experiments)
        assert html.count("<summary>Answer and explanation</summary>") == len(experiments)
    assert (site.dir / "assets" / "lab" / "widgets" / "experiment.js").is_file()
    assert (site.dir / "assets" / "lab" / "shared" / "run-request.js").is_file()


def test_each_experiments_charts_link_leads_to_its_lab_on_the_page_from_the_start(
    site: BuiltSite,
) -> None:
    """Before any script runs, "See the full charts in the lab" is a real link (crawlers and
    assistive tech see no anchor that goes nowhere) to an element of the same page."""
    for url in PAGES.values():
        html = (site.dir / url / "index.html").read_text(encoding="utf-8")
        links = re.findall(r"<a ([^>]*)data-lab-experiment-charts[^>]*>", html)
        assert links, url
        for attributes in links:
            href = re.search(r'href="#([^"]+)"', attributes)
            assert href, f"{url}: a charts link without an in-page href: {attributes}"
            assert f'id="{href[1]}"' in html, f"{url}: #{href[1]} names no element"
