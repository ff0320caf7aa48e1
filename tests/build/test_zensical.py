"""Zensical, Material's successor, builds the same site (``./dev build --zensical``).

Zensical runs no MkDocs hooks; the build's pipeline (``lesson_hooks/pipeline``)
runs them around it. What a reader gets must then be the MkDocs build's, page
by page: every page, its article's text (math typeset, the teacher's page's
generated lines), its lab blocks' ``data-lab-*`` markup, where its links and
its own stylesheets and scripts lead, its tab stops, and every file of the
site. What differs is the theme's chrome, listed here (:data:`THEME_FILES`,
:data:`CHROME`); contributing/deploying.md says the same.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from tests.build.test_fences_build import quiz
from tests.conftest import BuiltSite, mkdocs_build
from tests.support.html import Node, parse
from tests.support.located import build_fails_at, line_of
from tests.support.scratch import scratch_site

#: Files of the theme, not of the site: each generator ships its own bundle, search
#: index (Material: search/search_index.json and lunr's language packs; Zensical:
#: search.json) and stylesheets (Zensical: both of its variants), under their own names.
THEME_FILES = (
    "assets/javascripts/*",
    "assets/stylesheets/main.*",
    "assets/stylesheets/palette.*",
    "assets/stylesheets/classic/*",
    "assets/stylesheets/modern/*",
    "search/*",
    "search.json",
    "sitemap.xml.gz",  # MkDocs gzips the sitemap too
)
#: The chrome that differs inside a page's article: Zensical puts its skip link's
#: target there (Material has it outside the article).
CHROME = ("__skip",)


def theme_file(path: str) -> bool:
    return any(fnmatch(path, pattern) for pattern in THEME_FILES)


def site_files(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


def pages(site: Path) -> list[str]:
    return sorted(p for p in site_files(site) if p.endswith(".html"))


def page_url(path: str) -> str:
    """The URL a page is read at, from the site's root (``lesson/index.html`` -> ``/lesson/``)."""
    return "/" + path.removesuffix("index.html")


def resolved(target: str, path: str) -> str:
    """A link's target as an absolute path on the site (``./`` and ``../`` resolved)."""
    url = urljoin("http://site" + page_url(path), target)
    parts = urlsplit(url)
    return (
        parts.path + (f"#{parts.fragment}" if parts.fragment else "")
        if parts.netloc == "site"
        else url
    )


def article(site: Path, path: str) -> Node:
    found = parse(site / path).find_all("article")
    assert len(found) == 1, f"{path}: {len(found)} articles"
    return found[0]


def not_chrome(node: Node) -> bool:
    return node.attrs.get("id") not in CHROME


