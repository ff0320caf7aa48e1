"""The contributor's documents name only what exists: links, repository paths, ``./dev`` tasks.

Read are ``README.md``, ``CONTRIBUTING.md`` and every ``contributing/*.md``.
A failure names the file and line to fix. The rules:

- **Links**: a relative Markdown link ``[text](target)`` must reach a file or
  folder that exists; its ``#anchor``, in a Markdown file, must be one of that
  file's headings (GitHub's slugs, or an explicit ``{ #id }``). Addresses with
  a scheme (``https:``, ``mailto:``) are not followed.
- **Repository paths**: an inline code span that is one token containing ``/``
  and starting with a top-level entry of the repository (``lab/kinds.py``,
  ``tests/build/``, ``.ci/run``) must exist; a ``:LINE`` suffix is dropped and a
  ``*`` glob must match something. Spans with ``<placeholders>``, ``…`` or
  ``{}``, and paths under what the build or set-up writes (``site/``,
  ``dist/``, ``node_modules/``, ``.venv/``), are not checked.
- **Commands**: ``./dev TASK``, in code spans and code blocks, must be a task
  that ``dev``'s ``case`` statement runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: Top-level folders written by the build or the set-up, not kept in the repository.
GENERATED = {"site", "dist", "build", "node_modules", ".venv", ".git", "test-results"}
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
DEV = re.compile(r"(?:^|[\s;(&|])\./dev(?:[ \t]+([A-Za-z][\w-]*))?")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ID = re.compile(r"\{[^}]*#([\w-]+)[^}]*\}\s*$")
#: What marks a span as an example rather than a path: `<kind>`, `…`, `{id}`, `$X`, `file:LINE`.
PLACEHOLDER = re.compile(r"[<>…{}$]|\.\.\.|:[A-Z]+\b")


def documents() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *sorted((ROOT / "contributing").glob("*.md")),
    ]


@dataclass(frozen=True)
class Text:
    """A document with its code blocks (``code``) and its prose (``prose``) apart.

    Both keep every character's offset, so a match's line is its line in the file.
    """

    path: Path
    prose: str
    code: str

    def line(self, offset: int) -> int:
        return self.prose.count("\n", 0, offset) + 1

    def where(self, offset: int) -> str:
        return f"{shown(self.path)}:{self.line(offset)}"


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


@cache
def read(path: Path) -> Text:
    """The document split into prose and fenced code, each blanked where the other is."""
    prose, code = [], []
    fence: str | None = None
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            prose.append(_blank(line))
            code.append(_blank(line))
        elif fence is not None:
            closing = line.strip()
            if closing.startswith(fence) and set(closing) == {fence[0]}:
                fence = None
                code.append(_blank(line))
            else:
                code.append(line)
            prose.append(_blank(line))
        else:
            prose.append(line)
            code.append(_blank(line))
    return Text(path, "".join(prose), "".join(code))


def code_spans(text: Text) -> list[tuple[int, str]]:
    """Every inline code span of the prose: its offset and its content, spaces collapsed."""
    return [(m.start(), " ".join(m.group(2).split())) for m in CODE_SPAN.finditer(text.prose)]


def without_code_spans(text: Text) -> str:
    return CODE_SPAN.sub(lambda m: _blank(m.group(0)), text.prose)


# ----------------------------------------------------------------- anchors


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`|\*\*?|__?", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors a Markdown file's headings make (duplicates numbered as GitHub does)."""
    found: list[str] = []
    for line in read(path).prose.splitlines():
        heading = HEADING.match(line)
        if not heading:
            continue
        title = heading.group(2)
        if explicit := EXPLICIT_ID.search(title):
            found.append(explicit.group(1))
            title = title[: explicit.start()]
        base = slug(title)
        seen = sum(1 for a in found if a == base or re.fullmatch(rf"{re.escape(base)}-\d+", a))
        found.append(base if not seen else f"{base}-{seen}")
    return frozenset(found)


# ------------------------------------------------------------------ checks


def link_problems(path: Path) -> list[str]:
    text = read(path)
    problems = []
    for match in LINK.finditer(without_code_spans(text)):
        target = match.group(1)
        if SCHEME.match(target) or target.startswith("//"):
            continue
        file_part, _, anchor = target.partition("#")
        where = text.where(match.start())
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            problems.append(f"{where}: the link's target {file_part} does not exist.")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(
                f"{where}: the link's anchor #{anchor} is no heading of {shown(resolved)}."
            )
    return problems


@cache
def top_level() -> frozenset[str]:
    """The repository's own top-level entries (not what the set-up or build writes)."""
    return frozenset(
        p.name
        for p in ROOT.iterdir()
        if p.name not in GENERATED and not p.name.endswith(".egg-info")
    )


