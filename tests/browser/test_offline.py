"""Offline reading: the hosted site after one visit (also under a sub-path), and
the downloadable copy opened from disk or served from its folder."""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from lesson_hooks.build.precache import (
    MANIFEST_DEST,
    SW_DEST,
    SW_SOURCE,
    build_manifest,
    render_service_worker,
)
from tests.browser.conftest import PageErrors
from tests.browser.support import NOTE_TEXTS, OFFLINE_NOTE, build_site, note_texts
from tests.conftest import ROOT
from tools.static_server import StaticHandler

LAB = "[data-lab]"
# Generous: the runtime is ~13 MB and the machine may be busy.
SLOW = 60_000

PING = """async () => {
  const { getRuntime } = await import(new URL("assets/lab/client.js", __md_scope));
  return await getRuntime().call("ping", { value: 1 });
}"""
# Check for a new sw.js, as browsers do on navigation; resolve with the
# cache names once the new worker is active (it deletes the old cache first).
UPDATE_WORKER = """async () => {
  const registration = await navigator.serviceWorker.getRegistration();
  await registration.update();
  const next = registration.installing ?? registration.waiting;
  if (!next) throw new Error("no new service worker");
  await new Promise((resolve, reject) => {
    const settle = () => {
      if (next.state === "activated") resolve();
      if (next.state === "redundant") reject(new Error("the new service worker failed"));
    };
    next.addEventListener("statechange", settle);
    settle();
  });
  return await caches.keys();
}"""
SW_SCOPE = "navigator.serviceWorker.ready.then((registration) => registration.scope)"
# Every URL the origin's caches hold.
CACHED = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    urls.push(...(await (await caches.open(name)).keys()).map((request) => request.url));
  }
  return urls;
}"""
FULL = "Offline copies could not be saved: storage is full"
LAB_FULL = "Pages available offline; the lab could not be saved: storage is full"
# Storage quotas (bytes) for a small disk: one the pages' copy (1.6 MB) does not
# fit in, and one it fits in but Python (another 14 MB) does not.
NO_ROOM = 500_000
ROOM_FOR_PAGES = 6_000_000


class _Server(ThreadingHTTPServer):
    prefix: str
    network_off: threading.Event
    served: list[str]


class _SiteHandler(StaticHandler):
    """Serves the site under ``server.prefix``; drops every connection while the network is off."""

    server: _Server

    def handle_one_request(self) -> None:
        if self.server.network_off.is_set():
            self.close_connection = True  # no answer at all: a failed connection
            return
        super().handle_one_request()

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.server.served.append(self.path)

    def translate_path(self, path: str) -> str:
        prefix = self.server.prefix
        if not path.startswith(prefix):
            return str(Path(self.directory) / "\0outside-the-site")
        return super().translate_path("/" + path[len(prefix) :])


@dataclass(frozen=True)
class ServedSite:
    dir: Path
    url: str  # ends with "/"
    network_off: threading.Event
    served: list[str]  # request paths the server answered


def serve_build(tmp: Path, prefix: str, **env: str) -> Iterator[ServedSite]:
    """Build the site for ``http://127.0.0.1:PORT{prefix}`` and serve it there."""
    site_dir = tmp / "site"
    server = _Server(("127.0.0.1", 0), functools.partial(_SiteHandler, directory=str(site_dir)))
    server.prefix = prefix
    server.network_off = threading.Event()
    server.served = []
    url = f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    try:
        build_site(site_dir, site_url=url, **env)
    except BaseException:
        server.server_close()
        raise
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield ServedSite(site_dir, url, server.network_off, server.served)
    server.network_off.clear()
    server.shutdown()
    server.server_close()


def _served(name: str, prefix: str, **env: str) -> Callable[..., Iterator[ServedSite]]:
    """A module's fixture: the site built into a folder ``name`` and served under ``prefix``."""

    @pytest.fixture(scope="module", name=name.replace("-", "_"))
    def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedSite]:
        yield from serve_build(tmp_path_factory.mktemp(name), prefix, **env)

    return served


