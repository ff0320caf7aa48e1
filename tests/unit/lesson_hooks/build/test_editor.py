"""The code editor's bundle: made by esbuild at build time, cached, and a clear error without it."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from lesson_hooks.build import editor
from lesson_hooks.support import paths

FAKE_ESBUILD = """#!{python}
import pathlib, sys
runs = pathlib.Path({runs!r})
runs.write_text(str(int(runs.read_text() or 0) + 1) if runs.exists() else "1")
if "fail" in pathlib.Path(sys.argv[1]).read_text():
    sys.stderr.write("✘ [ERROR] Could not resolve \\"@codemirror/nope\\"\\n")
    sys.exit(1)
sys.stdout.write("export function createEditor() {{}}\\n")
"""


@pytest.fixture
def fake(tmp_path: Path) -> dict[str, Path]:
    """An entry, a lock and a stand-in esbuild that counts its runs."""
    entry = tmp_path / "entry.js"
    entry.write_text('import "codemirror";\n')
    lock = tmp_path / "package-lock.json"
    lock.write_text("{}")
    runs = tmp_path / "runs"
    esbuild = tmp_path / "esbuild"
    esbuild.write_text(FAKE_ESBUILD.format(python=sys.executable, runs=str(runs)))
    esbuild.chmod(esbuild.stat().st_mode | stat.S_IXUSR)
    return {"entry": entry, "lock": lock, "runs": runs, "esbuild": esbuild, "cache": tmp_path / "c"}


def bundle(fake: dict[str, Path]) -> bytes:
    return editor.bundle_editor(
        entry=fake["entry"], esbuild=fake["esbuild"], cache_dir=fake["cache"], locks=(fake["lock"],)
    )


def runs(fake: dict[str, Path]) -> int:
    return int(fake["runs"].read_text()) if fake["runs"].exists() else 0


def test_a_missing_esbuild_fails_the_build_saying_to_run_npm_ci(
    fake: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(editor, "ESBUILD", fake["esbuild"].parent / "node_modules/.bin/esbuild")
    monkeypatch.setattr(editor, "CACHE_DIR", fake["cache"])  # a cached bundle must not hide it
    config = load_config(str(paths.ROOT / "mkdocs.yml"))
    with pytest.raises(PluginError) as err:
        editor.on_files(Files([]), config)
    message = str(err.value)
    assert "esbuild is missing" in message
    assert "node_modules/.bin/esbuild not found" in message
    assert "Run `npm ci`" in message


def test_the_bundle_is_cached_by_its_inputs(fake: dict[str, Path]) -> None:
    first = bundle(fake)
    assert first.startswith(b"export function createEditor")
    assert bundle(fake) == first
    assert runs(fake) == 1  # the second build reused the cache

    fake["entry"].write_text('import "codemirror";\n// changed\n')
    bundle(fake)
    assert runs(fake) == 2
    fake["lock"].write_text('{"changed": true}')  # e.g. a package upgraded
    bundle(fake)
    assert runs(fake) == 3
    assert len(list(fake["cache"].glob("editor-*.js"))) == 3


def test_old_bundles_are_pruned(fake: dict[str, Path]) -> None:
    for n in range(7):
        fake["entry"].write_text(f"// version {n}\n")
        made = bundle(fake)
        newest = max(fake["cache"].glob("editor-*.js"), key=lambda p: p.stat().st_mtime)
        os.utime(newest, (n + 1e9, n + 1e9))  # mtimes in order, whatever the clock's resolution
        assert newest.read_bytes() == made
    assert len(list(fake["cache"].glob("editor-*.js"))) == 4


def test_a_failed_bundle_names_the_entry_and_esbuilds_message(fake: dict[str, Path]) -> None:
    fake["entry"].write_text('import "fail";\n')
    with pytest.raises(PluginError) as err:
        bundle(fake)
    message = str(err.value)
    assert "esbuild could not bundle the code editor" in message
    assert str(fake["entry"]) in message
    assert 'Could not resolve "@codemirror/nope"' in message
    assert not list(fake["cache"].glob("editor-*.js"))  # nothing half-made is cached


def test_a_missing_entry_is_named(fake: dict[str, Path]) -> None:
    fake["entry"].unlink()
    with pytest.raises(PluginError, match=r"code editor's source .*entry\.js is missing"):
        bundle(fake)


def test_the_real_entry_bundles_into_one_self_contained_module(tmp_path: Path) -> None:
    made = editor.bundle_editor(cache_dir=tmp_path)
    text = made.decode("utf-8")
    assert text.startswith("/*! The lesson's code editor")
    assert "MIT licence" in text
    assert "export{" in text.replace(" ", "")
    assert "createEditor" in text and "editorText" in text
    # One file: no imports left to resolve, nothing fetched from anywhere.
    assert "import(" not in text and not text.lstrip().startswith("import")
    assert "https://" not in text
