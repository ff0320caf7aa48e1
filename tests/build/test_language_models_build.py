"""The built language-model page: its lab, its links, and a bad fence failing at its line."""

from __future__ import annotations

import json
import zipfile
from html import escape
from pathlib import Path

from lab.lm.model import step_language_models
from tests.conftest import BuiltSite
from tests.support.html import labs_stylesheet, shipped_stylesheet
from tests.support.located import edit_fails_at

PAGE = "docs/language-models.md"


def test_the_page_has_the_lab_its_stylesheet_and_the_first_update(site: BuiltSite) -> None:
    html = (site.dir / "language-models" / "index.html").read_text(encoding="utf-8")
    assert html.count('data-lab="language-models"') == 1
    own = shipped_stylesheet(site.dir, "assets/lab/widgets/language-models.css")
    assert own in labs_stylesheet(site.dir, "language-models")
    for joint in step_language_models({}, 1)["group"]:
        assert f"<code>{escape(joint['main'])}</code>" in html or not joint["main"]
    # The corpus is shown from the file itself.
    assert "helper | def area ( w , h ) : return w * h" in html


def test_the_lab_zip_carries_the_models_and_their_corpus(site: BuiltSite) -> None:
    runtime = json.loads((site.dir / "assets" / "lab" / "runtime.json").read_text())
    with zipfile.ZipFile(site.dir / "assets" / "lab" / runtime["archive"]) as archive:
        names = set(archive.namelist())
    assert {"lab/lm/model.py", "lab/lm/corpus.py", "lab/lm/params.py", "lab/lm/render.py"} <= names


def test_the_lesson_and_the_simulation_page_link_to_it(site: BuiltSite) -> None:
    for page in ("lesson", "simulation"):
        html = (site.dir / page / "index.html").read_text(encoding="utf-8")
        assert 'href="../language-models/' in html, page


def test_a_bad_default_fails_the_build_at_its_line(project: Path) -> None:
    edit_fails_at(
        project,
        PAGE,
        "```lab-language-models\n```",
        "```lab-language-models\ndefaults:\n  group_size: 1\n```",
        "  group_size: 1",
        "`defaults`: group_size: Group size must be a whole number from 2 to 64; got 1.",
    )


def test_pythons_slots_are_named_for_the_widget(site: BuiltSite) -> None:
    """language-models.js puts Python's HTML where data-lab-html names each slot."""
    html = (site.dir / "language-models" / "index.html").read_text(encoding="utf-8")
    for slot in ("models", "seeds", "step"):
        assert html.count(f'data-lab-html="{slot}"') == 1, slot


def test_the_update_shown_before_any_step_is_labelled_as_the_builds(site: BuiltSite) -> None:
    html = (site.dir / "language-models" / "index.html").read_text(encoding="utf-8")
    slot = html[html.index('data-lab-html="step"') :]
    assert slot.index("Before any Step:") < slot.index("Update 1: a group of")
    assert "Step shows update 2, then each next one." in slot
