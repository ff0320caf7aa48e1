"""Bundle the lab's code editor (CodeMirror 6 from npm) into the built site.

``lesson_hooks/build/editor_entry.js`` imports the pinned npm packages; esbuild (also
pinned in package.json) bundles it into one ES module, written to
:data:`lesson_hooks.support.paths.EDITOR_BUNDLE`, which ``docs/assets/lab/widgets/code-panel.js``
imports when a page has an editable lab. The entry lives outside ``docs/`` so
it is never copied to the site as it is.

A bundle is cached under ``node_modules/.cache/`` by a hash of everything it is
made from (the entry, the installed packages' lock, esbuild's options), so a
``mkdocs serve`` rebuild reuses it instantly; ``npm ci`` empties the cache.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.structure.files import File, Files

from lesson_hooks.support import paths
from lesson_hooks.support.cache_files import write_atomically
from lesson_hooks.support.node_tools import run_tool
from lesson_hooks.support.paths import EDITOR_BUNDLE, ESBUILD, INSTALLED_LOCK, PACKAGE_LOCK

ENTRY = paths.BUILD_HOOKS / "editor_entry.js"
CACHE_DIR = paths.CACHE_DIR / "lesson-editor"
BANNER = (
    "/*! The lesson's code editor, bundled by lesson_hooks/build/editor.py from npm: codemirror, "
    "@codemirror/*, @lezer/*, style-mod, w3c-keyname, crelt. MIT licence, "
    "(c) Marijn Haverbeke and others. */"
)
ESBUILD_OPTIONS = (
    "--bundle",
    "--format=esm",
    "--minify",
    "--target=es2020",
    "--charset=utf8",
    "--legal-comments=eof",
    "--log-level=warning",
    f"--banner:js={BANNER}",
)
TIMEOUT = 120  # seconds; a bundle takes well under one


def _digest(entry: Path, locks: tuple[Path, ...]) -> str:
    h = hashlib.sha256()
    for part in (entry, *locks):
        h.update(part.read_bytes() if part.is_file() else b"-")
        h.update(b"\0")
    h.update("\0".join(ESBUILD_OPTIONS).encode("utf-8"))
    return h.hexdigest()[:16]


def bundle_editor(
    entry: Path | None = None,
    esbuild: Path | None = None,
    cache_dir: Path | None = None,
    locks: tuple[Path, ...] | None = None,
) -> bytes:
    """The editor as one ES module: from the cache, or bundled now by esbuild.

    Each argument defaults to this module's constant of the same name, read when called.
    """
    entry = entry or ENTRY
    esbuild = esbuild or ESBUILD
    cache_dir = cache_dir or CACHE_DIR
    locks = locks if locks is not None else (PACKAGE_LOCK, INSTALLED_LOCK)
    if not entry.is_file():
        raise PluginError(f"The code editor's source {entry} is missing.")
    if not esbuild.is_file():
        raise PluginError(
            f"esbuild is missing ({esbuild} not found), so the lab's code editor cannot be "
            "bundled. Run `npm ci` (./dev serve, ./dev build and ./dev test do it for you)."
        )
    cached = cache_dir / f"editor-{_digest(entry, locks)}.js"
    if cached.is_file():
        return cached.read_bytes()
    done = run_tool(
        [esbuild, entry, *ESBUILD_OPTIONS],
        "esbuild",
        f"bundle the code editor ({entry})",
        timeout=TIMEOUT,
        cwd=entry.parent,
        done_when=lambda done: bool(done.stdout),
        advice="If a package is missing, run `npm ci`.",
    )
    write_atomically(cached, done.stdout)
    _prune(cache_dir, keep=cached)
    return done.stdout


def _prune(cache_dir: Path, keep: Path, count: int = 4) -> None:
    """Keep the newest few bundles (a live preview of entry edits makes one per save)."""
    bundles = sorted(cache_dir.glob("editor-*.js"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in [b for b in bundles if b != keep][count - 1 :]:
        old.unlink(missing_ok=True)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, EDITOR_BUNDLE, content=bundle_editor()))
    return files


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
    # A contributor changing the editor's setup wants the preview rebuilt.
    server.watch(str(ENTRY))
    return server
