"""lab.core.markup: text cannot reach markup unescaped."""

from __future__ import annotations

from lab.core.markup import Markup, attrs, el, escape, join, trusted, void


def test_text_children_and_attribute_values_are_escaped() -> None:
    out = el("td", {"data-x": 'a"b'}, "<0.001", 3, None, class_="n")
    assert out == '<td data-x="a&quot;b" class="n">&lt;0.0013</td>'
    assert isinstance(out, Markup)


def test_markup_is_kept_and_nests_once() -> None:
    inner = el("code", {}, "<b>")
    assert el("p", {}, "x ", inner) == "<p>x <code>&lt;b&gt;</code></p>"
    assert escape(inner) is inner


def test_adding_text_to_markup_escapes_the_text() -> None:
    assert el("b", {}) + "<i>" == "<b></b>&lt;i&gt;"
    assert "<i>" + el("b", {}) == "&lt;i&gt;<b></b>"


def test_booleans_and_none_in_attributes() -> None:
    assert attrs({"hidden": True, "open": False, "id": None}) == " hidden"
    assert void("input", {"type": "checkbox", "checked": True}) == '<input type="checkbox" checked>'


def test_join_and_trusted() -> None:
    assert join(["a<", el("br", {})], ", ") == "a&lt;, <br></br>"
    assert trusted("<span>ok</span>") == "<span>ok</span>"
