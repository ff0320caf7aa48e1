"""The SCORM package's manifest and launch page, as lesson_hooks/build/scorm.py writes them."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from lesson_hooks.build.scorm import LAUNCH, MANIFEST, launch_page, package_manifest
from tests.support.schemas import manifest_errors

CP = {"cp": "http://www.imsproject.org/xsd/imscp_rootv1p1p2"}


def test_the_manifest_is_valid_scorm_12_with_one_sco_naming_every_file(tmp_path: Path) -> None:
    for name in (LAUNCH, "index.html", "assets/lab/lab.css", "lesson.html", MANIFEST):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")
    manifest = package_manifest(tmp_path, "Title & more")
    assert manifest_errors(manifest) == []
    root = etree.fromstring(manifest)
    assert root.xpath("string(cp:metadata/cp:schema)", namespaces=CP) == "ADL SCORM"
    assert root.xpath("string(//cp:organization/cp:title)", namespaces=CP) == "Title & more"
    (item,) = root.xpath("//cp:item", namespaces=CP)
    (resource,) = root.xpath("//cp:resource", namespaces=CP)
    assert item.get("identifierref") == resource.get("identifier")
    assert resource.get("{http://www.adlnet.org/xsd/adlcp_rootv1p2}scormtype") == "sco"
    assert resource.get("href") == LAUNCH
    assert resource.xpath("cp:file/@href", namespaces=CP) == [
        "assets/lab/lab.css",
        "index.html",
        "lesson.html",
        LAUNCH,
    ]


def test_the_launch_page_names_the_site_as_text_and_loads_no_inline_script() -> None:
    page = launch_page("A <b> & C")
    assert "<title>A &lt;b&gt; &amp; C</title>" in page
    assert "<script>" not in page
    assert page.count("<script src=") == 3
