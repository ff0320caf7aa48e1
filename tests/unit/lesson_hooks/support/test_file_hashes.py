"""The precache manifest's hashes of vendored files: reused while the source is unchanged."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from lesson_hooks.support.file_hashes import FileHashes, content_hash

URL = "assets/vendor/pyodide/1.0/pyodide.asm.wasm"


def vendored(tmp_path: Path, content: bytes) -> tuple[Path, Path]:
    """A source file as npm leaves it (a fixed modification time) and its copy in the site."""
    source, copy = tmp_path / "node_modules" / "runtime.wasm", tmp_path / "site" / URL
    source.parent.mkdir(parents=True, exist_ok=True)
    copy.parent.mkdir(parents=True, exist_ok=True)
    source.write_bytes(content)
    os.utime(source, ns=(499162500 * 10**9, 499162500 * 10**9))
    shutil.copyfile(source, copy)
    return source, copy


def test_a_warm_build_reuses_the_hash_of_an_unchanged_source(tmp_path: Path) -> None:
    source, copy = vendored(tmp_path, b"wasm v1")
    cache = tmp_path / "hashes.json"
    first = FileHashes({URL: source}, cache)
    known = first(URL, copy)
    assert known == content_hash(copy)
    first.save()
    # Tampering with the copy behind the cache's back shows the known hash is what is read.
    copy.write_bytes(b"wasm v2")
    assert FileHashes({URL: source}, cache)(URL, copy) == known != content_hash(copy)


def test_a_rewritten_source_is_hashed_again(tmp_path: Path) -> None:
    source, copy = vendored(tmp_path, b"wasm v1")
    cache = tmp_path / "hashes.json"
    first = FileHashes({URL: source}, cache)
    old = first(URL, copy)
    first.save()
    # Same size and modification time (npm's fixed date), other bytes: a new install.
    source.unlink()
    vendored(tmp_path, b"wasm v2")
    again = FileHashes({URL: source}, cache)(URL, copy)
    assert again == content_hash(copy) != old


def test_a_copy_of_another_size_and_an_unknown_file_are_hashed_from_their_bytes(
    tmp_path: Path,
) -> None:
    source, copy = vendored(tmp_path, b"wasm v1")
    copy.write_bytes(b"changed in the site")
    page = tmp_path / "site" / "index.html"
    page.write_text("<p>hi</p>", encoding="utf-8")
    hashes = FileHashes({URL: source}, tmp_path / "hashes.json")
    assert hashes(URL, copy) == content_hash(copy)
    assert hashes("index.html", page) == content_hash(page)


def test_a_corrupt_cache_is_ignored_and_replaced(tmp_path: Path) -> None:
    source, copy = vendored(tmp_path, b"wasm v1")
    cache = tmp_path / "hashes.json"
    cache.write_text('{"half', encoding="utf-8")
    hashes = FileHashes({URL: source}, cache)
    assert hashes(URL, copy) == content_hash(copy)
    hashes.save()
    assert list(FileHashes({URL: source}, cache).known.values()) == [content_hash(copy)]
