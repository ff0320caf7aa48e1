"""The build vendors the locked Pyodide and ships ``lab`` as one archive."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from lesson_hooks.build import runtime, snapshot

LOCKED = runtime.locked_pyodide_version()


def fake_runtime(tmp_path: Path, version: str, files=runtime.RUNTIME_FILES) -> Path:
    folder = tmp_path / "pyodide"
    folder.mkdir()
    (folder / "package.json").write_text(json.dumps({"version": version}))
    for name in files:
        (folder / name).write_bytes(b"x")
    return folder


def test_the_installed_runtime_matches_the_lock() -> None:
    assert runtime.check_runtime() == LOCKED


def test_a_missing_runtime_says_to_run_npm_ci(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match=r"runtime is missing .*npm ci"):
        runtime.check_runtime(tmp_path / "nowhere")


def test_a_runtime_that_does_not_match_the_lock_is_refused(tmp_path: Path) -> None:
    folder = fake_runtime(tmp_path, "0.0.1")
    with pytest.raises(PluginError, match=rf"Pyodide 0\.0\.1, but package-lock.json pins {LOCKED}"):
        runtime.check_runtime(folder)


def test_missing_runtime_files_are_named(tmp_path: Path) -> None:
    folder = fake_runtime(tmp_path, LOCKED, files=runtime.RUNTIME_FILES[:-1])
    with pytest.raises(PluginError, match=runtime.RUNTIME_FILES[-1]):
        runtime.check_runtime(folder)


def test_an_unreadable_lock_is_named(tmp_path: Path) -> None:
    lock = tmp_path / "package-lock.json"
    lock.write_text("{")
    with pytest.raises(PluginError, match=r"package-lock\.json"):
        runtime.locked_pyodide_version(lock)


def test_the_manifest_points_the_worker_at_this_versions_runtime_and_snapshot() -> None:
    archive = runtime.LabArchive(name="lab-abc.zip", content=b"zip")
    sizes = {"pyodide.mjs": 1, "pyodide.asm.wasm": 10, "python_stdlib.zip": 5}
    made = snapshot.Snapshot("snapshot-f00.bin", Path("x"), key="k", size=4, bytes=40)
    manifest = runtime.runtime_manifest("1.2.3", archive, sizes, made)
    assert manifest == {
        # The version in the path: a tab open across an upgrade keeps its files.
        "pyodide": {"version": "1.2.3", "indexURL": "../vendor/pyodide/1.2.3/"},
        "archive": "lab-abc.zip",
        # What the worker fetches (counted by its progress bar); .mjs files are imported.
        "sizes": {"pyodide.asm.wasm": 10, "python_stdlib.zip": 5, "lab-abc.zip": 3},
        "bytes": 19,
        "snapshot": {"file": "snapshot-f00.bin", "key": "k", "size": 4, "bytes": 40},
    }
    assert runtime.runtime_manifest("1.2.3", archive)["snapshot"] is None


# ------------------------------------------------------------------ the snapshot


def fake_node_pyodide(tmp_path: Path, build_id: str = "ab" * 32) -> Path:
    folder = tmp_path / "pyodide"
    folder.mkdir(exist_ok=True)
    (folder / "pyodide.mjs").write_text(f'x={{BUILD_ID:"{build_id}"}}')
    return folder


def fake_script(tmp_path: Path, body: str) -> Path:
    """A stand-in for make_snapshot.mjs: argv is INDEX_DIR ARCHIVE KEY OUT."""
    script = tmp_path / "make.mjs"
    script.write_text(f"import {{ writeFileSync }} from 'node:fs';\n{body}\n")
    return script


WRITES = """const [, , , , key, out] = process.argv;
writeFileSync(out, "gz:" + key);
writeFileSync(new URL("runs.txt", import.meta.url), "x", { flag: "a" });
process.stdout.write(JSON.stringify({ buildId: "b", bytes: 31 }));"""


def test_the_snapshot_key_names_pyodide_its_build_and_the_lab_archive() -> None:
    build_id = snapshot.pyodide_build_id()
    assert len(build_id) >= 16
    key = snapshot.snapshot_key(LOCKED, build_id, "lab-abc.zip")
    assert LOCKED in key and build_id[:16] in key and "lab-abc.zip" in key


def test_a_snapshot_is_made_once_per_input_and_named_by_its_content(tmp_path: Path) -> None:
    node_pyodide, cache = fake_node_pyodide(tmp_path), tmp_path / "cache"
    script = fake_script(tmp_path, WRITES)
    first = snapshot.make_snapshot(
        "1.0", "lab-a.zip", b"zip", node_pyodide=node_pyodide, cache_dir=cache, script=script
    )
    assert first.path.read_text() == f"gz:{first.key}"
    assert (first.bytes, first.size) == (31, len(f"gz:{first.key}"))
    assert re.fullmatch(r"snapshot-[0-9a-f]{12}\.bin", first.name)
    again = snapshot.make_snapshot(
        "1.0", "lab-a.zip", b"zip", node_pyodide=node_pyodide, cache_dir=cache, script=script
    )
    assert again == first
    # A warm build reuses it: the script ran once.
    assert (tmp_path / "runs.txt").read_text() == "x"
    other = snapshot.make_snapshot(
        "1.0", "lab-b.zip", b"zip", node_pyodide=node_pyodide, cache_dir=cache, script=script
    )
    assert other.name != first.name and other.key != first.key


def test_a_failing_snapshot_script_fails_the_build_with_its_error(tmp_path: Path) -> None:
    script = fake_script(tmp_path, 'console.error("no memory for you"); process.exit(3);')
    with pytest.raises(PluginError, match=r"could not make the Python snapshot \(exit 3\)"):
        snapshot.make_snapshot(
            "1.0",
            "lab-a.zip",
            b"zip",
            node_pyodide=fake_node_pyodide(tmp_path),
            cache_dir=tmp_path / "cache",
            script=script,
        )


def test_a_pyodide_without_a_build_id_is_refused_clearly(tmp_path: Path) -> None:
    folder = tmp_path / "pyodide"
    folder.mkdir()
    (folder / "pyodide.mjs").write_text("export {}")
    with pytest.raises(PluginError, match=r"cannot find Pyodide's BUILD_ID"):
        snapshot.pyodide_build_id(folder)
