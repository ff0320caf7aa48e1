"""The built site carries Python's rules for the page (lesson_hooks/build/rules.py), precached."""

from __future__ import annotations

import json
from urllib.parse import unquote

from lab.core.rules import FOR_THE_PAGE
from lesson_hooks.build.rules import RULES_MODULE, RUNTIME_MANIFEST, download_figures, module_text
from tests.conftest import BuiltSite


def test_the_site_has_the_rules_module_as_python_writes_it(site: BuiltSite) -> None:
    manifest = json.loads((site.dir / RUNTIME_MANIFEST).read_text(encoding="utf-8"))
    figures = download_figures(manifest)
    expected = module_text({**FOR_THE_PAGE, **figures})
    assert (site.dir / RULES_MODULE).read_text(encoding="utf-8") == expected
    # The download the status line states is the vendored files' own (issue 39).
    vendored = (site.dir / RUNTIME_MANIFEST).parent / manifest["pyodide"]["indexURL"]
    sizes = sum(f.stat().st_size for f in vendored.iterdir())
    lab = (site.dir / "assets/lab" / manifest["archive"]).stat().st_size
    assert figures["PYTHON_DOWNLOAD_BYTES"] == sizes + lab
    # Not minified (minify.py takes docs/ only) and so no source map to go with it.
    assert not (site.dir / f"{RULES_MODULE}.map").exists()


def test_the_rules_module_is_precached_with_the_scripts_that_import_it(site: BuiltSite) -> None:
    manifest = json.loads((site.dir / "precache-manifest.json").read_text(encoding="utf-8"))
    listed = {unquote(entry["url"]): entry for entry in manifest["files"]}
    for name in (RULES_MODULE, "assets/lab/labs.js", "assets/lab/protocol.js"):
        assert (listed[name]["group"], listed[name]["immutable"]) == ("site", False), name
    # The built scripts import it, not a copy of it.
    assert 'from"./rules.js"' in (site.dir / "assets/lab/labs.js").read_text(encoding="utf-8")
