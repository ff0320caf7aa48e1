"""The lab's Python memory snapshot, made at build time.

``lesson_hooks/build/make_snapshot.mjs`` boots the vendored Pyodide in Node with its
private snapshot option, unpacks the lab archive, imports every ``lab`` module
and writes the interpreter's memory, gzipped (31 MB raw, about 6 MB gzipped).
The worker restores it instead of booting (``docs/assets/lab/worker.js``), and
falls back to a normal boot when anything about it is wrong.

The option is private to Pyodide, so the version is pinned (package-lock.json)
and the snapshot is keyed by what it depends on: the Pyodide version, its build
id (Pyodide refuses a snapshot from another build) and the lab archive's name
(a hash of its content). The key is stored inside the snapshot's Python, so the
worker can also tell a stale one after restoring it. Snapshots are cached under
``node_modules/.cache/`` by the key and this script's code: a warm build only
copies the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import PluginError

from lesson_hooks.support.node_tools import run_tool
from lesson_hooks.support.paths import BUILD_HOOKS, CACHE_DIR, NODE_PYODIDE

SCRIPT = BUILD_HOOKS / "make_snapshot.mjs"
SNAPSHOT_CACHE = CACHE_DIR / "lesson-snapshot"
TIMEOUT = 300  # seconds; a snapshot takes about 5 on a busy 2-core machine
#: Snapshot files are named ``snapshot-<content hash>.bin`` beside the runtime.
FILE_PREFIX = "snapshot-"
_BUILD_ID = re.compile(r'BUILD_ID:"([0-9a-f]{16,})"')
_KEEP = 3  # cached snapshots (a live edit of lab/ makes one per archive)


@dataclass(frozen=True)
class Snapshot:
    """A made snapshot: its site file name (content-hashed) and what the worker checks."""

    name: str
    path: Path  # the gzipped snapshot in the cache
    key: str
    size: int  # bytes to download (gzipped)
    bytes: int  # bytes of memory once unpacked

    def manifest(self) -> dict[str, object]:
        return {"file": self.name, "key": self.key, "size": self.size, "bytes": self.bytes}


def pyodide_build_id(node_pyodide: Path = NODE_PYODIDE) -> str:
    """The build id Pyodide stamps into (and checks in) every snapshot."""
    source = node_pyodide / "pyodide.mjs"
    found = _BUILD_ID.search(source.read_text(encoding="utf-8")) if source.is_file() else None
    if not found:
        raise PluginError(
            f"{source}: cannot find Pyodide's BUILD_ID, so no memory snapshot can be made. "
            "The snapshot option is private to Pyodide: check it still exists in this version."
        )
    return found.group(1)


def snapshot_key(version: str, build_id: str, archive_name: str) -> str:
    return f"pyodide {version} build {build_id[:16]} {archive_name}"


def make_snapshot(
    version: str,
    archive_name: str,
    archive: bytes,
    *,
    node_pyodide: Path = NODE_PYODIDE,
    cache_dir: Path = SNAPSHOT_CACHE,
    script: Path = SCRIPT,
) -> Snapshot:
    """The snapshot for this Pyodide and lab archive, from the cache or made now."""
    key = snapshot_key(version, pyodide_build_id(node_pyodide), archive_name)
    digest = hashlib.sha256(key.encode("utf-8") + b"\0" + script.read_bytes()).hexdigest()[:16]
    cached, meta = cache_dir / f"{digest}.gz", cache_dir / f"{digest}.json"
    if not (cached.is_file() and meta.is_file()):
        _make(key, archive, node_pyodide, script, cached, meta)
    info = json.loads(meta.read_text(encoding="utf-8"))
    return Snapshot(
        name=f"{FILE_PREFIX}{info['sha256'][:12]}.bin",
        path=cached,
        key=key,
        size=cached.stat().st_size,
        bytes=info["bytes"],
    )


def _make(
    key: str, archive: bytes, node_pyodide: Path, script: Path, out: Path, meta: Path
) -> None:
    node = shutil.which("node")
    if node is None:
        raise PluginError(
            "Node is needed to make the lab's Python snapshot and was not found on PATH "
            "(./dev installs what the build needs)."
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        zipped, made = Path(tmp) / "lab.zip", Path(tmp) / "snapshot.gz"
        zipped.write_bytes(archive)
        done = run_tool(
            [node, script, node_pyodide, zipped, key, made],
            str(script),
            "make the Python snapshot",
            timeout=TIMEOUT,
            done_when=lambda _: made.is_file(),
        )
        result = json.loads(done.stdout)
        content = made.read_bytes()
        info = {"bytes": result["bytes"], "sha256": hashlib.sha256(content).hexdigest()}
        os.replace(made, out)
    # The metadata is written last: a cache entry with it is complete.
    meta.write_text(json.dumps(info), encoding="utf-8")
    _prune(out.parent, keep=out)


def _prune(cache_dir: Path, keep: Path) -> None:
    made = sorted(cache_dir.glob("*.gz"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in [p for p in made if p != keep][_KEEP - 1 :]:
        old.unlink(missing_ok=True)
        old.with_suffix(".json").unlink(missing_ok=True)
