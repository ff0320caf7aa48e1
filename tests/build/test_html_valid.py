"""Every built page is valid HTML: the W3C Nu HTML checker (vnu-jar from npm) finds no error."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from mkdocs.utils.meta import get_data

from lesson_hooks.support.paths import NODE_MODULES, ROOT
from tests.build.test_content import parse
from tests.conftest import BuiltSite, mkdocs_build

VNU = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
TIMEOUT = 300  # seconds; one JVM start and every page take about 5 here


@dataclass(frozen=True)
class Allowed:
    """An error the site accepts: its exact message, on the exact start tag that draws it."""

    message: str
    element: re.Pattern[str]
    why: str


# The one error set aside, and why: Material's own template marks its drawer and
# search toggles (hidden checkboxes) autocomplete="off", which keeps Firefox from
# restoring them ticked on a reload (the drawer or the search left open); HTML
# allows the attribute only on text-like inputs. It is on every page, does no
# harm, and is not ours to change short of copying Material's base template.
ALLOWED = (
    Allowed(
        message=(
            "Attribute “autocomplete” is only allowed when the input type is “color”, “date”, "
            "“datetime-local”, “email”, “hidden”, “month”, “number”, “password”, “range”, "
            "“search”, “tel”, “text”, “time”, “url”, or “week”."
        ),
        element=re.compile(
            r'<input class="md-toggle" data-md-toggle="(drawer|search)" type="checkbox" '
            r'id="__\1" autocomplete="off">'
        ),
        why="Material's drawer and search toggles",
    ),
)


@dataclass(frozen=True)
class Finding:
    page: str
    line: int
    column: int
    message: str
    element: str  # the markup the checker points at

    def __str__(self) -> str:
        return f"{self.page}:{self.line}:{self.column}: {self.message}\n    {self.element}"


#: The Zensical build's chrome is Zensical's templates: Material's toggles, and one error
#: more set aside. Its
#: drawer's overlay (a label for the drawer's toggle, which closes the drawer on a
#: click beside it) is aria-hidden so screen readers skip a control the drawer's own
#: close button duplicates; HTML forbids aria-hidden on a label with a control. Not
#: ours to change short of copying Zensical's base template; Material's has no such label.
ZENSICAL_ALLOWED = (
    *ALLOWED,
    Allowed(
        message=(
            "The “aria-hidden” attribute must not be used on any “label” element that is "
            "associated with a labelable element."
        ),
        element=re.compile(r'<label class="md-overlay" for="__drawer" aria-hidden="true">'),
        why="Zensical's drawer overlay",
    ),
)


def allowed_by(finding: Finding, allowed: tuple[Allowed, ...] = ALLOWED) -> Allowed | None:
    return next(
        (
            a
            for a in allowed
            if a.message == finding.message and a.element.fullmatch(finding.element)
        ),
        None,
    )


def java() -> str:
    found = shutil.which("java")
    if found is None or not VNU.is_file():
        pytest.fail(
            "The HTML checker needs Java and vnu-jar: `./dev test` installs both "
            "(Debian's default-jre-headless, then `npm ci`)."
        )
    return found


def check(site_dir: Path) -> list[Finding]:
    """The checker's errors on every built page of ``site_dir``, from one run (one JVM start)."""
    pages = sorted(site_dir.rglob("*.html"))
    assert len(pages) >= 8
    done = subprocess.run(
        [java(), "-jar", str(VNU), "--format", "json", "--errors-only", "--stdout"]
        + [str(page) for page in pages],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    try:
        messages = json.loads(done.stdout)["messages"]
    except (ValueError, KeyError):
        pytest.fail(f"The HTML checker did not answer (exit {done.returncode}):\n{done.stderr}")
    found = []
    for m in messages:
        path = Path(m["url"].removeprefix("file:")).resolve()
        extract = m.get("extract", "")
        start = m.get("hiliteStart", 0)
        found.append(
            Finding(
                page=path.relative_to(site_dir.resolve()).as_posix(),
                line=m.get("lastLine", m.get("firstLine", 0)),
                column=m.get("firstColumn", m.get("lastColumn", 0)),
                message=m["message"],
                element=extract[start : start + m.get("hiliteLength", len(extract))],
            )
        )
    return found


@pytest.fixture(scope="module")
def findings(site: BuiltSite) -> list[Finding]:
    """The hosted site's errors."""
    return check(site.dir)


@pytest.fixture(scope="module")
def copy_findings(tmp_path_factory: pytest.TempPathFactory) -> list[Finding]:
    """The downloadable copy's errors (``./dev zip``): its pages differ (``.html`` links,
    inert module scripts), so they are checked too."""
    copy = tmp_path_factory.mktemp("copy")
    done = mkdocs_build(ROOT / "mkdocs.yml", copy, env={"OFFLINE": "true"})
    assert done.returncode == 0, done.stderr
    return check(copy)


def test_every_page_passes_the_html_checker(findings: list[Finding]) -> None:
    errors = [finding for finding in findings if allowed_by(finding) is None]
    assert not errors, f"{len(errors)} HTML errors:\n" + "\n".join(map(str, errors))


def test_every_page_of_the_downloadable_copy_passes_the_html_checker(
    copy_findings: list[Finding],
) -> None:
    errors = [finding for finding in copy_findings if allowed_by(finding) is None]
    assert not errors, f"{len(errors)} HTML errors:\n" + "\n".join(map(str, errors))


def test_every_page_of_the_zensical_build_passes_the_html_checker(
    zensical_site: BuiltSite,
) -> None:
    findings = check(zensical_site.dir)
    errors = [f for f in findings if allowed_by(f, ZENSICAL_ALLOWED) is None]
    assert not errors, f"{len(errors)} HTML errors:\n" + "\n".join(map(str, errors))
    # An allowance Zensical no longer needs should go.
    used = {allowed_by(f, ZENSICAL_ALLOWED) for f in findings}
    assert [a.why for a in ZENSICAL_ALLOWED if a not in used] == []


def test_each_allowance_still_applies(findings: list[Finding]) -> None:
    # An allowance nothing needs any more (Material fixed its markup) should go.
    used = {allowed_by(finding) for finding in findings}
    assert [a.why for a in ALLOWED if a not in used] == []


@pytest.mark.parametrize("page", ["summary", "references", "glossary"])
def test_a_quoted_description_reaches_the_meta_tag_whole(site: BuiltSite, page: str) -> None:
    source = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")
    description = get_data(source)[1]["description"]
    assert '"' in description  # what broke the tag before it was escaped
    head = parse(site.dir / page / "index.html").find("head")
    metas = [m for m in head.find_all("meta") if m.attrs.get("name") == "description"]
    assert [m.attrs for m in metas] == [{"name": "description", "content": description}]
