"""The IMS content package manifest (``imsmanifest.xml``) an LMS reads from a zip.

One writer for both packages the site makes for an LMS: the SCORM 1.2 package
(``./dev scorm``: one organization, one SCO, every file of the site listed) and
the QTI 1.2 quiz package (``./dev quiz-export``: one resource per quiz, no
organization). Both use IMS CP 1.1.2 as SCORM 1.2 binds it, so one set of
schemas checks both (``tests/schemas/scorm12/``). The XML is made by
ElementTree, which escapes text and attributes by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.etree import ElementTree as ET

__all__ = ["ADLCP", "IMSCP", "Resource", "Sco", "manifest"]

IMSCP = "http://www.imsproject.org/xsd/imscp_rootv1p1p2"
ADLCP = "http://www.adlnet.org/xsd/adlcp_rootv1p2"
_XSI = "http://www.w3.org/2001/XMLSchema-instance"
# Where a validator finds each namespace's schema: beside the manifest, as ADL's
# packages do (the LMS reads the manifest; none fetches these).
_SCHEMAS = f"{IMSCP} imscp_rootv1p1p2.xsd {ADLCP} adlcp_rootv1p2.xsd"


@dataclass(frozen=True)
class Resource:
    """A resource: its ``type`` (``webcontent``, ``imsqti_xmlv1p2``), files, and start."""

    identifier: str
    type: str
    files: Sequence[str]
    href: str | None = None
    #: SCORM 1.2's ``adlcp:scormtype``: ``sco`` (it talks to the LMS) or ``asset``.
    scormtype: str | None = None


@dataclass(frozen=True)
class Sco:
    """The organization's one item: what the LMS lists and launches (the resource it names)."""

    identifier: str
    title: str
    resource: str


def _q(namespace: str, name: str) -> str:
    return f"{{{namespace}}}{name}"


def manifest(
    identifier: str, title: str, resources: Sequence[Resource], sco: Sco | None = None
) -> bytes:
    """The manifest's bytes: SCORM 1.2's metadata, the organization (if ``sco``), the resources."""
    ET.register_namespace("", IMSCP)
    ET.register_namespace("adlcp", ADLCP)
    ET.register_namespace("xsi", _XSI)
    root = ET.Element(
        _q(IMSCP, "manifest"),
        {"identifier": identifier, "version": "1", _q(_XSI, "schemaLocation"): _SCHEMAS},
    )
    # A SCORM package says so; a plain content package (the quizzes) is IMS Content.
    schema, version = ("ADL SCORM", "1.2") if sco else ("IMS Content", "1.1.2")
    metadata = ET.SubElement(root, _q(IMSCP, "metadata"))
    ET.SubElement(metadata, _q(IMSCP, "schema")).text = schema
    ET.SubElement(metadata, _q(IMSCP, "schemaversion")).text = version
    organizations = ET.SubElement(root, _q(IMSCP, "organizations"))
    if sco is not None:
        organizations.set("default", f"{identifier}-org")
        organization = ET.SubElement(
            organizations, _q(IMSCP, "organization"), {"identifier": f"{identifier}-org"}
        )
        ET.SubElement(organization, _q(IMSCP, "title")).text = title
        item = ET.SubElement(
            organization,
            _q(IMSCP, "item"),
            {"identifier": sco.identifier, "identifierref": sco.resource, "isvisible": "true"},
        )
        ET.SubElement(item, _q(IMSCP, "title")).text = sco.title
    container = ET.SubElement(root, _q(IMSCP, "resources"))
    for resource in resources:
        attributes = {"identifier": resource.identifier, "type": resource.type}
        if resource.scormtype:
            attributes[_q(ADLCP, "scormtype")] = resource.scormtype
        if resource.href:
            attributes["href"] = resource.href
        element = ET.SubElement(container, _q(IMSCP, "resource"), attributes)
        for href in resource.files:
            ET.SubElement(element, _q(IMSCP, "file"), {"href": href})
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
