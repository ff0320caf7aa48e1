"""Ship the site's own scripts and stylesheets minified, with source maps.

The lab's and the theme's files in ``docs/assets/`` are written to be read:
long comments say why. A reader's browser needs none of that, so each is
replaced in the build by esbuild's minified transform of it (no bundling: every
module keeps its own URL and imports), with a linked source map that carries
the original text for anyone debugging the live site. The service worker's
source and the downloadable copy's scripts are left as they are: other hooks
edit their text.

Outputs are cached under ``node_modules/.cache/`` by a hash of the file and
esbuild's options and version, so a warm build or a ``mkdocs serve`` rebuild
runs esbuild only for the files that changed.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from lesson_hooks.support import paths
from lesson_hooks.support.cache_files import write_atomically
from lesson_hooks.support.node_tools import run_tool
from lesson_hooks.support.paths import ESBUILD, INSTALLED_LOCK

CACHE_DIR = paths.CACHE_DIR / "lesson-minify"
#: The site's own files that ship minified (paths relative to docs/).
MINIFIED = (
    "assets/lab/*.js",
    "assets/lab/*.css",
    "assets/record/*.js",
    "assets/record/*.css",
    "assets/theme/*.js",
    "assets/stylesheets/*.css",
)
ESBUILD_OPTIONS = (
    "--minify",
    "--charset=utf8",
    "--sourcemap=linked",
    "--sources-content=true",
    "--log-level=warning",
)
TIMEOUT = 120  # seconds; all the files take well under one
_KEEP = 200  # cached outputs (a live preview makes one per saved edit)


@dataclass(frozen=True)
class Minified:
    code: bytes
    source_map: bytes


def _key(name: str, content: bytes, tool: bytes) -> str:
    """The cache key of ``name``'s output: its text, esbuild's options and ``tool`` (npm's lock)."""
    h = hashlib.sha256()
    for part in (name.encode(), content, "\0".join(ESBUILD_OPTIONS).encode(), tool):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:24]


def _run_esbuild(sources: dict[str, bytes], esbuild: Path) -> dict[str, Minified]:
    """Minify ``sources`` (name -> text) in one esbuild run."""
    if not esbuild.is_file():
        raise PluginError(
            f"esbuild is missing ({esbuild} not found), so the site's scripts cannot be "
            "minified. Run `npm ci` (./dev serve, ./dev build and ./dev test do it for you)."
        )
    with tempfile.TemporaryDirectory(prefix="lesson-minify-") as tmp:
        src, out = Path(tmp, "src"), Path(tmp, "out")
        for name, content in sources.items():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes(content)
        run_tool(
            [esbuild, *sorted(sources), *ESBUILD_OPTIONS, f"--outdir={out}", "--outbase=."],
            "esbuild",
            "minify the site's scripts",
            timeout=TIMEOUT,
            cwd=src,
            advice="If esbuild is missing or broken, run `npm ci`.",
        )
        results = {}
        for name in sources:
            source_map = json.loads((out / f"{name}.map").read_bytes())
            # The map sits beside its file on the site: name the source as it is there.
            source_map["sources"] = [PurePosixPath(name).name]
            results[name] = Minified(
                (out / name).read_bytes(), json.dumps(source_map, separators=(",", ":")).encode()
            )
        return results


def minify(
    sources: dict[str, bytes], cache_dir: Path | None = None, esbuild: Path | None = None
) -> dict[str, Minified]:
    """Each of ``sources`` (docs-relative name -> content) minified, from the cache or now."""
    cache_dir = cache_dir or CACHE_DIR
    tool = INSTALLED_LOCK.read_bytes() if INSTALLED_LOCK.is_file() else b"-"
    keys = {name: _key(name, content, tool) for name, content in sources.items()}
    results: dict[str, Minified] = {}
    missing: dict[str, bytes] = {}
    for name, content in sources.items():
        code, source_map = cache_dir / f"{keys[name]}.out", cache_dir / f"{keys[name]}.map"
        if code.is_file() and source_map.is_file():
            results[name] = Minified(code.read_bytes(), source_map.read_bytes())
        else:
            missing[name] = content
    if missing:
        made = _run_esbuild(missing, esbuild or ESBUILD)
        for name, result in made.items():
            # The map is written last: an entry with it is complete.
            write_atomically(cache_dir / f"{keys[name]}.out", result.code)
            write_atomically(cache_dir / f"{keys[name]}.map", result.source_map)
        results.update(made)
        _prune(cache_dir)
    return results


def _prune(cache_dir: Path) -> None:
    outputs = sorted(cache_dir.glob("*.out"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in outputs[_KEEP:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".map").unlink(missing_ok=True)


def ours(files: Files, config: MkDocsConfig) -> list[File]:
    """The site's own scripts and stylesheets: from ``docs/``, never the theme's.

    Material's stylesheets share ``assets/stylesheets/`` with ours; they ship
    minified with source maps of their own, which a second pass would replace.
    """
    docs = Path(config.docs_dir).resolve()
    return [
        f
        for f in files.media_files()
        if f.abs_src_path
        and Path(f.abs_src_path).resolve().is_relative_to(docs)
        and any(fnmatch(f.src_uri, pattern) for pattern in MINIFIED)
    ]


def on_files(files: Files, config: MkDocsConfig) -> Files:
    chosen = ours(files, config)
    results = minify({f.src_uri: Path(f.abs_src_path).read_bytes() for f in chosen})
    for f in chosen:
        files.remove(f)
        result = results[f.src_uri]
        files.append(File.generated(config, f.src_uri, content=result.code))
        files.append(File.generated(config, f"{f.src_uri}.map", content=result.source_map))
    return files
