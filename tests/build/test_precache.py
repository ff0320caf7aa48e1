"""The precache manifest and service worker the build writes; builds that must have none."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from urllib.parse import unquote

import pytest

from lesson_hooks.build.precache import HEADERS_DEST, ISOLATION_HEADERS, build_manifest
from lesson_hooks.build.runtime import RUNTIME_FILES, VENDOR_DIR
from tests.conftest import ROOT, BuiltSite, mkdocs_build

NEVER_FETCHED = ("*.map", "sitemap.xml.gz")
PAGES = ("index.html", "lesson/index.html", "summary/index.html", "references/index.html")
MKDOCS_SERVE = (sys.executable, "-m", "mkdocs", "serve", "--livereload")
_SERVING = re.compile(r"Serving on (\S+)")
_INLINED = re.compile(r"^const MANIFEST = (.*);$", re.MULTILINE)
_INLINED_HEADERS = re.compile(r"^const ISOLATION_HEADERS = (.*);$", re.MULTILINE)


def manifest_of(site_dir: Path) -> dict:
    return json.loads((site_dir / "precache-manifest.json").read_text(encoding="utf-8"))


def inlined_manifest(site_dir: Path) -> object:
    """The manifest as sw.js carries it (None for a worker that retires)."""
    found = _INLINED.findall((site_dir / "sw.js").read_text(encoding="utf-8"))
    assert len(found) == 1, "sw.js should declare MANIFEST once"
    return json.loads(found[0])


def entries(manifest: dict) -> dict[str, dict]:
    return {unquote(entry["url"]): entry for entry in manifest["files"]}


def test_the_manifest_lists_every_file_a_browser_may_need(site: BuiltSite) -> None:
    on_disk = {
        path.relative_to(site.dir).as_posix()
        for path in site.dir.rglob("*")
        if path.is_file() and not any(fnmatch(path.name, p) for p in NEVER_FETCHED)
    } - {"sw.js", "precache-manifest.json", HEADERS_DEST}
    listed = entries(manifest_of(site.dir))
    assert set(listed) == on_disk
    for name, entry in listed.items():
        digest = hashlib.sha256((site.dir / name).read_bytes()).hexdigest()
        assert digest.startswith(entry["hash"]), name


def test_pages_search_and_theme_are_precached_and_python_once_the_lab_runs(
    site: BuiltSite,
) -> None:
    listed = entries(manifest_of(site.dir))
    runtime = json.loads((site.dir / "assets/lab/runtime.json").read_text())
    archive = runtime["archive"]
    for name in (*PAGES, "search/search_index.json", "assets/lab/runtime.json", "404.html"):
        assert (listed[name]["group"], listed[name]["immutable"]) == ("site", False), name
    assert listed[f"assets/lab/{archive}"]["immutable"] is True
    assert listed[f"assets/lab/{archive}"]["group"] == "site"
    # The runtime downloads only once the lab runs, under its version's folder.
    version = runtime["pyodide"]["version"]
    for name in RUNTIME_FILES:
        entry = listed[f"{VENDOR_DIR}/{version}/{name}"]
        assert (entry["group"], entry["immutable"]) == ("lab", True), name
    # The Python snapshot only if it was used: a reader saving data never fetches it.
    entry = listed[f"{VENDOR_DIR}/{version}/{runtime['snapshot']['file']}"]
    assert (entry["group"], entry["immutable"]) == ("on-use", True)
    bundles = [name for name in listed if re.search(r"bundle\.[0-9a-f]{8}\.min\.js$", name)]
    assert bundles and all(listed[name]["immutable"] for name in bundles)
    # Material's search language packs: an English site never fetches them.
    lunr = {name for name in listed if name.startswith("assets/javascripts/lunr/")}
    assert lunr and all(listed[name]["group"] == "on-use" for name in lunr)
    assert {entry["group"] for entry in listed.values()} == {"site", "lab", "on-use"}


def test_the_service_worker_carries_the_same_manifest(site: BuiltSite) -> None:
    assert inlined_manifest(site.dir) == manifest_of(site.dir)
    assert "__PRECACHE_MANIFEST__" not in (site.dir / "sw.js").read_text(encoding="utf-8")
    # The worker's source is not served where its scope would be wrong.
    assert not (site.dir / "assets/offline/sw.js").exists()
    for page in PAGES:
        html = (site.dir / page).read_text(encoding="utf-8")
        assert html.count('offline/offline.js" type="module"></script>') == 1, page
        assert "disk.js" not in html, page
    assert not (site.dir / "assets/offline/disk.js").exists()


def test_the_worker_and_the_hosts_headers_file_send_the_same_isolation_headers(
    site: BuiltSite,
) -> None:
    """One list (precache.py's), in both: the service worker's and a static host's."""
    assert ISOLATION_HEADERS == {
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Embedder-Policy": "require-corp",
    }
    (inlined,) = _INLINED_HEADERS.findall((site.dir / "sw.js").read_text(encoding="utf-8"))
    assert json.loads(inlined) == ISOLATION_HEADERS
    # Netlify's and Cloudflare Pages' format: a path pattern, then its headers indented.
    lines = [
        line
        for line in (site.dir / HEADERS_DEST).read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    assert lines[0] == "/*"
    sent = dict(line.strip().split(": ", 1) for line in lines[1:])
    assert all(line.startswith("  ") for line in lines[1:])
    assert sent == ISOLATION_HEADERS
    # The query with which a page that is not isolated asks for the lab's
    # worker, so that the service worker serves it without the headers.
    query = re.compile(r'^const NOT_ISOLATED = "(\?[^"]+)";$', re.MULTILINE)
    sources = [
        (ROOT / "docs/assets" / name).read_text() for name in ("offline/sw.js", "lab/client.js")
    ]
    assert len({tuple(query.findall(source)) for source in sources}) == 1
    assert query.findall(sources[0])


def test_the_version_follows_content_and_no_removed_file_stays_listed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "assets/vendor/pyodide").mkdir(parents=True)
    (site / "index.html").write_text("<h1>Home</h1>")
    (site / "page/").mkdir()
    (site / "page/index.html").write_text("<h1>Page</h1>")
    (site / "assets/vendor/pyodide/pyodide.asm.wasm").write_bytes(b"\0asm")
    first = build_manifest(site, "worker v1")
    assert build_manifest(site, "worker v1") == first

    (site / "page/index.html").write_text("<h1>Page, edited</h1>")
    edited = build_manifest(site, "worker v1")
    assert edited["version"] != first["version"]
    changed = {
        entry["url"]
        for entry, before in zip(edited["files"], first["files"], strict=True)
        if entry["hash"] != before["hash"]
    }
    assert changed == {"page/index.html"}

    (site / "page/index.html").unlink()
    removed = build_manifest(site, "worker v1")
    assert "page/index.html" not in entries(removed)
    assert removed["version"] not in {first["version"], edited["version"]}
    # A change to the worker's own code also starts a fresh cache.
    assert build_manifest(site, "worker v2")["version"] != removed["version"]


def test_an_unchanged_site_keeps_its_version(site: BuiltSite, tmp_path: Path) -> None:
    # Returning readers then download nothing new. (The sitemap's dates follow
    # the build day; the deploy workflow pins them to the commit's.)
    result = mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "again", site_url=site.url)
    assert result.returncode == 0, result.stderr
    again = entries(manifest_of(tmp_path / "again"))
    before = entries(manifest_of(site.dir))
    assert again.pop("sitemap.xml")["url"] == before.pop("sitemap.xml")["url"]
    assert again == before


