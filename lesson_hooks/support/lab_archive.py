"""The lab archive: ``lab/``'s sources zipped under a content-hashed name, with a README.

The worker unpacks it (:mod:`lesson_hooks.build.runtime` ships it), and the
run-style labs offer the same file as "Download the lab (zip)"
(:mod:`lesson_hooks.fences.settings`), so a reader runs the very Python the page
ran. A plain module, not a hook, so that the fences may import it.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lesson_hooks.support.paths import LAB_PACKAGE

__all__ = ["ARCHIVE_README", "LabArchive", "build_lab_archive"]

# Fixed zip timestamps keep the archive (and its hashed name) reproducible.
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class LabArchive:
    name: str
    content: bytes


#: The README at the top of the lab archive, which readers also download (Download the lab).
ARCHIVE_README = """\
The Python of the lesson "LLMs as Cooperative Agents": the same files the page
runs in your browser (Pyodide), for CPython 3.11 or newer, standard library only.

Unpack this zip, open a terminal in the folder that holds lab/, and run

    python3 -m lab run simulation settings.json
    python3 -m lab run language-models settings.json

settings.json holds a JSON object of the lab's settings (the lab's Reproduce
saves it for a run; {} is every default), for example

    {"table": "penalty", "penalty_k": -100, "seeds": 20}

The result is printed as JSON, the same numbers the page computed. Bad settings
print the lab's reason for each on standard error and exit with status 2.
"""


def build_lab_archive(package: Path = LAB_PACKAGE) -> LabArchive:
    """Zip ``lab``'s sources and :data:`ARCHIVE_README` under a content-hashed name."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        readme = zipfile.ZipInfo("README.txt", date_time=_ZIP_EPOCH)
        readme.compress_type = zipfile.ZIP_DEFLATED
        readme.external_attr = 0o644 << 16
        archive.writestr(readme, ARCHIVE_README)
        for path in sorted(package.rglob("*.py")):
            relative = path.relative_to(package.parent).as_posix()
            info = zipfile.ZipInfo(relative, date_time=_ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    content = buffer.getvalue()
    digest = hashlib.sha256(content).hexdigest()[:12]
    return LabArchive(name=f"lab-{digest}.zip", content=content)
