"""The contributor's guide says what the code does, and stays easy to read.

- The one list of kinds in the docs (the table of ``contributing/lab-blocks.md``,
  with a section per kind and its list of ids) is ``lab/kinds.py``'s; a new kind
  fails here, naming the page to write.
- No table cell runs longer than a short paragraph.
- No measured figure or history: ``./dev bench`` writes the measures
  (``contributing/benchmark-results.md``), and the git log keeps what was tried.
- The figures the guide gives are the source's, and each error its
  troubleshooting names is one the code writes.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from lab.kinds import KINDS, Kind
from tests.browser.engines.webkit import COMMAND_TIMEOUT
from tests.conftest import ROOT
from tests.seeds.store import SAMPLE

CONTRIBUTING = ROOT / "contributing"
BLOCKS = CONTRIBUTING / "lab-blocks.md"
ADDING = CONTRIBUTING / "adding-a-lab-kind.md"
# Written by ./dev bench, measures and all.
WRITTEN_BY_TOOLS = {"benchmark-results.md"}
GUIDE = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *(p for p in sorted(CONTRIBUTING.glob("*.md")) if p.name not in WRITTEN_BY_TOOLS),
]
LONGEST_CELL = 300  # characters: more is a paragraph, which reads better as text
# "about 13.5 MB", "about 7 minutes": figures a machine measured, which drift.
MEASURED = re.compile(r"\babout [0-9][0-9.,]* ?(MB|KB|ms|s|seconds?|minutes?)\b")
SOURCES = ("lab", "lesson_hooks", "tools", "tests", "docs/assets")


def _shown(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _title(title: str) -> str:
    return title[0].upper() + title[1:]


def blocks_problems(kinds=KINDS, text: str | None = None) -> list[str]:
    """What ``contributing/lab-blocks.md``'s table and sections miss, or hold beyond ``kinds``."""
    text = BLOCKS.read_text(encoding="utf-8") if text is None else text
    rows = re.findall(r"^\| `lab-([a-z0-9-]+)` \|", text, re.MULTILINE)
    headings = set(re.findall(r"^## (.+?)\s*$", text, re.MULTILINE))
    problems = []
    for kind in kinds:
        if kind.name not in rows:
            problems.append(
                f"contributing/lab-blocks.md has no row for the kind {kind.name!r}: add "
                f"one to its table: | `lab-{kind.name}` | what it is | its name for readers |"
            )
        if _title(kind.title) not in headings:
            problems.append(
                f"contributing/lab-blocks.md has no section for the kind {kind.name!r}: add "
                f"'## {_title(kind.title)}' (its title in lab/kinds.py) with the block's YAML."
            )
    scopes = {"site": "across the site", "page": "on its page"}
    for kind in kinds:
        if kind.ids is None:
            continue
        line = re.search(rf"^- {scopes[kind.ids]}: (.*?)[;.]?$", text, re.MULTILINE)
        listed = {n.strip().lower() for n in line.group(1).split(",")} if line else set()
        if kind.title.lower() not in listed:
            problems.append(
                f"contributing/lab-blocks.md's list of ids does not name the kind {kind.name!r}: "
                f"add '{kind.title}' to its line '- {scopes[kind.ids]}: …' (its ids in "
                "lab/kinds.py)."
            )
    declared = {kind.name for kind in kinds}
    problems += [
        f"contributing/lab-blocks.md has a row for `lab-{name}`, which lab/kinds.py does not "
        "declare: remove the row and its section, or declare the kind."
        for name in rows
        if name not in declared
    ]
    return problems


def test_lab_blocks_md_documents_every_kind_and_no_other() -> None:
    problems = blocks_problems()
    assert not problems, "\n".join(problems)


def test_a_new_kind_names_the_page_to_write() -> None:
    new = Kind("payoff", "payoff lab", 5, "lesson_hooks.fences.payoff")
    assert blocks_problems([new], text="# Lab blocks\n") == [
        "contributing/lab-blocks.md has no row for the kind 'payoff': add one to its table: "
        "| `lab-payoff` | what it is | its name for readers |",
        "contributing/lab-blocks.md has no section for the kind 'payoff': add "
        "'## Payoff lab' (its title in lab/kinds.py) with the block's YAML.",
        "contributing/lab-blocks.md's list of ids does not name the kind 'payoff': add "
        "'payoff lab' to its line '- on its page: …' (its ids in lab/kinds.py).",
    ]


@pytest.mark.parametrize("path", GUIDE, ids=_shown)
def test_no_table_cell_is_a_paragraph(path: Path) -> None:
    long = [
        f"{_shown(path)}:{number}: a cell of {len(cell)} characters: {cell[:60]}…"
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if line.startswith("|")
        for cell in line.strip().strip("|").split(" | ")
        if len(cell.strip()) > LONGEST_CELL
    ]
    assert not long, "write these as text or a list:\n" + "\n".join(long)


@pytest.mark.parametrize("path", GUIDE, ids=_shown)
def test_the_guide_holds_no_measured_figure(path: Path) -> None:
    found = [
        f"{_shown(path)}:{number}: {match.group(0)!r}"
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        for match in MEASURED.finditer(line)
    ]
    assert not found, (
        "a measured figure drifts: say what the code does, and leave the measure to "
        "./dev bench (contributing/benchmark-results.md) or the commit message:\n"
        + "\n".join(found)
    )


def _js_number(path: str, name: str) -> float:
    text = (ROOT / path).read_text(encoding="utf-8")
    return float(re.search(rf"\b{name} = (\d+)", text)[1])


def test_the_figures_the_guide_gives_are_the_sources() -> None:
    pytest_ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    timeout = pytest_ini["tool"]["pytest"]["ini_options"]["timeout"]
    idle = (ROOT / "docs/assets/lab/shared/idle.js").read_text(encoding="utf-8")
    dwell = _js_number("docs/assets/lab/shared/idle.js", "READING_DWELL") / 1000
    grace = _js_number("docs/assets/lab/client.js", "INTERRUPT_GRACE_MS") / 1000
    network = _js_number("docs/assets/offline/sw.js", "NETWORK_TIMEOUT_MS") / 1000
    near = re.search(r'NEAR_VIEWPORT = "(\d+)px', idle)[1]
    figures = {
        "contributing/architecture.md": [
            f"after {dwell:g} s on this",
            f"A call still running {grace:g} s later",
            f"after {network:g} s without an answer",
            f"viewport ({near} px)",
        ],
        "contributing/testing.md": [
            f"fails after {timeout // 60} minutes",
            f"gets {COMMAND_TIMEOUT} s per command",
            f"a random sample of {SAMPLE} seeds",
        ],
    }
    for path, phrases in figures.items():
        text = " ".join((ROOT / path).read_text(encoding="utf-8").split())
        for phrase in phrases:
            assert phrase in text, f"{path} should say {phrase!r}, as the source does"


def _troubleshooting() -> list[str]:
    text = ADDING.read_text(encoding="utf-8").split("## Troubleshooting", 1)[1]
    text = text.split("\n## ", 1)[0]
    return [
        match[1]
        for match in re.finditer(r"^\| `([^`]+)`", text, re.MULTILINE)
        if match[1] != "you see"
    ]


def test_each_error_the_troubleshooting_names_is_one_the_code_writes() -> None:
    messages = _troubleshooting()
    assert len(messages) >= 10
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in SOURCES
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".js") and "node_modules" not in path.parts
    )
    missing = [
        message
        for message in messages
        if not all(part.strip() in code for part in message.split("…") if part.strip())
    ]
    assert not missing, f"no code writes these any more; update the troubleshooting: {missing}"