@pytest.fixture(scope="module")
def disk_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site_dir = tmp_path_factory.mktemp("copy") / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OFFLINE", "true")
        result = mkdocs_build(ROOT / "mkdocs.yml", site_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    return site_dir


def test_the_downloadable_copy_has_no_service_worker_and_loads_nothing_remote(
    disk_copy: Path,
) -> None:
    assert inlined_manifest(disk_copy) is None  # a worker that only retires
    assert not (disk_copy / "precache-manifest.json").exists()
    assert not (disk_copy / HEADERS_DEST).exists()  # served by no host that reads it
    assert not (disk_copy / "assets/offline/offline.js").exists()
    shim = disk_copy / "assets/vendor/iframe-worker/shim.js"
    assert shim.read_bytes() == (ROOT / "node_modules/iframe-worker/shim/index.js").read_bytes()
    for page in ("index.html", "lesson.html", "summary.html", "references.html"):
        html = (disk_copy / page).read_text(encoding="utf-8")
        sources = re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', html)
        # The inert modules name their file in data-src (a data block may have no src).
        sources += re.findall(r'<script type="lesson/module" data-src="([^"]+)"', html)
        assets = [s for s in sources if s.endswith((".js", ".css"))]
        assert assets and not [s for s in assets if "//" in s], page
        assert '<script src="assets/vendor/iframe-worker/shim.js"></script>' in html
        # Modules wait for disk.js, which starts them only over http.
        assert 'type="module"' not in html, page
        modules = html.index('<script type="lesson/module" data-src="assets/lab/labs.js">')
        assert modules < html.index('<script src="assets/offline/disk.js"></script>'), page
    assert (disk_copy / "search/search_index.js").is_file()


@pytest.fixture
def serving_preview() -> Iterator[str]:
    """``mkdocs serve`` (the contributor's live preview) on a free port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [*MKDOCS_SERVE, "-f", str(ROOT / "mkdocs.yml"), "-a", f"127.0.0.1:{port}"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        cwd=ROOT,  # where ./dev serve runs: the snippets' base_path is relative to it
    )
    serving = threading.Event()
    log: list[str] = []
    url: list[str] = []

    def watch() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            if found := _SERVING.search(line):
                url.append(found[1])  # under site_url's path, as the preview is
                serving.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        if not serving.wait(timeout=120):
            pytest.fail("mkdocs serve did not start:\n" + "".join(log))
        yield url[0]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_live_preview_registers_no_service_worker(serving_preview: str) -> None:
    def get(path: str) -> str:
        with urllib.request.urlopen(serving_preview + path, timeout=30) as response:
            return response.read().decode("utf-8")

    assert "offline.js" not in get("lesson/")
    # A worker left on this address by a served build retires when it updates.
    assert "const MANIFEST = null;" in get("sw.js")
