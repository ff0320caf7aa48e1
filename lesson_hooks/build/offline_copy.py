"""The downloadable copy: a build that also works opened from disk (``file://``).

``./dev zip`` builds with ``OFFLINE=true``, which turns on Material's
``offline`` plugin (relative ``.html`` links, the search index inlined in a
script). That plugin adds the ``iframe-worker`` shim (search runs in a Worker,
which browsers refuse on ``file://``) from the unpkg CDN; this hook vendors the
locked npm copy instead, so no request leaves the page's origin.

Browsers also refuse ES modules on ``file://``. In this build the site's module
scripts get an inert type, and the classic ``assets/offline/disk.js`` starts
them when the copy is served over http, or, from disk, tells each lab the one
command that serves the folder. Other builds do not ship ``disk.js``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from lesson_hooks.support.paths import IFRAME_WORKER_DIR, NODE_IFRAME_WORKER, PACKAGE_LOCK

SHIM_SOURCE = "shim/index.js"
SHIM_DEST = f"{IFRAME_WORKER_DIR}/shim.js"
LICENSE_DEST = f"{IFRAME_WORKER_DIR}/LICENSE"
DISK_SCRIPT = "assets/offline/disk.js"
# Must match INERT_TYPE in DISK_SCRIPT. Browsers neither fetch nor run it.
INERT_MODULE_TYPE = "lesson/module"
# Material writes each inert module as <script src="…" type="lesson/module">; HTML
# forbids ``src`` on a script that is not JavaScript (a data block), so the copy
# names the module in ``data-src`` instead, which DISK_SCRIPT reads.
_INERT_SCRIPT = re.compile(rf'<script src="([^"]*)" type="{re.escape(INERT_MODULE_TYPE)}">')


def copy_for_disk(config: MkDocsConfig) -> bool:
    """True when Material's offline plugin is on (``OFFLINE=true``)."""
    offline = config.plugins.get("material/offline")
    return bool(offline and offline.config.enabled)


def check_iframe_worker(package: Path = NODE_IFRAME_WORKER, lock: Path = PACKAGE_LOCK) -> str:
    """Fail with a clear message unless node_modules holds the locked iframe-worker."""
    try:
        packages = json.loads(lock.read_text(encoding="utf-8"))["packages"]
        locked = packages["node_modules/iframe-worker"]["version"]
    except (OSError, KeyError, ValueError) as err:
        raise PluginError(f"{lock}: cannot read the locked iframe-worker version ({err}).") from err
    manifest = package / "package.json"
    installed = None
    if manifest.is_file():
        installed = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    if installed != locked or not (package / SHIM_SOURCE).is_file():
        raise PluginError(
            f"The downloadable copy needs iframe-worker {locked} in {package} "
            f"(found {installed or 'nothing'}). Run `npm ci`."
        )
    return locked


# Before Material's offline plugin, which adds the unpkg CDN's shim unless one is listed.
@event_priority(100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if not copy_for_disk(config):
        return config
    check_iframe_worker()
    config.extra.setdefault("polyfills", []).append(SHIM_DEST)
    for script in config.extra_javascript:
        # A bare "x.mjs" entry is already a module entry by now.
        if not isinstance(script, str) and script.type == "module":
            script.type = INERT_MODULE_TYPE
    config.extra_javascript.append(DISK_SCRIPT)
    return config


def inert_scripts(html: str) -> str:
    """Each inert module's ``src`` moved to ``data-src``: a valid data block, still named."""
    return _INERT_SCRIPT.sub(rf'<script type="{INERT_MODULE_TYPE}" data-src="\1">', html)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    return inert_scripts(output) if copy_for_disk(config) else output


def on_post_template(output_content: str, template_name: str, config: MkDocsConfig) -> str:
    # The theme's own pages (404.html) carry the same scripts.
    return inert_scripts(output_content) if copy_for_disk(config) else output_content


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if not copy_for_disk(config):
        script = files.get_file_from_path(DISK_SCRIPT)
        if script is not None:
            files.remove(script)
        return files
    remote = [url for url in config.extra.get("polyfills", []) if "//" in str(url)]
    if remote:
        raise PluginError(
            f"extra.polyfills would load {', '.join(map(str, remote))} from "
            "another origin; vendor it instead."
        )
    files.append(
        File.generated(config, SHIM_DEST, abs_src_path=str(NODE_IFRAME_WORKER / SHIM_SOURCE))
    )
    files.append(
        File.generated(config, LICENSE_DEST, abs_src_path=str(NODE_IFRAME_WORKER / "LICENSE"))
    )
    return files