def repository_path(span: str) -> str | None:
    """The path a code span names, if it names one by the rule above (else None)."""
    if " " in span or "/" not in span or PLACEHOLDER.search(span):
        return None
    token = re.sub(r":\d+(?:-\d+)?$", "", span.rstrip(".,;"))
    first = token.lstrip("./").split("/")[0] if token.startswith("./") else token.split("/")[0]
    if first not in top_level():
        return None
    return token.removeprefix("./")


def path_problems(path: Path) -> list[str]:
    text = read(path)
    problems = []
    for offset, span in code_spans(text):
        named = repository_path(span)
        if named is None:
            continue
        exists = any(ROOT.glob(named.rstrip("/"))) if "*" in named else (ROOT / named).exists()
        if not exists:
            problems.append(f"{text.where(offset)}: `{named}` does not exist in the repository.")
    return problems


@cache
def dev_tasks() -> frozenset[str]:
    """The tasks ``dev`` runs: the patterns of its ``case "$task" in`` statement."""
    source = (ROOT / "dev").read_text(encoding="utf-8")
    block = re.search(r'^case "\$task" in\n(.*?)^esac', source, re.MULTILINE | re.DOTALL)
    assert block, 'dev: no `case "$task" in` statement to read the tasks from'
    tasks: set[str] = set()
    for line in block.group(1).splitlines():
        pattern = re.match(r"\s*([\w|\s-]+?)\s*\)", line)
        if pattern:
            tasks.update(name.strip() for name in pattern.group(1).split("|") if name.strip())
    return frozenset(tasks)


def command_problems(path: Path) -> list[str]:
    text = read(path)
    places = [(offset, span) for offset, span in code_spans(text)]
    places += [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]+", text.code)]
    problems = []
    for offset, code in places:
        for match in DEV.finditer(code):
            task = match.group(1)
            if task and not task.isupper() and task not in dev_tasks():
                problems.append(
                    f"{text.where(offset)}: `./dev {task}` is not a task of dev "
                    f"(it knows {', '.join(sorted(dev_tasks()))})."
                )
    return problems


# ------------------------------------------------------------------- tests

IDS = [str(p.relative_to(ROOT)) for p in documents()]


@pytest.mark.parametrize("path", documents(), ids=IDS)
def test_every_relative_link_reaches_a_file_and_its_anchor_a_heading(path: Path) -> None:
    assert link_problems(path) == []


@pytest.mark.parametrize("path", documents(), ids=IDS)
def test_every_repository_path_named_exists(path: Path) -> None:
    assert path_problems(path) == []


@pytest.mark.parametrize("path", documents(), ids=IDS)
def test_every_dev_task_named_is_one_dev_runs(path: Path) -> None:
    assert command_problems(path) == []


def test_the_readme_stays_short_and_the_guide_is_where_it_says() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "CONTRIBUTING.md" in readme
    assert (ROOT / "contributing").is_dir() and not (ROOT / "docs" / "contributing").exists()


# ------------------------------------------------------- the rules themselves


def test_the_rules_find_what_they_should(tmp_path: Path) -> None:
    doc = tmp_path / "probe.md"
    (tmp_path / "testing.md").write_text("# Testing\n\n## The layers\n", encoding="utf-8")
    doc_text = "\n".join(
        [
            "# A heading: with `code`",
            "",
            "See [here](testing.md#the-layers), [gone](nowhere.md), [bad](testing.md#nope),",
            "[self](#a-heading-with-code), [web](https://example.org/x.md) and `lab/kinds.py:12`,",
            "`lab/nothing.py`, `lab/<name>/rpc.py`, `site/_headers`, `python -m lab run`,",
            "`tests/unit/*.py`, `./dev test -q`, `./dev nonsense`, `./dev TASK`.",
            "",
            "```sh",
            "./dev build   # lab/not-checked-in-code.py",
            "./dev frobnicate",
            "```",
        ]
    )
    doc.write_text(doc_text, encoding="utf-8")
    assert link_problems(doc) == [
        "probe.md:3: the link's target nowhere.md does not exist.",
        "probe.md:3: the link's anchor #nope is no heading of testing.md.",
    ]
    assert path_problems(doc) == ["probe.md:5: `lab/nothing.py` does not exist in the repository."]
    assert [p.split(" is not")[0] for p in command_problems(doc)] == [
        "probe.md:6: `./dev nonsense`",
        "probe.md:10: `./dev frobnicate`",
    ]
    assert {"serve", "test", "build", "bench"} <= dev_tasks()
    assert slug("Stop: interrupt or restart") == "stop-interrupt-or-restart"
    assert slug("The reader's code") == "the-readers-code"
