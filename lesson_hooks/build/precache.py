"""The hosted site's service worker and its precache manifest.

After the build has written every file, this hook lists the site (each file
with a content hash) in ``precache-manifest.json`` and writes the service
worker to the site root as ``sw.js`` (its scope is its folder), with the same
manifest inlined: the worker then knows its files synchronously when it starts,
and any change to the site changes ``sw.js``'s bytes, which is how browsers
notice a new deploy. The worker's source is ``docs/assets/offline/sw.js``; the
page side is ``docs/assets/offline/offline.js``.

Each entry has a group: ``lab`` (the Pyodide runtime, ~13 MB) is cached once
the lab has run, so readers who never reach a lab never download Python;
``on-use`` (Material's search language packs, fetched only for non-English
search, and the Python memory snapshot, which readers saving data never fetch)
is cached when first fetched; ``site`` (everything else) is precached
when the worker installs.

No service worker runs under ``mkdocs serve`` (a cached preview would hide
edits) nor in the downloadable copy (``offline_copy.py``; it is read from disk
or a local server): those builds drop ``offline.js`` from the pages and write a
``sw.js`` that deletes its caches and unregisters itself, so a worker left on
the same address by an earlier build retires instead of serving stale files.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Literal
from urllib.parse import quote, unquote

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

from lesson_hooks.build.snapshot import FILE_PREFIX as SNAPSHOT_PREFIX
from lesson_hooks.support.file_hashes import FileHashes
from lesson_hooks.support.paths import EDITOR_BUNDLE, VENDOR_DIR

log = logging.getLogger("mkdocs.hooks.precache")

SW_SOURCE = "assets/offline/sw.js"
REGISTER_SCRIPT = "assets/offline/offline.js"
SW_DEST = "sw.js"
MANIFEST_DEST = "precache-manifest.json"
# The headers file of static hosts that read one (Netlify, Cloudflare Pages).
HEADERS_DEST = "_headers"
# The string in SW_SOURCE that the build replaces with the manifest (or null).
PLACEHOLDER = '"__PRECACHE_MANIFEST__"'
# ... and the one it replaces with ISOLATION_HEADERS.
HEADERS_PLACEHOLDER = '"__ISOLATION_HEADERS__"'
# Cross-origin isolation: with both, a page may use SharedArrayBuffer, which
# lets Stop interrupt Python instead of replacing its worker. The one list: the
# service worker adds these to the documents and workers it serves, and
# HEADERS_DEST asks a host to send them. require-corp blocks only cross-origin
# loads without a Cross-Origin-Resource-Policy, and the site makes none.
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}
# Never fetched by a reader's browser: source maps (devtools), the compressed
# sitemap (crawlers) and the host's headers file. The worker and its manifest
# are not cached.
NOT_PRECACHED = ("*.map", "sitemap.xml.gz", SW_DEST, MANIFEST_DEST, HEADERS_DEST)
# Cached after the lab has first run, not at install (the code editor only serves a lab).
LAB_GROUP = (f"{VENDOR_DIR}/", EDITOR_BUNDLE)
# Cached when first fetched: an English site's search never loads these. (KaTeX's
# stylesheet and fonts stay in the install group: a page with math read offline needs them.)
ON_USE_GROUP = ("assets/javascripts/lunr/",)
# Served cache-first: names carrying a content hash (Material's bundles, the
# lab archive), the vendored, version-pinned runtime, and what is cached on use.
_HASHED_NAME = re.compile(r"[.-][0-9a-f]{8,}\.[^/]+\Z")
_IMMUTABLE_DIRS = (*LAB_GROUP, *ON_USE_GROUP)

Group = Literal["site", "lab", "on-use"]
GROUPS: tuple[Group, ...] = ("site", "lab", "on-use")
_command = "build"
# The vendored runtime's files and where each is copied from, unchanged (see on_env).
_vendored: dict[str, Path] = {}


def on_startup(*, command: str, dirty: bool) -> None:
    global _command
    _command = command


def service_worker_enabled(config: MkDocsConfig) -> bool:
    """False under ``mkdocs serve`` and for the downloadable copy (offline plugin on)."""
    offline = config.plugins.get("material/offline")
    copy_for_disk = bool(offline and offline.config.enabled)
    return _command != "serve" and not copy_for_disk


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    scripts = config.extra_javascript
    if not any(str(script) == REGISTER_SCRIPT for script in scripts):
        raise PluginError(
            f"{config.config_file_path}: extra_javascript must list {REGISTER_SCRIPT} "
            "(type: module); it registers the service worker."
        )
    if not service_worker_enabled(config):
        scripts[:] = [script for script in scripts if str(script) != REGISTER_SCRIPT]
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    # The worker's source is a template: on_post_build writes it to the root.
    source = files.get_file_from_path(SW_SOURCE)
    if source is None:
        raise PluginError(f"{config.docs_dir}/{SW_SOURCE} is missing (the service worker).")
    files.remove(source)
    if not service_worker_enabled(config):
        register = files.get_file_from_path(REGISTER_SCRIPT)
        if register is not None:
            files.remove(register)
    return files


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    # Every hook has added its files by now. Pyodide and the snapshot are most of
    # the site's bytes; file_hashes reuses their hashes while their sources are unchanged.
    _vendored.clear()
    for file in files:
        if file.dest_uri.startswith(f"{VENDOR_DIR}/") and file.abs_src_path:
            _vendored[file.dest_uri] = Path(file.abs_src_path)
    return env


def entry_group(url: str) -> Group:
    if url.startswith(f"{VENDOR_DIR}/") and PurePosixPath(url).name.startswith(SNAPSHOT_PREFIX):
        return "on-use"
    if url.startswith(LAB_GROUP):
        return "lab"
    return "on-use" if url.startswith(ON_USE_GROUP) else "site"


def is_immutable(url: str) -> bool:
    """True when the file at ``url`` never changes without its URL changing."""
    return url.startswith(_IMMUTABLE_DIRS) or bool(_HASHED_NAME.search(url))


def build_manifest(
    site_dir: Path, sw_source: str, file_hash: Callable[[str, Path], str] | None = None
) -> dict[str, object]:
    """Every file under ``site_dir`` a browser may need, with hashes and a version.

    ``file_hash(relative, path)`` is a file's content hash (default: from its
    bytes; ``FileHashes`` reuses the known hashes of vendored files).
    """
    file_hash = file_hash or FileHashes({}, cache=None)
    files = []
    for path in sorted(p for p in site_dir.rglob("*") if p.is_file()):
        relative = path.relative_to(site_dir).as_posix()
        if any(fnmatch(PurePosixPath(relative).name, pattern) for pattern in NOT_PRECACHED):
            continue
        url = quote(relative)
        files.append(
            {
                "url": url,
                "hash": file_hash(relative, path),
                "group": entry_group(relative),
                "immutable": is_immutable(relative),
            }
        )
    # The worker's own code is part of the version, so a change to its logic
    # also starts a fresh cache.
    listing = json.dumps(files, sort_keys=True) + sw_source
    version = hashlib.sha256(listing.encode("utf-8")).hexdigest()[:16]
    return {"version": version, "files": files}


def render_service_worker(source: str, manifest: dict[str, object] | None) -> str:
    """The worker's source with the manifest (``None``: a worker that retires) and
    :data:`ISOLATION_HEADERS` inlined."""
    for placeholder, what in (
        (PLACEHOLDER, "the precache manifest"),
        (HEADERS_PLACEHOLDER, "the cross-origin isolation headers"),
    ):
        if source.count(placeholder) != 1:
            raise PluginError(
                f"docs/{SW_SOURCE} must contain {placeholder} exactly once "
                f"(the build puts {what} there)."
            )
    data = json.dumps(manifest, separators=(",", ":"), sort_keys=True)
    headers = json.dumps(ISOLATION_HEADERS, separators=(",", ":"))
    return source.replace(PLACEHOLDER, data).replace(HEADERS_PLACEHOLDER, headers)


def headers_file() -> str:
    """:data:`ISOLATION_HEADERS` for every path, in the ``_headers`` format of static hosts."""
    lines = ["# Cross-origin isolation (written by lesson_hooks/build/precache.py).", "/*"]
    lines += [f"  {name}: {value}" for name, value in ISOLATION_HEADERS.items()]
    return "\n".join(lines) + "\n"


# After the search index, sitemap and Material's offline plugin (-100) write theirs.
@event_priority(-200)
def on_post_build(config: MkDocsConfig) -> None:
    site_dir = Path(config.site_dir)
    source = (Path(config.docs_dir) / SW_SOURCE).read_text(encoding="utf-8")
    manifest = None
    if service_worker_enabled(config):
        hashes = FileHashes(_vendored)
        manifest = build_manifest(site_dir, source, hashes)
        hashes.save()
        text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
        (site_dir / MANIFEST_DEST).write_text(text, encoding="utf-8")
        files = manifest["files"]
        assert isinstance(files, list)
        sizes = dict.fromkeys(GROUPS, 0)
        for entry in files:
            sizes[entry["group"]] += (site_dir / unquote(entry["url"])).stat().st_size
        log.info(
            "Precache %s: %d files; %.1f MB at install, %.1f MB once the lab has run, "
            "%.1f MB if used.",
            manifest["version"],
            len(files),
            *(sizes[group] / 1e6 for group in GROUPS),
        )
        (site_dir / HEADERS_DEST).write_text(headers_file(), encoding="utf-8")
    (site_dir / SW_DEST).write_text(render_service_worker(source, manifest), encoding="utf-8")