hosted = _served("hosted", "/")
sub_path = _served("sub-path", "/lesson/")
# A site the test deploys a new version of, in place.
redeployed = _served("redeployed", "/")
# A site read on a small disk (its tests set the quota; the last goes offline).
small_disk = _served("small-disk", "/")
# The downloadable copy (./dev zip), also served from its folder.
copy = _served("copy", "/", OFFLINE="true")


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "service_workers": "allow"}


def requests_seen(context: BrowserContext) -> list[str]:
    """Every request from the context's pages, workers and service workers."""
    seen: list[str] = []
    context.on("request", lambda request: seen.append(request.url))
    return seen


def pages_of(site_dir: Path) -> list[str]:
    """Every page of a build, as its address relative to the site root."""
    pages = sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html"))
    return [page.removesuffix("index.html") for page in pages if page != "404.html"]


def go_offline(context: BrowserContext, site: ServedSite) -> None:
    site.network_off.set()
    context.set_offline(True)


def reach_lab(page: Page, *, ready: bool = True) -> Locator:
    """Scroll to the page's first lab as a reader would, which starts Python; and wait for it."""
    lab = page.locator(LAB).first
    lab.scroll_into_view_if_needed()
    if ready:
        expect(lab).to_have_attribute("data-lab-state", "ready", timeout=SLOW)
    return lab


def heading(page: Page):
    return page.get_by_role("heading", level=1)


def search(page: Page, query: str) -> None:
    box = page.get_by_role("textbox", name="Search")
    box.click()
    expect(page.locator(".md-search-result__meta")).to_have_text("Type to start searching")
    box.press_sequentially(query)
    expect(page.locator(".md-search-result__item").first).to_be_visible()


def test_hosted_site_works_offline_after_one_visit(
    context: BrowserContext, page: Page, hosted: ServedSite, page_errors: PageErrors
) -> None:
    seen = requests_seen(context)
    page.add_init_script(NOTE_TEXTS)
    page.goto(hosted.url + "lesson/")
    note = page.locator(OFFLINE_NOTE)
    expect(note).to_have_attribute("role", "status")
    # Python is cached once the lab has run: the reader scrolls to it.
    reach_lab(page)
    expect(note).to_have_text("Available offline", timeout=SLOW)
    assert note_texts(page) == ["Pages available offline", "Available offline"]
    # Instant navigation swaps the footer; the note comes back with it.
    page.get_by_role("link", name="Summary").first.click()
    expect(page).to_have_url(hosted.url + "summary/")
    expect(page.locator(OFFLINE_NOTE)).to_have_text("Available offline")

    go_offline(context, hosted)
    for path in pages_of(hosted.dir):
        page.goto(hosted.url + path)
        expect(heading(page)).to_be_visible()
        page.reload()
        expect(heading(page)).to_be_visible()
        expect(page.locator(OFFLINE_NOTE)).to_have_text("Available offline")
    expect_not_found_page(page, hosted.url + "no-such-page/", page_errors)
    search(page, "reward")
    page.goto(hosted.url + "lesson/")
    reach_lab(page)
    assert page.evaluate(PING) == {"pong": 1}
    assert seen and all(url.startswith(hosted.url) for url in seen), seen


@contextmanager
def quota(page: Page, site: ServedSite, size: int) -> Iterator[None]:
    """The site's origin may store ``size`` bytes (Chromium's override, as on a full disk)."""
    cdp = page.context.new_cdp_session(page)
    origin = site.url.split("/", 3)[:3]
    params = {"origin": "/".join(origin)}
    cdp.send("Storage.overrideQuotaForOrigin", {**params, "quotaSize": size})
    try:
        yield
    finally:
        cdp.send("Storage.overrideQuotaForOrigin", params)


