"""Vendor KaTeX from npm so math renders with no request to another origin.

``pymdownx.arithmatex`` (generic mode) leaves math as ``\\( … \\)`` and
``\\[ … \\]`` inside ``<span|div class="arithmatex">``, readable as TeX without
JavaScript. This hook copies the pinned npm ``katex`` (its ES module, its
stylesheet, its woff2 fonts and licence) to ``KATEX_DIR``; ``assets/theme/math.js``
loads them only on pages that have math. The build fails with a clear message
if ``node_modules`` does not hold the version package-lock.json pins.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from lesson_hooks.support.paths import KATEX_DIR, NODE_MODULES, PACKAGE_LOCK

NODE_KATEX = NODE_MODULES / "katex"
#: The files a page with math needs (fonts: woff2 only, which every supported browser reads).
KATEX_FILES = ("katex.mjs", "katex.min.css")


def locked_katex_version(lock: Path = PACKAGE_LOCK) -> str:
    try:
        packages = json.loads(lock.read_text(encoding="utf-8"))["packages"]
        return packages["node_modules/katex"]["version"]
    except (OSError, KeyError, ValueError) as err:
        raise PluginError(f"{lock}: cannot read the locked katex version ({err}).") from err


def check_katex(node_katex: Path = NODE_KATEX, lock: Path = PACKAGE_LOCK) -> str:
    """Fail with a clear message unless node_modules holds the locked KaTeX."""
    locked = locked_katex_version(lock)
    manifest = node_katex / "package.json"
    installed = (
        json.loads(manifest.read_text(encoding="utf-8")).get("version")
        if manifest.is_file()
        else None
    )
    if installed != locked:
        found = f"KaTeX {installed}" if installed else "missing"
        raise PluginError(
            f"{node_katex} is {found}, but package-lock.json pins katex {locked}. Run `npm ci`."
        )
    missing = [name for name in KATEX_FILES if not (node_katex / "dist" / name).is_file()]
    if missing:
        raise PluginError(
            f"KaTeX {locked} in {node_katex} lacks {', '.join(missing)}. Run `npm ci`."
        )
    return locked


def katex_files(node_katex: Path = NODE_KATEX) -> dict[str, Path]:
    """Site path -> source file, for everything vendored."""
    dist = node_katex / "dist"
    files = {f"{KATEX_DIR}/{name}": dist / name for name in KATEX_FILES}
    for font in sorted((dist / "fonts").glob("*.woff2")):
        files[f"{KATEX_DIR}/fonts/{font.name}"] = font
    files[f"{KATEX_DIR}/LICENSE"] = node_katex / "LICENSE"
    return files


def on_files(files: Files, config: MkDocsConfig) -> Files:
    check_katex()
    for dest, source in katex_files().items():
        files.append(File.generated(config, dest, abs_src_path=str(source)))
    return files
