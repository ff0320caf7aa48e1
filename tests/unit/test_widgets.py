"""The kinds' files follow the registry of lab kinds (lab/kinds.py), file for kind.

labs.js imports ``widgets/<data-lab>.js`` and takes its default export as the
lab; so every kind with a widget needs that file, and a module there with a
default export is a widget that no kind would ever load. The same holds for
each kind's stylesheet, fence module and ``mkdocs.yml`` entry: a file of a kind
that ``lab/kinds.py`` no longer declares fails here, naming the kind and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lab.core.rules import ID
from lab.kinds import KINDS, Kind
from tests.conftest import ROOT
from tests.unit.test_layout import config
from tools.new_lab import files_for

WIDGETS = ROOT / "docs" / "assets" / "lab" / "widgets"
DEFAULT_EXPORT = re.compile(r"^export default ", re.MULTILINE)
# A fence module's FENCE names its kind first: FENCE = graded_fence("quiz", ...).
FENCE_KIND = re.compile(r'^FENCE = \w+\(\s*"([a-z0-9-]+)"', re.MULTILINE)


def kind_files() -> dict[str, list[str]]:
    """Each kind's files found in the tree, by the kind's name (whether declared or not)."""
    found: dict[str, list[str]] = {}
    for path in sorted(WIDGETS.glob("*.js")):
        if DEFAULT_EXPORT.search(path.read_text(encoding="utf-8")):
            found.setdefault(path.stem, []).append(path.relative_to(ROOT).as_posix())
    for path in sorted(WIDGETS.glob("*.css")):
        found.setdefault(path.stem, []).append(path.relative_to(ROOT).as_posix())
    for path in sorted((ROOT / "lesson_hooks" / "fences").rglob("*.py")):
        for name in FENCE_KIND.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, []).append(path.relative_to(ROOT).as_posix())
    for extension in config()["markdown_extensions"]:
        if isinstance(extension, dict) and "pymdownx.superfences" in extension:
            for entry in extension["pymdownx.superfences"]["custom_fences"]:
                name = entry["name"].removeprefix("lab-")
                found.setdefault(name, []).append(f"mkdocs.yml's custom_fences entry lab-{name}")
    return found


def scaffolded(name: str) -> list[str]:
    """The kind's Python and tests, where ``./dev new-lab`` writes them, those still here."""
    return [
        path
        for path in sorted(files_for(name))
        if path.startswith(("lab/", "tests/")) and (ROOT / path).exists()
    ]


def kind_problems(kinds: Iterable[Kind]) -> list[str]:
    """What does not match ``kinds``: a declared kind's missing file, a file of no kind."""
    declared = {kind.name: kind for kind in kinds}
    found = kind_files()
    problems = [
        f"the kind {name!r} is not declared in lab/kinds.py, yet these files are its: "
        f"{', '.join(files + scaffolded(name))}. Declare it again in KINDS (lab/kinds.py; "
        "see contributing/adding-a-lab-kind.md), or remove the kind by deleting them."
        for name, files in found.items()
        if name not in declared
    ]
    for name, kind in declared.items():
        files = found.get(name, [])
        for wanted, path in (
            (kind.widget, f"docs/assets/lab/widgets/{name}.js"),
            (kind.stylesheet, f"docs/assets/lab/widgets/{name}.css"),
        ):
            if wanted and path not in files:
                problems.append(
                    f"lab/kinds.py declares the kind {name!r}, whose {path} is missing: write it, "
                    "or declare the kind with widget=False or stylesheet=False."
                )
            if not wanted and path in files:
                problems.append(
                    f"{path} is here, but lab/kinds.py declares the kind {name!r} without it: "
                    "delete the file, or declare the kind with widget=True or stylesheet=True."
                )
    return problems


def test_every_kind_has_its_files_and_every_kinds_file_a_kind() -> None:
    problems = kind_problems(KINDS)
    assert not problems, "\n".join(problems)


def test_a_kind_removed_from_the_registry_is_named_with_the_fix() -> None:
    problems = kind_problems(kind for kind in KINDS if kind.name != "quiz")
    (problem,) = [problem for problem in problems if "'quiz'" in problem]
    assert problem.startswith("the kind 'quiz' is not declared in lab/kinds.py")
    for file in ("docs/assets/lab/widgets/quiz.js", "lesson_hooks/fences/quiz.py"):
        assert file in problem
    assert "Declare it again in KINDS (lab/kinds.py" in problem


def test_every_kind_is_a_name_labs_js_accepts() -> None:
    # labs.js tests a data-lab value with the same rule, handed over by the build
    # (tests/unit/lab/core/test_rules.py runs it in Node).
    for kind in KINDS:
        assert ID.fullmatch(kind.name), kind.name
    labs = (WIDGETS.parent / "labs.js").read_text(encoding="utf-8")
    assert 'import { ID_PATTERN } from "./rules.js";' in labs
