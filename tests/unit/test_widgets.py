"""The page's widgets follow the registry of lab kinds (lab/kinds.py), file for kind.

labs.js imports ``widgets/<data-lab>.js`` and takes its default export as the
lab; so every kind with a widget needs that file, and a module there with a
default export is a widget that no kind would ever load.
"""

from __future__ import annotations

import re

from lab.core.rules import ID
from lab.kinds import KINDS
from tests.conftest import ROOT

WIDGETS = ROOT / "docs" / "assets" / "lab" / "widgets"
DEFAULT_EXPORT = re.compile(r"^export default ", re.MULTILINE)


def test_every_kind_with_a_widget_has_its_file_and_every_widget_a_kind() -> None:
    wanted = {kind.name for kind in KINDS if kind.widget}
    widgets = {
        path.stem
        for path in WIDGETS.glob("*.js")
        if DEFAULT_EXPORT.search(path.read_text(encoding="utf-8"))
    }
    assert widgets == wanted


def test_every_kind_is_a_name_labs_js_accepts() -> None:
    # labs.js tests a data-lab value with the same rule, handed over by the build
    # (tests/unit/lab/core/test_rules.py runs it in Node).
    for kind in KINDS:
        assert ID.fullmatch(kind.name), kind.name
    labs = (WIDGETS.parent / "labs.js").read_text(encoding="utf-8")
    assert 'import { ID_PATTERN } from "./rules.js";' in labs