def test_a_full_disk_saves_no_copy_and_the_site_reads_and_runs(
    page: Page, small_disk: ServedSite
) -> None:
    with quota(page, small_disk, NO_ROOM):
        page.goto(small_disk.url + "lesson/")
        note = page.locator(OFFLINE_NOTE)
        expect(note).to_have_text(FULL, timeout=SLOW)
        # Nothing half-written: what did not fit was dropped, every file of it.
        assert page.evaluate(CACHED) == []
        # The next visit: the worker serves the page (isolated) from the network.
        page.reload()
        assert page.evaluate("crossOriginIsolated") is True
        expect(heading(page)).to_be_visible()
        reach_lab(page)
        assert page.evaluate(PING) == {"pong": 1}
        expect(page.locator(OFFLINE_NOTE)).to_have_text(FULL)
        assert page.evaluate(CACHED) == []


def test_a_disk_with_room_for_the_pages_only_keeps_them_and_no_part_of_the_lab(
    context: BrowserContext, page: Page, small_disk: ServedSite
) -> None:
    page.add_init_script(NOTE_TEXTS)
    with quota(page, small_disk, ROOM_FOR_PAGES):
        page.goto(small_disk.url + "lesson/")
        reach_lab(page)
        expect(page.locator(OFFLINE_NOTE)).to_have_text(LAB_FULL, timeout=SLOW)
        assert note_texts(page) == ["Pages available offline", LAB_FULL]
        assert page.evaluate(PING) == {"pong": 1}
        cached = page.evaluate(CACHED)
        assert small_disk.url + "summary/index.html" in cached
        manifest = json.loads((small_disk.dir / MANIFEST_DEST).read_text(encoding="utf-8"))
        lab = {
            small_disk.url + entry["url"] for entry in manifest["files"] if entry["group"] == "lab"
        }
        assert lab and not lab & set(cached)

        go_offline(context, small_disk)
        page.goto(small_disk.url + "summary/")
        expect(heading(page)).to_be_visible()
        # (A worker started afresh reports the pages only, and tries the lab again.)
        expect(page.locator(OFFLINE_NOTE)).to_have_text(re.compile("^Pages available offline"))


def deploy_an_edit(site: ServedSite) -> None:
    """What a new deploy changing one page does to the served files."""
    page = site.dir / "summary/index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("<h1", '<h1 data-deploy="2"', 1))
    source = (ROOT / "docs" / SW_SOURCE).read_text(encoding="utf-8")
    manifest = build_manifest(site.dir, source)
    (site.dir / MANIFEST_DEST).write_text(json.dumps(manifest), encoding="utf-8")
    (site.dir / SW_DEST).write_text(render_service_worker(source, manifest), encoding="utf-8")


def test_a_new_deploy_replaces_the_cache_and_reuses_unchanged_files(
    context: BrowserContext, page: Page, redeployed: ServedSite
) -> None:
    seen = requests_seen(context)
    page.goto(redeployed.url + "lesson/")
    reach_lab(page, ready=False)
    expect(page.locator(OFFLINE_NOTE)).to_have_text("Available offline", timeout=SLOW)
    [old_cache] = page.evaluate("caches.keys()")

    deploy_an_edit(redeployed)
    redeployed.served.clear()
    [new_cache] = page.evaluate(UPDATE_WORKER)
    assert new_cache != old_cache
    # Only what changed came over the network; Python was copied across.
    assert "/summary/" in " ".join(redeployed.served)
    assert not [path for path in redeployed.served if "/assets/vendor/" in path]
    page.reload()
    expect(page.locator(OFFLINE_NOTE)).to_have_text("Available offline", timeout=SLOW)

    go_offline(context, redeployed)
    page.goto(redeployed.url + "summary/")
    expect(heading(page)).to_have_attribute("data-deploy", "2")
    assert all(url.startswith(redeployed.url) for url in seen), seen


