"""The SCORM 1.2 package: the downloadable copy with a launch page and a manifest.

``./dev scorm`` builds with ``OFFLINE=true`` (the copy whose pages are plain
``.html`` files, which an LMS serves from any folder) and ``SCORM=true``
(``extra.scorm`` in ``mkdocs.yml``), which turns this hook on:

- ``scorm.html``, the launch page, becomes part of the site. It is the
  package's one SCO: it finds the LMS's SCORM 1.2 API, opens the site in a
  frame, and reports the student's learner record to the LMS
  (``docs/assets/lms/scorm.js`` says how). Outside an LMS it opens
  ``index.html`` in its place.
- ``imsmanifest.xml`` is written last, naming every file of the site, with
  one organization of one item: the whole site is one SCO. Its pages link to
  one another and each link loads a new page, so a SCO per page would have a
  student's own click start a new session under the wrong item; and one SCO
  gives the LMS one score, the course's, in one gradebook column.

Other builds leave ``docs/assets/lms/`` out: no page of the site loads it.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from lab.core.record import SITE
from lesson_hooks.support.content_package import Resource, Sco, manifest
from lesson_hooks.support.paths import LMS_DIR, RECORD_DIR

LAUNCH = "scorm.html"
MANIFEST = "imsmanifest.xml"
IDENTIFIER = SITE  # the site's name, as the learner record's


def scorm_build(config: MkDocsConfig) -> bool:
    """True when the build makes the SCORM package (``SCORM=true``)."""
    return config.extra.get("scorm") is True


def launch_page(title: str) -> str:
    """The SCO's page: the record's reader, the adapter, and the frame the site opens in."""
    name = escape(title)
    scripts = "\n".join(
        f'<script src="{src}" defer></script>'
        for src in (f"{RECORD_DIR}/format.js", f"{RECORD_DIR}/record.js", f"{LMS_DIR}/scorm.js")
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{name}</title>
<link rel="stylesheet" href="{LMS_DIR}/scorm.css">
{scripts}
</head>
<body>
<p class="lms-note" data-lms-note><a href="index.html">Open {name}</a></p>
<iframe class="lms-frame" title="{name}" data-lms-frame hidden></iframe>
</body>
</html>
"""


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if not scorm_build(config):
        for file in [f for f in files if f.src_uri.startswith(f"{LMS_DIR}/")]:
            files.remove(file)
        return files
    if config.use_directory_urls:
        raise PluginError(
            "SCORM=true builds the SCORM package from the downloadable copy: "
            "set OFFLINE=true too (./dev scorm does)."
        )
    files.append(File.generated(config, LAUNCH, content=launch_page(config.site_name)))
    return files


def package_manifest(site_dir: Path, title: str) -> bytes:
    """The manifest of the package in ``site_dir``: one SCO, every file listed."""
    files = sorted(
        path.relative_to(site_dir).as_posix()
        for path in site_dir.rglob("*")
        if path.is_file() and path.name != MANIFEST
    )
    resource = Resource(f"{IDENTIFIER}-site", "webcontent", files, href=LAUNCH, scormtype="sco")
    return manifest(
        IDENTIFIER, title, [resource], Sco(f"{IDENTIFIER}-item", title, resource.identifier)
    )


# Last: the offline plugin (-100) and the precache hook (-200) write files after the default.
@event_priority(-300)
def on_post_build(config: MkDocsConfig) -> None:
    if scorm_build(config):
        site_dir = Path(config.site_dir)
        (site_dir / MANIFEST).write_bytes(package_manifest(site_dir, config.site_name))
