"""The rules Python and the page both need have one source (lab/core/rules.py).

The build hands them to the page as ``assets/lab/rules.js``
(lesson_hooks/build/rules.py); these tests fail when the page holds its own
copy, when the generated module would read differently in JavaScript, and
when the two evaluators of a spec's ``used_when`` (Python's ``field_used``,
the page's ``used-when.js``) disagree on any condition of any spec, run in
Node on cases made here from the specs.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from lab.core.params import field_used
from lab.core.rules import FOR_THE_PAGE, ID, ID_PATTERN, INTERRUPTED, LINK_SETTINGS, PARAM_ERROR
from lab.kinds import KINDS, RUNNERS
from lab.rpc import dispatch
from lesson_hooks.build.rules import RULES_MODULE, download_figures, module_text
from tests.conftest import ROOT

ASSETS = ROOT / "docs" / "assets"
LAB = ASSETS / "lab"
USED_WHEN = LAB / "shared" / "used-when.js"
#: How labs.js makes its pattern a whole-name test; the Node check below makes it alike.
WHOLE_NAME = "new RegExp(`^(?:${ID_PATTERN})$`)"

NAMES = (
    "a",
    "simulation",
    "language-models",
    "lab-2",
    "x2-y3",
    "2x",
    "-a",
    "a-",
    "a--b",
    "A",
    "a_b",
    "a b",
    "a.b",
    "",
    "é",
    "a\n",
)


def node(script: str, modules: Mapping[str, str], data: Any, tmp_path: Path) -> Any:
    """Run ES module ``script`` on JSON ``data`` (stdin) beside ``modules`` (name -> text)."""
    executable = shutil.which("node")
    assert executable, "Node is needed (the build runs it too)."
    for name, text in modules.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "check.mjs").write_text(script, encoding="utf-8")
    done = subprocess.run(
        [executable, str(tmp_path / "check.mjs")],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def scripts() -> Iterator[tuple[Path, str]]:
    for path in sorted(ASSETS.rglob("*.js")):
        yield path, path.read_text(encoding="utf-8")


# ------------------------------------------------------------- one source


def test_the_module_exports_each_rule_as_json() -> None:
    text = module_text()
    exported = dict(re.findall(r"^export const (\w+) = (.*);$", text, re.MULTILINE))
    assert {name: json.loads(value) for name, value in exported.items()} == FOR_THE_PAGE
    assert RULES_MODULE == "assets/lab/rules.js"
    assert not (ROOT / "docs" / RULES_MODULE).exists(), "rules.js is the build's, never in docs/"


def test_no_script_holds_a_copy_of_a_rule() -> None:
    copies = [json.dumps(value) for value in (PARAM_ERROR, INTERRUPTED)]
    for path, text in scripts():
        for copy in copies:
            assert copy not in text, f"{path}: {copy} is lab/core/rules.py's; import it"
        assert ID_PATTERN not in text, f"{path}: the id pattern is lab/core/rules.py's"
        assert "[a-z0-9]" not in text, f"{path}: a name's pattern is lab/core/rules.py's"
    share = (LAB / "shared" / "share-link.js").read_text(encoding="utf-8")
    assert '"?"' not in share, "share-link.js: the settings separator is LINK_SETTINGS"


def test_every_rule_is_imported_by_the_page() -> None:
    imported: set[str] = set()
    for _path, text in scripts():
        for names in re.findall(r'import \{([^}]*)\} from "[./]*rules\.js"', text):
            imported |= {name.strip() for name in names.split(",")}
        for names in re.findall(r'export \{([^}]*)\} from "[./]*rules\.js"', text):
            imported |= {name.strip() for name in names.split(",")}
    # And the build's figures for Python's download (the status line states them).
    figures = download_figures({"bytes": 1, "snapshot": {"size": 1}})
    assert imported == set(FOR_THE_PAGE) | set(figures)
    labs = (LAB / "labs.js").read_text(encoding="utf-8")
    assert WHOLE_NAME in labs


# ------------------------------------------------------------ the id rule


def test_the_id_pattern_reads_alike_in_javascript(tmp_path: Path) -> None:
    script = f"""
