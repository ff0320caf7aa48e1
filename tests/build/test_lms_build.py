"""Outside the SCORM package nothing of it is shipped, and no page looks for an LMS."""

from __future__ import annotations

from lesson_hooks.build.scorm import LAUNCH, MANIFEST
from lesson_hooks.support.paths import LMS_DIR
from tests.conftest import BuiltSite


def test_the_hosted_site_ships_no_lms_adapter_and_no_page_loads_one(site: BuiltSite) -> None:
    assert not (site.dir / LMS_DIR).exists()
    assert not (site.dir / LAUNCH).exists()
    assert not (site.dir / MANIFEST).exists()
    loading = [
        page.relative_to(site.dir).as_posix()
        for page in site.dir.rglob("*.html")
        if LMS_DIR in page.read_text(encoding="utf-8")
    ]
    assert loading == []
