"""A build-time memo of what the hooks compute with the lab (training runs, rendered).

The worked example, the simulation lab and the language-model lab train the
lab's models at build time, so that their pages show real results without
JavaScript. What they render depends only on the code that runs and the
parameters, so a warm build reads it from ``node_modules/.cache/lesson-memo/``
instead of training again.

An entry's key hashes the ``lab`` package's sources, the source of the module
defining the function, the function's name and the parameters: an edit of
``lab/`` or of the hook makes a new entry, and the oldest entries are pruned.
The sources are read once per loaded module, not per call, because
``mkdocs serve`` keeps the ``lab`` it imported: a value is always filed under
the code that computed it. A missing, unreadable or corrupt entry is computed
again and rewritten; a cache that cannot be written costs only the time.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import lab
from lesson_hooks.support.cache_files import write_atomically
from lesson_hooks.support.paths import CACHE_DIR

log = logging.getLogger("mkdocs.hooks.memo")

MEMO_CACHE = CACHE_DIR / "lesson-memo"
_KEEP = 32  # entries (a build makes about 3; each live edit of lab/ makes new ones)
_SUFFIX = ".json"

#: Plain JSON data: what an entry holds.
Json = Any
Params = Mapping[str, Json]

_digests: dict[str, tuple[ModuleType, str]] = {}


def source_digest(module: ModuleType) -> str:
    """A hash of the module's source (every ``*.py`` file of a package), read once per module."""
    seen = _digests.get(module.__name__)
    if seen is not None and seen[0] is module:
        return seen[1]
    file = Path(module.__file__ or "")
    paths = sorted(file.parent.rglob("*.py")) if hasattr(module, "__path__") else [file]
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(file.parent).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    _digests[module.__name__] = (module, digest.hexdigest())
    return _digests[module.__name__][1]


def memo_key(compute: Callable[[Params], Json], params: Params, package: ModuleType) -> str:
    """What the value depends on, as one hash."""
    parts = (
        source_digest(package),
        source_digest(sys.modules[compute.__module__]),
        f"{compute.__module__}.{compute.__qualname__}",
        json.dumps(params, sort_keys=True, separators=(",", ":")),
    )
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def memoized(
    compute: Callable[[Params], Json],
    params: Params,
    *,
    cache_dir: Path = MEMO_CACHE,
    package: ModuleType = lab,
) -> Json:
    """``compute(params)``, from the cache when the code and ``params`` are unchanged.

    ``compute`` is a module-level function returning plain JSON data; a miss
    returns the data as a hit would (tuples become lists).
    """
    key = memo_key(compute, params, package)
    entry = cache_dir / f"{key[:32]}{_SUFFIX}"
    found = _read(entry, key)
    if found is not None:
        return found["value"]
    text = json.dumps({"key": key, "value": compute(params)}, separators=(",", ":"))
    _write(entry, text)
    return json.loads(text)["value"]


def _read(entry: Path, key: str) -> dict[str, Json] | None:
    try:
        found = json.loads(entry.read_text(encoding="utf-8"))
        # Touched on use, so pruning drops the entries no build reads any more.
        os.utime(entry)
    except (OSError, ValueError):
        return None
    if not (isinstance(found, dict) and found.get("key") == key and "value" in found):
        return None
    return found


def _write(entry: Path, text: str) -> None:
    try:
        write_atomically(entry, text)
    except OSError as err:  # the build then only loses time
        log.debug("Build memo %s not written: %s", entry, err)
        return
    try:
        _prune(entry.parent, keep=entry)
    except OSError as err:  # another build pruned at the same time
        log.debug("Build memo not pruned: %s", err)


def _prune(cache_dir: Path, keep: Path) -> None:
    entries = sorted(cache_dir.glob(f"*{_SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in [p for p in entries if p != keep][_KEEP - 1 :]:
        old.unlink(missing_ok=True)