import {{ readFileSync }} from "node:fs";
import {{ ID_PATTERN }} from "./rules.mjs";
const names = JSON.parse(readFileSync(0, "utf8"));
const pattern = {WHOLE_NAME};
console.log(JSON.stringify(names.map((name) => pattern.test(name))));
"""
    names = [*NAMES, *(kind.name for kind in KINDS)]
    page = node(script, {"rules.mjs": module_text()}, names, tmp_path)
    assert page == [bool(ID.fullmatch(name)) for name in names]
    assert [name for name, ok in zip(NAMES, page, strict=False) if ok] == [
        "a",
        "simulation",
        "language-models",
        "lab-2",
        "x2-y3",
    ]


def test_every_kind_is_a_name_of_the_rule() -> None:
    for kind in KINDS:
        assert ID.fullmatch(kind.name), kind.name


# ------------------------------------------------------- the error kinds


def test_python_answers_with_the_kinds_the_page_knows(monkeypatch: pytest.MonkeyPatch) -> None:
    from lab import rpc

    def stopped(args: dict, progress: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setitem(rpc.CALLS, "stopped", stopped)
    assert json.loads(dispatch("stopped", "{}"))["error"]["kind"] == INTERRUPTED
    args = {"kind": "simulation", "target": "lab-simulation", "params": {"seeds": "many"}}
    refused = json.loads(dispatch("link_fragment", json.dumps(args)))
    assert refused["error"]["kind"] == PARAM_ERROR
    assert "seeds" in refused["error"]["fields"]


def test_a_link_splits_where_the_page_splits_it() -> None:
    def read(fragment: str) -> Any:
        args = {"kind": "simulation", "fragment": fragment}
        return json.loads(dispatch("read_link", json.dumps(args)))["result"]

    opened = read(f"#lab-simulation{LINK_SETTINGS}seeds=3")
    assert opened["target"] == "lab-simulation"
    assert opened["params"]["seeds"] == 3
    assert read("#lab-simulation") is None


# ---------------------------------------------------------------- used_when


def _candidates(field: Mapping[str, Any]) -> list[Any]:
    """The values a form's control can hold for ``field``, as the page reads them, and
    each as text (a value the page failed to read as a number matches no number)."""
    if field["kind"] == "choice":
        values = list(field["choices"])
    elif field["kind"] == "boolean":
        values = [True, False]
    else:
        values = [field["default"]]
    return [*values, *(json.dumps(v) for v in values if not isinstance(v, str))]


def _conditions(spec: Mapping[str, Mapping[str, Any]]) -> Iterator[Mapping[str, list[Any]]]:
    for field in spec.values():
        if "used_when" in field:
            yield field["used_when"]
        for rule in field.get("max_when", ()):
            yield rule["when"]


def _cases() -> list[tuple[Mapping[str, list[Any]], dict[str, Any]]]:
    cases = []
    for runner in RUNNERS.values():
        spec = runner.spec()
        for when in _conditions(spec):
            names = list(when)
            # Each field the condition names at each value its control can hold,
            # at a value no choice has, and missing.
            options = [[*_candidates(spec[name]), "none-of-these", None] for name in names]
            for chosen in itertools.product(*options):
                values = {n: v for n, v in zip(names, chosen, strict=True) if v is not None}
                cases.append((when, values))
        cases.append(({}, {}))
    return cases


def test_both_evaluators_of_used_when_agree_on_every_spec(tmp_path: Path) -> None:
    cases = _cases()
    conditions = {json.dumps(when, sort_keys=True) for when, _ in cases}
    assert len(conditions) > 2, "the specs should have conditions to compare"
    script = """
import { readFileSync } from "node:fs";
import { fieldUsed } from "./used-when.mjs";
const cases = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map(([when, values]) => fieldUsed(when, values))));
"""
    modules = {"used-when.mjs": USED_WHEN.read_text(encoding="utf-8")}
    page = node(script, modules, cases, tmp_path)
    python = [field_used({"used_when": when}, values) for when, values in cases]
    assert page == python
    assert True in python and False in python


def test_the_page_has_one_evaluator_of_used_when() -> None:
    for path, text in scripts():
        if path != USED_WHEN:
            assert "Object.entries(usedWhen" not in text, f"{path}: use used-when.js's fieldUsed"
    run_lab = (LAB / "shared" / "run-lab.js").read_text(encoding="utf-8")
    assert 'import { fieldUsed } from "./used-when.js";' in run_lab
