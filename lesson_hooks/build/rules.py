"""Hand the page the rules Python holds, as a module the build writes: ``assets/lab/rules.js``.

The rules both sides need (an id's pattern, the error kinds the page tells
apart, a settings link's separator) live once, in :mod:`lab.core.rules`; this
hook writes its :data:`~lab.core.rules.FOR_THE_PAGE` into the site as an ES
module, one ``export const NAME = value;`` per rule, each value as JSON, which
the lab's scripts import (``import { ID_PATTERN } from "./rules.js"``). It is
made on every build, ``mkdocs serve`` and the downloadable copy alike, and is
never in ``docs/`` or in git; the precache manifest lists it as it lists every
file of the site. It is left as written, not minified (``minify.py`` takes the
files of ``docs/`` only): a few short lines with nothing to strip but the one
comment that says where they come from.

It also carries what starting Python downloads, in bytes, read from the
runtime's manifest (``runtime.json``, which ``runtime.py`` writes just before
from the vendored files' sizes): the status line says it, so the figure is
the build's own, never a number typed into a script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from lab.core.rules import FOR_THE_PAGE
from lesson_hooks.support.paths import LAB_DIR, RUNTIME_MANIFEST

#: Where the module is served from (beside labs.js, protocol.js and client.js).
RULES_MODULE = f"{LAB_DIR}/rules.js"
HEADER = (
    "// Made by the build (lesson_hooks/build/rules.py) from lab/core/rules.py "
    "(edit that) and the vendored runtime's sizes (runtime.json)."
)


def download_figures(manifest: Mapping[str, Any]) -> dict[str, int]:
    """What starting Python downloads, in bytes: everything (the runtime, the lab and
    the memory snapshot), and what a reader saving data downloads (no snapshot)."""
    without_snapshot = int(manifest["bytes"])
    snapshot = manifest.get("snapshot")
    return {
        "PYTHON_DOWNLOAD_BYTES": without_snapshot + (int(snapshot["size"]) if snapshot else 0),
        "PYTHON_DOWNLOAD_BYTES_SAVING_DATA": without_snapshot,
    }


def module_text(rules: Mapping[str, Any] = FOR_THE_PAGE) -> str:
    """The module's text: ``export const NAME = "value";`` per rule, in order."""
    lines = [HEADER]
    for name, value in rules.items():
        if not name.isidentifier():
            raise ValueError(f"lab.core.rules: {name!r} cannot name a JavaScript constant.")
        # JSON is a JavaScript expression; ensure_ascii keeps the file plain ASCII.
        lines.append(f"export const {name} = {json.dumps(value)};")
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if files.get_file_from_path(RULES_MODULE) is not None:
        raise PluginError(
            f"{Path(config.docs_dir) / RULES_MODULE} would hide the generated module: "
            "remove it and edit lab/core/rules.py instead."
        )
    runtime = files.get_file_from_path(RUNTIME_MANIFEST)
    if runtime is None:
        raise PluginError(f"{RUNTIME_MANIFEST} is missing: runtime.py's hook must run first.")
    figures = download_figures(json.loads(runtime.content_string))
    files.append(
        File.generated(config, RULES_MODULE, content=module_text({**FOR_THE_PAGE, **figures}))
    )
    return files