def lab_markup(node: Node, path: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every element with ``data-lab*`` attributes: its tag and those attributes (a spec
    link resolved)."""
    found = []
    for element in node.iter():
        attrs = {k: v for k, v in element.attrs.items() if k.startswith("data-lab")}
        if "data-lab-spec" in attrs:
            attrs["data-lab-spec"] = resolved(attrs["data-lab-spec"], path)
        if attrs:
            found.append((element.tag, tuple(sorted(attrs.items()))))
    return found


def links(node: Node, path: str) -> list[str]:
    return [
        resolved(e.attrs[name], path)
        for e in node.iter()
        if not_chrome(e)
        for name in ("href", "src")
        if name in e.attrs
    ]


def tab_stops(node: Node) -> list[str]:
    return [
        f"<{e.tag} {e.attrs.get('id', '')}>" for e in node.iter() if e.attrs.get("tabindex") == "0"
    ]


def own_head(site: Path, path: str) -> list[str]:
    """The stylesheets and scripts the page loads that are the site's, not the theme's."""
    root = parse(site / path)
    found = [e.attrs["href"] for e in root.find_all("link") if e.attrs.get("rel") == "stylesheet"]
    found += [e.attrs["src"] for e in root.find_all("script") if "src" in e.attrs]
    return sorted(
        url for url in (resolved(u, path) for u in found) if not theme_file(url.lstrip("/"))
    )


def test_zensical_writes_every_file_of_the_site(site: BuiltSite, zensical_site: BuiltSite) -> None:
    ours = {p for p in site_files(site.dir) if not theme_file(p)}
    theirs = {p for p in site_files(zensical_site.dir) if not theme_file(p)}
    assert sorted(ours - theirs) == [], "only MkDocs writes these"
    assert sorted(theirs - ours) == [], "only Zensical writes these"
    for generated in ("sw.js", "precache-manifest.json", "assets/lab/rules.js"):
        assert (zensical_site.dir / generated).stat().st_size > 0, generated


def test_each_page_reads_the_same_under_zensical(site: BuiltSite, zensical_site: BuiltSite) -> None:
    assert pages(zensical_site.dir) == pages(site.dir)
    differences = []
    for path in pages(site.dir):
        mine, theirs = article(site.dir, path), article(zensical_site.dir, path)
        checks = {
            "text": (mine.text(not_chrome), theirs.text(not_chrome)),
            "lab markup": (lab_markup(mine, path), lab_markup(theirs, path)),
            "links": (links(mine, path), links(theirs, path)),
            "tab stops": (tab_stops(mine), tab_stops(theirs)),
            "own stylesheets and scripts": (
                own_head(site.dir, path),
                own_head(zensical_site.dir, path),
            ),
        }
        differences += [f"{path}: {name}" for name, (a, b) in checks.items() if a != b]
    assert differences == []


def test_the_zensical_site_ships_finished_math_and_the_runtime(zensical_site: BuiltSite) -> None:
    lesson = (zensical_site.dir / "lesson" / "index.html").read_text(encoding="utf-8")
    assert 'class="katex"' in lesson and "\\(" not in lesson
    manifest = (zensical_site.dir / "assets" / "lab" / "runtime.json").read_text(encoding="utf-8")
    assert '"snapshot": {' in manifest
    # Zensical's own Pyodide block and offline shim would load from another origin.
    for path in site_files(zensical_site.dir):
        if path.endswith(".html"):
            assert other_origins(zensical_site.dir / path) == [], path


def other_origins(page: Path) -> list[str]:
    """What the page loads from another origin: a script, stylesheet, image or frame
    at an absolute address, or an address an inline script names."""
    root = parse(page)
    loads = [e.attrs.get("src") for e in root.find_all() if e.tag in ("script", "img", "iframe")]
    loads += [
        e.attrs.get("href") for e in root.find_all("link") if e.attrs.get("rel") != "canonical"
    ]
    inline = ["".join(c for c in e.children if isinstance(c, str)) for e in root.find_all("script")]
    named = [word for text in inline for word in text.split() if "://" in word]
    return [url for url in loads if url and urlsplit(url).netloc] + named


QUIZ = "# Page\n\n" + quiz("broken", feedback_key="feedbak")


@pytest.mark.parametrize("zensical", [False, True], ids=["mkdocs", "zensical"])
def test_a_broken_lab_block_fails_either_build_at_its_line(tmp_path: Path, zensical: bool) -> None:
    project = scratch_site(tmp_path, {"index.md": QUIZ})
    result = mkdocs_build(project / "mkdocs.yml", project / "site", zensical=zensical)
    build_fails_at(result, "docs/index.md", line_of(QUIZ, "feedbak:"), "unknown key 'feedbak'")


def test_a_link_to_a_missing_anchor_fails_the_zensical_build(tmp_path: Path) -> None:
    # Zensical's own check is off (it cannot see the labs' ids): the pipeline's runs.
    project = scratch_site(tmp_path, {"index.md": "# Page\n\nSee [the lab](#no-such-lab).\n"})
    result = mkdocs_build(project / "mkdocs.yml", project / "site", zensical=True)
    assert result.returncode != 0
    assert "#no-such-lab" in result.stdout + result.stderr
