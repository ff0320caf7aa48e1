"""The site's own scripts ship minified by esbuild, cached, with their source maps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from lesson_hooks.build import minify
from lesson_hooks.support.paths import ESBUILD

pytestmark = pytest.mark.skipif(not ESBUILD.is_file(), reason="needs npm ci (esbuild)")

SCRIPT = b"""// A long comment that explains why, which the reader's browser doesn't need.
export function total(values) {
  let sum = 0;
  for (const value of values) sum += value;
  return sum;
}
"""
STYLE = b"/* why */\n.lab-box {\n  margin: 0 0 1rem 0;\n}\n"


def test_scripts_and_styles_shrink_and_keep_their_meaning(tmp_path: Path) -> None:
    out = minify.minify({"assets/lab/a.js": SCRIPT, "assets/lab/a.css": STYLE}, tmp_path)
    code, link = out["assets/lab/a.js"].code.decode().splitlines()
    assert len(code) < len(SCRIPT) / 2
    assert code.startswith("export function total(")  # an export keeps its name
    assert link == "//# sourceMappingURL=a.js.map"
    assert ".lab-box{margin:0 0 1rem}" in out["assets/lab/a.css"].code.decode()


def test_the_source_map_names_the_file_beside_it_and_carries_its_text(tmp_path: Path) -> None:
    out = minify.minify({"assets/theme/a.js": SCRIPT}, tmp_path)
    source_map = json.loads(out["assets/theme/a.js"].source_map)
    assert source_map["sources"] == ["a.js"]
    assert source_map["sourcesContent"] == [SCRIPT.decode()]


def test_a_warm_build_reuses_the_cache_and_an_edit_runs_again(tmp_path: Path) -> None:
    first = minify.minify({"assets/lab/a.js": SCRIPT}, tmp_path)
    # No esbuild at all: everything must come from the cache.
    again = minify.minify({"assets/lab/a.js": SCRIPT}, tmp_path, esbuild=tmp_path / "none")
    assert again == first
    with pytest.raises(PluginError, match="esbuild is missing"):
        minify.minify({"assets/lab/a.js": SCRIPT + b"// edited\n"}, tmp_path, tmp_path / "none")


def test_a_syntax_error_fails_the_build_naming_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match=r"assets/lab/broken\.js:2:"):
        minify.minify({"assets/lab/broken.js": b"const a = 1;\nconst = ;\n"}, tmp_path)


def test_only_the_sites_own_files_are_minified_never_the_themes() -> None:
    """Material's own minified stylesheets (and their source maps) ship as Material made them."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    from lesson_hooks.support.paths import ROOT

    config = load_config(str(ROOT / "mkdocs.yml"))
    files = get_files(config)
    files.add_files_from_theme(config.theme.get_env(), config)
    chosen = {f.src_uri for f in minify.ours(files, config)}
    assert "assets/lab/labs.js" in chosen and "assets/stylesheets/lesson.css" in chosen
    theme = {f.src_uri for f in files.media_files() if f.src_uri.endswith(".min.css")}
    assert theme, "Material's stylesheets are among the site's files"
    assert not chosen & theme