def test_a_sub_path_deploy_scopes_the_worker_to_its_path(
    context: BrowserContext, page: Page, sub_path: ServedSite, page_errors: PageErrors
) -> None:
    seen = requests_seen(context)
    page.add_init_script(NOTE_TEXTS)
    page.goto(sub_path.url + "lesson/")
    expect(heading(page)).to_be_visible()
    assert page.evaluate(SW_SCOPE) == sub_path.url
    assert page.evaluate(PING) == {"pong": 1}
    expect(page.locator(OFFLINE_NOTE)).to_have_text("Available offline", timeout=SLOW)
    assert note_texts(page) == ["Pages available offline", "Available offline"]

    go_offline(context, sub_path)
    page.goto(sub_path.url + "summary/")
    expect(heading(page)).to_be_visible()
    page.reload()
    expect(heading(page)).to_be_visible()
    expect_not_found_page(page, sub_path.url + "no-such-page/", page_errors)
    assert all(url.startswith(sub_path.url) for url in seen), seen


def expect_not_found_page(page: Page, url: str, errors: PageErrors) -> None:
    """Issue 39: offline, an unknown address got the browser's error page; it gets the site's."""
    errors.allow(r"status of 404 \(Not Found\).*no-such-page")  # the page's own status
    response = page.goto(url)
    assert response is not None and response.status == 404
    expect(heading(page)).to_have_text("404 - Not found")
    # The site's own page, styled and with its navigation, from the cache.
    expect(page.get_by_role("link", name="Summary").first).to_be_attached()
    assert page.evaluate("getComputedStyle(document.body).fontFamily") != ""


def test_the_downloaded_copy_reads_navigates_and_searches_from_disk(
    context: BrowserContext, page: Page, copy: ServedSite
) -> None:
    seen = requests_seen(context)
    home = copy.dir.resolve().as_uri() + "/"
    pages = pages_of(copy.dir)
    assert "lesson.html" in pages
    for path in pages:
        page.goto(home + path)
        expect(heading(page)).to_be_visible()
        # Every lab that runs Python says how to run it; a guided experiment drives such a
        # lab, and reads as text until it can.
        labs = page.locator(f'{LAB}:not([data-lab="experiment"])')
        for index in range(labs.count()):
            expect(labs.nth(index)).to_have_attribute("data-lab-state", "error")
            expect(labs.nth(index).get_by_role("status")).to_contain_text("http.server")
    page.goto(home + "index.html")
    page.locator(".md-nav--primary").get_by_role("link", name="Summary").click()
    expect(page).to_have_url(home + "summary.html")
    expect(heading(page)).to_be_visible()
    search(page, "reward")

    page.goto(home + "lesson.html")
    # The math was typeset at build time: it reads from disk, in KaTeX's own fonts.
    expect(page.locator(".arithmatex .katex-html").first).to_be_visible()
    loaded = page.evaluate(
        "() => document.fonts.ready.then(() => [...document.fonts]"
        ".filter((font) => font.status === 'loaded').map((font) => font.family))"
    )
    assert "KaTeX_Main" in loaded, loaded
    lab = page.locator(LAB).first
    expect(lab).to_have_attribute("data-lab-state", "error")
    status = lab.get_by_role("status")
    expect(status).to_contain_text("browsers do not allow in a page opened from a file")
    expect(status.locator("code").first).to_have_text(
        f'python3 -m http.server -d "{copy.dir.resolve()}" 8000'
    )
    expect(status.locator("code").nth(1)).to_have_text("http://127.0.0.1:8000/lesson.html")
    expect(lab.get_by_role("button", name="Retry")).to_have_count(0)
    # Browsers keep service workers off file:// anyway; the copy never asks.
    expect(page.locator('script[src$="offline/offline.js"]')).to_have_count(0)
    assert all(url.startswith("file://") for url in seen), seen


def test_the_downloaded_copy_runs_the_lab_when_its_folder_is_served(
    context: BrowserContext, page: Page, copy: ServedSite
) -> None:
    seen = requests_seen(context)
    page.goto(copy.url + "lesson.html")
    reach_lab(page)
    assert page.evaluate(PING) == {"pong": 1}
    # The copy registers no service worker: it is already offline.
    assert page.evaluate("navigator.serviceWorker.getRegistrations()") == []
    sw = (copy.dir / "sw.js").read_text(encoding="utf-8")
    assert "const MANIFEST = null;" in sw
    assert all(url.startswith(copy.url) for url in seen), seen
