"""The built site carries Python's rules for the page (lesson_hooks/build/rules.py), precached."""

from __future__ import annotations

import json
from urllib.parse import unquote

from lesson_hooks.build.rules import RULES_MODULE, module_text
from tests.conftest import BuiltSite


def test_the_site_has_the_rules_module_as_python_writes_it(site: BuiltSite) -> None:
    assert (site.dir / RULES_MODULE).read_text(encoding="utf-8") == module_text()
    # Not minified (minify.py takes docs/ only) and so no source map to go with it.
    assert not (site.dir / f"{RULES_MODULE}.map").exists()


def test_the_rules_module_is_precached_with_the_scripts_that_import_it(site: BuiltSite) -> None:
    manifest = json.loads((site.dir / "precache-manifest.json").read_text(encoding="utf-8"))
    listed = {unquote(entry["url"]): entry for entry in manifest["files"]}
    for name in (RULES_MODULE, "assets/lab/labs.js", "assets/lab/protocol.js"):
        assert (listed[name]["group"], listed[name]["immutable"]) == ("site", False), name
    # The built scripts import it, not a copy of it.
    assert 'from"./rules.js"' in (site.dir / "assets/lab/labs.js").read_text(encoding="utf-8")
