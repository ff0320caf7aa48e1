"""Content hashes of built files, reused for files copied from an unchanged source.

The precache manifest (:mod:`lesson_hooks.build.precache`) hashes every file of the
built site. Most of its bytes are Pyodide and the memory snapshot (about 20 MB),
copied unchanged from ``node_modules`` on every build, so their hashes are kept
in ``node_modules/.cache/lesson-file-hashes.json`` under the site path and the
source's path, size, times and inode, and a warm build reads none of those
megabytes. Rewriting a source changes its change time (npm gives every file
the same modification time), and a copy whose size differs from its source's
is hashed from its bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from lesson_hooks.support.cache_files import write_atomically
from lesson_hooks.support.paths import CACHE_DIR

HASH_CACHE = CACHE_DIR / "lesson-file-hashes.json"


def content_hash(path: Path) -> str:
    """The manifest's hash of a file: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class FileHashes:
    """``hashes(url, path)``: the content hash of the site file ``path`` (at ``url``).

    ``sources`` maps a site path to the file it was copied from unchanged;
    ``cache`` is where known hashes are kept between builds (``None``: nowhere).
    """

    def __init__(self, sources: Mapping[str, Path], cache: Path | None = HASH_CACHE) -> None:
        self.sources = dict(sources)
        self.cache = cache
        self.known = _load(cache) if cache else {}
        self.used: dict[str, str] = {}

    def __call__(self, url: str, path: Path) -> str:
        source = self.sources.get(url)
        if source is None:
            return content_hash(path)
        try:
            st = source.stat()
        except OSError:
            return content_hash(path)
        if st.st_size != path.stat().st_size:
            return content_hash(path)
        stamp = f"{url}|{source}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}|{st.st_ino}"
        digest = self.known.get(stamp) or content_hash(path)
        self.used[stamp] = digest
        return digest

    def save(self) -> None:
        """Keep the hashes this build used (a cache that cannot be written costs only time)."""
        if self.cache and self.used != self.known:
            with contextlib.suppress(OSError):
                write_atomically(self.cache, json.dumps(self.used, sort_keys=True))


def _load(cache: Path) -> dict[str, str]:
    try:
        found = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(v, str) and len(v) == 16}
