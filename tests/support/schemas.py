"""The LMS formats' own schemas, vendored in tests/schemas/ (their sources in its README.md).

A SCORM 1.2 manifest mixes namespaces (IMS CP and ADL's ``adlcp``), and
libxml2 compiles one schema at a time, so :func:`manifest_errors` compiles a
small driver that imports both from the vendored files.
"""

from __future__ import annotations

import functools

from lxml import etree

from lesson_hooks.support.content_package import ADLCP, IMSCP
from tests.conftest import ROOT

SCHEMAS = ROOT / "tests" / "schemas"
SCORM12 = SCHEMAS / "scorm12"
QTI12_DTD = SCHEMAS / "qti12" / "ims_qtiasiv1p2p1.dtd"


@functools.cache
def _scorm12() -> etree.XMLSchema:
    imports = "".join(
        f'<xsd:import namespace="{namespace}" schemaLocation="{(SCORM12 / name).as_uri()}"/>'
        for namespace, name in ((IMSCP, "imscp_rootv1p1p2.xsd"), (ADLCP, "adlcp_rootv1p2.xsd"))
    )
    driver = f'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">{imports}</xsd:schema>'
    return etree.XMLSchema(etree.fromstring(driver.encode()))


def manifest_errors(manifest: bytes) -> list[str]:
    """What SCORM 1.2's schemas find wrong in an ``imsmanifest.xml`` (none when valid)."""
    schema = _scorm12()
    schema.validate(etree.fromstring(manifest))
    return [f"line {e.line}: {e.message}" for e in schema.error_log]


def qti_errors(document: bytes) -> list[str]:
    """What QTI 1.2.1's DTD finds wrong in a ``questestinterop`` document (none when valid)."""
    dtd = etree.DTD(str(QTI12_DTD))
    dtd.validate(etree.fromstring(document))
    return [f"line {e.line}: {e.message}" for e in dtd.error_log]
