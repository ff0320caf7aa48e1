"""Vendor the Pyodide runtime and the ``lab`` package into the built site.

This module is the one place that knows where the runtime lives: it copies
the pinned npm ``pyodide`` files to ``VENDOR_DIR/<version>/`` (so a tab left
open across an upgrade keeps loading the files it started with), zips ``lab/``
into ``LAB_DIR``, adds the memory snapshot (``lesson_hooks/build/snapshot.py``) beside
the runtime, and writes ``LAB_DIR/runtime.json`` so the worker (served from
``LAB_DIR``) finds them all by relative URL.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.structure.files import File, Files

from lesson_hooks.build.snapshot import Snapshot, make_snapshot
from lesson_hooks.support.lab_archive import LabArchive, build_lab_archive
from lesson_hooks.support.node_tools import installed_version, locked_version
from lesson_hooks.support.paths import (
    LAB_DIR,
    LAB_PACKAGE,
    NODE_PYODIDE,
    PACKAGE_LOCK,
    RUNTIME_MANIFEST,
    VENDOR_DIR,
)

RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# What the worker downloads with fetch() (the .mjs files are imported), and so
# counts for its progress bar.
FETCHED_FILES = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


def locked_pyodide_version(lock: Path = PACKAGE_LOCK) -> str:
    """The Pyodide version pinned in package-lock.json."""
    return locked_version("pyodide", lock)


def check_runtime(node_pyodide: Path = NODE_PYODIDE, lock: Path = PACKAGE_LOCK) -> str:
    """Fail with a clear message unless node_modules holds the locked Pyodide."""
    locked = locked_pyodide_version(lock)
    installed = installed_version(node_pyodide)
    if installed is None:
        raise PluginError(
            f"The Pyodide runtime is missing ({node_pyodide / 'package.json'} not found). "
            "Run `npm ci` (the README's commands do it for you)."
        )
    if installed != locked:
        raise PluginError(
            f"{node_pyodide} is Pyodide {installed}, but package-lock.json pins {locked}. "
            "Run `npm ci` to install the locked version."
        )
    missing = [name for name in RUNTIME_FILES if not (node_pyodide / name).is_file()]
    if missing:
        raise PluginError(
            f"Pyodide {locked} in {node_pyodide} lacks {', '.join(missing)}. Run `npm ci`."
        )
    return locked


def vendor_dir(version: str) -> str:
    """Where this Pyodide version's files go in the site."""
    return f"{VENDOR_DIR}/{version}"


def runtime_manifest(
    version: str,
    archive: LabArchive,
    sizes: dict[str, int] | None = None,
    snapshot: Snapshot | None = None,
) -> dict[str, object]:
    """What the worker reads; URLs are relative to LAB_DIR/runtime.json.

    ``sizes`` are the runtime files' bytes: ``bytes`` (everything a boot
    downloads) is what the page offers a reader saving data; the worker's
    progress bar counts the fetched files (``sizes``) and the snapshot.
    """
    sizes = sizes or {}
    vendor_from_lab = posixpath.relpath(vendor_dir(version), LAB_DIR)
    fetched = {name: sizes[name] for name in FETCHED_FILES if name in sizes}
    fetched[archive.name] = len(archive.content)
    return {
        "pyodide": {"version": version, "indexURL": f"{vendor_from_lab}/"},
        "archive": archive.name,
        "sizes": fetched,
        "bytes": sum(sizes.values()) + len(archive.content),
        "snapshot": snapshot.manifest() if snapshot else None,
    }


_command = "build"


def on_startup(*, command: str, dirty: bool) -> None:
    global _command
    _command = command


def on_files(files: Files, config: MkDocsConfig) -> Files:
    version = check_runtime()
    runtime_dir = vendor_dir(version)
    for name in RUNTIME_FILES:
        files.append(
            File.generated(config, f"{runtime_dir}/{name}", abs_src_path=str(NODE_PYODIDE / name))
        )
    archive = build_lab_archive()
    files.append(File.generated(config, f"{LAB_DIR}/{archive.name}", content=archive.content))
    # The live preview boots normally: a snapshot per edit of lab/ would slow it.
    snapshot = None
    if _command != "serve":
        snapshot = make_snapshot(version, archive.name, archive.content)
        files.append(
            File.generated(
                config, f"{runtime_dir}/{snapshot.name}", abs_src_path=str(snapshot.path)
            )
        )
    sizes = {name: (NODE_PYODIDE / name).stat().st_size for name in RUNTIME_FILES}
    manifest = runtime_manifest(version, archive, sizes, snapshot)
    text = json.dumps(manifest, indent=2) + "\n"
    files.append(File.generated(config, RUNTIME_MANIFEST, content=text))
    return files


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
    # A contributor editing lab/*.py wants the preview's archive rebuilt.
    server.watch(str(LAB_PACKAGE))
    return server
