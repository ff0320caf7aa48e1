"""Zensical, Material's successor, reads mkdocs.yml and writes every lab block.

Zensical runs no MkDocs hooks (``hooks:`` in mkdocs.yml) and no MkDocs
plugins, so its site is not the reader's: no KaTeX, no vendored runtime, lab
archive or snapshot, no graded blocks' spec files, no precache manifest, no
teacher's page times, and no check that a block became a lab. What it shares
with the MkDocs build is the Markdown: the extensions, the snippets and the lab
blocks' custom fences. This checks that much: the configuration is one Zensical
reads and builds with ``--strict``, and each lab block of each page got its
kind's markup, as a build without hooks renders it (a block claimed by no page
in hand: :func:`lesson_hooks.fences.custom.claim`). Zensical then rewrites the
markup's relative links to be relative to the page, which MkDocs leaves alone
(the hook writes them page-relative), so links are compared without their
targets. Cold, the build takes about 1 to 2 s.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from lab.kinds import KINDS
from lesson_hooks.fences import custom
from lesson_hooks.fences.scan import find_lab_fences
from lesson_hooks.fences.sitewide import FENCES

#: A link's target, which Zensical makes relative to the page and MkDocs keeps as written.
_TARGET = re.compile(r'\b(href|src)="[^"]*"')


def without_targets(html: str) -> str:
    return _TARGET.sub(r'\1=""', html)


def built_page(site: Path, source: Path) -> Path:
    """Where a page's HTML lands (use_directory_urls): x.md -> x/index.html."""
    stem = source.with_suffix("")
    return site / (stem.parent if stem.name == "index" else stem) / "index.html"


def test_zensical_builds_the_site_and_writes_each_pages_lab_blocks(project: Path) -> None:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zensical", "build", "--strict", "-f", "mkdocs.yml"],
        cwd=project,  # the snippets' base_path is relative to where the build runs
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - start
    assert done.returncode == 0, f"zensical build failed:\n{done.stdout}\n{done.stderr}"
    print(f"zensical build: {took:.1f} s")

    names = {f"lab-{kind.name}" for kind in KINDS}
    docs, site = project / "docs", project / "site"
    custom.leave()  # no page in hand, as under Zensical: each block renders unplaced
    pages = 0
    missing: list[str] = []
    for source in sorted(docs.rglob("*.md")):
        where = source.relative_to(project).as_posix()
        fences = find_lab_fences(source.read_text(encoding="utf-8"), where)
        if not fences:
            continue
        pages += 1
        html = built_page(site, source.relative_to(docs))
        assert html.is_file(), f"{where}: Zensical wrote no {html.relative_to(project)}"
        page = without_targets(html.read_text(encoding="utf-8"))
        for fence in fences:
            assert fence.name in names, f"{where}:{fence.line}: ```{fence.name} is no kind"
            markup = FENCES[fence.name].format(fence.body, fence.name, fence.name, {}, None)
            if without_targets(markup) not in page:
                missing.append(f"{where}:{fence.line}: ```{fence.name}")
    assert pages, "no page of docs/ has a lab block"
    assert not missing, "Zensical did not write these blocks' markup:\n" + "\n".join(missing)
